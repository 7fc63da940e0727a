/*
 * The hostile-submission suites' shared machinery (tests/e2e/test_hostile.c for the CPU
 * threats, tests/gpu/test_hostile_gpu.c for the GPU ones). Each test grades one submission
 * of tests/hostile/ with the real grader binary (LG_BIN) and checks what must hold whatever
 * the submission did:
 *   (a) the exact verdict of every exercise variant (tests/hostile/EXPECTED);
 *   (b) the grading ended: a watchdog kills a grader still running after the timeout + the
 *       compile limit + 300 s, and the test fails (no test asserts how long anything took:
 *       a loaded machine is slow, not wrong; a run that is not killed promptly shows as the
 *       wrong verdict or as a process left behind);
 *   (c) grading went on: the variants graded after the hostile function (its exercise's
 *       other variants) have their rows in EXPECTED too, and the `correct` fixture graded
 *       right after the hostile one passes (the whole lab);
 *   (d) nothing outside the scratch folders changed: a canary folder the suite made is
 *       byte-identical and holds no new entry; labs/, tests/fixtures/, tests/hostile/ and
 *       the grader's shared cache hash the same; no marker file appeared where the
 *       submissions aim; no process of the run is left.
 *
 * The submissions are copied into a scratch folder with a generated hostile_paths.h that
 * tells them this run's real paths (canary, repository, output folder, listening port,
 * cached expected outputs), so they aim at the right places on any machine.
 *
 * Two ways to run the threats: hostile_run_threat() grades one and checks it at once (the GPU
 * suites: threats on one GPU disturb each other); hostile_run_all() grades a list of them
 * several at a time before the tests, which then check each one's outcome with
 * hostile_check_threat() (the CPU suite). Both record the same outcome and make the same
 * checks; graded together, each threat's processes are told apart by the folders they run
 * from (its own work and submission folders), and its snapshot spans its own gradings.
 */
#ifndef LG_TEST_HOSTILE_H
#define LG_TEST_HOSTILE_H

#include "../e2e/e2e.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#define HOSTILE_MARK "lg-hostile-was-here"
/* The watchdog: beyond the timeout, the compile limit (grader/run/build.c) and this, a grader is
 * stuck, however loaded the machine. */
#define HOSTILE_GRACE_S 300.0
/* The compile limit the suite grades with (--compile-timeout): the bombs are stopped by it or
 * by the compilers' memory limit, and at the default 120 s the macro bomb alone kept a core
 * busy for 92 s of every run of the suite. An honest lab 6 compile takes seconds. */
#define HOSTILE_COMPILE_LIMIT_S 45
#define HOSTILE_STR_(x) #x
#define HOSTILE_STR(x) HOSTILE_STR_(x)

struct hostile_outcome;

struct hostile_suite {
    bool ready;
    char why[1024]; /* why the suite could not be set up */
    char *repo;     /* the repository root: the tests run from it */
    char *scratch;  /* /tmp/lg-hostile-XXXXXX: out/, subs/ and logs */
    char *out;      /* the grader's --out (its shared cache is out/.cache) */
    char *canary;   /* /tmp/lg-canary-XXXXXX */
    char *home;     /* the real HOME */
    char *isolation;
    bool gpu;              /* the grader saw a usable GPU: the gpu column applies */
    bool nvcc;             /* the grader found a CUDA toolkit */
    char *expected_grade2; /* cache folder of grade2's expected outputs, case n1000 */
    bool memory_limited;   /* the grader recorded a memory limit enforced (results.json) */
    int tcp_fd, unix_fd, port;
    char unix_name[64];
    /* --only for the threats' gradings (not the next student's), NULL for the whole lab. The
     * exercises before the hostile function's are graded before it runs, so their verdicts
     * say nothing about the threat; what is graded after it (its exercise's later variants,
     * the next student) does. */
    const char *only;
    /* hostile_run_all(): what each threat's gradings left, for its test to check. */
    struct hostile_outcome *outcomes;
    size_t n_outcomes;
};

struct hostile_run {
    int status;     /* the grader's exit status; -1 when the watchdog killed it */
    double wall_s;  /* the whole grading, compiles included */
    long peak_kib;  /* the grader process's own peak RSS (VmHWM), sampled */
    int bombs_seen; /* most "lgbomb" processes seen at once while grading */
    bool have_results;
    struct results r;
    char *log;
};

struct hostile_threat {
    const char *name;
    bool needs_bwrap;         /* contained only by namespaces: skipped under the supervisor alone */
    bool timing;              /* graded with timing (else --no-timing) */
    double timeout_s;         /* --timeout */
    const char *memory_limit; /* --memory-limit, or NULL for the grader's default */
    /* Threat-specific checks after the rows of EXPECTED matched; may be NULL. */
    void (*check)(const struct hostile_suite *s, const struct hostile_run *run);
};

struct hostile_snapshot {
    struct strbuf text; /* hostile_tree_list() of every tree that must not change */
};

/* ---------------------------------------------------------------------------------- */
/* Small helpers                                                                      */

static inline void hostile_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static inline int hostile_write(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(text, 1, len, f);
    return fclose(f) == 0 && n == len ? 0 : -1;
}

/* A whole tree as text, one line per entry: path, type and permission bits, size, and the
 * digest of the contents (or the link's target). An entry added, removed, renamed, changed
 * or re-permissioned changes it, and the first differing line says which. */
