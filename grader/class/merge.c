/* merge: gradebooks and the class summary from every stored result (batch_internal.h). */
#include "class/batch_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/sha256.h"
#include "class/lock.h"
#include "report/export.h"
#include "report/report.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* A student's stored results, verified: results_read's checks, and the stamp's checksum when
 * there is a stamp. 0, or -1 with why. */
static int read_stored(const char *dir, struct results *r, char *why, size_t why_size)
{
    struct strbuf json = STRBUF_INIT, stamp = STRBUF_INIT;
    struct error err;
    char *jp = path_join(dir, "results.json"), *sp = path_join(dir, ".graded");
    int rc = -1;
    error_init(&err);
    if (read_file(jp, &json, &err) != 0 ||
        results_from_json(r, json.buf, json.len, jp, &err) != 0) {
        error_format(&err, why, why_size);
        goto out;
    }
    /* A stamp certifies the results it was written with: others (edited, or replaced by a
     * `grader check` of the same id) are not this class's grade. */
    const char *line =
        read_file(sp, &stamp, NULL) == 0 ? strstr(strbuf_str(&stamp), "\nresults ") : NULL;
    if (line) {
        struct sha256 h;
        char hex[65];
        sha256_init(&h);
        sha256_update(&h, json.buf, json.len);
        sha256_final_hex(&h, hex);
        if (strncmp(line + 9, hex, 64) != 0) {
            snprintf(why, why_size,
                     "%s: changed since it was graded (its checksum is not the one "
                     "in .graded)",
                     jp);
            results_release(r);
            goto out;
        }
    }
    rc = 0;
out:
    strbuf_release(&json);
    strbuf_release(&stamp);
    free(jp);
    free(sp);
    return rc;
}

/* id's name in the class list's text ("id<TAB>name" lines), or NULL. Caller frees. */
static char *class_name(const char *list, const char *id)
{
    size_t len = strlen(id);
    for (const char *line = list; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, id, len) && line[len] == '\t')
            return xstrndup(line + len + 1,
                            end ? (size_t)(end - line) - len - 1 : strlen(line + len + 1));
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* The gradebook's row for a student whose results could not be read: no points at all. */
static struct results *stand_in(const struct lab *lab, const char *id, const char *name,
                                const char *why)
{
    struct results *r = xcalloc(1, sizeof(*r));
    results_init(r);
    r->lab_id = xstrdup(lab->id);
    r->lab_number = lab->number;
    r->lab_title = xstrdup(lab->title);
    r->lang = xstrdup(lab->lang ? lab->lang : "en");
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(name ? name : id);
    r->n_grader_errors = 1;
    r->unreadable = xstrdup(why);
    return r;
}

/* Every student folder under dir (one holding results.json or a stamp): its results, or a
 * stand-in when they cannot be read, never nothing. */
static void list_results(const struct lab *lab, const char *dir, const char *class_list,
                         struct results ***all, size_t *n)
{
    struct dirent **list = NULL;
    int m = scandir(dir, &list, NULL, alphasort);
    *all = NULL;
    *n = 0;
    for (int i = 0; i < m; i++) {
        const char *name = list[i]->d_name;
        char *sub = path_join(dir, name);
        char *json = path_join(sub, "results.json"), *stamp = path_join(sub, ".graded");
        if (name[0] != '.' && (file_exists(json) || file_exists(stamp))) {
            struct results *r = xcalloc(1, sizeof(*r));
            char why[2600];
            results_init(r);
            if (read_stored(sub, r, why, sizeof(why)) != 0) {
                char *who = class_name(class_list, name);
                results_free(r);
                r = stand_in(lab, name, who, why);
                free(who);
                printf("%s: results cannot be used (%s); a grader error in the gradebook until "
                       "`grader grade` grades it again\n",
                       name, why);
            }
            *all = xrealloc(*all, (*n + 1) * sizeof(**all));
            (*all)[(*n)++] = r;
        }
        free(sub);
        free(json);
        free(stamp);
        free(list[i]);
    }
    free(list);
}

/* Why a result is left out of the gradebook when the submissions are known. */
enum merge_state { MERGE_OK, MERGE_CHANGED, MERGE_GONE };

static void print_header(int *count, const char *header)
{
    if (!(*count)++)
        printf("%s\n", header);
}

/* Results of students not in the class (gone, or `grader check` runs): listed, left out. */
static void print_gone(struct results **all, size_t n, const enum merge_state *state,
                       const char *header)
{
    int gone = 0;
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_GONE) {
            print_header(&gone, header);
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
        }
}

/*
 * Compares the results with the submissions as they are now: a result of files that
 * have changed since is not a grade yet, and one of a student no longer among the
 * submissions is left out. Students with no result count as missing too, and so do
 * students whose results could not be read (their stand-in row stays).
 */
