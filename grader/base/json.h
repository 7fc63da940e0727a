/*
 * json: a small JSON reader (text to a tree) and the writing helpers the
 * results, reports and exports share.
 *
 * Reading follows RFC 8259 strictly for structure and numbers (no comments,
 * trailing commas, NaN or leading zeros) and leniently for text: a UTF-8 BOM
 * is skipped, invalid UTF-8 inside strings and unpaired surrogate escapes
 * become U+FFFD, and so does an escaped NUL (\u0000), since strings in the
 * tree are C strings and a NUL would silently cut them short. Numbers beyond
 * the range of a double are an error. With duplicate keys, json_get() finds
 * the first.
 *
 * The tree owns its strings and children; json_value_free() frees a whole tree.
 *
 * Writing: strings come out as valid UTF-8 JSON whatever bytes they hold
 * (invalid sequences become U+FFFD, control characters \u00XX), numbers with
 * 15 to 17 significant digits, as few as read back to the same double (so 0.1
 * is written "0.1", and every finite double round-trips). struct json_writer adds
 * pretty-printing (2-space indent) on top of a strbuf it does not own.
 */
#ifndef LG_JSON_H
#define LG_JSON_H

#include "error.h"
#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
    enum json_type type;
    bool boolean;
    double number;
    char *string;              /* JSON_STRING: valid UTF-8, NUL-terminated */
    struct json_value **items; /* JSON_ARRAY values, JSON_OBJECT values */
    char **keys;               /* JSON_OBJECT keys, parallel to items */
    size_t n;
};

/* Parse len bytes (text need not be NUL-terminated). On error: -1, *out NULL,
 * err with line and col (1-based, col counts characters) and an empty file for
 * the caller to fill in. err may be NULL. */
int json_parse(const char *text, size_t len, struct json_value **out, struct error *err);
void json_value_free(struct json_value *v);

/* Object member or NULL; array element or NULL. NULL-safe on the container. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
const struct json_value *json_at(const struct json_value *arr, size_t i);
/* Typed lookups with defaults (used when the member is missing or of another type).
 * json_get_string returns a borrowed pointer or NULL. */
const char *json_get_string(const struct json_value *obj, const char *key);
double json_get_number(const struct json_value *obj, const char *key, double dflt);
bool json_get_bool(const struct json_value *obj, const char *key, bool dflt);

/* "..." with every escape JSON needs; NULL writes null. */
void json_write_string(struct strbuf *out, const char *s);
/* A number, or null for NaN and infinities (JSON has neither). */
void json_write_number(struct strbuf *out, double v);

/*
 * Pretty writer: call json_writer_key() before each member value inside an
 * object, nothing before array items; begin/end calls must pair up. Empty
 * containers come out as {} and []. The caller adds the final newline.
 */
struct json_writer {
    struct strbuf *out;
    int depth;
    bool first;     /* nothing written yet at this depth */
    bool after_key; /* a key was written; its value comes next, on the same line */
};

void json_writer_init(struct json_writer *w, struct strbuf *out);
void json_writer_key(struct json_writer *w, const char *key);
void json_writer_begin_object(struct json_writer *w);
void json_writer_end_object(struct json_writer *w);
void json_writer_begin_array(struct json_writer *w);
void json_writer_end_array(struct json_writer *w);
void json_writer_string(struct json_writer *w, const char *s); /* NULL writes null */
void json_writer_number(struct json_writer *w, double v);      /* NaN, inf write null */
void json_writer_bool(struct json_writer *w, bool v);
void json_writer_null(struct json_writer *w);

#endif
