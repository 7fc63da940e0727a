#include "report/phrases.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void strings_init(struct strings *s)
{
    memset(s, 0, sizeof(*s));
}

void strings_release(struct strings *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->keys[i]);
        template_release(&s->tpls[i]);
    }
    free(s->keys);
    free(s->tpls);
    strings_init(s);
}

static bool valid_key(const char *k)
{
    if (!*k)
        return false;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '.' || *k == '-'))
            return false;
    return true;
}

/* "key = text" lines; '#' starts a comment line; the text is itself a template. */
int strings_load(struct strings *s, const char *path, struct error *err)
{
    struct strbuf file = STRBUF_INIT;
    if (read_file(path, &file, err) != 0) {
        strbuf_release(&file);
        return -1;
    }
    int rc = -1, lineno = 0;
    for (char *line = file.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *p = line + strspn(line, " \t");
        size_t len = strlen(p);
        while (len && strchr(" \t\r", p[len - 1]))
            p[--len] = '\0';
        if (*p && *p != '#') {
            char *eq = strchr(p, '=');
            if (!eq) {
                error_set_at(err, path, lineno, 1, "expected 'key = text'");
                goto out;
            }
            char *key = p, *val = eq + 1;
            char *kend = eq;
            while (kend > key && strchr(" \t", kend[-1]))
                kend--;
            *kend = '\0';
            val += strspn(val, " \t");
            if (!valid_key(key)) {
                error_set_at(err, path, lineno, 1, "invalid key '%s'", key);
                goto out;
            }
            ALLOC_GROW(s->tpls, s->n + 1, s->alloc);
            s->keys = xrealloc(s->keys, s->alloc * sizeof(*s->keys));
            template_init(&s->tpls[s->n]);
            if (template_parse(&s->tpls[s->n], path, val, strlen(val), err) != 0) {
                /* The value's own position, moved to where it sits in the file. */
                err->col += (int)(val - line);
                err->line = lineno;
                goto out;
            }
            s->keys[s->n++] = xstrdup(key);
        }
        line = nl ? nl + 1 : NULL;
    }
    rc = 0;
out:
    strbuf_release(&file);
    return rc;
}

const struct template *strings_find(const struct strings *s, const char *key)
{
    for (size_t i = s->n; i-- > 0;)
        if (!strcmp(s->keys[i], key))
            return &s->tpls[i];
    return NULL;
}

void plain_escape(struct strbuf *out, const char *s)
{
    esc_sanitize(out, s);
}

void md_escape(struct strbuf *out, const char *s)
{
    esc_md_text(out, s, 0);
}

char *phrase(const struct strings *s, bool markdown, const char *key, ...)
{
    const struct template *t = strings_find(s, key);
    if (!t)
        return xstrdup(key);
    struct tpl_value *ctx = tpl_map();
    va_list ap;
    va_start(ap, key);
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
        const char *value = va_arg(ap, const char *);
        tpl_set_str(ctx, name, value);
    }
    va_end(ap);
    struct tpl_render_opts ro = {markdown ? md_escape : plain_escape, false};
    struct strbuf out = STRBUF_INIT;
    struct error err;
    error_init(&err);
    char *res;
    if (template_render(t, ctx, &ro, &out, &err) != 0) {
        res = xstrdup(key);
    } else {
        strbuf_rtrim(&out);
        res = xstrdup(strbuf_str(&out));
    }
    strbuf_release(&out);
    tpl_value_free(ctx);
    return res;
}

bool report_lang_is_safe(const char *lang)
{
    size_t n = strlen(lang);
    if (n < 2 || n > 16)
        return false;
    for (const char *p = lang; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_'))
            return false;
    return true;
}