static int merge_check(const struct lab *lab, const struct batch_opts *o, const char *out,
                       struct results **all, size_t n, enum merge_state *state, int *missing,
                       bool *bad_input, struct error *err)
{
    struct submission_set set;
    struct collect_limits lim;
    char *unpack = xstrfmt("%s/.unpacked-merge", out);
    int rc = -1, changed = 0, absent = 0;
    submission_set_init(&set);
    collect_limits_init(&lim);
    for (size_t j = 0; j < n; j++)
        state[j] = MERGE_GONE;
    if (batch_collect_class(lab, o, unpack, &lim, &set, err) != 0) {
        if (bad_input)
            *bad_input = true;
        goto out;
    }
    for (size_t i = 0; i < set.n; i++) {
        char digest[65];
        size_t j = 0;
        while (j < n && strcmp(all[j]->student_id, set.items[i].id))
            j++;
        if (j == n) {
            print_header(&absent, "not yet graded:");
            printf("  %s (%s)\n", set.items[i].id, set.items[i].name);
            (*missing)++;
            continue;
        }
        if (all[j]->unreadable) {
            state[j] = MERGE_OK;
            (*missing)++;
            continue;
        }
        if (submission_files_digest(set.items[i].dir, digest, err) != 0)
            goto out;
        state[j] = all[j]->submission_hash && !strcmp(all[j]->submission_hash, digest)
                       ? MERGE_OK
                       : MERGE_CHANGED;
    }
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_CHANGED) {
            print_header(&changed, "not yet graded (changed since graded):");
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
            (*missing)++;
        }
    print_gone(all, n, state, "left out (results of students not among the submissions):");
    rc = 0;
out:
    submission_set_release(&set);
    remove_tree(unpack, NULL);
    free(unpack);
    return rc;
}

/*
 * Without the submissions at hand: the class graded last (out/<lab>/.class) is the
 * gradebook's list of students. Results of anyone else (a `grader check` of the solution
 * into the same folder) are left out; students of the class without results are missing.
 * No class list (results of an older grader): every result counts.
 */
static void class_check(const char *list, struct results **all, size_t n, enum merge_state *state,
                        int *missing)
{
    int absent = 0;
    for (size_t j = 0; j < n; j++)
        state[j] = list ? MERGE_GONE : MERGE_OK;
    for (const char *line = list ? list : ""; *line;) {
        size_t len = strcspn(line, "\t\n"), j = 0;
        const char *end = strchr(line, '\n');
        while (j < n &&
               (strlen(all[j]->student_id) != len || strncmp(all[j]->student_id, line, len) != 0))
            j++;
        if (j < n) {
            state[j] = MERGE_OK;
            if (all[j]->unreadable)
                (*missing)++;
        } else if (len > 0) {
            print_header(&absent, "not yet graded:");
            printf("  %.*s\n", (int)len, line);
            (*missing)++;
        }
        line = end ? end + 1 : "";
    }
    print_gone(all, n, state,
               "left out (not in the class graded last: `grader check` runs, or students no "
               "longer submitted):");
}

/* The class summary, from the results that could be read. */
static int merge_summary(const struct batch_opts *o, const char *out, struct results **all,
                         size_t n, struct error *err)
{
    const struct results **ok = xcalloc(n ? n : 1, sizeof(*ok));
    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++)
        if (!all[i]->unreadable)
            ok[n_ok++] = all[i];
    struct report_opts ro;
    struct report_outcome ou;
    struct error rerr;
    report_opts_init(&ro);
    ro.lang = o->lang;
    ro.templates_dir = o->templates_dir;
    ro.pdf = o->pdf_mode >= 0;
    ro.pdf_required = o->pdf_mode > 0;
    ro.html = !o->no_html;
    memset(&ou, 0, sizeof(ou));
    error_init(&rerr);
    int rc = 0;
    if (n_ok && report_summary(ok, n_ok, out, &ro, &ou, &rerr) != 0) {
        /* An HTML page that could not be made is said below, once. */
        if (!(ro.html && ou.md_written && !ou.html_written) || (ro.pdf && !ou.pdf_written))
            fprintf(stderr, "summary: %s\n", rerr.msg);
        /* A summary that could not be written (a full disk) is the grader's failure; a PDF
         * that could not be made is a note unless PDFs are required. */
        if (!ou.md_written || o->pdf_mode > 0) {
            *err = rerr;
            rc = -1;
        }
    }
    if (ou.md_written)
        printf("summary:   %s\n", ou.md_path);
    if (ou.html_written)
        printf("           %s\n", ou.html_path);
    else if (ou.md_written && ro.html)
        printf("           no HTML page: %s\n", ou.html_note);
    if (ou.pdf_written)
        printf("           %s\n", ou.pdf_path);
    else if (ou.md_written && o->pdf_mode >= 0)
        printf("           no PDF: %s\n", ou.pdf_note);
    free(ok);
    return rc;
}