static inline void hostile_tree_list(const char *path, const char *rel, struct strbuf *out)
{
    struct stat st;
    /* What the grader itself adds to its cache while grading (the submissions' builds and
     * object files, the references' times on this machine) is not the run's doing. */
    if (!strcmp(rel, "cache/builds") || !strcmp(rel, "cache/reftime") ||
        !strcmp(rel, "cache/objects"))
        return;
    if (lstat(path, &st) != 0) {
        strbuf_addf(out, "%s absent\n", rel);
        return;
    }
    strbuf_addf(out, "%s %o %lld", rel, (unsigned)st.st_mode, (long long)st.st_size);
    if (S_ISREG(st.st_mode)) {
        struct sha256 h;
        struct error err;
        char hex[65];
        sha256_init(&h);
        if (sha256_file(&h, path, &err) != 0)
            sha256_update(&h, "unreadable", 10);
        sha256_final_hex(&h, hex);
        strbuf_addf(out, " %s\n", hex);
    } else if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        strbuf_addf(out, " -> %s\n", target);
    } else {
        strbuf_addch(out, '\n');
    }
    if (!S_ISDIR(st.st_mode))
        return;
    struct dirent **list = NULL;
    int n = scandir(path, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        if (strcmp(name, ".") && strcmp(name, "..")) {
            char *p = path_join(path, name);
            char *r = xstrfmt("%s/%s", rel, name);
            hostile_tree_list(p, r, out);
            free(p);
            free(r);
        }
        free(list[i]);
    }
    free(list);
}

/* The trees that must not change: the canary, the repository's labs/, tests/fixtures/ and
 * tests/hostile/ (LG_HOSTILE_TREES="a:b" replaces these three, when other work changes the
 * tree meanwhile), and the grader's shared cache. */
static inline void hostile_snapshot_take(const struct hostile_suite *s,
                                         struct hostile_snapshot *snap)
{
    const char *env = getenv("LG_HOSTILE_TREES");
    char *trees = xstrdup(env && *env ? env : "labs:tests/fixtures:tests/hostile");
    char *cache = path_join(s->out, ".cache");
    char *save = NULL;
    strbuf_init(&snap->text);
    hostile_tree_list(s->canary, "canary", &snap->text);
    hostile_tree_list(cache, "cache", &snap->text);
    for (char *t = strtok_r(trees, ":", &save); t; t = strtok_r(NULL, ":", &save))
        hostile_tree_list(t, t, &snap->text);
    free(trees);
    free(cache);
}

/* The first line that differs, for the failure message. Caller frees. */
static inline char *hostile_snapshot_diff(const struct hostile_snapshot *a,
                                          const struct hostile_snapshot *b)
{
    const char *p = strbuf_str(&a->text), *q = strbuf_str(&b->text);
    while (*p && *q) {
        size_t lp = strcspn(p, "\n"), lq = strcspn(q, "\n");
        if (lp != lq || memcmp(p, q, lp) != 0)
            return xstrfmt("before: %.*s; after: %.*s", (int)(lp > 300 ? 300 : lp), p,
                           (int)(lq > 300 ? 300 : lq), q);
        p += lp + (p[lp] != '\0');
        q += lq + (q[lq] != '\0');
    }
    if (!*p && !*q)
        return NULL;
    return xstrfmt("%s: %.300s", *p ? "gone" : "new", *p ? p : q);
}

/* ---------------------------------------------------------------------------------- */
/* Processes                                                                          */

static inline bool hostile_read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    return true;
}

/* Whether exe lies under one of the scope's folders (each ends with '/'). */
static inline bool hostile_in_scope(const char *exe, const char *const *scope)
{
    for (const char *const *p = scope; *p; p++)
        if (!strncmp(exe, *p, strlen(*p)))
            return true;
    return false;
}

/* Processes that belong to a hostile run: the submissions' markers ("lgbomb", "lgdaemon"),
 * or any program under the scratch folder (the runners, and whatever they exec). With a
 * scope (several threats graded at once), only programs under the scope's folders or working
 * in them, and the markers only where so too (or where neither can be read). With only_comm,
 * only the processes of that name. With kill_them, each is sent SIGKILL (by pid) so that a
 * failing test leaves nothing behind. Zombies are not counted: they are gone as soon as
 * their parent reaps them. */
static inline int hostile_scan_processes(const struct hostile_suite *s, const char *const *scope,
                                         const char *only_comm, bool kill_them, char *first,
                                         size_t first_size)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int count = 0;
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        char path[64], comm[64] = "", stat[512], exe[4096], cwd[4096];
        long pid;
        if (!parse_long(de->d_name, &pid) || pid <= 0 || pid == (long)getpid())
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if (!hostile_read_small(path, stat, sizeof(stat)))
            continue;
        const char *close_paren = strrchr(stat, ')');
        if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z')
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
        if (hostile_read_small(path, comm, sizeof(comm)))
            comm[strcspn(comm, "\n")] = '\0';
        if (only_comm && strcmp(comm, only_comm))
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
        ssize_t n = readlink(path, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        /* A runner runs from the build cache (shared by the threats graded at once), in the
         * student's own run folder: its working directory tells whose it is. */
        snprintf(path, sizeof(path), "/proc/%ld/cwd", pid);
        ssize_t nc = readlink(path, cwd, sizeof(cwd) - 1);
        cwd[nc > 0 ? nc : 0] = '\0';
        size_t sl = strlen(s->scratch);
        bool marker = !strcmp(comm, "lgbomb") || !strcmp(comm, "lgdaemon");
        bool under = scope ? (n > 0 && hostile_in_scope(exe, scope)) ||
                                 (nc > 0 && hostile_in_scope(cwd, scope))
                           : n > 0 && !strncmp(exe, s->scratch, sl) && exe[sl] == '/';
        bool ours;
        if (only_comm)
            ours = !scope || under || n <= 0;
        else
            ours = under || (marker && (!scope || n <= 0));
        if (!ours)
            continue;
        if (count == 0 && first)
            snprintf(first, first_size, "pid %ld (%s)", pid, comm);
        count++;
        if (kill_them)
            kill((pid_t)pid, SIGKILL);
    }
    closedir(d);
    return count;
}

