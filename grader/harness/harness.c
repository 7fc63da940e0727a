/*
 * The runner's main(): see harness.h. One process runs every case of one variant, in the
 * order of the job (grader/harness/job.h): for each, the checked calls (case.h) and, when
 * asked, the timed pairs against the paired reference (timing.h). It writes c<case>_<arg>_<k>.bin
 * and result.txt into its working folder, and never sees an expected value.
 */
#include "case.h"
#include "clock.h"
#include "harness.h"
#include "job.h"
#include "result.h"
#include "timing.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The paired reference's entry point, from its own shared object (harness.h). */
static lg_invoke_fn load_reference(const struct lg_job *job)
{
    if (!job->has_reference)
        return NULL;
    /* RTLD_LOCAL: its symbols stay out of the program's namespace, so the student's code can
     * neither clash with nor link against them. */
    void *h = dlopen(job->reference_lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        lg_fail(LG_EXIT_SETUP, "setup", "cannot load the reference %s: %s", job->reference_lib,
                dlerror());
    void *sym = dlsym(h, LG_REF_ENTRY);
    if (!sym)
        lg_fail(LG_EXIT_SETUP, "setup", "the reference %s has no %s", job->reference_lib,
                LG_REF_ENTRY);
    lg_invoke_fn fn;
    memcpy(&fn, &sym, sizeof(fn));
    return fn;
}

static uint64_t unpredictable_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return seed;
}

/* The timing locks for case s (result.h): on a GPU, the checked calls' work drained first,
 * so that none of it runs on while another grader's series is timed. false: no turn came (the
 * case is reported "busy", not timed). */
static bool timing_turn(const struct lg_case_state *s)
{
    char err[256];
    if (s->job->gpu && lg_gpu_sync(err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_CUDA, "cuda", "before timing: %s", err);
    int turn = lg_timing_turn(s->index);
    if (turn < 0)
        lg_fail(LG_EXIT_SETUP, "setup", "the grader stopped answering the timing-lock request");
    if (turn > 0)
        lg_result("busy");
    return turn == 0;
}

static void run_case(const struct lg_job *job, int i, lg_invoke_fn ref, uint64_t seed)
{
    struct lg_case_state s;
    lg_control("B %d", i);
    lg_result("case %d begin", i);
    lg_result("phase setup");
    lg_case_setup(&s, job, i, ref);
    lg_case_checks(&s);
    uint64_t case_seed = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
    /* The precision check is untimed: before the timing locks are asked for. */
    if (job->time && lg_case_precision(&s, case_seed) && timing_turn(&s)) {
        lg_case_time(&s, case_seed);
        lg_control("R %d", i);
        lg_case_verify_alone(&s);
    }
    lg_case_release(&s);
    lg_result("case %d end", i);
}

int main(int argc, char **argv)
{
    static struct lg_job job;
    char err[1024];
    if (argc != 2) {
        fprintf(stderr, "usage: %s job.txt (this program is run by labgrader)\n", argv[0]);
        return LG_EXIT_SETUP;
    }
    lg_clock_init();
    if (lg_result_open() != 0)
        return LG_EXIT_SETUP;
    lg_result("harness 2");
    lg_result("timesource %s", lg_clock_source());
    if (lg_job_parse(argv[1], &job, err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_SETUP, "setup", "%s", err);
    /* Positions and values the function cannot know in advance; they never change what a
     * correct function computes, so grades stay reproducible. */
    uint64_t seed = unpredictable_seed();
    if (job.gpu && lg_gpu_init(err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_NOGPU, "nogpu", "%s", err);
    lg_invoke_fn ref = load_reference(&job);
    for (int i = 0; i < job.n_cases; i++)
        run_case(&job, i, ref, seed);
    lg_job_release(&job);
    lg_result("status ok");
    lg_result_close();
    return LG_EXIT_OK;
}
