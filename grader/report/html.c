/* html: what the HTML pages share (report/html.h): escaping, assets, the policy, writing. */
#include "report/html.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "report/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void html_url_segment(struct strbuf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("_.~-", *p)) {
            strbuf_addch(out, *p);
        } else {
            strbuf_addch(out, '%');
            strbuf_addch(out, hex[*p >> 4]);
            strbuf_addch(out, hex[*p & 15]);
        }
    }
}

/* ---- the policy: nothing from anywhere, the page's own style and script by hash ---- */

static void base64(const unsigned char *in, size_t n, struct strbuf *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        strbuf_addch(out, tab[v >> 18 & 63]);
        strbuf_addch(out, tab[v >> 12 & 63]);
        strbuf_addch(out, i + 1 < n ? tab[v >> 6 & 63] : '=');
        strbuf_addch(out, i + 2 < n ? tab[v & 63] : '=');
    }
}

void html_csp_hash(const char *text, size_t len, struct strbuf *out)
{
    struct sha256 h;
    char hex[65];
    unsigned char raw[32];
    sha256_init(&h);
    sha256_update(&h, text, len);
    sha256_final_hex(&h, hex);
    for (int i = 0; i < 32; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        raw[i] = (unsigned char)b;
    }
    strbuf_addstr(out, "'sha256-");
    base64(raw, sizeof(raw), out);
    strbuf_addch(out, '\'');
}

static void set_csp(struct tpl_value *ctx, const struct strbuf *style, const struct strbuf *script)
{
    struct strbuf csp = STRBUF_INIT;
    strbuf_addstr(&csp, "default-src 'none'; img-src data:; style-src ");
    html_csp_hash(strbuf_str(style), style->len, &csp);
    strbuf_addstr(&csp, "; script-src ");
    if (script)
        html_csp_hash(strbuf_str(script), script->len, &csp);
    else
        strbuf_addstr(&csp, "'none'");
    strbuf_addstr(&csp, "; base-uri 'none'; form-action 'none'");
    tpl_set_str(ctx, "csp", strbuf_str(&csp));
    strbuf_release(&csp);
}

static int read_asset(const struct report_ctx *rc, const char *name, struct strbuf *out,
                      struct error *err)
{
    char *dir = path_join(rc->o->templates_dir, "html");
    char *path = path_join(dir, name);
    int res = read_file(path, out, err);
    free(path);
    free(dir);
    return res;
}

/* style, script and csp into ctx. */
static int add_assets(const struct report_ctx *rc, struct tpl_value *ctx, bool script,
                      struct error *err)
{
    struct strbuf css = STRBUF_INIT, js = STRBUF_INIT;
    int res = read_asset(rc, "style.css", &css, err);
    if (res == 0 && script)
        res = read_asset(rc, "table.js", &js, err);
    if (res == 0) {
        tpl_set_md(ctx, "style", strbuf_str(&css));
        tpl_set_md(ctx, "script", strbuf_str(&js));
        set_csp(ctx, &css, script ? &js : NULL);
    }
    strbuf_release(&css);
    strbuf_release(&js);
    return res;
}

int html_write_page(const struct report_ctx *rc, const char *template_name, struct tpl_value *ctx,
                    bool script, const char *file, char *path, size_t size, struct error *err)
{
    char *tpath = path_join(rc->lang_dir, template_name);
    char *out_path = path_join(rc->outdir, file);
    struct template t;
    struct strbuf page = STRBUF_INIT;
    template_init(&t);
    snprintf(path, size, "%s", out_path);
    int res = add_assets(rc, ctx, script, err);
    if (res == 0)
        res = template_load(&t, tpath, err);
    if (res == 0) {
        /* A block's lines, escaped, are the inside of the template's <pre>. */
        struct tpl_render_opts ro = {esc_html, true};
        res = template_render_blocks(&t, ctx, &ro, esc_html, &page, err);
    }
    if (res == 0)
        res = write_file_atomic(out_path, strbuf_str(&page), page.len, err);
    template_release(&t);
    strbuf_release(&page);
    free(out_path);
    free(tpath);
    return res;
}