/* (d) No process of the run is left (allowing the kernel a moment to tear down namespaces);
 * what is, is killed. NULL, or what was left (caller frees). */
static inline char *hostile_find_leftovers(const struct hostile_suite *s, const char *const *scope,
                                           const char *threat)
{
    char first[256] = "";
    int n = 0;
    for (int i = 0; i < 40; i++) {
        n = hostile_scan_processes(s, scope, NULL, false, first, sizeof(first));
        if (n == 0)
            return NULL;
        hostile_sleep_ms(50);
    }
    hostile_scan_processes(s, scope, NULL, true, NULL, 0);
    return xstrfmt("%s: %d process(es) of the run still alive after grading, e.g. %s", threat, n,
                   first);
}

static inline void hostile_assert_no_leftovers(const struct hostile_suite *s, const char *threat)
{
    char *left = hostile_find_leftovers(s, NULL, threat);
    ck_assert_msg(left == NULL, "%s", left);
}

/* ---------------------------------------------------------------------------------- */
/* Running the grader                                                                 */

static inline long hostile_vmhwm_kib(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    if (!hostile_read_small(path, buf, sizeof(buf)))
        return -1;
    const char *p = strstr(buf, "VmHWM:");
    long kib = -1;
    if (p && sscanf(p, "VmHWM: %ld kB", &kib) == 1)
        return kib;
    return -1;
}

/* A grader started and not waited for yet. */
struct hostile_child {
    pid_t pid;
    double start, limit_s, last_scan;
    const char *const *scope; /* whose "lgbomb" processes count (NULL: anyone's) */
    struct hostile_run *run;
};

/* Starts argv with output into log. */
static inline void hostile_spawn(const char *const *argv, const char *log, double limit_s,
                                 struct hostile_run *run, struct hostile_child *c)
{
    memset(c, 0, sizeof(*c));
    c->start = now_seconds();
    c->limit_s = limit_s;
    c->run = run;
    run->status = -1;
    c->pid = fork();
    if (c->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    ck_assert_msg(c->pid > 0, "fork: %s", strerror(errno));
}

/* One look at a running grader: its peak RSS and the number of fork-bomb processes are
 * sampled, and it is killed at its limit (the watchdog). True once it has ended. */
static inline bool hostile_child_poll(const struct hostile_suite *s, struct hostile_child *c)
{
    struct hostile_run *run = c->run;
    int st = 0;
    if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
        run->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        run->wall_s = now_seconds() - c->start;
        return true;
    }
    long kib = hostile_vmhwm_kib(c->pid);
    if (kib > run->peak_kib)
        run->peak_kib = kib;
    double now = now_seconds();
    if (now - c->last_scan > 0.2) {
        int bombs = hostile_scan_processes(s, c->scope, "lgbomb", false, NULL, 0);
        if (bombs > run->bombs_seen)
            run->bombs_seen = bombs;
        c->last_scan = now;
    }
    if (now - c->start > c->limit_s) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, &st, 0);
        run->status = -1;
        run->wall_s = now_seconds() - c->start;
        return true;
    }
    return false;
}

/* Runs argv with output into log; kills it at limit_s. Samples the peak RSS and the
 * number of fork-bomb processes while it runs. */
static inline void hostile_exec(const struct hostile_suite *s, const char *const *argv,
                                const char *log, double limit_s, struct hostile_run *run)
{
    struct hostile_child c;
    hostile_spawn(argv, log, limit_s, run, &c);
    while (!hostile_child_poll(s, &c))
        hostile_sleep_ms(20);
}

static inline void hostile_run_release(struct hostile_run *run)
{
    if (run->have_results)
        results_release(&run->r);
    free(run->log);
    memset(run, 0, sizeof(*run));
}

/* Starts grading a submission folder as `student` (only that exercise, when `only` is set),
 * under a watchdog. */
static inline void hostile_grade_start(const struct hostile_suite *s, const char *submission,
                                       const char *student, bool timing, double timeout_s,
                                       const char *memory_limit, const char *only,
                                       struct hostile_run *run, struct hostile_child *c)
{
    char timeout[32];
    snprintf(timeout, sizeof(timeout), "%g", timeout_s);
    memset(run, 0, sizeof(*run));
    run->log = xstrfmt("%s/%s.log", s->scratch, student);
    const char *argv[28] = {e2e_bin(), "check", "labs/lab6", "--submission", submission, "--case",
                            /* A case of each exercise graded (--case names only existing ones). */
                            only && !strcmp(only, "grade2") ? "n1000" : "n256,n1000", "--timeout",
                            timeout, "--no-pdf", "--quiet", "--out", s->out, "--student", student,
                            /* The checks below read the grader's English messages. */
                            "--lang", "en", "--compile-timeout",
                            HOSTILE_STR(HOSTILE_COMPILE_LIMIT_S),
                            timing ? "--quiet" : "--no-timing"};
    size_t n = 20;
    if (memory_limit) {
        argv[n++] = "--memory-limit";
        argv[n++] = memory_limit;
    }
    if (only) {
        argv[n++] = "--only";
        argv[n++] = only;
    }
    argv[n] = NULL;
    hostile_spawn(argv, run->log, timeout_s + HOSTILE_COMPILE_LIMIT_S + HOSTILE_GRACE_S, run, c);
}

