/*
 * names: what collecting submissions does with the names it finds in them.
 * File names are untrusted text: control characters are detected and shown
 * escaped; LMS leftovers ("__MACOSX", ".DS_Store", ".git") are recognised;
 * archive suffixes are measured; ids are made safe as one path component;
 * person names are reduced to keys that survive every LMS's mangling
 * (accents folded, case and punctuation dropped).
 *
 * struct name_list owns its strings (name_list_release frees them). Functions
 * returning char * return a new string the caller frees.
 */
#ifndef LG_NAMES_H
#define LG_NAMES_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct name_list {
    char **v;
    size_t n, alloc;
};

void name_list_add(struct name_list *l, char *owned);
void name_list_sort(struct name_list *l);
void name_list_release(struct name_list *l);

/* C0 controls, DEL and C1 controls (U+0080..U+009F): what can move a terminal's
 * cursor or hide in a file name. */
bool has_control_chars(const char *s);
/* s as it may be shown in a message: control characters as \xNN, at most ~200 bytes. */
char *printable(const char *s);
/* Finder and git leftovers: not part of anyone's work. */
bool is_junk(const char *name);
/* The first n bytes of s are decimal digits (and n > 0). */
bool all_digits(const char *s, size_t n);
/* Length of the archive suffix of name (".zip", ".tar.gz", ...), 0 if none. */
size_t archive_suffix(const char *name);

/*
 * An id that is safe as one path component: bytes outside [A-Za-z0-9._-] and
 * `extra` (may be NULL) become '_' (a whole UTF-8 sequence becomes one '_'),
 * never empty, never hidden (so never "." or "..").
 */
char *sanitize_id(const char *s, const char *extra);

/*
 * An id made from a person's or a folder's name that keeps its readable letters: one
 * already safe ([A-Za-z0-9._-], not hidden) is kept as is; otherwise Latin accents are
 * folded, letters lowered, and every run of other characters becomes one '-'
 * ("Daniel Núñez" -> "daniel-nunez"). Falls back to sanitize_id when nothing readable
 * is left.
 */
char *readable_id(const char *name);

/* A name reduced to [a-z0-9] with Latin accents folded ("Núñez" -> "nunez"), appended. */
void name_key_add(struct strbuf *out, const char *s);
char *name_key(const char *s);
/* The key of name in every rotation of its words ("María Núñez" -> "marianunez",
 * "nunezmaria"): Canvas files say "nunezmaria". Appended to keys. */
void name_rotations(const char *name, struct name_list *keys);

#endif
