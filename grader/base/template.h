/*
 * template: a small logic-less template language (a Mustache subset) and the
 * context tree it renders, so that instructors change the wording and layout of
 * reports without recompiling. templates/README.md is the user's guide.
 *
 *   {{name}}            the value, escaped by the render options' escape function
 *                       unless the value was made with tpl_markdown() (already safe);
 *                       a tpl_block() value by the render's block function
 *                       (template_render_blocks), so that one context renders as
 *                       Markdown and as HTML alike
 *   {{{name}}} {{&name}} the value as is, never escaped
 *   {{#name}}...{{/name}} a list: once per item, the item on top of the context;
 *                       a map: once, with the map on top; any other value: once
 *                       when truthy (true, non-zero, non-empty string or list)
 *   {{^name}}...{{/name}} once when name is falsy or missing
 *   {{! comment }}      nothing (may span lines)
 *   a.b.c               dotted names: a is looked up from the innermost context
 *                       outwards, then b and c inside it; "." is the current item
 *   @index @first @last in a list section: 1-based position, first/last item
 * A section, inverted-section or comment tag alone on its line (only spaces
 * around it) takes the whole line with it, so tags can sit on lines of their own.
 *
 * Parse errors and render errors (a name that does not exist, in strict mode;
 * a list or map inserted as text) carry the template's name, line and column.
 *
 * A struct tpl_value owns its children; tpl_value_free() frees the tree.
 * A struct template owns its parsed form; template_release() frees it.
 */
#ifndef LG_TEMPLATE_H
#define LG_TEMPLATE_H

#include "base/error.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum tpl_type { TPL_STRING, TPL_NUMBER, TPL_BOOL, TPL_LIST, TPL_MAP };

struct tpl_value;

struct tpl_value *tpl_string(const char *s);   /* text: escaped when inserted; NULL is "" */
struct tpl_value *tpl_markdown(const char *s); /* already safe output: inserted as is */
/* Several lines of untrusted text (compiler or program output), already cut to length: the
 * render's block function makes it a fenced code block or a <pre>'s inside; escaped as text
 * where the render has none. */
struct tpl_value *tpl_block(const char *s);
struct tpl_value *tpl_number(double x);
struct tpl_value *tpl_bool(bool b);
struct tpl_value *tpl_list(void);
struct tpl_value *tpl_map(void);
void tpl_value_free(struct tpl_value *v);

enum tpl_type tpl_type_of(const struct tpl_value *v);
size_t tpl_list_len(const struct tpl_value *list);

/* Put v under key (replacing an older value) / append v; both take ownership, return v. */
struct tpl_value *tpl_set(struct tpl_value *map, const char *key, struct tpl_value *v);
struct tpl_value *tpl_push(struct tpl_value *list, struct tpl_value *v);

/* Shorthands for tpl_set. */
void tpl_set_str(struct tpl_value *map, const char *key, const char *s);
void tpl_set_md(struct tpl_value *map, const char *key, const char *s);
void tpl_set_block(struct tpl_value *map, const char *key, const char *s);
void tpl_set_mdf(struct tpl_value *map, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tpl_set_num(struct tpl_value *map, const char *key, double x);
void tpl_set_bool(struct tpl_value *map, const char *key, bool b);
struct tpl_value *tpl_set_map(struct tpl_value *map, const char *key);  /* new empty map */
struct tpl_value *tpl_set_list(struct tpl_value *map, const char *key); /* new empty list */
struct tpl_value *tpl_push_map(struct tpl_value *list);                 /* new empty map */

/* A dotted name inside v (no context stack); NULL when absent. */
const struct tpl_value *tpl_get(const struct tpl_value *v, const char *dotted);
/* The text of a string value; NULL for other types. */
const char *tpl_str(const struct tpl_value *v);

struct tpl_node;

struct template
{
    char *name; /* for error messages: the file name */
    struct tpl_node *root;
};

typedef void (*tpl_escape_fn)(struct strbuf *out, const char *s);

struct tpl_render_opts {
    tpl_escape_fn escape; /* for {{name}} of text values; NULL: inserted as is */
    bool strict;          /* a name found nowhere is an error, not an empty value */
};

void template_init(struct template *t);
void template_release(struct template *t);
int template_parse(struct template *t, const char *name, const char *text, size_t len,
                   struct error *err);
int template_load(struct template *t, const char *path, struct error *err);
/* Appends to out; on error out may hold part of the output. */
int template_render(const struct template *t, const struct tpl_value *ctx,
                    const struct tpl_render_opts *o, struct strbuf *out, struct error *err);
/* template_render, with block (may be NULL) inserting the tpl_block() values. */
int template_render_blocks(const struct template *t, const struct tpl_value *ctx,
                           const struct tpl_render_opts *o, tpl_escape_fn block, struct strbuf *out,
                           struct error *err);
/* Parse and render in one step. */
int template_render_text(const char *name, const char *text, const struct tpl_value *ctx,
                         const struct tpl_render_opts *o, struct strbuf *out, struct error *err);

#endif
