/*
 * messages: the grader's own sentences (verdict messages, findings, skip reasons) in the
 * report's language, from a catalog an instructor can edit without recompiling:
 * templates/<lang>/messages.po, a subset of gettext's PO format:
 *
 *     # a comment
 *     msgid "timed out after %.1f s (wall clock) %s of %s; ..."
 *     msgstr "tiempo agotado tras %.1f s (reloj de pared) %s de %s; ..."
 *
 * Strings are C-quoted (\" \\ \n \t), and may continue on following lines as further
 * quoted strings, which are joined. The English text in the code is the key (msgid); a
 * missing or empty msgstr leaves the English. A translation must have exactly the printf
 * conversions of its msgid, in the same order (the code passes the msgid's arguments):
 * the loader refuses one that does not, naming file:line, so a catalog can never make the
 * grader read an argument it was not given.
 *
 * struct messages owns its entries and strings; messages_release() frees them.
 */
#ifndef LG_MESSAGES_H
#define LG_MESSAGES_H

#include "base/error.h"

#include <stddef.h>

struct msg_entry {
    char *id;
    char *text;
};

struct messages {
    struct msg_entry *entries; /* sorted by id once loaded */
    size_t n, alloc;
};

void messages_init(struct messages *m);
void messages_release(struct messages *m);
/* Load a catalog (replacing what m held). -1 with err set (file:line: what is wrong). */
int messages_load(struct messages *m, const char *path, struct error *err);
/* The translation of msgid, or msgid itself (m may be NULL: English). The compiler checks
 * the arguments against msgid, and messages_load() the translation against msgid. */
const char *messages_get(const struct messages *m, const char *msgid)
    __attribute__((format_arg(2)));
/* Load templates_dir/<lang>/messages.po when there is one (none: English, m left empty).
 * -1 with err set when the catalog is broken: callers warn and go on in English. */
int messages_load_lang(struct messages *m, const char *templates_dir, const char *lang,
                       struct error *err);
/* A sentence the GPU probe or the toolchain wrote in English, before any language was known
 * (no usable CUDA device, no toolkit...), in m's language; the words of other programs inside
 * it (the CUDA runtime's error) are kept as they are; any other text is returned as it is.
 * Caller frees. */
char *messages_machine(const struct messages *m, const char *text);
/* Whether two printf formats take the same arguments (conversions, in order). */
int messages_same_conversions(const char *a, const char *b);

#endif
