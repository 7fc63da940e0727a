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
        free(r->rows[i].group);
        lms_ids_release(&r->rows[i].ids);
        name_list_release(&r->rows[i].keys);
    }
    free(r->rows);
    name_list_release(&r->warnings);
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

/* The id columns, in the order a row's id is taken from: its first non-empty one. */
enum id_col {
    COL_STUDENT_ID,
    COL_ID,
    COL_ID_NUMBER,
    COL_IDNUMBER,
    COL_SIS_USER,
    COL_IDENTIFIER,
    COL_EMAIL_ADDRESS,
    COL_EMAIL,
    COL_USERNAME,
    COL_GITHUB,
    COL_SIS_LOGIN,
    N_ID_COLS
};
static const char *const id_col_names[N_ID_COLS] = {
    "student_id",    "id",    "id number", "idnumber",        "sis user id", "identifier",
    "email address", "email", "username",  "github_username", "sis login id"};

/* Where the roster's columns are; -1 where absent. */
struct roster_cols {
    int ids[N_ID_COLS];
    bool ids_used[N_ID_COLS]; /* some row has a value there */
    int name, first, last, group;
    bool canvas; /* a Canvas gradebook export: its "ID" is Canvas's user id */
};

static int roster_columns(struct name_list *header, const char *path, struct roster_cols *c,
                          struct error *err)
{
    static const char *const name_cols[] = {"name", "full name", "fullname", "student", NULL};
    static const char *const first_cols[] = {"first name", "firstname", "given name", NULL};
    static const char *const last_cols[] = {"last name", "lastname", "surname", "family name",
                                            NULL};
    static const char *const group_cols[] = {"group", "groups", "team", "grupo", NULL};
    bool any = false;
    for (size_t i = 0; i < header->n; i++)
        trim(header->v[i]);
    for (int k = 0; k < N_ID_COLS; k++) {
        const char *one[] = {id_col_names[k], NULL};
        c->ids[k] = find_column(header, one);
        c->ids_used[k] = false;
        any |= c->ids[k] >= 0;
    }
    c->name = find_column(header, name_cols);
    c->first = find_column(header, first_cols);
    c->last = find_column(header, last_cols);
    c->group = find_column(header, group_cols);
    c->canvas = c->ids[COL_ID] >= 0 && (c->ids[COL_SIS_USER] >= 0 || c->ids[COL_SIS_LOGIN] >= 0);
    if (!any)
        return error_set_at(err, path, 1, 0,
                            "no id column in the header (one of: student_id, id, ID number, SIS "
                            "User ID, identifier, email address, username, github_username)");
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

static char *field_dup(const struct name_list *fields, int col)
{
    const char *v = field_at(fields, col);
    return *v ? xstrdup(v) : NULL;
}

static void row_ids(struct roster_row *row, const struct name_list *f, struct roster_cols *c)
{
    struct lms_ids *ids = &row->ids;
    if (c->canvas)
        ids->canvas_id = field_dup(f, c->ids[COL_ID]);
    ids->sis_user_id = field_dup(f, c->ids[COL_SIS_USER]);
    ids->sis_login_id = field_dup(f, c->ids[COL_SIS_LOGIN]);
    ids->idnumber =
        field_dup(f, c->ids[COL_ID_NUMBER] >= 0 ? c->ids[COL_ID_NUMBER] : c->ids[COL_IDNUMBER]);
    /* A student_id is the institution's number: Moodle's ID number, as Canvas's SIS User ID
     * (docs/exports.md). */
    if (!ids->idnumber)
        ids->idnumber = field_dup(f, c->ids[COL_STUDENT_ID]);
    ids->email = field_dup(f, c->ids[COL_EMAIL_ADDRESS] >= 0 ? c->ids[COL_EMAIL_ADDRESS]
                                                             : c->ids[COL_EMAIL]);
    ids->username = field_dup(f, c->ids[COL_USERNAME]);
    ids->github = field_dup(f, c->ids[COL_GITHUB]);
    row->group = field_dup(f, c->group);
}

static int roster_add_row(struct roster *ro, const struct name_list *fields, struct roster_cols *c,
                          const char *path, long line, struct error *err)
{
    const char *id = "";
    for (int k = 0; k < N_ID_COLS; k++) {
        const char *v = field_at(fields, c->ids[k]);
        c->ids_used[k] |= *v != '\0';
        if (!*id)
            id = v;
    }
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
    row_ids(row, fields, c);
    name_rotations(name, &row->keys);
    return 0;
}

/* An id column present in the header but empty in every row says nothing: say so, since
 * the ids then come from another column (or the roster matches nobody). */
static void warn_empty_columns(struct roster *ro, const struct name_list *header,
                               const struct roster_cols *c, const char *path)
{
    for (int k = 0; k < N_ID_COLS; k++)
        if (c->ids[k] >= 0 && !c->ids_used[k])
            name_list_add(&ro->warnings,
                          xstrfmt("%s: column '%s' is empty in every row: ids come from the "
                                  "roster's other id columns",
                                  path, header->v[c->ids[k]]));
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
    warn_empty_columns(ro, &header, &cols, path);
    rc = 0;
out:
    name_list_release(&fields);
    name_list_release(&header);
    strbuf_release(&text);
    return rc;
}

static bool same(const char *a, const char *b)
{
    return a && b && *a && !strcmp(a, b);
}

/* Emails and logins are matched ignoring case, as the systems that issue them do. */
static bool same_nocase(const char *a, const char *b)
{
    return a && b && *a && !strcasecmp(a, b);
}

static bool row_has(const struct roster_row *r, const char *v)
{
    const struct lms_ids *ids = &r->ids;
    return same(r->id, v) || same(ids->canvas_id, v) || same(ids->sis_user_id, v) ||
           same(ids->sis_login_id, v) || same(ids->idnumber, v) || same_nocase(ids->email, v) ||
           same_nocase(ids->username, v) || same_nocase(ids->github, v);
}

const struct roster_row *roster_find_value(const struct roster *ro, const char *value)
{
    for (size_t i = 0; value && *value && i < ro->n; i++)
        if (row_has(&ro->rows[i], value))
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

const struct roster_row *roster_find_student(const struct roster *ro, const char *id,
                                             const struct lms_ids *ids, const char *name,
                                             size_t *matches)
{
    const char *const known[] = {
        id,         ids->canvas_id, ids->sis_user_id, ids->sis_login_id, ids->idnumber,
        ids->email, ids->username,  ids->github};
    *matches = 0;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        const struct roster_row *row = roster_find_value(ro, known[i]);
        if (row) {
            *matches = 1;
            return row;
        }
    }
    return name ? roster_find_name(ro, name, matches) : NULL;
}

void roster_members(const struct roster *ro, const char *group, struct lms_member **members,
                    size_t *n)
{
    for (size_t i = 0; group && i < ro->n; i++) {
        const struct roster_row *r = &ro->rows[i];
        if (!r->group || strcmp(r->group, group))
            continue;
        *members = xrealloc(*members, (*n + 1) * sizeof(**members));
        struct lms_member *m = &(*members)[(*n)++];
        m->id = sanitize_id(r->id, "@");
        m->name = xstrdup(r->name);
        lms_ids_copy(&m->ids, &r->ids);
    }
}