/* After the grading: its results, read back when written. */
static inline void hostile_grade_finish(const struct hostile_suite *s, const char *student,
                                        struct hostile_run *run)
{
    char *json = xstrfmt("%s/lab6/%s/results.json", s->out, student);
    struct error err;
    results_init(&run->r);
    run->have_results = file_exists(json) && results_read(&run->r, json, &err) == 0;
    if (!run->have_results)
        results_release(&run->r);
    free(json);
}

/* Grade a submission folder as `student`; results are read back when written. */
static inline void hostile_grade(const struct hostile_suite *s, const char *submission,
                                 const char *student, bool timing, double timeout_s,
                                 const char *memory_limit, struct hostile_run *run)
{
    struct hostile_child c;
    hostile_grade_start(s, submission, student, timing, timeout_s, memory_limit, NULL, run, &c);
    while (!hostile_child_poll(s, &c))
        hostile_sleep_ms(20);
    hostile_grade_finish(s, student, run);
}

/* The graded case (matmul n256, grade2 n1000) of a variant. */
static inline const struct case_result *hostile_case(const struct hostile_run *run,
                                                     const char *exercise, const char *variant)
{
    const struct variant_result *v = e2e_variant(&run->r, exercise, variant);
    if (!v)
        return NULL;
    for (size_t c = 0; c < v->n_cases; c++)
        if (!strcmp(v->cases[c].case_id, "n256") || !strcmp(v->cases[c].case_id, "n1000"))
            return &v->cases[c];
    return NULL;
}

static inline const char *hostile_build_log(const struct hostile_run *run, const char *exercise,
                                            const char *variant)
{
    const struct variant_result *v = e2e_variant(&run->r, exercise, variant);
    return v && v->build_log ? v->build_log : "";
}

/* ---------------------------------------------------------------------------------- */
/* EXPECTED                                                                           */

struct hostile_row {
    char threat[64], exercise[64], variant[64], cpu[8], gpu[8];
};

static inline size_t hostile_expected(const char *threat, struct hostile_row *rows, size_t max)
{
    FILE *f = fopen("tests/hostile/EXPECTED", "r");
    char line[512];
    size_t n = 0;
    if (!f)
        return 0;
    while (n < max && fgets(line, sizeof(line), f)) {
        struct hostile_row *r = &rows[n];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%63s %63s %63s %7s %7s", r->threat, r->exercise, r->variant, r->cpu,
                   r->gpu) == 5 &&
            !strcmp(r->threat, threat))
            n++;
    }
    fclose(f);
    return n;
}

/* The verdict this machine should give a row: the gpu column where the grader saw a GPU;
 * without a CUDA toolkit, GPU variants are not even compiled (SK). */
static inline const char *hostile_want(const struct hostile_suite *s, const struct hostile_row *r)
{
    if (s->gpu)
        return r->gpu;
    if (!s->nvcc && strncmp(r->variant, "gpu", 3) == 0)
        return "SK";
    return r->cpu;
}

/* (a) and (c): every row of `name` in EXPECTED, and the exit status they imply. */
static inline void hostile_check_rows(const struct hostile_suite *s, const char *name,
                                      const struct hostile_run *run)
{
    struct hostile_row rows[32];
    size_t n = hostile_expected(name, rows, 32);
    bool all_ok = true;
    ck_assert_msg(n > 0, "tests/hostile/EXPECTED has no rows for %s", name);
    ck_assert_msg(run->have_results, "%s: no results.json (exit %d, %.1f s); see %s", name,
                  run->status, run->wall_s, run->log);
    for (size_t i = 0; i < n; i++) {
        const char *want = hostile_want(s, &rows[i]);
        const struct case_result *cr = hostile_case(run, rows[i].exercise, rows[i].variant);
        ck_assert_msg(cr != NULL, "%s: no graded case for %s/%s", name, rows[i].exercise,
                      rows[i].variant);
        ck_assert_msg(!strcmp(verdict_code(cr->verdict), want),
                      "%s: %s/%s case %s: verdict %s (%s), expected %s; log %s", name,
                      rows[i].exercise, rows[i].variant, cr->case_id, verdict_code(cr->verdict),
                      cr->message ? cr->message : "", want, run->log);
        if (strcmp(want, "OK") && strcmp(want, "SK"))
            all_ok = false;
    }
    ck_assert_msg(run->status == (all_ok ? 0 : 1), "%s: exit status %d, expected %d (log %s)", name,
                  run->status, all_ok ? 0 : 1, run->log);
}

/* ---------------------------------------------------------------------------------- */
/* Setting up                                                                         */

static inline bool hostile_fail_setup(struct hostile_suite *s, const char *what)
{
    snprintf(s->why, sizeof(s->why), "%s", what);
    s->ready = false;
    return false;
}

/* The canary: a few files the submissions try to read, change and delete. */
static inline bool hostile_make_canary(struct hostile_suite *s)
{
    char bin[4096];
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)(i * 131 + 7);
    char *sub = path_join(s->canary, "sub");
    char *f1 = path_join(s->canary, "secret.txt");
    char *f2 = path_join(s->canary, "data.bin");
    char *f3 = path_join(sub, "nested.txt");
    bool ok = mkdir(sub, 0755) == 0 && hostile_write(f1, "the canary's secret\n", 20) == 0 &&
              hostile_write(f2, bin, sizeof(bin)) == 0 && hostile_write(f3, "nested\n", 7) == 0;
    free(sub);
    free(f1);
    free(f2);
    free(f3);
    return ok;
}

