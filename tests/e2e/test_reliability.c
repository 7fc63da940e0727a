/*
 * A grade is never wrong because of the machine (issue 21), end to end on a small class of
 * the class fixture (s01 correct, s04 wrong values, s08 a compile error) graded against the
 * CPU test lab:
 *   - a full disk (a real tmpfs, filled; skipped with the reason where tmpfs cannot be
 *     mounted): under the working folder, under the output folder, and the estimate made
 *     before anything is built. Never a student's verdict, never a stamp, exit 3; freed, the
 *     next run grades exactly those students, to the expected verdicts;
 *   - two graders: the second on the same lab refused at once, naming the first; a killed
 *     one's lock taken over; two labs into one output folder side by side;
 *   - corrupt state: truncated, emptied and edited results.json refused by `report` (exit 3)
 *     and kept in the gradebook as grader errors with no points, graded again by `grade`;
 *     an expected output and a reference runner damaged in the cache, discarded once and
 *     rebuilt;
 *   - `grader check` runs kept out of the class's gradebook and summary, and reports that
 *     never name a temporary folder.
 * Every run's verdicts are compared with tests/fixtures/class/EXPECTED. Run from the
 * repository root with LG_BIN set to the grader binary.
 */
#include "e2e.h"

#include "base/fs.h"
#include "base/json.h"
#include "base/sha256.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#define LAB "tests/fixtures/labcpu"
#define CLASS_FIXTURE "tests/fixtures/class"
#define MAX_ROWS 64

static const char *const students[] = {"s01", "s04", "s08"};
#define N_STUDENTS (sizeof(students) / sizeof(students[0]))

struct row {
    char student[32], exercise[32], variant[32], kase[32], verdict[8];
};

static struct row rows[MAX_ROWS];
static size_t n_rows;
static char *root;  /* everything this suite writes */
static char *klass; /* root/class: copies of the students above */
/* root/slow: the same and s07, whose endless loop takes the 5 s timeout: a run that is still
 * going while another grader is tried beside it. */
static char *slow;

static void copy_tree_cmd(const char *from, const char *to)
{
    const char *argv[] = {"/bin/cp", "-r", from, to, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL), 0);
}

static void setup(void)
{
    if (root)
        return;
    root = e2e_tmpdir("reliability");
    klass = xstrfmt("%s/class", root);
    ck_assert_int_eq(mkdir_p(klass, NULL), 0);
    slow = xstrfmt("%s/slow", root);
    ck_assert_int_eq(mkdir_p(slow, NULL), 0);
    for (size_t i = 0; i < N_STUDENTS; i++) {
        char *from = xstrfmt(CLASS_FIXTURE "/%s", students[i]);
        copy_tree_cmd(from, klass);
        copy_tree_cmd(from, slow);
        free(from);
    }
    copy_tree_cmd(CLASS_FIXTURE "/s07", slow);
    FILE *f = fopen(CLASS_FIXTURE "/EXPECTED", "r");
    char line[512];
    ck_assert_msg(f != NULL, "run from the repository root");
    while (fgets(line, sizeof(line), f)) {
        struct row *r = &rows[n_rows];
        if (line[0] == '#' || sscanf(line, "%31s %31s %31s %31s %7s", r->student, r->exercise,
                                     r->variant, r->kase, r->verdict) != 5)
            continue;
        for (size_t i = 0; i < N_STUDENTS; i++)
            if (!strcmp(r->student, students[i]) && n_rows + 1 < MAX_ROWS)
                n_rows++;
    }
    fclose(f);
    ck_assert_uint_eq(n_rows, N_STUDENTS * 5);
}

static char *read_text(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    if (read_file(path, &sb, NULL) != 0)
        strbuf_addstr(&sb, "");
    return strbuf_detach(&sb);
}

