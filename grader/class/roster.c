#include "class/roster.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void roster_release(struct roster *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].id);
        free(r->rows[i].name);
        name_list_release(&r->rows[i].keys);
    }
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

/* One CSV record (RFC 4180 quoting) from *pp; false at the end of the text. */
static bool csv_record(const char **pp, const char *end, char delim, struct name_list *fields)
{
    const char *p = *pp;
    if (p >= end)
        return false;
    for (;;) {
        struct strbuf f = STRBUF_INIT;
        if (p < end && *p == '"') {
            p++;
            while (p < end) {
                if (*p == '"' && p + 1 < end && p[1] == '"') {
                    strbuf_addch(&f, '"');
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    strbuf_addch(&f, *p++);
                }
            }
        }
        while (p < end && *p != delim && *p != '\n' && *p != '\r')
            strbuf_addch(&f, *p++);
        name_list_add(fields, strbuf_detach(&f));
        if (p < end && *p == delim) {
            p++;
            continue;
        }
        if (p < end && *p == '\r')
            p++;
        if (p < end && *p == '\n')
            p++;
        break;
    }
    *pp = p;
    return true;
}

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    while (s[i] && isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, n - i + 1);
}

static int find_column(const struct name_list *header, const char *const *names)
{
    for (size_t k = 0; names[k]; k++)
        for (size_t i = 0; i < header->n; i++)
            if (!strcasecmp(header->v[i], names[k]))
                return (int)i;
    return -1;
}

static char guess_delimiter(const char *p, const char *end)
{
    int commas = 0, semis = 0, tabs = 0;
    bool quoted = false;
    for (; p < end && (quoted || (*p != '\n' && *p != '\r')); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == ',')
            commas++;
        else if (!quoted && *p == ';')
            semis++;
        else if (!quoted && *p == '\t')
            tabs++;
    }
    if (semis > commas && semis >= tabs)
        return ';';
    if (tabs > commas)
        return '\t';
    return ',';
}

/* Where the roster's columns are; -1 where absent. */
struct roster_cols {
    int id, name, first, last;
};

static int roster_columns(struct name_list *header, const char *path, struct roster_cols *c,
                          struct error *err)
{
    static const char *const id_cols[] = {"student_id", "id",          "id number",
                                          "idnumber",   "sis user id", NULL};
    static const char *const name_cols[] = {"name", "full name", "fullname", "student", NULL};
    static const char *const first_cols[] = {"first name", "firstname", "given name", NULL};
    static const char *const last_cols[] = {"last name", "lastname", "surname", "family name",
                                            NULL};
    for (size_t i = 0; i < header->n; i++)
        trim(header->v[i]);
    c->id = find_column(header, id_cols);
    c->name = find_column(header, name_cols);
    c->first = find_column(header, first_cols);
    c->last = find_column(header, last_cols);
    if (c->id < 0)
        return error_set_at(
            err, path, 1, 0,
            "no id column in the header (one of: student_id, id, ID number, SIS User ID)");
    if (c->name < 0 && (c->first < 0 || c->last < 0))
        return error_set_at(err, path, 1, 0,
                            "no name column in the header (name, full name, student, or first "
                            "name and last name)");
    return 0;
}

static const char *field_at(const struct name_list *fields, int col)
{
    return col >= 0 && (size_t)col < fields->n ? fields->v[col] : "";
}

static int roster_add_row(struct roster *ro, const struct name_list *fields,
                          const struct roster_cols *c, const char *path, long line,
                          struct error *err)
{
    const char *id = field_at(fields, c->id);
    /* Blank lines, and Canvas's "Points Possible" row, have no id. */
    if (!*id)
        return 0;
    for (size_t i = 0; i < ro->n; i++)
        if (!strcmp(ro->rows[i].id, id)) {
            char *shown = printable(id);
            error_set_at(err, path, (int)line, 0, "id '%s' appears twice", shown);
            free(shown);
            return -1;
        }
    char *name = c->name >= 0
                     ? xstrdup(field_at(fields, c->name))
                     : xstrfmt("%s %s", field_at(fields, c->first), field_at(fields, c->last));
    trim(name);
    ALLOC_GROW(ro->rows, ro->n + 1, ro->alloc);
    struct roster_row *row = &ro->rows[ro->n++];
    memset(row, 0, sizeof(*row));
    row->id = xstrdup(id);
    row->name = name;
    name_rotations(name, &row->keys);
    return 0;
}

int roster_load(const char *path, struct roster *ro, struct error *err)
{
    struct strbuf text = STRBUF_INIT;
    struct name_list header = {0}, fields = {0};
    struct roster_cols cols;
    int rc = -1;
    long line = 1;

    if (read_file(path, &text, err) != 0)
        return -1;
    const char *p = text.buf, *end = text.buf + text.len;
    if (text.len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    char delim = guess_delimiter(p, end);
    if (!csv_record(&p, end, delim, &header)) {
        error_set_at(err, path, 1, 0, "the roster is empty");
        goto out;
    }
    if (roster_columns(&header, path, &cols, err) != 0)
        goto out;
    while (csv_record(&p, end, delim, &fields)) {
        line++;
        for (size_t i = 0; i < fields.n; i++)
            trim(fields.v[i]);
        if (roster_add_row(ro, &fields, &cols, path, line, err) != 0)
            goto out;
        name_list_release(&fields);
    }
    rc = 0;
out:
    name_list_release(&fields);
    name_list_release(&header);
    strbuf_release(&text);
    return rc;
}

const struct roster_row *roster_find_id(const struct roster *ro, const char *id1, const char *id2)
{
    for (size_t i = 0; i < ro->n; i++)
        if ((id1 && !strcmp(ro->rows[i].id, id1)) || (id2 && !strcmp(ro->rows[i].id, id2)))
            return &ro->rows[i];
    return NULL;
}

const struct roster_row *roster_find_name(const struct roster *ro, const char *name,
                                          size_t *matches)
{
    char *key = name_key(name);
    const struct roster_row *found = NULL;
    *matches = 0;
    for (size_t i = 0; key[0] && i < ro->n; i++)
        for (size_t k = 0; k < ro->rows[i].keys.n; k++)
            if (!strcmp(ro->rows[i].keys.v[k], key)) {
                found = &ro->rows[i];
                (*matches)++;
                break;
            }
    free(key);
    return *matches == 1 ? found : NULL;
}
