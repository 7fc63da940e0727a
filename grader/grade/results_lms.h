/*
 * results_lms: what the systems grades go to need to know about a submission,
 * beside what grading found (JSON "lms" in results.json, absent when empty):
 * who the student is in each LMS, the group a submission stands for, lateness
 * and its penalty, and why a submission could not be graded at all. Collection
 * (class/collect.h) and the late policy (class/late.h) fill it; the exports
 * (report/export.h) read it. Data only: the words are the exports'.
 *
 * Every string may be NULL. Each struct owns its strings; the _release
 * functions free them.
 */
#ifndef LG_RESULTS_LMS_H
#define LG_RESULTS_LMS_H

#include "base/json.h"

#include <stdbool.h>
#include <stddef.h>

/* A student's identity in each system (docs/exports.md says which import reads which). */
struct lms_ids {
    char *canvas_id;          /* Canvas's own user id: the number in its download's names */
    char *sis_user_id;        /* Canvas "SIS User ID" (the institution's student number) */
    char *sis_login_id;       /* Canvas "SIS Login ID" */
    char *moodle_participant; /* Moodle's per-assignment participant number */
    char *idnumber;           /* Moodle "ID number" */
    char *email;              /* Moodle "Email address", Canvas login, Gradescope */
    char *username;           /* Moodle "Username" */
    char *github;             /* GitHub login (GitHub Classroom) */
};

/* One member of the group a submission was handed in for (each gets the grade). */
struct lms_member {
    char *id, *name;
    struct lms_ids ids;
};

/* Lateness, measured against the deadline (with the student's extension), and the
 * penalty taken off the score. The score itself (results.score) is what was earned. */
struct late_record {
    bool evaluated;     /* a late policy was applied */
    bool marked;        /* the LMS marked the submission late (Canvas) */
    bool late;          /* after the deadline and the grace period */
    bool days_known;    /* false: only a "late" mark (Canvas), no time */
    double days;        /* days after the deadline, started days counted whole */
    double penalty;     /* points taken off (the lab's points, not a percentage) */
    double penalty_pct; /* the same as a percentage of the maximum */
    bool zeroed;        /* later than the policy accepts: the score counts 0 */
    char *submitted_at; /* ISO 8601, as read */
    char *deadline;     /* ISO 8601, the one that applied (an extension's included) */
    char *source;       /* where the time came from: "canvas", "moodle", "gradescope",
                           "files" (the submission's newest file) */
};

struct results_lms {
    struct lms_ids ids;
    char *group; /* the group or team name, NULL when none */
    struct lms_member *members;
    size_t n_members;
    struct late_record late;
    /* Why nothing was graded: a collect.h problem's code ("too_many_files",
     * "online_text", ...), NULL when the submission was graded. */
    char *problem;
};

void lms_ids_release(struct lms_ids *ids);
void lms_ids_copy(struct lms_ids *dst, const struct lms_ids *src);
/* Every id src has replaces dst's; dst keeps the ids src lacks (a roster read later does not
 * erase what the LMS's own download said). */
void lms_ids_overlay(struct lms_ids *dst, const struct lms_ids *src);
bool lms_ids_empty(const struct lms_ids *ids);
void late_record_release(struct late_record *l);
void results_lms_release(struct results_lms *l);

void results_lms_to_json(struct json_writer *w, const struct results_lms *l);
/* o: the "lms" object or NULL (nothing read). */
void results_lms_from_json(const struct json_value *o, struct results_lms *l);

#endif