/* `grader grade` on the small class, with extra arguments (NULL-terminated). */
static int grade(const char *lab, const char *out, const char *log, const char *const *extra)
{
    const char *argv[24] = {e2e_bin(), "grade", lab,        "--submissions", klass,
                            "--out",   out,     "--no-pdf", "--timeout",     "5"};
    size_t n = 10;
    for (size_t i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return e2e_run(argv, log);
}

static char *student_file(const char *out, const char *student, const char *name)
{
    return xstrfmt("%s/lab99/%s/%s", out, student, name);
}

static bool stamped(const char *out, const char *student)
{
    char *p = student_file(out, student, ".graded");
    bool yes = file_exists(p);
    free(p);
    return yes;
}

static const struct case_result *find_case(const struct results *r, const struct row *w)
{
    const struct variant_result *v = e2e_variant(r, w->exercise, w->variant);
    for (size_t c = 0; v && c < v->n_cases; c++)
        if (!strcmp(v->cases[c].case_id, w->kase))
            return &v->cases[c];
    return NULL;
}

/* Every case of every student exactly as EXPECTED says, each stamped, none with XX. */
static void check_expected(const char *out, const char *log)
{
    for (size_t i = 0; i < N_STUDENTS; i++) {
        struct results r;
        struct error err;
        char *json = student_file(out, students[i], "results.json");
        results_init(&r);
        ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s (log %s)", json, err.msg, log);
        for (size_t k = 0; k < n_rows; k++) {
            if (strcmp(rows[k].student, students[i]))
                continue;
            const struct case_result *c = find_case(&r, &rows[k]);
            ck_assert_msg(c && !strcmp(verdict_code(c->verdict), rows[k].verdict),
                          "%s %s/%s/%s: %s (%s), expected %s (log %s)", students[i],
                          rows[k].exercise, rows[k].variant, rows[k].kase,
                          c ? verdict_code(c->verdict) : "missing",
                          c && c->message ? c->message : "", rows[k].verdict, log);
        }
        ck_assert_int_eq(r.n_grader_errors, 0);
        ck_assert_msg(stamped(out, students[i]), "%s not stamped (log %s)", students[i], log);
        results_release(&r);
        free(json);
    }
}

/*
 * After a run on a full disk: no case carries a verdict that blames the student unless
 * EXPECTED gives it that verdict: every case that differs from EXPECTED is XX (*disk_said
 * counts those that say the disk was full). A student with an XX case is not stamped.
 * Returns the number of XX cases.
 */
static int check_never_blamed(const char *out, const char *log, int *disk_said)
{
    int xx = 0;
    for (size_t i = 0; i < N_STUDENTS; i++) {
        struct results r;
        char *json = student_file(out, students[i], "results.json");
        results_init(&r);
        if (results_read(&r, json, NULL) != 0) {
            /* Not even written: never stamped either. */
            ck_assert_msg(!stamped(out, students[i]), "%s stamped without results", students[i]);
            xx++;
            free(json);
            continue;
        }
        for (size_t k = 0; k < n_rows; k++) {
            if (strcmp(rows[k].student, students[i]))
                continue;
            const struct case_result *c = find_case(&r, &rows[k]);
            ck_assert(c != NULL);
            if (!strcmp(verdict_code(c->verdict), rows[k].verdict))
                continue;
            ck_assert_msg(c->verdict == V_GRADER,
                          "%s %s/%s: %s (%s) on a full disk, expected %s or XX (log %s)",
                          students[i], rows[k].exercise, rows[k].kase, verdict_code(c->verdict),
                          c->message ? c->message : "", rows[k].verdict, log);
            *disk_said += c->message && strstr(c->message, "disk is full") != NULL;
            xx++;
        }
        if (r.n_grader_errors)
            ck_assert_msg(!stamped(out, students[i]), "%s stamped with XX cases", students[i]);
        results_release(&r);
        free(json);
    }
    return xx;
}

/* ---- full disks ---- */

/* A tmpfs of `size` at dir, or false (and the reason printed: the test is skipped). */
static bool mount_tmpfs(const char *dir, const char *size)
{
    char *opts = xstrfmt("size=%s", size);
    ck_assert_int_eq(mkdir_p(dir, NULL), 0);
    int rc = mount("tmpfs", dir, "tmpfs", 0, opts);
    free(opts);
    if (rc != 0)
        printf("skipped: cannot mount a tmpfs for a full disk (%s; needs root)\n", strerror(errno));
    return rc == 0;
}

/* Fill dir's file system until only `leave` bytes are free. */
static void fill(const char *dir, long long leave)
{
    struct statvfs st;
    ck_assert_int_eq(statvfs(dir, &st), 0);
    long long left = (long long)st.f_bavail * (long long)st.f_frsize - leave;
    char *path = path_join(dir, "filler");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char buf[65536];
    ck_assert(fd >= 0);
    while (left > 0) {
        ssize_t n = write(fd, buf, left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf));
        if (n <= 0)
            break;
        left -= n;
    }
    close(fd);
    free(path);
}

