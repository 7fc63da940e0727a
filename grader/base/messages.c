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

int messages_load(struct messages *m, const char *path, struct error *err)
{
    struct strbuf text = STRBUF_INIT, id = STRBUF_INIT, str = STRBUF_INIT;
    struct messages fresh;
    enum { NONE, IN_ID, IN_STR } state = NONE;
    int id_line = 0, str_line = 0, line_no = 0, rc = -1;
    messages_init(&fresh);
    if (read_file(path, &text, err) != 0)
        return -1;
    const char *p = text.buf;
    for (;;) {
        const char *line = p;
        const char *nl = p ? strchr(p, '\n') : NULL;
        bool end = !p || !*p;
        line_no++;
        const char *s = end ? "" : line + strspn(line, " \t\r");
        bool blank = end || *s == '\n' || *s == '\0' || *s == '#';
        bool keyword = !end && (!strncmp(s, "msgid ", 6) || !strncmp(s, "msgstr ", 7));
        /* An entry ends at a blank line, a new msgid, or the end of the file. */
        if (state == IN_STR && (blank || (keyword && !strncmp(s, "msgid ", 6)))) {
            /* An empty msgid is a PO file's header entry: nothing to translate. */
            if (str.len > 0 && id.len > 0) {
                if (!messages_same_conversions(strbuf_str(&id), strbuf_str(&str))) {
                    error_set_at(err, path, str_line, 1,
                                 "the translation does not take the same printf arguments, in "
                                 "the same order, as its msgid (line %d): keep every %%s, %%d, "
                                 "%%.1f... of the English text, in order",
                                 id_line);
                    goto out;
                }
                ALLOC_GROW(fresh.entries, fresh.n + 1, fresh.alloc);
                fresh.entries[fresh.n].id = strbuf_detach(&id);
                fresh.entries[fresh.n].text = strbuf_detach(&str);
                fresh.n++;
            }
            strbuf_reset(&id);
            strbuf_reset(&str);
            state = NONE;
        } else if (state == IN_ID && blank) {
            error_set_at(err, path, id_line, 1, "msgid without a msgstr");
            goto out;
        }
        if (end)
            break;
        if (!blank) {
            if (!strncmp(s, "msgid ", 6)) {
                if (state != NONE) {
                    error_set_at(err, path, line_no, 1, "msgid without a msgstr before it");
                    goto out;
                }
                s += 6;
                state = IN_ID;
                id_line = line_no;
                if (parse_quoted(&s, &id) != 0)
                    goto bad_string;
            } else if (!strncmp(s, "msgstr ", 7)) {
                if (state != IN_ID) {
                    error_set_at(err, path, line_no, 1, "msgstr without a msgid before it");
                    goto out;
                }
                s += 7;
                state = IN_STR;
                str_line = line_no;
                if (parse_quoted(&s, &str) != 0)
                    goto bad_string;
            } else if (*s == '"' && state != NONE) {
                if (parse_quoted(&s, state == IN_ID ? &id : &str) != 0)
                    goto bad_string;
            } else {
                error_set_at(err, path, line_no, 1,
                             "expected msgid \"...\", msgstr \"...\", a continued \"...\" "
                             "string, a # comment or a blank line");
                goto out;
            }
        }
        p = nl ? nl + 1 : NULL;
        continue;
    bad_string:
        error_set_at(err, path, line_no, 1,
                     "expected one double-quoted string (escapes: \\\" \\\\ \\n \\t)");
        goto out;
    }
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
    strbuf_release(&id);
    strbuf_release(&str);
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