/* Listeners the network submission tries to reach: TCP on 127.0.0.1 (a free port) and an
 * abstract Unix socket. Nobody accepts: a connection would sit in the backlog. */
static inline bool hostile_listen(struct hostile_suite *s)
{
    struct sockaddr_in in;
    struct sockaddr_un un;
    socklen_t len = sizeof(in);
    memset(&in, 0, sizeof(in));
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->tcp_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->tcp_fd < 0 || bind(s->tcp_fd, (struct sockaddr *)&in, sizeof(in)) != 0 ||
        listen(s->tcp_fd, 8) != 0 || getsockname(s->tcp_fd, (struct sockaddr *)&in, &len) != 0)
        return false;
    s->port = ntohs(in.sin_port);
    snprintf(s->unix_name, sizeof(s->unix_name), "lg-hostile-%ld", (long)getpid());
    memset(&un, 0, sizeof(un));
    un.sun_family = AF_UNIX;
    memcpy(un.sun_path + 1, s->unix_name, strlen(s->unix_name));
    socklen_t unlen =
        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(s->unix_name));
    s->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    return s->unix_fd >= 0 && bind(s->unix_fd, (struct sockaddr *)&un, unlen) == 0 &&
           listen(s->unix_fd, 8) == 0;
}

/* The cache folder holding grade2's expected outputs (the only one with out_z_*.bin). */
static inline char *hostile_find_expected(const struct hostile_suite *s)
{
    char *dir = xstrfmt("%s/.cache/expected", s->out);
    DIR *d = opendir(dir);
    struct dirent *de;
    char *found = NULL;
    while (d && !found && (de = readdir(d))) {
        char *cand = path_join(dir, de->d_name);
        char *z = path_join(cand, "out_z_0.bin");
        if (de->d_name[0] != '.' && file_exists(z))
            found = xstrdup(cand);
        free(z);
        free(cand);
    }
    if (d)
        closedir(d);
    free(dir);
    return found;
}

/* Scratch folders, canary, listeners, and one grading of the `correct` fixture, which tells
 * what this machine has (isolation, toolkit, GPU) and fills the shared cache: with timing,
 * so that the reference runners only timing needs are built too, and the cache then stays
 * the same whatever is graded (hostile_assert_unchanged). */
static inline bool hostile_suite_setup(struct hostile_suite *s)
{
    char cwd[4096];
    const char *home = getenv("HOME");
    memset(s, 0, sizeof(*s));
    s->tcp_fd = s->unix_fd = -1;
    if (!getcwd(cwd, sizeof(cwd)) || !dir_exists("tests/hostile"))
        return hostile_fail_setup(s, "run from the repository root (no tests/hostile here)");
    s->repo = xstrdup(cwd);
    s->home = xstrdup(home && *home ? home : "/root");
    s->scratch = xstrdup("/tmp/lg-hostile-XXXXXX");
    s->canary = xstrdup("/tmp/lg-canary-XXXXXX");
    if (!mkdtemp(s->scratch) || !mkdtemp(s->canary))
        return hostile_fail_setup(s, "cannot create the scratch and canary folders in /tmp");
    s->out = path_join(s->scratch, "out");
    /* The suite watches out/.cache (nothing a threat does may reach it): never a shared one. */
    unsetenv("LABGRADER_CACHE");
    if (!hostile_make_canary(s))
        return hostile_fail_setup(s, "cannot fill the canary folder");
    if (!hostile_listen(s))
        return hostile_fail_setup(s, "cannot listen on 127.0.0.1 or an abstract Unix socket");

    struct hostile_run run;
    hostile_grade(s, "tests/fixtures/lab6/correct", "preflight", true, 20, NULL, &run);
    if (!run.have_results || run.status != 0) {
        snprintf(s->why, sizeof(s->why),
                 "the correct fixture does not pass before any hostile submission (exit %d); "
                 "see %s",
                 run.status, run.log);
        hostile_run_release(&run);
        return false;
    }
    s->isolation = xstrdup(run.r.isolation ? run.r.isolation : "unknown");
    s->gpu = run.r.machine.gpu_name != NULL;
    s->nvcc = run.r.machine.nvcc_version != NULL;
    s->memory_limited = run.r.memory_limit_enforced;
    hostile_run_release(&run);
    s->expected_grade2 = hostile_find_expected(s);
    s->ready = true;
    printf("hostile: isolation %s, %s, %s, memory limit %s; scratch %s, canary %s\n", s->isolation,
           s->gpu ? "GPU" : "no GPU", s->nvcc ? "CUDA toolkit" : "no CUDA toolkit",
           s->memory_limited ? "enforced" : "not enforced", s->scratch, s->canary);
    fflush(stdout);
    return true;
}

static inline void hostile_outcomes_free(struct hostile_suite *s);

static inline void hostile_suite_teardown(struct hostile_suite *s, bool keep)
{
    hostile_outcomes_free(s);
    if (s->tcp_fd >= 0)
        close(s->tcp_fd);
    if (s->unix_fd >= 0)
        close(s->unix_fd);
    if (!keep) {
        if (s->scratch)
            remove_tree(s->scratch, NULL);
        if (s->canary)
            remove_tree(s->canary, NULL);
    }
    free(s->repo);
    free(s->scratch);
    free(s->out);
    free(s->canary);
    free(s->home);
    free(s->isolation);
    free(s->expected_grade2);
    memset(s, 0, sizeof(*s));
}

