/* render: the analyze commands' pages from templates. See render.h. */
#include "analyze/render.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"

#include <string.h>

static void md_escape(struct strbuf *out, const char *s)
{
    esc_md_text(out, s, 0);
}

int analyze_render(const char *templates_dir, const char *lang, const char *name,
                   const struct tpl_value *ctx, bool html, struct strbuf *out, struct error *err)
{
    char *path = xstrfmt("%s/%s/%s", templates_dir, lang ? lang : "en", name);
    if (!file_exists(path)) {
        free(path);
        path = xstrfmt("%s/en/%s", templates_dir, name);
    }
    struct template t;
    template_init(&t);
    int rc = template_load(&t, path, err);
    if (rc == 0) {
        struct tpl_render_opts ro = {html ? esc_html : md_escape, true};
        rc = template_render(&t, ctx, &ro, out, err);
    }
    template_release(&t);
    free(path);
    return rc;
}

int analyze_write(const char *templates_dir, const char *lang, const char *name,
                  const struct tpl_value *ctx, bool html, const char *path, struct error *err)
{
    struct strbuf out = STRBUF_INIT;
    int rc = analyze_render(templates_dir, lang, name, ctx, html, &out, err);
    if (rc == 0)
        rc = write_file_atomic(path, strbuf_str(&out), out.len, err);
    strbuf_release(&out);
    return rc;
}
