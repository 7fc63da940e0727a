/*
 * batch_internal: what the modules of class grading share (class/batch.h is the interface):
 *
 *   batch.c    the table of contents: collect, choose who to grade, prepare, build and grade,
 *              and the disk's room for it
 *   stamp.c    what a student's stamp certifies, and whether intact results of it are there
 *   student.c  one student graded and written: results, exports, report, stamp last
 *   workers.c  the builder ahead of the workers, and the workers (one per GPU, or several per
 *              GPU), each in its lane of the machine's timing coordinator (run/turns.h)
 *   merge.c    gradebooks and the class summary from every stored result
 *
 * struct batch_run is one class being graded by one process (each worker has its copy); it
 * borrows everything but its counters.
 */
#ifndef LG_BATCH_INTERNAL_H
#define LG_BATCH_INTERNAL_H

#include "class/batch.h"
#include "class/collect.h"
#include "class/late.h"
#include "class/queue.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A student to grade: the submission, its output folder (out/<lab>/<id>) and its stamp. */
struct todo {
    const struct submission *sub;
    char *dir;
    char *stamp;
};

struct batch_run {
    struct grade_env *env;
    const struct lab *lab;
    const struct batch_opts *o;
    const char *out; /* out/<lab> */
    struct todo *todo;
    size_t n;
    const struct late_policy *late; /* the class's late policy (late.h) */
    /* What this process spent on reports and how many PDFs it could not make: a worker sends
     * them to the parent in a file when it ends (workers.c). */
    double report_seconds;
    int no_pdf;
};

/* out/<lab>; caller frees. */
char *batch_lab_out(const struct lab *lab, const struct batch_opts *o);
/* The class's submissions, the lab's sources found wherever students put them: grading and
 * merging must collect alike, or their digests differ. */
int batch_collect_class(const struct lab *lab, const struct batch_opts *o, const char *unpack,
                        const struct collect_limits *lim, struct submission_set *set,
                        struct error *err);

/* ---- stamp.c ---- */
/* What a stamp certifies: these files, graded with this grader against this lab. */
char *stamp_text(const struct lab *lab, const char *digest, const struct grade_opts *g,
                 const char *ref_digest);
/* The stamp as written: what was graded, then the checksum of the results it certifies. */
char *stamp_certifying(const char *stamp, const char *json, size_t len);
enum graded_state {
    NOT_GRADED,    /* no stamp, or one of other files or options: grade */
    GRADED,        /* stamped, and the results are the ones stamped, intact */
    GRADED_DAMAGED /* stamped, but the results are gone, changed or refused: grade again */
};
/* Whether dir holds this stamp's results, intact; why says what is wrong when damaged. */
enum graded_state stamp_graded_state(const char *dir, const char *stamp, char *why,
                                     size_t why_size);

/* ---- student.c ---- */
/* How grading one student ended, as the summary counts it. */
enum {
    OUT_WRITTEN = 1,  /* results, reports and (without XX) the stamp were written */
    OUT_FAILING = 2,  /* some case is the submission's failure */
    OUT_XX = 4,       /* some case is XX, or nothing could be written: the grader's error */
    OUT_NOT_TIMED = 8 /* some case could not be timed here (the machine was busy) */
};
/* Student t built (build_only: into the cache and its work folder, nothing written) or
 * graded into r. */
int batch_grade_one(struct batch_run *b, const struct todo *t, bool build_only, struct results *r,
                    struct error *err);
/* Student t graded and written; its outcome (OUT_*). */
int batch_grade_student(struct batch_run *b, const struct todo *t);

/* ---- workers.c ---- */
/* The builder: a process of its own that builds the class ahead of the workers (queue.h).
 * Its pid, or -1 (the workers then build what they grade). */
pid_t batch_start_builder(struct batch_run *b, struct work_queue *q);
/* Every student of q graded by `workers` workers (this process alone when 1), s counted. */
void batch_run_workers(struct batch_run *b, struct work_queue *q, int workers,
                       struct batch_summary *s, double started);

#endif