/* Copy the files of folder src into dst (which exists), replacing any of the same name. */
static inline void hostile_copy_files(const char *src, const char *dst)
{
    struct dirent **list = NULL;
    struct error err;
    int n = scandir(src, &list, NULL, alphasort);
    ck_assert_msg(n > 0, "no submission folder %s", src);
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            char *from = path_join(src, list[i]->d_name), *to = path_join(dst, list[i]->d_name);
            ck_assert_msg(copy_file(from, to, &err) == 0, "%s", err.msg);
            free(from);
            free(to);
        }
        free(list[i]);
    }
    free(list);
}

/*
 * The submission of threat <name>: tests/fixtures/lab6/correct with the files of
 * tests/hostile/<name> laid over it (a threat folder holds only what it changes), and this
 * run's hostile_paths.h. Caller frees.
 */
static inline char *hostile_prepare(const struct hostile_suite *s, const char *name)
{
    char *src = xstrfmt("tests/hostile/%s", name);
    char *dst = xstrfmt("%s/subs/%s", s->scratch, name);
    struct error err;
    remove_tree(dst, NULL);
    ck_assert_msg(mkdir_p(dst, &err) == 0, "%s", err.msg);
    hostile_copy_files("tests/fixtures/lab6/correct", dst);
    hostile_copy_files(src, dst);
    struct strbuf h = STRBUF_INIT;
    strbuf_addf(&h, "/* Generated by the hostile suite: this run's real paths. */\n");
    strbuf_addf(&h, "#define LG_HOSTILE_CANARY \"%s\"\n", s->canary);
    strbuf_addf(&h, "#define LG_HOSTILE_REPO \"%s\"\n", s->repo);
    strbuf_addf(&h, "#define LG_HOSTILE_OUT \"%s\"\n", s->out);
    strbuf_addf(&h, "#define LG_HOSTILE_HOME \"%s\"\n", s->home);
    strbuf_addf(&h, "#define LG_HOSTILE_PORT %d\n", s->port);
    strbuf_addf(&h, "#define LG_HOSTILE_UNIX \"%s\"\n", s->unix_name);
    strbuf_addf(&h, "#define LG_HOSTILE_SOLUTION_C \"%s/labs/lab6/solution/grade2_cpu.c\"\n",
                s->repo);
    if (s->expected_grade2)
        strbuf_addf(&h, "#define LG_HOSTILE_EXPECTED \"%s\"\n", s->expected_grade2);
    char *hp = path_join(dst, "hostile_paths.h");
    ck_assert_int_eq(hostile_write(hp, h.buf, h.len), 0);
    free(hp);
    strbuf_release(&h);
    free(src);
    return dst;
}

/* ---------------------------------------------------------------------------------- */
/* (d): nothing outside the scratch folders changed                                   */

/* Where the submissions try to leave a mark (see write_outside and daemon_leftover): the
 * first one found, or NULL (caller frees); every one found is removed. */
static inline char *hostile_find_marks(const struct hostile_suite *s)
{
    const char *dirs[] = {s->repo, s->out, s->home,    "/root",
                          "/etc",  "/tmp", "/var/tmp", "/dev/shm"};
    const char *suffix[] = {"", ".d", ".lnk"};
    char *found = NULL;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        for (size_t k = 0; k < 3; k++) {
            char *p = xstrfmt("%s/%s%s", dirs[i], HOSTILE_MARK, suffix[k]);
            struct stat st;
            if (lstat(p, &st) == 0) {
                if (!found)
                    found = xstrdup(p);
                remove_tree(p, NULL);
            }
            free(p);
        }
    return found;
}

static inline void hostile_assert_no_marks(const struct hostile_suite *s, const char *threat)
{
    char *found = hostile_find_marks(s);
    ck_assert_msg(found == NULL, "%s: the submission wrote %s (removed now)", threat, found);
}

/* The snapshot now against `before` (released): the first difference, or NULL. */
static inline char *hostile_find_changes(const struct hostile_suite *s,
                                         struct hostile_snapshot *before)
{
    struct hostile_snapshot after;
    hostile_snapshot_take(s, &after);
    char *diff = hostile_snapshot_diff(before, &after);
    strbuf_release(&after.text);
    strbuf_release(&before->text);
    return diff;
}

static inline void hostile_assert_unchanged(const struct hostile_suite *s,
                                            struct hostile_snapshot *before, const char *threat)
{
    char *diff = hostile_find_changes(s, before);
    ck_assert_msg(diff == NULL,
                  "%s: something outside the scratch folder changed (canary %s, cache %s/.cache, "
                  "labs/, tests/fixtures/, tests/hostile/): %s",
                  threat, s->canary, s->out, diff);
}

/* (c) The next student, the correct fixture, gets its usual verdicts
 * (tests/fixtures/lab6/EXPECTED): on a GPU machine its GPU variants must pass, not be
 * skipped, so a GPU left unusable shows. */
