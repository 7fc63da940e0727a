/*
 * side: a submission's variants side by side, each in a process of its own (grade/fanout.h).
 *
 * The grading process prepares every variant first (grade.c: its build, expected outputs,
 * the paired reference, the references' timings), so that the processes only run and judge.
 * Each sends its variant back as a results file of one exercise and one variant (results.h's
 * JSON, which reads back exactly) with its progress lines in a file beside it, and the
 * grading process takes them in the variants' order. The runs take their turns through the
 * machine's timing coordinator like every other grader's (run/turns.h): start-up, checked calls
 * and freeing overlap, while a timed series has its GPU to itself and a CPU series its cores.
 */
#include "grade/fanout.h"
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/trace.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct side {
    struct grading *g;
    struct variant_task *tasks;
    size_t *idx; /* the fanned-out tasks: those with cases to run */
    char name[256];
};

static const char *task_name(void *arg, size_t i)
{
    struct side *s = arg;
    const struct variant_task *t = &s->tasks[s->idx[i]];
    snprintf(s->name, sizeof(s->name), "%s/%s", t->ex->id, t->ex->variants[t->vi].id);
    return s->name;
}

static char *progress_path(const char *out)
{
    return xstrfmt("%s.progress", out);
}

/* The variant's result as a results file of its own: the submission's head (borrowed), one
 * exercise, one variant, tallied so that it reads back as consistent. */
static int write_variant(const struct grading *g, const struct variant_task *t, const char *out,
                         struct error *err)
{
    struct results one = *g->r;
    struct exercise_result ex;
    memset(&ex, 0, sizeof(ex));
    ex.exercise_id = (char *)t->ex->id;
    ex.title = (char *)t->ex->title;
    ex.variants = t->vr;
    ex.n_variants = 1;
    one.exercises = &ex;
    one.n_exercises = 1;
    results_tally(&one);
    return results_write(&one, out, err);
}

/* In the child: the variant run and judged, its progress lines into a file of their own. */
static int side_work(void *arg, size_t i, const char *out, struct error *err)
{
    struct side *s = arg;
    struct grading *g = s->g;
    struct grade_opts o = *g->o;
    char *pp = progress_path(out);
    o.progress = g->o->progress ? fopen(pp, "w") : NULL;
    free(pp);
    g->o = &o;
    g->beside_others = true;
    const struct variant_task *t = &s->tasks[s->idx[i]];
    int rc = variant_execute(g, t, err);
    if (o.progress)
        fclose(o.progress);
    return rc == 0 ? write_variant(g, t, out, err) : rc;
}

static void relay_progress(const struct grading *g, const char *out)
{
    char *pp = progress_path(out);
    struct strbuf sb = STRBUF_INIT;
    struct error ignored;
    error_init(&ignored);
    if (g->o->progress && read_file(pp, &sb, &ignored) == 0 && sb.len) {
        fwrite(sb.buf, 1, sb.len, g->o->progress);
        fflush(g->o->progress);
    }
    unlink(pp);
    free(pp);
    strbuf_release(&sb);
}

/* In the grading process: the child's variant in place of the prepared one. */
static int side_collect(void *arg, size_t i, const char *out, struct error *err)
{
    struct side *s = arg;
    struct variant_task *t = &s->tasks[s->idx[i]];
    struct results back;
    results_init(&back);
    if (results_read(&back, out, err) != 0)
        return -1;
    if (back.n_exercises != 1 || back.exercises[0].n_variants != 1) {
        results_release(&back);
        return error_set_at(err, out, 0, 0, "holds %zu exercises, not one variant's result",
                            back.n_exercises);
    }
    struct variant_result prepared = *t->vr;
    *t->vr = back.exercises[0].variants[0];
    back.exercises[0].variants[0] = prepared;
    results_release(&back);
    relay_progress(s->g, out);
    return 0;
}

int side_jobs(int jobs, const struct gpu_probe *gpu)
{
    if (jobs > 1 && gpu->available && !gpu_probe_room_for_several(gpu))
        return 1;
    return jobs < 1 ? 1 : jobs;
}

/* The variants with cases to run (s->idx, m of them), each in a process of its own. */
static int fan_out(struct grading *g, struct side *s, size_t m, int jobs, struct error *err)
{
    char *dir = grading_fresh_dir(g, "side", err);
    if (!dir)
        return -1;
    struct fanout f = {.n = m,
                       .jobs = jobs,
                       .dir = dir,
                       .work = side_work,
                       .collect = side_collect,
                       .name = task_name,
                       .arg = s};
    double t0 = now_seconds();
    trace_point("%zu variants side by side, %d at a time", m, jobs);
    int rc = fanout_run(&f, err);
    g->phase_runs_s += now_seconds() - t0;
    if (!g->o->keep_work)
        remove_tree(dir, NULL);
    free(dir);
    return rc;
}

int variants_side_by_side(struct grading *g, struct variant_task *tasks, size_t n, int jobs,
                          struct error *err)
{
    struct side s = {.g = g, .tasks = tasks, .idx = xcalloc(n + 1, sizeof(size_t))};
    size_t m = 0;
    int rc = 0;
    /* A variant with no case to run has nothing to overlap: it is finished here. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (tasks[i].any)
            s.idx[m++] = i;
        else
            rc = variant_execute(g, &tasks[i], err);
    }
    /* Nor has a lone variant that runs (one selected, the rest not built or not runnable
     * here): no process of its own, no round trip through a file. */
    if (rc == 0 && m == 1)
        rc = variant_execute(g, &tasks[s.idx[0]], err);
    else if (rc == 0 && m > 1)
        rc = fan_out(g, &s, m, jobs, err);
    free(s.idx);
    return rc;
}
