/* merge: gradebooks and the class summary from every stored result (batch_internal.h). */
#include "class/batch_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/sha256.h"
#include "class/lock.h"
#include "class/roster.h"
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

/* The roster's word on one graded student: name, identities (what the roster has replaces
 * what was recorded, the LMS's own ids stay), group and its members. */
static void take_row(struct results *r, const struct roster *ro, const struct roster_row *row)
{
    if (row->name[0]) {
        free(r->student_name);
        r->student_name = xstrdup(row->name);
    }
    lms_ids_overlay(&r->lms.ids, &row->ids);
    if (!row->group)
        return;
    free(r->lms.group);
    r->lms.group = xstrdup(row->group);
    for (size_t i = 0; i < r->lms.n_members; i++) {
        free(r->lms.members[i].id);
        free(r->lms.members[i].name);
        lms_ids_release(&r->lms.members[i].ids);
    }
    r->lms.n_members = 0;
    roster_members(ro, row->group, &r->lms.members, &r->lms.n_members);
}

/* The roster to name the students by: the one given now (remember_roster keeps it for later
 * merges and reports), else the one remembered in out/<lab>/.roster while it is there. NULL:
 * none. Caller frees. */
static char *roster_path(const char *out, const struct batch_opts *o, bool *remembered)
{
    char *memo = path_join(out, ".roster"), *path = NULL;
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    *remembered = false;
    if (o->roster) {
        if (!(path = path_abs(o->roster, &err)))
            path = xstrdup(o->roster);
    } else if (read_file(memo, &sb, NULL) == 0 && sb.len) {
        if (file_exists(sb.buf)) {
            path = strbuf_detach(&sb);
            *remembered = true;
        } else {
            printf("the roster given before, %s, is gone: students named as graded\n", sb.buf);
        }
    }
    strbuf_release(&sb);
    free(memo);
    return path;
}

/* A roster given now, that loaded: its absolute path in out/<lab>/.roster. */
static void remember_roster(const char *out, const char *path)
{
    char *memo = path_join(out, ".roster");
    if (!strpbrk(path, "\n\r") && write_file_atomic(memo, path, strlen(path), NULL) != 0)
        printf("%s: cannot be written: a later merge will not remember the roster\n", memo);
    free(memo);
}

/*
 * Students graded without the roster (or with another) are named from it (roster.h's
 * roster_find_student), in the gradebooks and the summary; results.json stays as graded.
 * aka[j] gets the id the roster gives result j (what collecting the submissions with this
 * roster calls the student), NULL when no row matched. 0, or -1 when the roster cannot be read
 * (the caller's input to fix).
 */