static inline void hostile_check_correct(const struct hostile_suite *s, const char *threat,
                                         const struct hostile_run *next)
{
    struct expected_row rows[128];
    size_t n = e2e_expected(rows, 128), seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].fixture, "correct"))
            continue;
        struct hostile_row hr;
        snprintf(hr.variant, sizeof(hr.variant), "%s", rows[i].variant);
        snprintf(hr.cpu, sizeof(hr.cpu), "%s", rows[i].cpu);
        snprintf(hr.gpu, sizeof(hr.gpu), "%s", rows[i].gpu);
        const char *want = hostile_want(s, &hr);
        const struct case_result *cr = hostile_case(next, rows[i].exercise, rows[i].variant);
        ck_assert_msg(cr != NULL, "after %s: correct: no graded case for %s/%s", threat,
                      rows[i].exercise, rows[i].variant);
        ck_assert_msg(!strcmp(verdict_code(cr->verdict), want),
                      "after %s: correct: %s/%s: verdict %s (%s), expected %s; log %s", threat,
                      rows[i].exercise, rows[i].variant, verdict_code(cr->verdict),
                      cr->message ? cr->message : "", want, next->log);
        seen++;
    }
    ck_assert_msg(seen > 0, "tests/fixtures/lab6/EXPECTED has no rows for correct");
}

/* ---------------------------------------------------------------------------------- */
/* One threat, end to end                                                             */

/* What one threat's gradings left: recorded while they run, checked by its test. */
struct hostile_outcome {
    const struct hostile_threat *t;
    char *skipped;      /* why it was not graded here (its test says so and passes) */
    char *sub;          /* the submission graded */
    char *next_student; /* the correct fixture graded right after, as this student */
    char *scope[4];     /* the folders its processes run from: work and submission folders */
    struct hostile_snapshot before;
    struct hostile_run run, next;
    char *left;      /* processes left after the hostile grading (killed since), or NULL */
    char *left_next; /* ... after the next student's */
    char *marks;     /* a mark left outside the scratch folder, or NULL */
    char *changed;   /* the first change outside the scratch folder, or NULL */
    /* hostile_run_all(): 0 waiting, 1 grading the threat, 2 the next student, 3 done */
    int stage;
    struct hostile_child child;
};

static inline void hostile_outcome_release(struct hostile_outcome *o)
{
    free(o->skipped);
    free(o->sub);
    free(o->next_student);
    for (size_t i = 0; i < 4; i++)
        free(o->scope[i]);
    if (o->stage > 0 && o->stage < 3)
        strbuf_release(&o->before.text);
    hostile_run_release(&o->run);
    hostile_run_release(&o->next);
    free(o->left);
    free(o->left_next);
    free(o->marks);
    free(o->changed);
    memset(o, 0, sizeof(*o));
}

static inline void hostile_outcomes_free(struct hostile_suite *s)
{
    for (size_t i = 0; i < s->n_outcomes; i++)
        hostile_outcome_release(&s->outcomes[i]);
    free(s->outcomes);
    s->outcomes = NULL;
    s->n_outcomes = 0;
}

/* Whether the threat is graded here; if not, o->skipped says why. */
static inline bool hostile_outcome_wanted(const struct hostile_suite *s, struct hostile_outcome *o)
{
    const struct hostile_threat *t = o->t;
    const char *only = getenv("LG_HOSTILE_ONLY"); /* "name,name": a subset, when debugging */
    if (only && *only) {
        char *list = xstrfmt(",%s,", only), *key = xstrfmt(",%s,", t->name);
        bool listed = strstr(list, key) != NULL;
        free(list);
        free(key);
        if (!listed) {
            o->skipped = xstrdup("not in LG_HOSTILE_ONLY");
            return false;
        }
    }
    if (t->needs_bwrap && strcmp(s->isolation, "bwrap") != 0) {
        o->skipped = xstrfmt("isolation is '%s'; only bubblewrap's namespaces contain this "
                             "threat (docs/threat-model.md)",
                             s->isolation);
        return false;
    }
    return true;
}

/* The submission, the folders its processes run from, the snapshot before. */
static inline void hostile_outcome_begin(const struct hostile_suite *s, struct hostile_outcome *o)
{
    const char *name = o->t->name;
    o->sub = hostile_prepare(s, name);
    o->next_student = xstrfmt("next-after-%s", name);
    o->scope[0] = xstrfmt("%s/.work/%s/", s->out, name);
    o->scope[1] = xstrfmt("%s/.work/%s/", s->out, o->next_student);
    o->scope[2] = xstrfmt("%s/subs/%s/", s->scratch, name);
    hostile_snapshot_take(s, &o->before);
}

static inline void hostile_outcome_start(const struct hostile_suite *s, struct hostile_outcome *o)
{
    const struct hostile_threat *t = o->t;
    hostile_grade_start(s, o->sub, t->name, t->timing, t->timeout_s, t->memory_limit, s->only,
                        &o->run, &o->child);
}

static inline void hostile_outcome_start_next(const struct hostile_suite *s,
                                              struct hostile_outcome *o)
{
    hostile_grade_start(s, "tests/fixtures/lab6/correct", o->next_student, false, 10, NULL, NULL,
                        &o->next, &o->child);
}

/* After the threat's grading: its results, and (d) whatever of it still runs. */
static inline void hostile_outcome_graded(const struct hostile_suite *s, struct hostile_outcome *o,
                                          const char *const *scope)
{
    hostile_grade_finish(s, o->t->name, &o->run);
    o->left = hostile_find_leftovers(s, scope, o->t->name);
}

/* After the next student's: (d) processes, marks and changes. */
static inline void hostile_outcome_done(const struct hostile_suite *s, struct hostile_outcome *o,
                                        const char *const *scope)
{
    hostile_grade_finish(s, o->next_student, &o->next);
    o->left_next = hostile_find_leftovers(s, scope, o->t->name);
    o->marks = hostile_find_marks(s);
    o->changed = hostile_find_changes(s, &o->before);
}

