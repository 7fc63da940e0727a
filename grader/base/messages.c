/* The grader's sentences in the report's language (messages.h). */
#include "base/messages.h"

#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void messages_init(struct messages *m)
{
    memset(m, 0, sizeof(*m));
}

void messages_release(struct messages *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->entries[i].id);
        free(m->entries[i].text);
    }
    free(m->entries);
    messages_init(m);
}

/* Canonical argument list of a format: "s,d,ld,f" (floating conversions all read a double;
 * '*' widths and precisions read an int). NULL for a format the loader should refuse. */
static char *signature(const char *fmt)
{
    struct strbuf sb = STRBUF_INIT;
    const char *p = fmt;
    while (p && *p) {
        const char *pct = strchr(p, '%');
        if (!pct)
            break;
        if (pct[1] == '%') {
            p = pct + 2;
            continue;
        }
        const char *s = pct + 1;
        s += strspn(s, "-+ #0'");
        if (*s == '*') {
            strbuf_addstr(&sb, "i,");
            s++;
        } else {
            s += strspn(s, "0123456789");
        }
        if (*s == '.') {
            s++;
            if (*s == '*') {
                strbuf_addstr(&sb, "i,");
                s++;
            } else {
                s += strspn(s, "0123456789");
            }
        }
        size_t len = strspn(s, "hlLqjzt");
        char conv = s[len];
        if (len > 2 || !conv || !strchr("diouxXeEfFgGaAcspn", conv) || conv == 'n') {
            strbuf_release(&sb);
            return NULL;
        }
        if (strchr("eEfFgGaA", conv) && len == 0)
            strbuf_addstr(&sb, "f,");
        else if (strchr("diouxXc", conv))
            strbuf_addf(&sb, "%.*s%c,", (int)len, s,
                        strchr("di", conv) ? 'd'
                        : conv == 'c'      ? 'd'
                                           : 'u');
        else
            strbuf_addf(&sb, "%.*s%c,", (int)len, s, conv);
        p = s + len + 1;
    }
    return strbuf_detach(&sb);
}

int messages_same_conversions(const char *a, const char *b)
{
    char *sa = signature(a), *sb = signature(b);
    int same = sa && sb && !strcmp(sa, sb);
    free(sa);
    free(sb);
    return same;
}

/* A C-quoted string at *p (after spaces); appended to out. -1 on a malformed one. */
static int parse_quoted(const char **p, struct strbuf *out)
{
    const char *s = *p + strspn(*p, " \t");
    if (*s != '"')
        return -1;
    for (s++; *s && *s != '"'; s++) {
        if (*s != '\\') {
            strbuf_addch(out, *s);
            continue;
        }
        s++;
        switch (*s) {
        case 'n':
            strbuf_addch(out, '\n');
            break;
        case 't':
            strbuf_addch(out, '\t');
            break;
        case '"':
            strbuf_addch(out, '"');
            break;
        case '\\':
            strbuf_addch(out, '\\');
            break;
        default:
            return -1;
        }
    }
    if (*s != '"')
        return -1;
    s++;
    s += strspn(s, " \t\r");
    if (*s && *s != '\n')
        return -1;
    *p = s;
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct msg_entry *)a)->id, ((const struct msg_entry *)b)->id);
}

/* Reading a PO file line by line: the entry being read and where its parts began. */
struct po_reader {
    const char *path;
    struct error *err;
    struct messages *out;
    struct strbuf id, str;
    enum { PO_NONE, PO_IN_ID, PO_IN_STR } state;
    int id_line, str_line, line_no;
};

/* The entry read so far is complete: kept, unless it is the header (an empty msgid). */
static int po_end_entry(struct po_reader *r)
{
    if (r->str.len > 0 && r->id.len > 0) {
        if (!messages_same_conversions(strbuf_str(&r->id), strbuf_str(&r->str)))
            return error_set_at(r->err, r->path, r->str_line, 1,
                                "the translation does not take the same printf arguments, in "
                                "the same order, as its msgid (line %d): keep every %%s, %%d, "
                                "%%.1f... of the English text, in order",
                                r->id_line);
        ALLOC_GROW(r->out->entries, r->out->n + 1, r->out->alloc);
        r->out->entries[r->out->n].id = strbuf_detach(&r->id);
        r->out->entries[r->out->n].text = strbuf_detach(&r->str);
        r->out->n++;
    }
    strbuf_reset(&r->id);
    strbuf_reset(&r->str);
    r->state = PO_NONE;
    return 0;
}

/* A line that is neither blank nor a comment, s past its indentation. */
static int po_line(struct po_reader *r, const char *s)
{
    struct strbuf *into;
    if (!strncmp(s, "msgid ", 6)) {
        if (r->state != PO_NONE)
            return error_set_at(r->err, r->path, r->line_no, 1, "msgid without a msgstr before it");
        s += 6;
        r->state = PO_IN_ID;
        r->id_line = r->line_no;
        into = &r->id;
    } else if (!strncmp(s, "msgstr ", 7)) {
        if (r->state != PO_IN_ID)
            return error_set_at(r->err, r->path, r->line_no, 1, "msgstr without a msgid before it");
        s += 7;
        r->state = PO_IN_STR;
        r->str_line = r->line_no;
        into = &r->str;
    } else if (*s == '"' && r->state != PO_NONE) {
        into = r->state == PO_IN_ID ? &r->id : &r->str;
    } else {
        return error_set_at(r->err, r->path, r->line_no, 1,
                            "expected msgid \"...\", msgstr \"...\", a continued \"...\" "
                            "string, a # comment or a blank line");
    }
    if (parse_quoted(&s, into) != 0)
        return error_set_at(r->err, r->path, r->line_no, 1,
                            "expected one double-quoted string (escapes: \\\" \\\\ \\n \\t)");
    return 0;
}

