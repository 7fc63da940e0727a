/*
 * phrases: templates/<lang>/strings.txt, the short phrases the report code
 * inserts itself (verdict names, plot labels and legends, cut marks).
 *
 * The file holds "key = text" lines ('#' starts a comment line); each text is
 * itself a template (template.h) with the variables templates/README.md lists.
 * struct strings owns its keys and parsed templates; strings_release() frees them.
 */
#ifndef LG_REPORT_PHRASES_H
#define LG_REPORT_PHRASES_H

#include "base/error.h"
#include "base/template.h"

#include <stdbool.h>
#include <stddef.h>

struct strings {
    char **keys;
    struct template *tpls;
    size_t n, alloc;
};

void strings_init(struct strings *s);
void strings_release(struct strings *s);
/* Adds the file's phrases; -1 with err at the file, line and column of a bad line. */
int strings_load(struct strings *s, const char *path, struct error *err);
/* The phrase for key (the last one when a key repeats); NULL when there is none. */
const struct template *strings_find(const struct strings *s, const char *key);

/*
 * The phrase `key` rendered with the given name/value pairs (strings,
 * NULL-terminated), escaped for Markdown when markdown is set, else plain text.
 * A missing key renders as the key itself, which shows the instructor what to
 * add. Caller frees.
 */
char *phrase(const struct strings *s, bool markdown, const char *key, ...)
    __attribute__((sentinel));

/* Whether lang can name a templates folder: 2 to 16 letters, '-' or '_'. */
bool report_lang_is_safe(const char *lang);

/* The escapers template rendering uses: Markdown text, and plain text. */
void md_escape(struct strbuf *out, const char *s);
void plain_escape(struct strbuf *out, const char *s);

#endif
