#include "report/gradebook.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/isotime.h"
#include "report/export_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One row: a student, or one member of the group a submission stood for. */
struct row {
    const struct results *r;
    const struct lms_member *member; /* NULL: the student of r */
    size_t index;
};

static const char *row_id(const struct row *w)
{
    return w->member ? w->member->id : or_empty(w->r->student_id);
}

static const char *row_name(const struct row *w)
{
    return w->member ? or_empty(w->member->name) : or_empty(w->r->student_name);
}

static const struct lms_ids *row_ids(const struct row *w)
{
    return w->member ? &w->member->ids : &w->r->lms.ids;
}

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(row_id(x), row_id(y));
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The rows sorted by id (ties keep their order); NULL entries dropped, groups fanned out. */
static struct row *sorted_rows(const struct results *const *all, size_t n, size_t *n_rows)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i])
            total += all[i]->lms.n_members ? all[i]->lms.n_members : 1;
    struct row *rows = xcalloc(total ? total : 1, sizeof(*rows));
    for (size_t i = 0; i < n; i++) {
        const struct results *r = all[i];
        if (!r)
            continue;
        for (size_t m = 0; m < (r->lms.n_members ? r->lms.n_members : 1); m++) {
            rows[k].r = r;
            rows[k].member = r->lms.n_members ? &r->lms.members[m] : NULL;
            rows[k].index = k;
            k++;
        }
    }
    qsort(rows, k, sizeof(*rows), row_cmp);
    *n_rows = k;
    return rows;
}

static int write_buffer(const char *path, struct strbuf *sb, struct error *err)
{
    int rc = write_file_atomic(path, strbuf_str(sb), sb->len, err);
    strbuf_release(sb);
    return rc;
}

/* ---- gradebook.csv ---- */

static const struct exercise_result *find_exercise(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n_exercises; i++)
        if (r->exercises[i].exercise_id && !strcmp(r->exercises[i].exercise_id, id))
            return &r->exercises[i];
    return NULL;
}

/* Why nothing was graded: the words every case got (in the report's language); or why the
 * grade is incomplete (the grader's side: grade/score.h). */
static const char *problem_note(const struct results *r)
{
    struct grade_gap_info g;
    if (!r->lms.problem)
        return grade_gap_of(r, &g) != GAP_NONE ? g.reason : "";
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            if (r->exercises[e].variants[v].n_cases)
                return case_message(&r->exercises[e].variants[v].cases[0]);
    return r->lms.problem;
}

/* Every exercise any student has, in the order first met (lab order). */
static const char **exercise_columns(const struct row *rows, size_t n_rows, size_t *n_ids)
{
    const char **ids = NULL;
    size_t alloc = 0;
    *n_ids = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const struct results *r = rows[i].r;
        for (size_t e = 0; e < r->n_exercises; e++) {
            const char *id = r->exercises[e].exercise_id;
            bool seen = false;
            for (size_t k = 0; id && k < *n_ids && !seen; k++)
                seen = !strcmp(ids[k], id);
            if (!id || seen)
                continue;
            ALLOC_GROW(ids, *n_ids + 1, alloc);
            ids[(*n_ids)++] = id;
        }
    }
    return ids;
}

static void late_cells(struct strbuf *out, const struct late_record *l)
{
    strbuf_addch(out, ',');
    if (l->late)
        csv_points(out, l->days);
    strbuf_addch(out, ',');
    if (l->late)
        csv_points(out, l->penalty);
}

void export_gradebook_csv_text(const struct results *const *all, size_t n, struct strbuf *out)
{
    size_t n_rows, n_ids;
    struct row *rows = sorted_rows(all, n, &n_rows);
    const char **ids = exercise_columns(rows, n_rows, &n_ids);
    strbuf_addstr(out, "student_id,name");
    for (size_t k = 0; k < n_ids; k++) {
        strbuf_addch(out, ',');
        csv_field(out, ids[k]);
    }
    strbuf_addstr(out, ",total,max,status,late_days,late_penalty,note");
    csv_end_row(out);
    for (size_t i = 0; i < n_rows; i++) {
        const struct results *r = rows[i].r;
        csv_field(out, row_id(&rows[i]));
        strbuf_addch(out, ',');
        csv_field(out, row_name(&rows[i]));
        double total;
        /* An incomplete grade has no points at all: an empty cell leaves the LMS's grade
         * alone, where a 0 would replace it (export_points). */
        bool graded = export_points(r, 0, &total);
        for (size_t k = 0; k < n_ids; k++) {
            const struct exercise_result *e = find_exercise(r, ids[k]);
            strbuf_addch(out, ',');
            if (e && graded)
                csv_points(out, e->points); /* speed points included (results_tally) */
        }
        strbuf_addch(out, ',');
        if (graded)
            csv_points(out, total);
        strbuf_addch(out, ',');
        if (!r->unreadable) /* the lab's maximum, known even where the grade is not */
            csv_points(out, r->max_score);
        strbuf_addch(out, ',');
        strbuf_addstr(out, export_status(r, ids, n_ids));
        late_cells(out, &r->lms.late);
        strbuf_addch(out, ',');
        csv_field(out, problem_note(r));
        csv_end_row(out);
    }
    free(ids);
    free(rows);
}