/* Every line of text, then the end of the file (p NULL or at the terminator). */
static int po_read(struct po_reader *r, const char *p)
{
    for (;;) {
        const char *nl = p ? strchr(p, '\n') : NULL;
        bool end = !p || !*p;
        r->line_no++;
        const char *s = end ? "" : p + strspn(p, " \t\r");
        bool blank = end || *s == '\n' || *s == '\0' || *s == '#';
        /* An entry ends at a blank line, a new msgid, or the end of the file. */
        if (r->state == PO_IN_STR && (blank || !strncmp(s, "msgid ", 6))) {
            if (po_end_entry(r) != 0)
                return -1;
        } else if (r->state == PO_IN_ID && blank) {
            return error_set_at(r->err, r->path, r->id_line, 1, "msgid without a msgstr");
        }
        if (end)
            return 0;
        if (!blank && po_line(r, s) != 0)
            return -1;
        p = nl ? nl + 1 : NULL;
    }
}

int messages_load(struct messages *m, const char *path, struct error *err)
{
    struct strbuf text = STRBUF_INIT;
    struct messages fresh;
    struct po_reader r = {.path = path, .err = err, .out = &fresh, .state = PO_NONE};
    int rc = -1;
    messages_init(&fresh);
    strbuf_init(&r.id);
    strbuf_init(&r.str);
    if (read_file(path, &text, err) != 0 || po_read(&r, text.buf) != 0)
        goto out;
    /* An empty catalog (comments only) has no array to sort: qsort wants a real one. */
    if (fresh.n > 0)
        qsort(fresh.entries, fresh.n, sizeof(*fresh.entries), cmp_entry);
    for (size_t i = 1; i < fresh.n; i++)
        if (!strcmp(fresh.entries[i - 1].id, fresh.entries[i].id)) {
            error_set_at(err, path, 0, 0, "msgid \"%.60s\" is translated twice",
                         fresh.entries[i].id);
            goto out;
        }
    messages_release(m);
    *m = fresh;
    messages_init(&fresh);
    rc = 0;
out:
    messages_release(&fresh);
    strbuf_release(&text);
    strbuf_release(&r.id);
    strbuf_release(&r.str);
    return rc;
}

const char *messages_get(const struct messages *m, const char *msgid)
{
    if (!m || !m->n)
        return msgid;
    struct msg_entry key = {(char *)msgid, NULL};
    const struct msg_entry *e = bsearch(&key, m->entries, m->n, sizeof(*m->entries), cmp_entry);
    return e ? e->text : msgid;
}

int messages_load_lang(struct messages *m, const char *templates_dir, const char *lang,
                       struct error *err)
{
    if (!templates_dir || !lang || !*lang || strchr(lang, '/'))
        return 0;
    char *path = xstrfmt("%s/%s/messages.po", templates_dir, lang);
    int rc = file_exists(path) ? messages_load(m, path, err) : 0;
    free(path);
    return rc;
}

/* What the GPU probe and the toolchain say when there is no GPU to run on (run/machine.c,
 * run/build.c, harness/harness_gpu.cu): written in English once per machine, before any
 * language is known, and cached for the boot. At most one %s each: the words of another
 * program (the CUDA runtime's error, a path), kept as they are. */
static const char *const machine_sentences[] = {
    "no usable CUDA device: %s",
    "no CUDA device found",
    "cannot create a CUDA context: %s",
    "the GPU probe failed: %s",
    "cannot run the GPU probe: %s",
    "GPU disabled by LABGRADER_NO_GPU=%s",
    "%s is missing: run 'make'",
    "no CUDA toolkit: nvcc not found in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH",
    "labgrader was built without CUDA (harness_gpu.o missing): run 'make clean all' with nvcc "
    "available",
};

/* The translation of msgid with its one %s replaced by arg (no printf: the catalog's text is
 * data, and its conversions were checked against msgid when it was loaded). */
static char *splice(const char *translated, const char *arg, size_t arg_len)
{
    const char *at = strstr(translated, "%s");
    struct strbuf sb = STRBUF_INIT;
    if (!at) {
        strbuf_addstr(&sb, translated);
        return strbuf_detach(&sb);
    }
    strbuf_add(&sb, translated, (size_t)(at - translated));
    strbuf_add(&sb, arg, arg_len);
    strbuf_addstr(&sb, at + 2);
    return strbuf_detach(&sb);
}

char *messages_machine(const struct messages *m, const char *text)
{
    size_t len = text ? strlen(text) : 0;
    for (size_t i = 0; text && i < sizeof(machine_sentences) / sizeof(*machine_sentences); i++) {
        const char *id = machine_sentences[i], *at = strstr(id, "%s");
        size_t head = at ? (size_t)(at - id) : strlen(id), tail = at ? strlen(at + 2) : 0;
        if (!at ? strcmp(text, id) != 0
                : len < head + tail || strncmp(text, id, head) || strcmp(text + len - tail, at + 2))
            continue;
        /* The argument may itself be one of them ("no usable CUDA device: the GPU probe
         * failed: ..."). */
        char *inner = at ? xstrndup(text + head, len - head - tail) : NULL;
        char *arg = inner ? messages_machine(m, inner) : NULL;
        char *out = splice(messages_get(m, id), arg ? arg : "", arg ? strlen(arg) : 0);
        free(inner);
        free(arg);
        return out;
    }
    return text ? xstrdup(text) : xstrdup("");
}
