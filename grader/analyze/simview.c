/* simview: shared code side by side. See simview.h. */
#include "analyze/simview.h"

#include "analyze/render.h"
#include "base/alloc.h"
#include "base/escape.h"

#include <string.h>

static const char *file_name(const struct simview_side *s, unsigned f)
{
    return s->files[f].name;
}

char *simview_where(const struct simview_side *s, const struct sim_span *sp)
{
    if (sp->first_line == sp->last_line)
        return xstrfmt("%s:%u", file_name(s, sp->file), sp->first_line);
    return xstrfmt("%s:%u-%u", file_name(s, sp->file), sp->first_line, sp->last_line);
}

/* Lines first..last of src. */
static void add_lines(struct strbuf *out, const char *src, unsigned first, unsigned last)
{
    unsigned line = 1;
    for (const char *p = src; *p && line <= last; p++) {
        if (line >= first)
            strbuf_addch(out, *p);
        if (*p == '\n')
            line++;
    }
}

/* s cut to SIMVIEW_WIDTH characters (not bytes: the code may hold accents), a '>' in the
 * last column when it was longer, so that the two sides stay line for line. */
static void cut_line(char *s)
{
    size_t n = 0;
    for (char *p = s; *p; p++) {
        if (((unsigned char)*p & 0xC0) == 0x80 || ++n < SIMVIEW_WIDTH)
            continue;
        size_t len = 1;
        while (((unsigned char)p[len] & 0xC0) == 0x80)
            len++;
        if (p[len]) {
            p[0] = '>';
            p[1] = '\0';
        }
        return;
    }
}

/* Text sanitized (escape.h) into lines, each cut to SIMVIEW_WIDTH, at most max_lines of them
 * and a last one saying how many more (caller frees the array and its one buffer, lines[0]). */
static char **text_lines(const char *text, size_t max_lines, size_t *n)
{
    struct strbuf wrapped = STRBUF_INIT;
    size_t cut = esc_code_wrap(&wrapped, text, 4096, max_lines);
    if (cut)
        strbuf_addf(&wrapped, "\n(+%zu)", cut);
    char *buf = strbuf_detach(&wrapped), **lines = NULL;
    *n = 0;
    for (char *p = buf; p;) {
        lines = xrealloc(lines, (*n + 1) * sizeof(*lines));
        lines[(*n)++] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    while (*n > 1 && !lines[*n - 1][0])
        (*n)--;
    for (size_t i = 0; i < *n; i++)
        cut_line(lines[i]);
    return lines;
}

/* A span's code as lines. */
static char **span_lines(const struct simview_side *s, const struct sim_span *sp, size_t *n)
{
    struct strbuf raw = STRBUF_INIT;
    const char *src = s->files[sp->file].source;
    add_lines(&raw, src ? src : "", sp->first_line, sp->last_line);
    char **lines = text_lines(strbuf_str(&raw), SIMVIEW_LINES, n);
    strbuf_release(&raw);
    return lines;
}

/* text, then spaces to SIMVIEW_WIDTH characters. */
static void column(struct strbuf *out, const char *text)
{
    size_t w = 0;
    for (const char *p = text; *p; p++)
        w += ((unsigned char)*p & 0xC0) != 0x80;
    strbuf_addstr(out, text);
    for (; w < SIMVIEW_WIDTH; w++)
        strbuf_addch(out, ' ');
}

void simview_md_pair(struct strbuf *out, const struct simview_side *a, const struct sim_span *sa,
                     const struct simview_side *b, const struct sim_span *sb)
{
    struct strbuf body = STRBUF_INIT;
    size_t na, nb, nha, nhb;
    char **la = span_lines(a, sa, &na), **lb = span_lines(b, sb, &nb);
    char *wa = simview_where(a, sa), *wb = simview_where(b, sb);
    char *ta = xstrfmt("%s: %s", a->who, wa), *tb = xstrfmt("%s: %s", b->who, wb);
    /* The heads hold submitted names: sanitized as the code is. */
    char **ha = text_lines(ta, 1, &nha), **hb = text_lines(tb, 1, &nhb);
    column(&body, ha[0]);
    strbuf_addf(&body, " | %s\n", hb[0]);
    for (size_t i = 0; i < na || i < nb; i++) {
        column(&body, i < na ? la[i] : "");
        strbuf_addf(&body, " | %s", i < nb ? lb[i] : "");
        strbuf_rtrim(&body);
        strbuf_addch(&body, '\n');
    }
    esc_md_fence(out, strbuf_str(&body), NULL);
    char **all[] = {la, lb, ha, hb};
    for (size_t i = 0; i < 4; i++) {
        free(all[i][0]);
        free(all[i]);
    }
    free(wa);
    free(wb);
    free(ta);
    free(tb);
    strbuf_release(&body);
}

/* A whole file as HTML lines, those inside one of the fragments on this side marked. */
static void html_file(struct strbuf *out, const char *src, const struct sim_frag *f, size_t n,
                      int side, unsigned file)
{
    unsigned line = 1;
    const char *start = src;
    strbuf_addstr(out, "<pre class=\"src\">");
    while (*start) {
        const char *nl = strchr(start, '\n');
        size_t len = nl ? (size_t)(nl - start) : strlen(start);
        int frag = -1;
        for (size_t i = 0; i < n && frag < 0; i++) {
            const struct sim_span *sp = side ? &f[i].b : &f[i].a;
            if (sp->file == file && line >= sp->first_line && line <= sp->last_line)
                frag = (int)i;
        }
        char *text = xstrndup(start, len);
        if (frag >= 0)
            strbuf_addf(out, "<span class=\"m m%d\" title=\"%d\">", frag % 6, frag + 1);
        strbuf_addf(out, "<span class=\"n\">%4u</span> ", line);
        esc_html(out, text);
        strbuf_addstr(out, frag >= 0 ? "</span>\n" : "\n");
        free(text);
        line++;
        start = nl ? nl + 1 : start + len;
    }
    strbuf_addstr(out, "</pre>");
}

void simview_html(struct tpl_value *m, const struct simview_side *a, const struct simview_side *b,
                  const struct sim_frag *f, size_t n)
{
    struct tpl_value *views = tpl_set_list(m, "views");
    for (size_t i = 0; i < n; i++) {
        unsigned fa = f[i].a.file, fb = f[i].b.file;
        bool seen = false;
        for (size_t g = 0; g < i && !seen; g++)
            seen = f[g].a.file == fa && f[g].b.file == fb;
        if (seen)
            continue;
        struct tpl_value *v = tpl_push_map(views);
        struct strbuf left = STRBUF_INIT, right = STRBUF_INIT;
        const char *sa = a->files[fa].source, *sb = b->files[fb].source;
        html_file(&left, sa ? sa : "", f, n, 0, fa);
        html_file(&right, sb ? sb : "", f, n, 1, fb);
        tpl_set_str(v, "file_a", file_name(a, fa));
        tpl_set_str(v, "file_b", file_name(b, fb));
        tpl_set_md(v, "left", strbuf_str(&left));
        tpl_set_md(v, "right", strbuf_str(&right));
        strbuf_release(&left);
        strbuf_release(&right);
    }
}