int export_gradebook_csv(const struct results *const *all, size_t n, const char *path,
                         struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_csv_text(all, n, &sb);
    return write_buffer(path, &sb, err);
}

/* ---- Canvas ---- */

static const char *lab_column(const struct row *rows, size_t n_rows, const char *given)
{
    if (given && *given)
        return given;
    for (size_t i = 0; i < n_rows; i++) {
        if (rows[i].r->lab_title && *rows[i].r->lab_title)
            return rows[i].r->lab_title;
        if (rows[i].r->lab_id && *rows[i].r->lab_id)
            return rows[i].r->lab_id;
    }
    return "Lab";
}

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* An id no LMS can map: Moodle's per-assignment number, a GitHub login, Canvas's own. */
static bool lms_internal(const char *id, const struct lms_ids *ids)
{
    return same(id, ids->moodle_participant) || same(id, ids->github) || same(id, ids->canvas_id);
}

static void canvas_ids(struct strbuf *out, const struct row *w)
{
    const struct lms_ids *ids = row_ids(w);
    const char *id = row_id(w);
    const char *sis_user = ids->sis_user_id ? ids->sis_user_id : ids->idnumber;
    const char *sis_login = ids->sis_login_id ? ids->sis_login_id
                            : ids->email      ? ids->email
                                              : ids->username;
    /* Our own id is an institution's id only when it is none of the LMSs' internal ones and
     * none of the logins. */
    if (!sis_user && !lms_internal(id, ids) && !same(id, sis_login))
        sis_user = id;
    csv_field(out, ids->canvas_id);
    strbuf_addch(out, ',');
    csv_field(out, sis_user);
    strbuf_addch(out, ',');
    csv_field(out, sis_login);
}

/* The status column: last, and named so that Canvas's importer takes it for one of its own
 * computed columns and imports nothing from it (gradebook_importer.rb strips every header
 * matching "Final Grade" before it reads assignments; older versions only trailing ones). */
#define CANVAS_STATUS_COLUMN "Final Grade (labgrader status, not imported)"

static double max_points(const struct row *rows, size_t n_rows)
{
    double m = 0;
    for (size_t i = 0; i < n_rows; i++)
        if (isfinite(rows[i].r->max_score) && rows[i].r->max_score > m)
            m = rows[i].r->max_score;
    return m;
}

void export_gradebook_canvas_csv_text(const struct results *const *all, size_t n,
                                      const struct gradebook_opts *o, struct strbuf *out)
{
    size_t n_rows;
    struct row *rows = sorted_rows(all, n, &n_rows);
    double points = o && o->points > 0 ? o->points : max_points(rows, n_rows);
    strbuf_addstr(out, "Student,ID,SIS User ID,SIS Login ID,Section,");
    csv_field(out, lab_column(rows, n_rows, o ? o->column : NULL));
    strbuf_addch(out, ',');
    csv_field(out, CANVAS_STATUS_COLUMN);
    csv_end_row(out);
    /* Without it a new assignment gets 0 points possible and every score is extra credit. */
    strbuf_addstr(out, "Points Possible,,,,,");
    csv_points(out, points);
    strbuf_addch(out, ',');
    csv_end_row(out);
    for (size_t i = 0; i < n_rows; i++) {
        double score;
        csv_field(out, row_name(&rows[i]));
        strbuf_addch(out, ',');
        canvas_ids(out, &rows[i]);
        strbuf_addstr(out, ",,");
        if (export_points(rows[i].r, o && o->points > 0 ? o->points : 0, &score))
            csv_points(out, score);
        strbuf_addch(out, ',');
        strbuf_addstr(out, export_status(rows[i].r, NULL, 0));
        csv_end_row(out);
    }
    free(rows);
}

int export_gradebook_canvas_csv(const struct results *const *all, size_t n,
                                const struct gradebook_opts *o, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_canvas_csv_text(all, n, o, &sb);
    return write_buffer(path, &sb, err);
}

/* ---- Moodle ---- */

/* "8.5 / 12 points: 3 of 4 cases passed." and lateness, or why nothing was graded. */
static void feedback_text(const struct results *r, const struct messages *m, struct strbuf *out)
{
    char got[64], max[64];
    int cases = 0;
    if (r->lms.problem) {
        strbuf_addstr(out, problem_note(r));
        return;
    }
    if (grade_gap_of(r, NULL) != GAP_NONE) {
        grade_gap_sentence(r, m, out);
        return;
    }
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            cases += (int)r->exercises[e].variants[v].n_cases;
    format_number(got, sizeof(got), results_final_score(r), 2);
    format_number(max, sizeof(max), r->max_score, 2);
    strbuf_addf(out, messages_get(m, "%s / %s points: %d of %d cases passed."), got[0] ? got : "0",
                max[0] ? max : "0", r->n_pass, cases);
    if (r->lms.late.late) {
        char pct[64];
        format_number(pct, sizeof(pct), r->lms.late.penalty_pct, 2);
        strbuf_addch(out, ' ');
        strbuf_addf(out, messages_get(m, "Late: %s%% off."), pct[0] ? pct : "0");
    }
}