static void unfill(const char *dir)
{
    char *path = path_join(dir, "filler");
    unlink(path);
    free(path);
}

static bool log_has(const char *log, const char *text)
{
    char *t = read_text(log);
    bool yes = strstr(t, text) != NULL;
    free(t);
    return yes;
}

START_TEST(test_work_disk_full)
{
    char *fs = xstrfmt("%s/workfs", root), *out = xstrfmt("%s/work-full", root);
    char *log1 = xstrfmt("%s/work-full-1.log", root), *log2 = xstrfmt("%s/work-full-2.log", root);
    /* Larger than what a failed step probes for (32 MiB), so that once freed a real compile
     * error is the student's again. */
    if (!mount_tmpfs(fs, "48m"))
        return;
    char *log0 = xstrfmt("%s/work-full-0.log", root);
    setenv("LABGRADER_WORK", root, 1);
    int st = grade(LAB, out, log0, NULL);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log0);
    free(log0);
    /* Graded again with room for the submissions' copies and some of the building, not for
     * everything: builds and runs fail for want of space, whatever the students wrote. */
    fill(fs, 640 << 10);
    setenv("LABGRADER_WORK", fs, 1);
    setenv("LABGRADER_NO_SPACE_CHECK", "1", 1);
    const char *force[] = {"--force", NULL};
    st = grade(LAB, out, log1, force);
    ck_assert_msg(st == 3, "exit %d on a full working disk, expected 3 (log %s)", st, log1);
    int said = 0;
    ck_assert_msg(check_never_blamed(out, log1, &said) > 0,
                  "no grader error on a full disk (log %s)", log1);
    ck_assert_msg(said > 0, "no XX says the disk was full (log %s)", log1);
    ck_assert_msg(log_has(log1, "with grader errors"), "log %s", log1);
    /* Freed: the next run grades again what the full disk spoiled, and gets it right. */
    unfill(fs);
    st = grade(LAB, out, log2, NULL);
    unsetenv("LABGRADER_WORK");
    unsetenv("LABGRADER_NO_SPACE_CHECK");
    ck_assert_msg(st == 0, "exit %d once freed (log %s)", st, log2);
    check_expected(out, log2);
    umount2(fs, MNT_DETACH);
    free(fs);
    free(out);
    free(log1);
    free(log2);
}
END_TEST

START_TEST(test_out_disk_full)
{
    char *out = xstrfmt("%s/outfs", root);
    char *log1 = xstrfmt("%s/out-full-1.log", root), *log2 = xstrfmt("%s/out-full-2.log", root);
    char *log3 = xstrfmt("%s/out-full-3.log", root);
    if (!mount_tmpfs(out, "16m"))
        return;
    setenv("LABGRADER_WORK", root, 1);
    /* --keep: the submissions' copies stay, so the next run needs no new room for them. */
    const char *keep[] = {"--keep", NULL};
    int st = grade(LAB, out, log1, keep);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log1);
    check_expected(out, log1);
    /* Graded again into an output folder with room for the lock's note and the class list and
     * nothing more: what cannot be written is a grader error and stays unstamped; whatever
     * is stamped is intact and right; exit 3. */
    char *gradebook = xstrfmt("%s/lab99/gradebook.csv", out);
    fill(out, 8 << 10);
    setenv("LABGRADER_NO_SPACE_CHECK", "1", 1);
    const char *force[] = {"--force", NULL};
    st = grade(LAB, out, log2, force);
    unsetenv("LABGRADER_NO_SPACE_CHECK");
    ck_assert_msg(st == 3, "exit %d with a full output folder, expected 3 (log %s)", st, log2);
    size_t n_stamped = 0;
    for (size_t i = 0; i < N_STUDENTS; i++)
        n_stamped += stamped(out, students[i]);
    ck_assert_msg(n_stamped < N_STUDENTS, "every student stamped on a full disk (log %s)", log2);
    ck_assert_msg(log_has(log2, "No space left on device"), "log %s", log2);
    /* Freed: exactly the unstamped students graded again, and everything right. */
    unfill(out);
    st = grade(LAB, out, log3, NULL);
    unsetenv("LABGRADER_WORK");
    ck_assert_msg(st == 0, "exit %d once freed (log %s)", st, log3);
    char *want = xstrfmt("%zu to grade (%zu unchanged", N_STUDENTS - n_stamped, n_stamped);
    ck_assert_msg(log_has(log3, want), "'%s' not in %s", want, log3);
    free(want);
    check_expected(out, log3);
    char *after = read_text(gradebook);
    ck_assert_msg(strstr(after, "s08,") != NULL, "%s", gradebook);
    umount2(out, MNT_DETACH);
    free(after);
    free(gradebook);
    free(out);
    free(log1);
    free(log2);
    free(log3);
}
END_TEST