/* Keeps the results whose state is MERGE_OK, in order; frees the others. */
static size_t keep_merged(struct results **all, size_t n, const enum merge_state *state)
{
    size_t kept = 0;
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_OK)
            all[kept++] = all[j];
        else
            results_free(all[j]);
    return kept;
}

/* The class's late policy applied again to the results read back: a changed deadline or
 * extension needs no re-grade. */
static int reapply_late(const struct lab *lab, const struct batch_opts *o, struct results **all,
                        size_t n, struct error *err)
{
    struct late_policy late;
    if (late_policy_make(lab, &o->late, &late, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        late_apply(&late, all[i]->student_id, all[i]);
    late_policy_release(&late);
    return 0;
}

/* The LMS gradebooks (gradebook.h), and a line for each file. */
static int export_lms_gradebooks(const struct lab *lab, const struct batch_opts *o, const char *out,
                                 const char *col, const struct results *const *all, size_t n,
                                 struct error *err)
{
    struct messages msgs;
    struct error merr;
    size_t left_out = 0;
    int rc = -1;
    messages_init(&msgs);
    error_init(&merr);
    if (o->templates_dir)
        messages_load_lang(&msgs, o->templates_dir, o->lang ? o->lang : lab->lang, &merr);
    struct gradebook_opts go = {col, o->canvas_points, &msgs, 0};
    char *canvas = path_join(out, "gradebook-canvas.csv");
    char *moodle = path_join(out, "gradebook-moodle.csv");
    char *sheet = path_join(out, "moodle-worksheet.csv");
    if (export_gradebook_canvas_csv(all, n, &go, canvas, err) != 0 ||
        export_gradebook_moodle_csv(all, n, &go, moodle, &left_out, err) != 0)
        goto out;
    printf("canvas:    %s\n", canvas);
    printf("moodle:    %s", moodle);
    if (left_out)
        printf(" (%zu left out: no ID number, email or username to map them by; give --roster)",
               left_out);
    printf("\n");
    if (gradebook_has_moodle_participants(all, n)) {
        if (export_moodle_worksheet(all, n, &go, sheet, err) != 0)
            goto out;
        printf("           %s (Moodle's offline grading worksheet)\n", sheet);
    }
    rc = 0;
out:
    free(canvas);
    free(moodle);
    free(sheet);
    messages_release(&msgs);
    return rc;
}

int batch_merge(const struct lab *lab, const struct batch_opts *o, int *missing, bool *bad_input,
                struct error *err)
{
    char *out = batch_lab_out(lab, o);
    struct results **all = NULL;
    struct out_lock lock;
    size_t n = 0;
    int rc = -1;
    *missing = 0;
    char *csv = path_join(out, "gradebook.csv");
    /* Canvas matches "Name (assignment id)"; without the id it creates a new assignment. */
    char *col = o->canvas_assignment ? xstrfmt("%s (%s)", lab->title, o->canvas_assignment)
                                     : xstrdup(lab->title);
    struct strbuf class_list = STRBUF_INIT;
    char *class_path = path_join(out, ".class");
    bool known = read_file(class_path, &class_list, NULL) == 0;
    free(class_path);
    if (out_lock_take(&lock, out, 0, 0, "merge", err) != 0)
        goto out;
    list_results(lab, out, known ? class_list.buf : NULL, &all, &n);
    enum merge_state *state = xcalloc(n ? n : 1, sizeof(*state));
    if (o->submissions && merge_check(lab, o, out, all, n, state, missing, bad_input, err) != 0) {
        free(state);
        goto out;
    }
    if (!o->submissions)
        class_check(known ? class_list.buf : NULL, all, n, state, missing);
    /* Only current grades go into the gradebook and the summary. */
    n = keep_merged(all, n, state);
    free(state);
    if (reapply_late(lab, o, all, n, err) != 0 ||
        export_gradebook_csv((const struct results *const *)all, n, csv, err) != 0)
        goto out;
    printf("gradebook: %s (%zu students)\n", csv, n);
    if (export_lms_gradebooks(lab, o, out, col, (const struct results *const *)all, n, err) != 0)
        goto out;
    if (o->pdf_mode >= -1 && merge_summary(o, out, all, n, err) != 0)
        goto out;
    rc = 0;
out:
    out_lock_release(&lock);
    strbuf_release(&class_list);
    for (size_t i = 0; i < n; i++)
        results_free(all[i]);
    free(all);
    free(csv);
    free(col);
    free(out);
    return rc;
}
