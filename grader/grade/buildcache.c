/*
 * buildcache: a submission's builds kept in the grader's cache (reports/.cache/builds/), keyed
 * by everything a build depends on: the submission's files (names and contents), the variant,
 * the compilers and their flags, the generated prototypes and the harness
 * (build_environment_digest). Checking an unchanged submission again compiles nothing; a
 * compile error is kept too (the same files give the same error). A grader error is never
 * kept. Entries are written whole and sealed (grade/cache.h): a damaged one is built again.
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "grade/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

static char *entry_dir(const struct grading *g, const struct exercise_spec *ex,
                       const struct variant_spec *v, struct error *err)
{
    struct sha256 h;
    char hex[65];
    const struct build_ctx *b = &g->student_build;
    if (!b->cache_dir || !b->src_digest[0])
        return NULL;
    sha256_init(&h);
    if (build_environment_digest(b, &h, err) != 0)
        return NULL;
    const char *parts[] = {ex->id, v->id, v->student.function, b->src_digest};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        sha256_update(&h, parts[i], strlen(parts[i]) + 1);
    for (size_t i = 0; i < v->student.n_sources; i++)
        sha256_update(&h, v->student.sources[i], strlen(v->student.sources[i]) + 1);
    for (size_t i = 0; i < v->student.n_libs; i++)
        sha256_update(&h, v->student.libs[i], strlen(v->student.libs[i]) + 1);
    sha256_final_hex(&h, hex);
    return xstrfmt("%s/builds/%.2s/%s", b->cache_dir, hex, hex + 2);
}

/* An entry whose runner (when it built) is as stored. */
static bool entry_load(const char *dir, struct build_result *r)
{
    if (!build_record_load(dir, r))
        return false;
    char why[512];
    if (r->status != BUILD_OK || cache_check_file(r->runner, why, sizeof(why)) == CACHE_OK)
        return true;
    cache_discard(dir, why);
    build_result_release(r);
    build_result_init(r);
    return false;
}

/* Copy the build's record and runner into the cache, whole: a temporary folder renamed. */
static void entry_store(const char *dir, const struct build_result *r)
{
    struct error err;
    error_init(&err);
    char *tmp = xstrfmt("%s.tmp.%ld", dir, (long)getpid());
    char *runner = path_join(tmp, "runner");
    remove_tree(tmp, NULL);
    bool ok = mkdir_p(tmp, &err) == 0;
    struct build_result copy = *r;
    copy.runner = NULL;
    if (ok && r->status == BUILD_OK)
        ok = copy_file(r->runner, runner, &err) == 0 && cache_seal_file(runner, &err) == 0;
    if (ok)
        ok = build_record_save(tmp, &copy, &err) == 0;
    if (ok && rename(tmp, dir) != 0)
        ok = false; /* another grader stored it meanwhile: theirs will do */
    if (!ok)
        remove_tree(tmp, NULL);
    free(tmp);
    free(runner);
}

int student_build(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                  struct build_result *r, struct error *err)
{
    char *dir = entry_dir(g, ex, v, err);
    if (dir && entry_load(dir, r)) {
        free(dir);
        return 0;
    }
    int rc = build_variant(&g->student_build, ex, v, r, err);
    bool keep =
        rc == 0 && dir && r->status != BUILD_GRADER_ERROR && r->status != BUILD_NO_TOOLCHAIN;
    if (keep) {
        char *parent = xstrdup(dir);
        *strrchr(parent, '/') = '\0';
        if (mkdir_p(parent, NULL) == 0)
            entry_store(dir, r);
        free(parent);
    }
    free(dir);
    return rc;
}

/*
 * Wait until one of the n build children in pids[] has ended and take it out. The grader is a
 * child subreaper (run/sweep.c): processes that a build child's compilers left behind are
 * re-parented to it, so wait() may return one of those. Counting such a stranger as a build
 * child let grading start while a child was still linking into the same folder (its runner
 * half written: exec refused). Strangers that ended are reaped here and not counted.
 */