/* The estimate made before building: too little room is said at once, naming the folder. */
START_TEST(test_space_estimate_refuses)
{
    char *fs = xstrfmt("%s/smallfs", root), *out = xstrfmt("%s/estimate", root);
    char *log = xstrfmt("%s/estimate.log", root);
    if (!mount_tmpfs(fs, "512k"))
        return;
    setenv("LABGRADER_WORK", fs, 1);
    int st = grade(LAB, out, log, NULL);
    unsetenv("LABGRADER_WORK");
    ck_assert_msg(st == 3, "exit %d, expected 3 (log %s)", st, log);
    char *want = xstrfmt("not enough free space to grade 3 students: about ");
    ck_assert_msg(log_has(log, want) && log_has(log, fs) && log_has(log, "LABGRADER_WORK"),
                  "no estimate naming %s in %s", fs, log);
    ck_assert_msg(!log_has(log, "building 3"), "it started building anyway (log %s)", log);
    for (size_t i = 0; i < N_STUDENTS; i++) {
        char *json = student_file(out, students[i], "results.json");
        ck_assert_msg(!file_exists(json), "%s written", json);
        free(json);
    }
    umount2(fs, MNT_DETACH);
    free(want);
    free(fs);
    free(out);
    free(log);
}
END_TEST

/* ---- two graders ---- */

static pid_t spawn_grade(const char *lab, const char *subs, const char *out, const char *log)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        /* Its own process group: killed whole, as a power cut would. */
        setpgid(0, 0);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        const char *argv[] = {e2e_bin(),   "grade", lab, "--submissions",
                              subs,        "--out", out, "--no-pdf",
                              "--timeout", "5",     NULL};
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits (polling) until nothing holds the lock at path: the killed grader's last processes
 * are gone. */
static void wait_lock_free(const char *path)
{
    int fd = open(path, O_RDONLY);
    ck_assert(fd >= 0);
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        struct timespec ms20 = {0, 20 * 1000 * 1000};
        nanosleep(&ms20, NULL);
    }
    close(fd);
}

/* Waits (polling; not a timing assertion) until path holds text, or the process ends. */
static bool wait_for(const char *path, const char *text, pid_t pid)
{
    for (;;) {
        if (log_has(path, text))
            return true;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return false;
        struct timespec ms20 = {0, 20 * 1000 * 1000};
        nanosleep(&ms20, NULL);
    }
}

START_TEST(test_second_grader_refused)
{
    char *out = xstrfmt("%s/two", root), *lock = xstrfmt("%s/two/lab99/.lock", root);
    char *log_a = xstrfmt("%s/two-a.log", root), *log_b = xstrfmt("%s/two-b.log", root);
    pid_t a = spawn_grade(LAB, slow, out, log_a);
    char *note = xstrfmt("pid %ld\n", (long)a);
    ck_assert_msg(wait_for(lock, note, a), "the first grader ended before taking its lock");
    /* While the first grades (s07 alone takes 5 s), a second on the same class and folder
     * stops at once. */
    int st = grade(LAB, out, log_b, NULL);
    ck_assert_msg(st == 3, "the second grader exited %d, expected 3 (log %s)", st, log_b);
    char *who = xstrfmt("is in use by grade (pid %ld on ", (long)a);
    ck_assert_msg(log_has(log_b, who) && log_has(log_b, "started "), "log %s", log_b);
    /* Nor may a merge write the gradebook meanwhile. */
    const char *merge[] = {e2e_bin(), "merge", LAB, "--out", out, "--no-pdf", NULL};
    st = e2e_run(merge, log_b);
    ck_assert_msg(st == 3 && log_has(log_b, who), "merge beside a grader: exit %d (log %s)", st,
                  log_b);
    ck_assert_int_eq(waitpid(a, &st, 0), a);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first grader: %#x (log %s)", st,
                  log_a);
    check_expected(out, log_a);
    free(who);
    free(note);
    free(out);
    free(lock);
    free(log_a);
    free(log_b);
}
END_TEST