/* Every check of one threat, on what its gradings left. */
static inline void hostile_check_outcome(const struct hostile_suite *s,
                                         const struct hostile_outcome *o)
{
    const struct hostile_threat *t = o->t;
    if (o->skipped) {
        printf("hostile %s: SKIPPED: %s\n", t->name, o->skipped);
        fflush(stdout);
        return;
    }
    /* (b) */
    ck_assert_msg(o->run.status >= 0, "%s: grading still running after %.0f s: killed; see %s",
                  t->name, o->run.wall_s, o->run.log);
    ck_assert_msg(o->left == NULL, "%s", o->left);
    /* (a), and (c) for the other exercise and variants */
    hostile_check_rows(s, t->name, &o->run);
    if (t->check)
        t->check(s, &o->run);
    /* (c) the next student */
    ck_assert_msg(o->next.have_results && o->next.status == 0,
                  "%s: the correct fixture graded right after fails (exit %d); see %s", t->name,
                  o->next.status, o->next.log);
    hostile_check_correct(s, t->name, &o->next);
    /* (d) */
    ck_assert_msg(o->left_next == NULL, "%s", o->left_next);
    ck_assert_msg(o->marks == NULL, "%s: the submission wrote %s (removed now)", t->name, o->marks);
    ck_assert_msg(o->changed == NULL,
                  "%s: something outside the scratch folder changed (canary %s, cache %s/.cache, "
                  "labs/, tests/fixtures/, tests/hostile/): %s",
                  t->name, s->canary, s->out, o->changed);
    printf("hostile %-20s graded in %5.1f s, grader peak RSS %ld KiB\n", t->name, o->run.wall_s,
           o->run.peak_kib);
    fflush(stdout);
}

/* One threat graded and checked at once; its processes are told apart by the whole scratch
 * folder (nothing else runs meanwhile). */
static inline void hostile_run_threat(const struct hostile_suite *s, const struct hostile_threat *t)
{
    struct hostile_outcome o;
    memset(&o, 0, sizeof(o));
    o.t = t;
    ck_assert_msg(s->ready, "hostile suite not set up: %s", s->why);
    if (hostile_outcome_wanted(s, &o)) {
        hostile_outcome_begin(s, &o);
        o.stage = 1;
        hostile_outcome_start(s, &o);
        while (!hostile_child_poll(s, &o.child))
            hostile_sleep_ms(20);
        hostile_outcome_graded(s, &o, NULL);
        o.stage = 2;
        hostile_outcome_start_next(s, &o);
        while (!hostile_child_poll(s, &o.child))
            hostile_sleep_ms(20);
        hostile_outcome_done(s, &o, NULL);
        o.stage = 3;
    }
    hostile_check_outcome(s, &o);
    hostile_outcome_release(&o);
}

/* One step of a threat graded together with others: start what is due, or notice that its
 * grader ended. True when the threat is done. */
static inline bool hostile_outcome_step(const struct hostile_suite *s, struct hostile_outcome *o)
{
    const char *const *scope = (const char *const *)o->scope;
    if (o->stage == 0) {
        hostile_outcome_begin(s, o);
        hostile_outcome_start(s, o);
        o->child.scope = scope;
        o->stage = 1;
        return false;
    }
    if (!hostile_child_poll(s, &o->child))
        return false;
    if (o->stage == 1) {
        hostile_outcome_graded(s, o, scope);
        hostile_outcome_start_next(s, o);
        o->child.scope = scope;
        o->stage = 2;
        return false;
    }
    hostile_outcome_done(s, o, scope);
    o->stage = 3;
    return true;
}

/*
 * Grades the threats `jobs` at a time (each one's hostile grading, then the correct fixture
 * right after it), recording what hostile_check_threat() checks. Threats skipped here are
 * recorded as such. Nothing is asserted here: the tests do, one threat each.
 */
static inline void hostile_run_all(struct hostile_suite *s, const struct hostile_threat *threats,
                                   size_t n, int jobs)
{
    s->outcomes = xcalloc(n, sizeof(*s->outcomes));
    s->n_outcomes = n;
    size_t next = 0, running = 0;
    for (size_t i = 0; i < n; i++)
        s->outcomes[i].t = &threats[i];
    if (!s->ready)
        return;
    for (;;) {
        while (running < (size_t)(jobs > 0 ? jobs : 1) && next < n) {
            struct hostile_outcome *o = &s->outcomes[next++];
            if (!hostile_outcome_wanted(s, o))
                continue;
            hostile_outcome_step(s, o);
            running++;
        }
        if (running == 0 && next == n)
            break;
        for (size_t i = 0; i < next; i++) {
            struct hostile_outcome *o = &s->outcomes[i];
            if (!o->skipped && o->stage > 0 && o->stage < 3 && hostile_outcome_step(s, o))
                running--;
        }
        hostile_sleep_ms(20);
    }
}

/* The checks of a threat graded by hostile_run_all(). */
static inline void hostile_check_threat(const struct hostile_suite *s, const char *name)
{
    ck_assert_msg(s->ready, "hostile suite not set up: %s", s->why);
    for (size_t i = 0; i < s->n_outcomes; i++)
        if (!strcmp(s->outcomes[i].t->name, name)) {
            hostile_check_outcome(s, &s->outcomes[i]);
            return;
        }
    ck_abort_msg("%s: not graded (not in the suite's list of threats)", name);
}

#endif