static void reap_build_child(pid_t *pids, long *n)
{
    for (;;) {
        pid_t got = waitpid(-1, NULL, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *n = 0; /* no child left at all */
            return;
        }
        for (long i = 0; i < *n; i++)
            if (pids[i] == got) {
                pids[i] = pids[--*n];
                return;
            }
    }
}

/* Whether two variants compile a source of the same name (lab 6's gpu and gpu_dev variants
 * both compile grade2_gpu.cu). */
static bool shares_source(const struct variant_spec *a, const struct variant_spec *b)
{
    for (size_t i = 0; i < a->student.n_sources; i++)
        for (size_t j = 0; j < b->student.n_sources; j++)
            if (!strcmp(a->student.sources[i], b->student.sources[j]))
                return true;
    return false;
}

static bool in_cache(struct grading *g, const struct exercise_spec *ex,
                     const struct variant_spec *v)
{
    struct error err;
    struct build_result r;
    error_init(&err);
    char *dir = entry_dir(g, ex, v, &err);
    build_result_init(&r);
    bool cached = !dir || entry_load(dir, &r);
    build_result_release(&r);
    free(dir);
    return cached;
}

struct build_round {
    pid_t *pids;
    long running, jobs;
    const struct variant_spec **started; /* this round's, for shares_source */
    size_t n_started;
};

/* Start v's build in a child, unless it is cached or shares a source with a build of this
 * round; true when it needs nothing more (built, building or cached). */
static bool start_build(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, struct build_round *round)
{
    if (in_cache(g, ex, v))
        return true;
    for (size_t i = 0; i < round->n_started; i++)
        if (shares_source(v, round->started[i]))
            return false;
    if (round->running >= round->jobs)
        reap_build_child(round->pids, &round->running);
    round->started[round->n_started++] = v;
    pid_t pid = fork();
    if (pid == 0) {
        struct error err;
        struct build_result r;
        error_init(&err);
        build_result_init(&r);
        int rc = student_build(g, ex, v, &r, &err);
        _exit(rc == 0 ? 0 : 1);
    }
    if (pid > 0)
        round->pids[round->running++] = pid;
    return true;
}

/* One child process per variant not in the cache yet, as many at a time as there are cores:
 * each builds into its own folder and stores its build in the cache, where grading then finds
 * it. A child that fails leaves nothing: its variant is built again, in order, by the caller.
 * Variants that compile a source another build is compiling wait for the next round, where
 * the object cache (run/objcache.h) serves them the object: each source is compiled once,
 * not once per variant at the same time. */
void student_build_all(struct grading *g, const bool *exercise_selected)
{
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    size_t total = 0, done_n = 0;
    for (size_t e = 0; e < g->lab->n_exercises; e++)
        total += exercise_selected[e] ? g->lab->exercises[e].n_variants : 0;
    struct build_round round = {.jobs = jobs < 1 ? 1 : jobs};
    round.pids = xcalloc((size_t)round.jobs, sizeof(*round.pids));
    round.started = xcalloc(total ? total : 1, sizeof(*round.started));
    bool *done = xcalloc(total ? total : 1, sizeof(*done));
    fflush(NULL);
    while (done_n < total) {
        size_t k = 0;
        round.n_started = 0;
        for (size_t e = 0; e < g->lab->n_exercises; e++) {
            const struct exercise_spec *ex = &g->lab->exercises[e];
            for (size_t vi = 0; exercise_selected[e] && vi < ex->n_variants; vi++, k++)
                if (!done[k] && start_build(g, ex, &ex->variants[vi], &round)) {
                    done[k] = true;
                    done_n++;
                }
        }
        while (round.running > 0)
            reap_build_child(round.pids, &round.running);
    }
    free(done);
    free(round.started);
    free(round.pids);
}