START_TEST(test_killed_grader_lock_taken_over)
{
    char *out = xstrfmt("%s/killed", root);
    char *log_a = xstrfmt("%s/killed-a.log", root), *log_b = xstrfmt("%s/killed-b.log", root);
    pid_t a = spawn_grade(LAB, klass, out, log_a);
    ck_assert_msg(wait_for(log_a, "building 3", a), "the grader ended before building (log %s)",
                  log_a);
    kill(-a, SIGKILL);
    int st;
    ck_assert_int_eq(waitpid(a, &st, 0), a);
    char *lock = xstrfmt("%s/lab99/.lock", out);
    wait_lock_free(lock);
    free(lock);
    st = grade(LAB, out, log_b, NULL);
    ck_assert_msg(st == 0, "exit %d after a killed grader (log %s)", st, log_b);
    char *note = xstrfmt("grade (pid %ld on ", (long)a);
    ck_assert_msg(log_has(log_b, note) && log_has(log_b, "stopped without finishing"), "log %s",
                  log_b);
    check_expected(out, log_b);
    free(note);
    free(out);
    free(log_a);
    free(log_b);
}
END_TEST

/* Two labs into one output folder at once: each grader keeps its own working copies. */
START_TEST(test_two_labs_side_by_side)
{
    char *lab98 = xstrfmt("%s/lab98", root), *out = xstrfmt("%s/twolabs", root);
    char *log_a = xstrfmt("%s/twolabs-99.log", root), *log_b = xstrfmt("%s/twolabs-98.log", root);
    copy_tree_cmd(LAB, lab98);
    char *yaml = path_join(lab98, "lab.yaml");
    char *text = read_text(yaml);
    char *at = strstr(text, "lab: 99");
    ck_assert_ptr_nonnull(at);
    at[6] = '8';
    ck_assert_int_eq(write_file_atomic(yaml, text, strlen(text), NULL), 0);
    pid_t a = spawn_grade(LAB, klass, out, log_a);
    int st = grade(lab98, out, log_b, NULL);
    ck_assert_msg(st == 0, "lab 98 beside lab 99: exit %d (log %s)", st, log_b);
    ck_assert_int_eq(waitpid(a, &st, 0), a);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "lab 99: %#x (log %s)", st, log_a);
    check_expected(out, log_a);
    /* Lab 98 is lab 99 under another number: the same verdicts. */
    char *out98 = xstrfmt("%s/as99", root);
    ck_assert_int_eq(mkdir_p(out98, NULL), 0);
    char *from = xstrfmt("%s/lab98", out), *to = xstrfmt("%s/lab99", out98);
    ck_assert_int_eq(rename(from, to), 0);
    check_expected(out98, log_b);
    free(from);
    free(to);
    free(out98);
    free(text);
    free(yaml);
    free(lab98);
    free(out);
    free(log_a);
    free(log_b);
}
END_TEST

/* ---- corrupt state ---- */

static int report(const char *out, const char *log)
{
    const char *argv[] = {e2e_bin(), "report", LAB, "--out", out, "--no-pdf", NULL};
    return e2e_run(argv, log);
}

/* The gradebook's line of a student (without the line end), or NULL. Caller frees. */
static char *gradebook_row(const char *out, const char *student)
{
    char *path = xstrfmt("%s/lab99/gradebook.csv", out);
    char *text = read_text(path), *row = NULL;
    char *key = xstrfmt("\n%s,", student);
    char *at = strstr(text, key);
    if (at)
        row = xstrndup(at + 1, strcspn(at + 1, "\r\n"));
    free(key);
    free(text);
    free(path);
    return row;
}

/* A gradebook row with no points at all (a student whose results could not be read): after
 * the id and the name, only empty cells, then grader-error, then empty lateness cells and the
 * note (why the results could not be read). */