static int apply_roster(const char *path, bool remembered, struct results **all, size_t n,
                        char **aka, struct error *err)
{
    struct roster ro;
    struct strbuf unmatched = STRBUF_INIT;
    size_t named = 0;
    memset(&ro, 0, sizeof(ro));
    if (roster_load(path, &ro, err) != 0) {
        roster_release(&ro); /* the rows read before the one refused */
        return -1;
    }
    for (size_t i = 0; i < ro.warnings.n; i++)
        printf("%s\n", ro.warnings.v[i]);
    for (size_t j = 0; j < n; j++) {
        size_t matches = 0;
        const struct roster_row *row = roster_find_student(
            &ro, all[j]->student_id, &all[j]->lms.ids, all[j]->student_name, &matches);
        if (!row) {
            strbuf_addf(&unmatched, "%s%s", unmatched.len ? ", " : "", all[j]->student_id);
            continue;
        }
        take_row(all[j], &ro, row);
        aka[j] = sanitize_id(row->id, "@");
        named++;
    }
    printf("roster:    %s%s: %zu of %zu students named from it", path,
           remembered ? " (given before; --roster changes it)" : "", named, n);
    if (unmatched.len)
        printf("; not in it, named as graded: %s", unmatched.buf);
    printf("\n");
    strbuf_release(&unmatched);
    roster_release(&ro);
    return 0;
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
                       struct results **all, char *const *aka, size_t n, enum merge_state *state,
                       int *missing, bool *bad_input, struct error *err)
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
        /* Collected with the roster, a student graded without it has the roster's id. */
        while (j < n && strcmp(all[j]->student_id, set.items[i].id) &&
               !(aka[j] && !strcmp(aka[j], set.items[i].id)))
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
    /* The class's pages, plots and PDF take cores for seconds, on any core: not while another
     * grader of this machine (a rush, a student's check) times a series on them (run/work.h). */
    struct turns t;
    size_t n_held = 0;
    turns_init(&t);
    turns_setup(&t, 1);
    int *held = turns_hold_cores(&t, &n_held);
    int src = n_ok ? report_summary(ok, n_ok, out, &ro, &ou, &rerr) : 0;
    turns_let_go(held, n_held);
    turns_release(&t);
    if (src != 0) {
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

/* Canvas's assignment and points possible, as the last grade or merge of this output folder
 * that gave them gave them (out/<lab>/.canvas, "assignment ID" and "points N" lines): a merge
 * without --canvas-assignment would otherwise name no assignment, and Canvas would create a
 * new one. Each one given now replaces its own. */
struct canvas_target {
    char *assignment; /* NULL: none */
    double points;    /* 0: the lab's maximum, unscaled */
    bool remembered;  /* the assignment was read back, not given now */
};

static void canvas_remember(const char *path, const struct canvas_target *t)
{
    struct strbuf sb = STRBUF_INIT;
    /* An id with a line break in it is not written down: it would forge another line. */
    if (t->assignment && !strpbrk(t->assignment, "\n\r"))
        strbuf_addf(&sb, "assignment %s\n", t->assignment);
    if (t->points > 0)
        strbuf_addf(&sb, "points %.17g\n", t->points);
    if (write_file_atomic(path, sb.buf ? sb.buf : "", sb.len, NULL) != 0)
        printf("%s: cannot be written: a later merge will not remember the Canvas assignment\n",
               path);
    strbuf_release(&sb);
}

static void canvas_target(const char *out, const struct batch_opts *o, struct canvas_target *t)
{
    struct strbuf sb = STRBUF_INIT;
    char *path = path_join(out, ".canvas");
    memset(t, 0, sizeof(*t));
    if (read_file(path, &sb, NULL) == 0) {
        const char *text = strbuf_str(&sb), *a = strstr(text, "assignment "),
                   *p = strstr(text, "points ");
        if (a && strcspn(a + 11, "\n") > 0)
            t->assignment = xstrndup(a + 11, strcspn(a + 11, "\n"));
        if (p && !((t->points = strtod(p + 7, NULL)) > 0))
            t->points = 0;
        t->remembered = t->assignment != NULL;
    }
    if (o->canvas_assignment) {
        free(t->assignment);
        t->assignment = xstrdup(o->canvas_assignment);
        t->remembered = false;
    }
    if (o->canvas_points > 0)
        t->points = o->canvas_points;
    if (o->canvas_assignment || o->canvas_points > 0)
        canvas_remember(path, t);
    free(path);
    strbuf_release(&sb);
}

/* The LMS gradebooks (gradebook.h), and a line for each file. Moodle's column is the lab's
 * title and its scores the lab's points: the Canvas options are Canvas's alone. */
static int export_lms_gradebooks(const struct lab *lab, const struct batch_opts *o, const char *out,
                                 bool rostered, const struct results *const *all, size_t n,
                                 struct error *err)
{
    struct messages msgs;
    struct error merr;
    struct canvas_target ct;
    size_t left_out = 0;
    int rc = -1;
    messages_init(&msgs);
    error_init(&merr);
    if (o->templates_dir)
        messages_load_lang(&msgs, o->templates_dir, o->lang ? o->lang : lab->lang, &merr);
    canvas_target(out, o, &ct);
    /* Canvas matches "Name (assignment id)"; without the id it creates a new assignment. */
    char *col = ct.assignment ? xstrfmt("%s (%s)", lab->title, ct.assignment) : NULL;
    struct gradebook_opts go = {col ? col : lab->title, ct.points, &msgs, 0};
    struct gradebook_opts gm = {lab->title, 0, &msgs, 0};
    char *canvas = path_join(out, "gradebook-canvas.csv");
    char *moodle = path_join(out, "gradebook-moodle.csv");
    char *sheet = path_join(out, "moodle-worksheet.csv");
    if (export_gradebook_canvas_csv(all, n, &go, canvas, err) != 0 ||
        export_gradebook_moodle_csv(all, n, &gm, moodle, &left_out, err) != 0)
        goto out;
    printf("canvas:    %s", canvas);
    if (ct.remembered && ct.assignment)
        printf(" (assignment %s, as given before; --canvas-assignment changes it)", ct.assignment);
    printf("\n");
    printf("moodle:    %s", moodle);
    if (left_out && rostered)
        printf(" (%zu left out: the roster gives them no ID number, email or username to map "
               "them by)",
               left_out);
    else if (left_out)
        printf(" (%zu left out: no ID number, email or username to map them by; give --roster)",
               left_out);
    printf("\n");
    if (gradebook_has_moodle_participants(all, n)) {
        if (export_moodle_worksheet(all, n, &gm, sheet, err) != 0)
            goto out;
        printf("           %s (Moodle's offline grading worksheet)\n", sheet);
    }
    rc = 0;
out:
    free(canvas);
    free(moodle);
    free(sheet);
    free(col);
    free(ct.assignment);
    messages_release(&msgs);
    return rc;
}

/*
 * Which results go into the gradebook (state), the students named from the roster first:
 * against the submissions when given, else against the class graded last. *rostered: a
 * roster named them. 0, or -1 (*bad_input set when the roster or the submissions are the
 * caller's to fix).
 */
static int merge_select(const struct lab *lab, const struct batch_opts *o, const char *out,
                        const char *class_list, struct results **all, size_t n,
                        enum merge_state *state, bool *rostered, int *missing, bool *bad_input,
                        struct error *err)
{
    char **aka = xcalloc(n ? n : 1, sizeof(*aka));
    bool remembered;
    char *roster = roster_path(out, o, &remembered);
    int rc = 0;
    *rostered = roster != NULL;
    if (roster && apply_roster(roster, remembered, all, n, aka, err) != 0) {
        rc = -1;
        if (bad_input)
            *bad_input = true;
    } else if (o->submissions) {
        rc = merge_check(lab, o, out, all, aka, n, state, missing, bad_input, err);
    } else {
        class_check(class_list, all, n, state, missing);
    }
    if (rc == 0 && roster && !remembered)
        remember_roster(out, roster);
    for (size_t j = 0; j < n; j++)
        free(aka[j]);
    free(aka);
    free(roster);
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
    bool rostered;
    *missing = 0;
    char *csv = path_join(out, "gradebook.csv");
    struct strbuf class_list = STRBUF_INIT;
    char *class_path = path_join(out, ".class");
    bool known = read_file(class_path, &class_list, NULL) == 0;
    free(class_path);
    if (out_lock_take(&lock, out, 0, 0, "merge", err) != 0)
        goto out;
    list_results(lab, out, known ? class_list.buf : NULL, &all, &n);
    enum merge_state *state = xcalloc(n ? n : 1, sizeof(*state));
    if (merge_select(lab, o, out, known ? class_list.buf : NULL, all, n, state, &rostered, missing,
                     bad_input, err) != 0) {
        free(state);
        goto out;
    }
    /* Only current grades go into the gradebook and the summary. */
    n = keep_merged(all, n, state);
    free(state);
    if (reapply_late(lab, o, all, n, err) != 0 ||
        export_gradebook_csv((const struct results *const *)all, n, csv, err) != 0)
        goto out;
    printf("gradebook: %s (%zu students)\n", csv, n);
    if (export_lms_gradebooks(lab, o, out, rostered, (const struct results *const *)all, n, err) !=
            0 ||
        (o->pdf_mode >= -1 && merge_summary(o, out, all, n, err) != 0))
        goto out;
    rc = 0;
out:
    out_lock_release(&lock);
    strbuf_release(&class_list);
    for (size_t i = 0; i < n; i++)
        results_free(all[i]);
    free(all);
    free(csv);
    free(out);
    return rc;
}
