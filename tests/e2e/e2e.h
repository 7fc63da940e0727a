/*
 * Shared helpers of the end-to-end suites: run the grader binary (LG_BIN) as a
 * child process and read back the results.json it wrote.
 */
#ifndef LG_TEST_E2E_H
#define LG_TEST_E2E_H

#include "grade/results.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/util.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run argv with stdout+stderr into out_path (may be NULL: /dev/null); returns the exit status. */
static inline int e2e_run(const char *const *argv, const char *out_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last bytes of a grader's log, on one line, for a failed assertion's message: CI keeps
 * neither the work folder nor the log, only what the suite prints. Caller frees. */
static inline char *e2e_log_tail(const char *path)
{
    char buf[1200];
    size_t n = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return xstrdup("(no log)");
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size > (long)sizeof(buf) - 1)
            fseek(f, size - (long)sizeof(buf) + 1, SEEK_SET);
        else
            rewind(f);
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = '|';
    return xstrdup(buf);
}

static inline const char *e2e_bin(void)
{
    const char *b = getenv("LG_BIN");
    return b && *b ? b : "build/grader";
}

static inline char *e2e_tmpdir(const char *tag)
{
    char *t = xstrfmt("/tmp/lg-e2e-%s-XXXXXX", tag);
    if (!mkdtemp(t)) {
        free(t);
        return NULL;
    }
    return t;
}

struct expected_row {
    char fixture[64], exercise[64], variant[64], cpu[8], gpu[8];
};

/* tests/fixtures/lab6/EXPECTED: "fixture exercise variant cpu_verdict gpu_verdict". */
static inline size_t e2e_expected(struct expected_row *rows, size_t max)
{
    FILE *f = fopen("tests/fixtures/lab6/EXPECTED", "r");
    char line[512];
    size_t n = 0;
    if (!f)
        return 0;
    while (n < max && fgets(line, sizeof(line), f)) {
        struct expected_row *r = &rows[n];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%63s %63s %63s %7s %7s", r->fixture, r->exercise, r->variant, r->cpu,
                   r->gpu) == 5)
            n++;
    }
    fclose(f);
    return n;
}

static inline const struct variant_result *e2e_variant(const struct results *r, const char *ex,
                                                       const char *var)
{
    for (size_t e = 0; e < r->n_exercises; e++)
        if (!strcmp(r->exercises[e].exercise_id, ex))
            for (size_t v = 0; v < r->exercises[e].n_variants; v++)
                if (!strcmp(r->exercises[e].variants[v].variant_id, var))
                    return &r->exercises[e].variants[v];
    return NULL;
}

/* "ex/variant/case CODE: message; ..." for every case that did not pass nor was skipped, so
 * that a failed assertion on a whole grade says which case and why (CI keeps no work folder).
 * Caller frees. */
static inline char *e2e_failed_cases(const struct results *r)
{
    char *out = xstrdup("");
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (cr->verdict == V_PASS || cr->verdict == V_SKIPPED)
                    continue;
                char *more =
                    xstrfmt("%s%s/%s/%s %s: %s; ", out, r->exercises[e].exercise_id, vr->variant_id,
                            cr->case_id, verdict_code(cr->verdict), cr->message ? cr->message : "");
                free(out);
                out = more;
            }
        }
    return out;
}

/* How e2e_check_lab grades. */
enum {
    E2E_TIMED = 1,       /* with timing (else --no-timing) */
    E2E_HIDDEN = 2,      /* --hidden --no-sanitize: every case, correctness and timing only */
    E2E_REQUIRE_GPU = 4, /* the GPU suites: fail when the grader saw no GPU */
    E2E_PARALLEL = 8,    /* e2e_check_fixture: --parallel 3, variants side by side */
};

/*
 * Grade one fixture and check every (exercise, variant) row of it against the
 * expected verdict column. Cases graded: n256 (matmul) and n1000 (grade2). flags: E2E_TIMED,
 * E2E_PARALLEL.
 */