static bool row_without_points(const char *row, const char *student)
{
    size_t len = strlen(student);
    if (!row || strncmp(row, student, len) != 0 || row[len] != ',')
        return false;
    const char *cells = strchr(row + len + 1, ',');
    while (cells && *cells == ',')
        cells++;
    const char *status = "grader-error";
    if (!cells || strncmp(cells, status, strlen(status)) != 0)
        return false;
    cells += strlen(status);
    return !strncmp(cells, ",,,", 3);
}

static void write_text(const char *path, const char *text)
{
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), NULL), 0);
}

/* s04's results edited consistently into a pass of its first wrong case: every sum right. */
static void forge_pass(const char *out)
{
    struct results r;
    char *json = student_file(out, "s04", "results.json");
    results_init(&r);
    ck_assert_int_eq(results_read(&r, json, NULL), 0);
    struct case_result *c = &r.exercises[0].variants[0].cases[0];
    ck_assert_int_eq(c->verdict, V_WRONG);
    c->verdict = V_PASS;
    c->points = c->max_points;
    results_tally(&r);
    ck_assert_int_eq(results_write(&r, json, NULL), 0);
    results_release(&r);
    free(json);
}

START_TEST(test_corrupt_results)
{
    char *out = xstrfmt("%s/corrupt", root);
    char *log = xstrfmt("%s/corrupt-0.log", root), *rlog = xstrfmt("%s/corrupt-report.log", root);
    char *glog = xstrfmt("%s/corrupt-grade.log", root);
    int st = grade(LAB, out, log, NULL);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log);
    char *s01 = student_file(out, "s01", "results.json");
    char *s04 = student_file(out, "s04", "results.json");
    char *s08 = student_file(out, "s08", "results.json");
    char *good08 = gradebook_row(out, "s08");

    /* Truncated, emptied: report says which, exits 3, and keeps both students. */
    char *text = read_text(s01);
    text[strlen(text) / 2] = '\0';
    write_text(s01, text);
    free(text);
    write_text(s04, "");
    st = report(out, rlog);
    ck_assert_msg(st == 3, "report exited %d over corrupt results (log %s)", st, rlog);
    ck_assert_msg(log_has(rlog, s01) && log_has(rlog, s04), "log %s", rlog);
    for (int i = 0; i < 2; i++) {
        char *row = gradebook_row(out, i ? "s04" : "s01");
        ck_assert_msg(row_without_points(row, i ? "s04" : "s01"),
                      "gradebook row %s: expected no points, and grader-error",
                      row ? row : "(missing)");
        free(row);
    }
    char *row = gradebook_row(out, "s08");
    ck_assert_str_eq(row, good08);
    free(row);
    /* merge says they are not graded yet: exit 1. */
    const char *margv[] = {e2e_bin(), "merge", LAB, "--out", out, "--no-pdf", NULL};
    st = e2e_run(margv, rlog);
    ck_assert_msg(st == 1, "merge exited %d with unreadable results (log %s)", st, rlog);
    /* grade grades those two again, and only those. */
    st = grade(LAB, out, glog, NULL);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, glog);
    ck_assert_msg(log_has(glog, "2 to grade (1 unchanged"), "log %s", glog);
    check_expected(out, glog);

    /* A higher score than the cases hold; an unknown verdict; a consistent forgery (caught by
     * the stamp's checksum). None reaches the gradebook. */
    text = read_text(s01);
    char *score = strstr(text, "\"score\": 10");
    ck_assert_ptr_nonnull(score);
    memcpy(score, "\"score\": 95", 11);
    write_text(s01, text);
    free(text);
    text = read_text(s08);
    char *verdict = strstr(text, "\"verdict\": \"CE\"");
    ck_assert_ptr_nonnull(verdict);
    memcpy(verdict + 12, "ZZ", 2);
    write_text(s08, text);
    free(text);
    forge_pass(out);
    st = report(out, rlog);
    ck_assert_msg(st == 3, "report exited %d (log %s)", st, rlog);
    ck_assert_msg(log_has(rlog, "the total is 95 of 10") &&
                      log_has(rlog, "unknown verdict \"ZZ\"") &&
                      log_has(rlog, "changed since it was graded"),
                  "log %s", rlog);
    for (size_t i = 0; i < N_STUDENTS; i++) {
        row = gradebook_row(out, students[i]);
        ck_assert_msg(row_without_points(row, students[i]), "%s", row ? row : students[i]);
        free(row);
    }
    st = grade(LAB, out, glog, NULL);
    ck_assert_msg(st == 0 && log_has(glog, "3 to grade (0 unchanged"), "exit %d (log %s)", st,
                  glog);
    check_expected(out, glog);
    free(good08);
    free(s01);
    free(s04);
    free(s08);
    free(out);
    free(log);
    free(rlog);
    free(glog);
}
END_TEST