static bool moodle_mappable(const struct lms_ids *ids)
{
    return ids->idnumber || ids->email || ids->username;
}

void export_gradebook_moodle_csv_text(const struct results *const *all, size_t n,
                                      const struct gradebook_opts *o, struct strbuf *out,
                                      size_t *left_out)
{
    size_t n_rows, skipped = 0;
    struct row *rows = sorted_rows(all, n, &n_rows);
    strbuf_addstr(out, "ID number,Email address,Username,Full name,");
    csv_field(out, lab_column(rows, n_rows, o ? o->column : NULL));
    strbuf_addstr(out, ",Feedback,labgrader status");
    csv_end_row(out);
    for (size_t i = 0; i < n_rows; i++) {
        const struct lms_ids *ids = row_ids(&rows[i]);
        struct strbuf fb = STRBUF_INIT;
        if (!moodle_mappable(ids)) {
            skipped++;
            continue;
        }
        csv_field(out, ids->idnumber);
        strbuf_addch(out, ',');
        csv_field(out, ids->email);
        strbuf_addch(out, ',');
        csv_field(out, ids->username);
        strbuf_addch(out, ',');
        csv_field(out, row_name(&rows[i]));
        strbuf_addch(out, ',');
        /* Empty: Moodle records no grade rather than a number (grade/import/csv). */
        double score;
        if (export_points(rows[i].r, o && o->points > 0 ? o->points : 0, &score))
            csv_points(out, score);
        strbuf_addch(out, ',');
        feedback_text(rows[i].r, o ? o->messages : NULL, &fb);
        csv_field(out, strbuf_str(&fb));
        strbuf_release(&fb);
        strbuf_addch(out, ',');
        strbuf_addstr(out, export_status(rows[i].r, NULL, 0));
        csv_end_row(out);
    }
    if (left_out)
        *left_out = skipped;
    free(rows);
}

int export_gradebook_moodle_csv(const struct results *const *all, size_t n,
                                const struct gradebook_opts *o, const char *path, size_t *left_out,
                                struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_moodle_csv_text(all, n, o, &sb, left_out);
    return write_buffer(path, &sb, err);
}

bool gradebook_has_moodle_participants(const struct results *const *all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (all[i] && all[i]->lms.ids.moodle_participant)
            return true;
    return false;
}

/* Moodle's own download writes these columns; its importer finds Identifier, Grade and
 * Last modified (grade) by these names (in the importing user's language: English). */
static const char worksheet_header[] =
    "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
    "Last modified (submission),Last modified (grade),Feedback comments";

static void worksheet_row(struct strbuf *out, const struct results *r,
                          const struct gradebook_opts *o, const char *now)
{
    struct strbuf fb = STRBUF_INIT;
    char *ident = xstrfmt("Participant %s", r->lms.ids.moodle_participant);
    csv_field(out, ident);
    strbuf_addch(out, ',');
    csv_field(out, r->student_name);
    strbuf_addch(out, ',');
    csv_field(out, r->lms.ids.email);
    strbuf_addstr(out, ",,");
    /* Empty: the worksheet importer skips a grade with no value, and keeps the feedback. */
    double score;
    if (export_points(r, o && o->points > 0 ? o->points : 0, &score))
        csv_points(out, score);
    strbuf_addch(out, ',');
    csv_points(out, o && o->points > 0 ? o->points : r->max_score);
    strbuf_addstr(out, ",Yes,");
    csv_field(out, r->lms.late.submitted_at);
    strbuf_addch(out, ',');
    strbuf_addstr(out, now);
    strbuf_addch(out, ',');
    feedback_text(r, o ? o->messages : NULL, &fb);
    csv_field(out, strbuf_str(&fb));
    csv_end_row(out);
    strbuf_release(&fb);
    free(ident);
}

void export_moodle_worksheet_text(const struct results *const *all, size_t n,
                                  const struct gradebook_opts *o, struct strbuf *out)
{
    char now[40];
    /* The importer skips a row whose grade changed in Moodle after this time. */
    iso_time_format(o && o->now ? o->now : (long long)time(NULL), now, sizeof(now));
    strbuf_addstr(out, worksheet_header);
    csv_end_row(out);
    for (size_t i = 0; i < n; i++)
        if (all[i] && all[i]->lms.ids.moodle_participant)
            worksheet_row(out, all[i], o, now);
}

int export_moodle_worksheet(const struct results *const *all, size_t n,
                            const struct gradebook_opts *o, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_moodle_worksheet_text(all, n, o, &sb);
    return write_buffer(path, &sb, err);
}
