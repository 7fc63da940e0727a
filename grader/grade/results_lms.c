#include "grade/results_lms.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* The fields of struct lms_ids, in JSON order, with their keys. */
#define LMS_ID_FIELDS(X)                                                                           \
    X(canvas_id)                                                                                   \
    X(sis_user_id)                                                                                 \
    X(sis_login_id)                                                                                \
    X(moodle_participant)                                                                          \
    X(idnumber)                                                                                    \
    X(email)                                                                                       \
    X(username)                                                                                    \
    X(github)

void lms_ids_release(struct lms_ids *ids)
{
#define FREE_ID(f) free(ids->f);
    LMS_ID_FIELDS(FREE_ID)
#undef FREE_ID
    memset(ids, 0, sizeof(*ids));
}

void lms_ids_copy(struct lms_ids *dst, const struct lms_ids *src)
{
#define COPY_ID(f) dst->f = src->f ? xstrdup(src->f) : NULL;
    LMS_ID_FIELDS(COPY_ID)
#undef COPY_ID
}

void lms_ids_overlay(struct lms_ids *dst, const struct lms_ids *src)
{
#define OVERLAY_ID(f)                                                                              \
    if (src->f) {                                                                                  \
        free(dst->f);                                                                              \
        dst->f = xstrdup(src->f);                                                                  \
    }
    LMS_ID_FIELDS(OVERLAY_ID)
#undef OVERLAY_ID
}

bool lms_ids_empty(const struct lms_ids *ids)
{
#define SET_ID(f) || ids->f
    return !(false LMS_ID_FIELDS(SET_ID));
#undef SET_ID
}

void late_record_release(struct late_record *l)
{
    free(l->submitted_at);
    free(l->deadline);
    free(l->source);
    memset(l, 0, sizeof(*l));
}

void results_lms_release(struct results_lms *l)
{
    lms_ids_release(&l->ids);
    free(l->group);
    for (size_t i = 0; i < l->n_members; i++) {
        free(l->members[i].id);
        free(l->members[i].name);
        lms_ids_release(&l->members[i].ids);
    }
    free(l->members);
    late_record_release(&l->late);
    free(l->problem);
    memset(l, 0, sizeof(*l));
}

static void put_str(struct json_writer *w, const char *key, const char *v)
{
    if (!v)
        return;
    json_writer_key(w, key);
    json_writer_string(w, v);
}

static void put_ids(struct json_writer *w, const struct lms_ids *ids)
{
    json_writer_key(w, "ids");
    json_writer_begin_object(w);
#define PUT_ID(f) put_str(w, #f, ids->f);
    LMS_ID_FIELDS(PUT_ID)
#undef PUT_ID
    json_writer_end_object(w);
}

static void put_late(struct json_writer *w, const struct late_record *l)
{
    json_writer_key(w, "late");
    json_writer_begin_object(w);
    json_writer_key(w, "evaluated");
    json_writer_bool(w, l->evaluated);
    json_writer_key(w, "marked");
    json_writer_bool(w, l->marked);
    json_writer_key(w, "late");
    json_writer_bool(w, l->late);
    json_writer_key(w, "days_known");
    json_writer_bool(w, l->days_known);
    json_writer_key(w, "days");
    json_writer_number(w, l->days);
    json_writer_key(w, "penalty");
    json_writer_number(w, l->penalty);
    json_writer_key(w, "penalty_pct");
    json_writer_number(w, l->penalty_pct);
    json_writer_key(w, "zeroed");
    json_writer_bool(w, l->zeroed);
    put_str(w, "submitted_at", l->submitted_at);
    put_str(w, "deadline", l->deadline);
    put_str(w, "source", l->source);
    json_writer_end_object(w);
}

void results_lms_to_json(struct json_writer *w, const struct results_lms *l)
{
    bool late = l->late.evaluated || l->late.marked || l->late.submitted_at;
    if (lms_ids_empty(&l->ids) && !l->group && !l->n_members && !late && !l->problem)
        return;
    json_writer_key(w, "lms");
    json_writer_begin_object(w);
    put_ids(w, &l->ids);
    put_str(w, "group", l->group);
    if (l->n_members) {
        json_writer_key(w, "members");
        json_writer_begin_array(w);
        for (size_t i = 0; i < l->n_members; i++) {
            json_writer_begin_object(w);
            put_str(w, "id", l->members[i].id);
            put_str(w, "name", l->members[i].name);
            put_ids(w, &l->members[i].ids);
            json_writer_end_object(w);
        }
        json_writer_end_array(w);
    }
    if (late)
        put_late(w, &l->late);
    put_str(w, "problem", l->problem);
    json_writer_end_object(w);
}

static char *dup_str(const struct json_value *o, const char *key)
{
    const char *s = json_get_string(o, key);
    return s ? xstrdup(s) : NULL;
}

static void read_ids(const struct json_value *o, struct lms_ids *ids)
{
#define READ_ID(f) ids->f = dup_str(o, #f);
    LMS_ID_FIELDS(READ_ID)
#undef READ_ID
}

/* A number that is one: NaN or missing reads as 0 (a penalty is never NaN). */
static double number(const struct json_value *o, const char *key)
{
    double d = json_get_number(o, key, 0);
    return d == d ? d : 0;
}

static void read_late(const struct json_value *o, struct late_record *l)
{
    if (!o || o->type != JSON_OBJECT)
        return;
    l->evaluated = json_get_bool(o, "evaluated", false);
    l->marked = json_get_bool(o, "marked", false);
    l->late = json_get_bool(o, "late", false);
    l->days_known = json_get_bool(o, "days_known", false);
    l->days = number(o, "days");
    l->penalty = number(o, "penalty");
    l->penalty_pct = number(o, "penalty_pct");
    l->zeroed = json_get_bool(o, "zeroed", false);
    l->submitted_at = dup_str(o, "submitted_at");
    l->deadline = dup_str(o, "deadline");
    l->source = dup_str(o, "source");
}

void results_lms_from_json(const struct json_value *o, struct results_lms *l)
{
    if (!o || o->type != JSON_OBJECT)
        return;
    read_ids(json_get(o, "ids"), &l->ids);
    l->group = dup_str(o, "group");
    const struct json_value *ms = json_get(o, "members");
    size_t n = ms && ms->type == JSON_ARRAY ? ms->n : 0;
    l->members = n ? xcalloc(n, sizeof(*l->members)) : NULL;
    for (size_t i = 0; i < n; i++) {
        const struct json_value *m = json_at(ms, i);
        struct lms_member *dst = &l->members[l->n_members];
        dst->id = dup_str(m, "id");
        if (!dst->id)
            continue; /* a member without an id cannot be graded in any LMS */
        dst->name = dup_str(m, "name");
        read_ids(json_get(m, "ids"), &dst->ids);
        l->n_members++;
    }
    read_late(json_get(o, "late"), &l->late);
    l->problem = dup_str(o, "problem");
}