static int n_found;
static char found[16][1024];
static const char *looking_for;

static int find_named(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    if (flag == FTW_F && !strcmp(path + ftw->base, looking_for) && n_found < 16)
        snprintf(found[n_found++], sizeof(found[0]), "%s", path);
    return 0;
}

static int count_in(const char *log, const char *text)
{
    char *t = read_text(log);
    int n = 0;
    for (const char *p = t; (p = strstr(p, text)) != NULL; p++)
        n++;
    free(t);
    return n;
}

START_TEST(test_damaged_cache)
{
    char *out = xstrfmt("%s/cache", root), *cache = xstrfmt("%s/cache/.cache", root);
    char *log = xstrfmt("%s/cache-0.log", root), *log1 = xstrfmt("%s/cache-1.log", root);
    char *log2 = xstrfmt("%s/cache-2.log", root);
    const char *force[] = {"--force", NULL};
    int st = grade(LAB, out, log, NULL);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log);

    /* An expected output changed in place (same size): discarded once, computed again; the
     * correct solution is not WA. */
    n_found = 0;
    looking_for = "out_out_1.bin";
    ck_assert_int_eq(nftw(cache, find_named, 16, FTW_PHYS), 0);
    ck_assert_msg(n_found >= 1, "no expected output under %s", cache);
    int fd = open(found[0], O_RDWR);
    char bytes[8];
    ck_assert_int_eq(pread(fd, bytes, sizeof(bytes), 0), (ssize_t)sizeof(bytes));
    bytes[3] ^= 0x40;
    ck_assert_int_eq(pwrite(fd, bytes, sizeof(bytes), 0), (ssize_t)sizeof(bytes));
    close(fd);
    st = grade(LAB, out, log1, force);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log1);
    ck_assert_msg(count_in(log1, "out_out_1.bin does not match its checksum: discarded, built "
                                 "again") == 1 &&
                      count_in(log1, "grader: cache: ") == 1,
                  "the damaged expected output was not said exactly once (log %s)", log1);
    check_expected(out, log1);

    /* A reference runner cut short, and a student's cached build likewise: each discarded
     * once, built again; nobody gets XX. The expected outputs go too, since only computing
     * them runs the reference's own runner. */
    char *refs = xstrfmt("%s/build", cache), *builds = xstrfmt("%s/builds", cache);
    char *expected = xstrfmt("%s/expected", cache);
    n_found = 0;
    looking_for = "runner";
    ck_assert_int_eq(nftw(refs, find_named, 16, FTW_PHYS), 0);
    ck_assert_msg(n_found >= 1, "no reference runner under %s", refs);
    ck_assert_int_eq(nftw(builds, find_named, 16, FTW_PHYS), 0);
    ck_assert_msg(n_found >= 2 && strncmp(found[n_found - 1], builds, strlen(builds)) == 0,
                  "no student build under %s", builds);
    ck_assert_int_eq(truncate(found[0], 4096), 0);
    ck_assert_int_eq(truncate(found[n_found - 1], 4096), 0);
    ck_assert_int_eq(remove_tree(expected, NULL), 0);
    st = grade(LAB, out, log2, force);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log2);
    char *said = xstrfmt("grader: cache: %s: does not match its checksum (4096 bytes, ", found[0]);
    char *build_dir = xstrndup(found[n_found - 1], strlen(found[n_found - 1]) - strlen("/runner"));
    char *said_build =
        xstrfmt("grader: cache: %s: does not match its checksum (4096 bytes, ", build_dir);
    ck_assert_msg(count_in(log2, said) == 1 && count_in(log2, said_build) == 1 &&
                      count_in(log2, "grader: cache: ") == 2,
                  "'%s' and '%s' not said exactly once each (log %s)", said, said_build, log2);
    check_expected(out, log2);
    free(said);
    free(said_build);
    free(build_dir);
    free(refs);
    free(builds);
    free(expected);
    free(out);
    free(cache);
    free(log);
    free(log1);
    free(log2);
}
END_TEST

