/*
 * render: how the analyze commands' pages (similarity, mutation testing) are written: from
 * templates/<lang>/<name> (template.h), the words in the templates and in messages.po, the
 * data from the caller's context. Text from submissions is escaped for the page's format:
 * Markdown (escape.h) or HTML (escape.h's esc_html).
 */
#ifndef LG_RENDER_H
#define LG_RENDER_H

#include "base/error.h"
#include "base/strbuf.h"
#include "base/template.h"

#include <stdbool.h>

/* Render templates_dir/<lang>/<name> (templates_dir/en/<name> when the language has no such
 * file) with ctx; names in ctx must all exist. html: escape for HTML, else for Markdown. */
int analyze_render(const char *templates_dir, const char *lang, const char *name,
                   const struct tpl_value *ctx, bool html, struct strbuf *out, struct error *err);

/* Render and write atomically to dir/<file>. */
int analyze_write(const char *templates_dir, const char *lang, const char *name,
                  const struct tpl_value *ctx, bool html, const char *path, struct error *err);

#endif