static inline void e2e_check_fixture(const char *fixture, bool gpu_column, const char *out,
                                     int flags)
{
    struct expected_row rows[128];
    size_t n = e2e_expected(rows, 128);
    char *sub = xstrfmt("tests/fixtures/lab6/%s", fixture);
    char *log = xstrfmt("%s/%s.log", out, fixture);
    const char *argv[] = {
        e2e_bin(),   "check", "labs/lab6", "--submission", sub,     "--case", "n256,n1000",
        "--timeout", "10",    "--no-pdf",  "--quiet",      "--out", out,      "--student",
        fixture,     NULL,    NULL,        NULL,           NULL};
    size_t k = 15;
    if (!(flags & E2E_TIMED))
        argv[k++] = "--no-timing";
    if (flags & E2E_PARALLEL) {
        argv[k++] = "--parallel";
        argv[k++] = "3";
    }
    int status = e2e_run(argv, log);
    bool all_ok = true, any = false;
    struct results r;
    struct error err;
    char *json = xstrfmt("%s/lab6/%s/results.json", out, fixture);
    results_init(&r);
    if (results_read(&r, json, &err) != 0) {
        char *tail = e2e_log_tail(log);
        ck_abort_msg("%s: no results (%s); exit %d; the log's end: %s", fixture, err.msg, status,
                     tail);
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].fixture, fixture))
            continue;
        any = true;
        const char *want = gpu_column ? rows[i].gpu : rows[i].cpu;
        /* Without a CUDA toolkit nothing of a GPU variant is even compiled: all of them are
         * skipped, whatever their defect. */
        if (!gpu_column && !r.machine.nvcc_version && !strncmp(rows[i].variant, "gpu", 3))
            want = "SK";
        const struct variant_result *v = e2e_variant(&r, rows[i].exercise, rows[i].variant);
        ck_assert_msg(v != NULL, "%s: no result for %s/%s", fixture, rows[i].exercise,
                      rows[i].variant);
        size_t graded = 0;
        for (size_t c = 0; c < v->n_cases; c++) {
            const struct case_result *cr = &v->cases[c];
            if (strcmp(cr->case_id, "n256") && strcmp(cr->case_id, "n1000"))
                continue;
            graded++;
            ck_assert_msg(!strcmp(verdict_code(cr->verdict), want),
                          "%s: %s/%s case %s: verdict %s (%s), expected %s", fixture,
                          rows[i].exercise, rows[i].variant, cr->case_id, verdict_code(cr->verdict),
                          cr->message ? cr->message : "", want);
        }
        ck_assert_msg(graded == 1, "%s: %s/%s: %zu graded cases", fixture, rows[i].exercise,
                      rows[i].variant, graded);
        if (strcmp(want, "OK") && strcmp(want, "SK"))
            all_ok = false;
    }
    ck_assert_msg(any, "EXPECTED has no rows for fixture %s", fixture);
    if (status != (all_ok ? 0 : 1)) {
        char *tail = e2e_log_tail(log);
        ck_abort_msg("%s: exit status %d, expected %d; the log's end: %s", fixture, status,
                     all_ok ? 0 : 1, tail);
    }
    results_release(&r);
    free(json);
    free(sub);
    free(log);
}

/* Whether a passed case was timed. A case may instead say it was not timed because another
 * process shared its cores or its GPU each time it was measured, or held the machine's turn
 * (a loaded test machine: run/turns.h): that is said on stderr as a skip, with the reason, and
 * is no failure; a case untimed without a reason is. */
static inline bool e2e_timed(const char *what, const struct case_result *cr)
{
    if (cr->time.valid)
        return true;
    ck_assert_msg(cr->not_timed == NOT_TIMED_SHARED || cr->not_timed == NOT_TIMED_BUSY,
                  "%s: not timed, and no reason given", what);
    if (cr->not_timed == NOT_TIMED_SHARED && cr->not_timed_gpu_pid <= 0)
        fprintf(stderr,
                "skipped: %s timed: this machine was too busy to time it (shared: other "
                "processes took %.1f of its cores)\n",
                what, cr->not_timed_cpus);
    else
        fprintf(stderr, "skipped: %s timed: this machine was too busy to time it (%s: %s)\n", what,
                not_timed_name(cr->not_timed), cr->not_timed_detail ? cr->not_timed_detail : "-");
    return false;
}

/* Is `id` one of the comma-separated ids in list? */
static inline bool e2e_in_list(const char *list, const char *id)
{
    size_t len = strlen(id);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == len && !strncmp(p, id, len))
            return true;
        p += k;
        if (*p == ',')
            p++;
    }
    return false;
}

/* `grader check labs/LAB` on one submission into out, its selected cases (--case cases, and
 * --only only where not NULL), the log beside its results; returns the exit status and fills
 * r (the caller releases it). */
static inline int e2e_check_lab(const char *out, const char *lab, const char *submission,
                                const char *student, const char *only, const char *cases, int flags,
                                struct results *r)
{
    char *labdir = xstrfmt("labs/%s", lab);
    char *log = xstrfmt("%s/%s-%s.log", out, lab, student);
    const char *argv[24] = {e2e_bin(),   "check", labdir,   "--submission", submission,
                            "--student", student, "--case", cases};
    size_t n = 9;
    if (flags & E2E_HIDDEN) {
        argv[n++] = "--hidden";
        argv[n++] = "--no-sanitize";
    }
    if (only) {
        argv[n++] = "--only";
        argv[n++] = only;
    }
    if (!(flags & E2E_TIMED))
        argv[n++] = "--no-timing";
    argv[n++] = "--no-pdf";
    argv[n++] = "--quiet";
    argv[n++] = "--out";
    argv[n++] = out;
    argv[n] = NULL;
    int status = e2e_run(argv, log);
    struct error err;
    char *json = xstrfmt("%s/%s/%s/results.json", out, lab, student);
    results_init(r);
    ck_assert_msg(results_read(r, json, &err) == 0, "%s %s: no results (%s); exit %d; see %s", lab,
                  student, err.msg, status, log);
    if (flags & E2E_REQUIRE_GPU)
        ck_assert_msg(r->machine.gpu_name != NULL, "%s %s: the grader saw no GPU: %s", lab, student,
                      r->machine.gpu_status ? r->machine.gpu_status : "");
    free(json);
    free(log);
    free(labdir);
    return status;
}

#endif