/* ---- the class and nothing else; reports that point at real folders ---- */

START_TEST(test_check_runs_kept_apart)
{
    char *out = xstrfmt("%s/apart", root), *log = xstrfmt("%s/apart.log", root);
    /* Nothing graded yet: report has nothing to render, the caller's mistake (exit 2). */
    const char *rep[] = {e2e_bin(), "report", LAB, "--out", out, "--no-pdf", NULL};
    ck_assert_int_eq(e2e_run(rep, log), 2);
    const char *check[] = {e2e_bin(), "check", LAB, "--out", out, "--no-pdf", "--quiet", NULL};
    ck_assert_int_eq(e2e_run(check, log), 0);
    int st = grade(LAB, out, log, NULL);
    ck_assert_msg(st == 0, "exit %d (log %s)", st, log);
    ck_assert_msg(log_has(log, "gradebook: ") && log_has(log, "(3 students)"),
                  "the solution counted as a student (log %s)", log);
    char *summary = xstrfmt("%s/lab99/summary.md", out);
    ck_assert_msg(log_has(summary, "3 graded submissions"), "%s", summary);
    ck_assert_ptr_null(gradebook_row(out, "solution"));
    for (size_t i = 0; i < N_STUDENTS; i++) {
        char *md = student_file(out, students[i], "report.md");
        char *text = read_text(md);
        ck_assert_msg(!strstr(text, "unpacked") && !strstr(text, ".grade-"),
                      "%s names a "
                      "temporary folder",
                      md);
        ck_assert_msg(strstr(text, students[i]) && strstr(text, "class"), "%s", md);
        free(text);
        free(md);
    }
    free(summary);
    free(out);
    free(log);
}
END_TEST

static pid_t spawn_check(const char *out, const char *log)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        const char *argv[] = {e2e_bin(),  "check",   LAB,         "--out", out,
                              "--no-pdf", "--quiet", "--student", "same",  NULL};
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Two checks of one student into one output folder at once (a student's editor and a
 * terminal): they share OUT/.work/<student>, and take turns with it rather than remove each
 * other's builds (which made one of them MF). */
START_TEST(test_two_checks_one_student)
{
    char *out = xstrfmt("%s/same", root);
    char *log_a = xstrfmt("%s/same-a.log", root), *log_b = xstrfmt("%s/same-b.log", root);
    pid_t a = spawn_check(out, log_a), b = spawn_check(out, log_b);
    int st_a, st_b;
    ck_assert_int_eq(waitpid(a, &st_a, 0), a);
    ck_assert_int_eq(waitpid(b, &st_b, 0), b);
    ck_assert_msg(WIFEXITED(st_a) && WEXITSTATUS(st_a) == 0, "first check: %#x (log %s)", st_a,
                  log_a);
    ck_assert_msg(WIFEXITED(st_b) && WEXITSTATUS(st_b) == 0, "second check: %#x (log %s)", st_b,
                  log_b);
    free(out);
    free(log_a);
    free(log_b);
}
END_TEST

int main(void)
{
    /* This machine's limits play no part in these verdicts: not measured for every folder. */
    setenv("LABGRADER_NO_CALIBRATE", "1", 1);
    /* Each output folder's own cache: the suite damages entries and fills disks beside them,
     * which a cache shared with other suites (run-suites.sh) must never see. */
    unsetenv("LABGRADER_CACHE");
    Suite *s = suite_create("reliability");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_work_disk_full);
    tcase_add_test(tc, test_out_disk_full);
    tcase_add_test(tc, test_space_estimate_refuses);
    tcase_add_test(tc, test_second_grader_refused);
    tcase_add_test(tc, test_killed_grader_lock_taken_over);
    tcase_add_test(tc, test_two_labs_side_by_side);
    tcase_add_test(tc, test_corrupt_results);
    tcase_add_test(tc, test_damaged_cache);
    tcase_add_test(tc, test_check_runs_kept_apart);
    tcase_add_test(tc, test_two_checks_one_student);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (root && !failed)
        remove_tree(root, NULL);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
