/*
 * The Gradescope autograder end to end: `grader gradescope` makes the zip, the zip is
 * unpacked into a folder laid out as Gradescope lays out /autograder (source/ holds the
 * zip, run_autograder beside it, submission/ and submission_metadata.json per run,
 * results/results.json read back), setup.sh builds the image for real (references and
 * expected outputs included) and run_autograder grades submissions shaped as students
 * upload them. The root is overridden with LABGRADER_AUTOGRADER_ROOT.
 *
 * On this project's machines there is no GPU, as on Gradescope's runners: the lab's GPU
 * cases are not run. The informational policy must still give a correct solution every
 * point and say what was not graded and why; the fail policy must leave no results; the
 * remote policy must send the submission over "ssh" (a stand-in that runs the command
 * here) and bring results.json back.
 */
#include "e2e.h"

#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char *tmp_root; /* everything of this suite */
static char *ag_root;  /* the simulated /autograder */
static bool gpu_here;  /* this machine has a usable GPU: GPU cases run */
static const char *lab_dir = "tests/fixtures/labgs";

static void sh(const char *script, const char *log)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    int rc = e2e_run(argv, log);
    ck_assert_msg(rc == 0, "'%s' failed with %d (see %s)", script, rc, log ? log : "-");
}

/* The zip unpacked into dir, modes kept, as Gradescope unpacks it into /autograder/source. */
static void unzip(const char *zip, const char *dir)
{
    struct archive *a = archive_read_new();
    struct archive *w = archive_write_disk_new();
    struct archive_entry *e;
    archive_read_support_format_zip(a);
    archive_write_disk_set_options(w, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
    ck_assert_int_eq(archive_read_open_filename(a, zip, 65536), ARCHIVE_OK);
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        char *path = path_join(dir, archive_entry_pathname(e));
        archive_entry_set_pathname(e, path);
        ck_assert_int_eq(archive_write_header(w, e), ARCHIVE_OK);
        const void *buf;
        size_t size;
        la_int64_t off;
        while (archive_read_data_block(a, &buf, &size, &off) == ARCHIVE_OK)
            ck_assert_int_ge(archive_write_data_block(w, buf, size, off), 0);
        archive_write_finish_entry(w);
        free(path);
    }
    archive_read_free(a);
    archive_write_free(w);
}

static char *make_zip(const char *name, const char *const *extra)
{
    char *zip = path_join(tmp_root, name), *log = xstrfmt("%s.log", zip);
    const char *argv[32] = {e2e_bin(), "gradescope", lab_dir, "--out", zip, "--no-timing"};
    size_t n = 6;
    for (size_t i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    ck_assert_msg(e2e_run(argv, log) == 0, "grader gradescope failed (see %s)", log);
    free(log);
    return zip;
}

static void build_image(void)
{
    tmp_root = e2e_tmpdir("gradescope");
    ck_assert_ptr_nonnull(tmp_root);
    ag_root = path_join(tmp_root, "autograder");
    char *source = path_join(ag_root, "source");
    ck_assert_int_eq(mkdir_p(source, NULL), 0);
    char *zip = make_zip("autograder.zip", NULL);
    unzip(zip, source);
    /* At the zip's root, executable, as Gradescope requires; no solution inside. */
    char *setup = path_join(source, "setup.sh"), *run = path_join(source, "run_autograder");
    struct stat st;
    ck_assert_int_eq(stat(setup, &st), 0);
    ck_assert(st.st_mode & 0100);
    ck_assert_int_eq(stat(run, &st), 0);
    ck_assert(st.st_mode & 0100);
    char *sol = path_join(source, "labgrader/labs/labgs/solution");
    ck_assert(!dir_exists(sol));
    /* Unpacked by a tool that drops file modes (some unzip tools, an LMS's file manager): the
     * image must build without an exec bit on any of its scripts. */
    char *nox = xstrfmt("find '%s/labgrader' -type f -exec chmod a-x {} +", source);
    sh(nox, NULL);
    free(nox);
    /* Gradescope copies run_autograder to /autograder when it builds the image. */
    char *cp = xstrfmt("cp '%s' '%s/run_autograder'", run, ag_root);
    sh(cp, NULL);
    setenv("LABGRADER_AUTOGRADER_ROOT", ag_root, 1);
    setenv("LG_NO_INSTALL", "1", 1);
    char *log = path_join(tmp_root, "setup.log"), *cmd = xstrfmt("bash '%s'", setup);
    sh(cmd, log);
    /* A GPU here runs the GPU cases: the machine says whether there is one. */
    char *mlog = path_join(tmp_root, "machine.log");
    const char *margv[] = {e2e_bin(), "machine", NULL};
    e2e_run(margv, mlog);
    struct strbuf m = STRBUF_INIT;
    read_file(mlog, &m, NULL);
    gpu_here = strstr(strbuf_str(&m), "gpu:        none") == NULL;
    strbuf_release(&m);
    free(mlog);
    free(cmd);
    free(log);
    free(cp);
    free(sol);
    free(setup);
    free(run);
    free(zip);
    free(source);
}

static void drop_image(void)
{
    if (tmp_root && !getenv("LG_KEEP"))
        remove_tree(tmp_root, NULL);
}

/* A fresh submission/ (files copied from `from`, below `below`) and its metadata. */
static void new_submission(const char *from, const char *below)
{
    char *sub = path_join(ag_root, "submission"), *results = path_join(ag_root, "results");
    remove_tree(sub, NULL);
    remove_tree(results, NULL);
    char *dest = below ? path_join(sub, below) : xstrdup(sub);
    ck_assert_int_eq(mkdir_p(dest, NULL), 0);
    ck_assert_int_eq(mkdir_p(results, NULL), 0);
    if (from) {
        char *cmd = xstrfmt("cp -R '%s'/. '%s'", from, dest);
        sh(cmd, NULL);
        free(cmd);
    }
    char *meta = path_join(ag_root, "submission_metadata.json");
    const char *json =
        "{\"id\": 123456, \"created_at\": \"2026-03-01T14:22:32.365935+01:00\",\n"
        " \"assignment\": {\"due_date\": \"2026-03-02T23:59:00.000000+01:00\", \"title\": "
        "\"Lab 98\", \"total_points\": \"8.0\", \"group_submission\": false},\n"
        " \"submission_method\": \"upload\",\n"
        " \"users\": [{\"email\": \"ana@uni.example\", \"id\": 1234, \"name\": \"Ana Ruiz\"}],\n"
        " \"previous_submissions\": []}\n";
    ck_assert_int_eq(write_file_atomic(meta, json, strlen(json), NULL), 0);
    free(meta);
    free(dest);
    free(results);
    free(sub);
}

/* run_autograder as Gradescope runs it: from /autograder. Its exit status. */
static int run_autograder(const char *script, const char *log)
{
    char *cmd = xstrfmt("cd '%s' && sh '%s'", ag_root, script);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    int rc = e2e_run(argv, log);
    free(cmd);
    return rc;
}

static struct json_value *results_json(const char *log)
{
    char *path = xstrfmt("%s/results/results.json", ag_root);
    struct strbuf sb = STRBUF_INIT;
    struct json_value *doc = NULL;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "no results.json: %s (see %s)", err.msg, log);
    ck_assert_msg(json_parse(sb.buf, sb.len, &doc, &err) == 0, "results.json: %s", err.msg);
    strbuf_release(&sb);
    free(path);
    return doc;
}

/* A zip of the solution's files, named as given: what a student uploads. */
static void zip_files(const char *zip, const char *const (*files)[2], size_t n)
{
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    ck_assert_int_eq(archive_write_open_filename(a, zip), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        char *disk = xstrfmt("%s/solution/%s", lab_dir, files[i][0]);
        struct strbuf sb = STRBUF_INIT;
        ck_assert_int_eq(read_file(disk, &sb, NULL), 0);
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, files[i][1]);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)sb.len);
        ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
        ck_assert_int_eq(archive_write_data(a, sb.buf, sb.len), (la_ssize_t)sb.len);
        archive_entry_free(e);
        strbuf_release(&sb);
        free(disk);
    }
    archive_write_close(a);
    archive_write_free(a);
}

static const char *or_empty_str(const char *s)
{
    return s ? s : "";
}

static const struct json_value *test_named(const struct json_value *doc, const char *name)
{
    const struct json_value *tests = json_get(doc, "tests");
    for (size_t i = 0; tests && i < tests->n; i++)
        if (!strcmp(or_empty_str(json_get_string(json_at(tests, i), "name")), name))
            return json_at(tests, i);
    ck_abort_msg("no test named '%s'", name);
    return NULL;
}

/* The correct solution, uploaded in a folder and a zip next to a PDF, as students do: every
 * point under the informational policy, and what was not graded said, with why. */
START_TEST(test_correct_solution_full_marks)
{
    char *log = path_join(tmp_root, "correct.log");
    char *stage = path_join(tmp_root, "correct-upload"), *zip = path_join(stage, "code.zip");
    ck_assert_int_eq(mkdir_p(stage, NULL), 0);
    static const char *const files[][2] = {{"scale_cpu.c", "proj/src/scale_cpu.c"},
                                           {"scale_gpu.cu", "proj/src/scale_gpu.cu"}};
    zip_files(zip, files, 2);
    char *pdf = path_join(stage, "report.pdf");
    ck_assert_int_eq(write_file_atomic(pdf, "%PDF-1.4\n", 9, NULL), 0);
    free(pdf);
    new_submission(stage, NULL);
    ck_assert_int_eq(run_autograder("run_autograder", log), 0);
    struct json_value *doc = results_json(log);
    /* 6 correctness points and 2 speed points (GPU): 8 in all, whatever ran. */
    ck_assert_msg(json_get_number(doc, "score", -1) == 8, "score %g (see %s)",
                  json_get_number(doc, "score", -1), log);
    const char *out = json_get_string(doc, "output");
    ck_assert_str_eq(json_get_string(doc, "output_format"), "md");
    /* The lab's title is HTML in disguise: escaped for Gradescope's renderer. */
    ck_assert(strstr(out, "&lt;b&gt;x&lt;/b&gt;") && !strstr(out, "<b>"));
    const struct json_value *gpu = test_named(doc, "scale / gpu / n1000");
    ck_assert_str_eq(json_get_string(gpu, "status"), "passed");
    if (!gpu_here) {
        ck_assert(json_get_number(gpu, "max_score", -1) == 0);
        ck_assert(strstr(json_get_string(gpu, "output"), "does not count"));
        ck_assert_msg(strstr(out, "Not graded here (") && strstr(out, "scale / gpu / n1000"), "%s",
                      out);
        ck_assert(strstr(out, "scaled to the assignment's 8"));
    }
    /* The hidden case as a count, shown after the due date; its size nowhere. */
    const struct json_value *hidden = test_named(doc, "scale / hidden cases");
    ck_assert_str_eq(json_get_string(hidden, "visibility"), "after_due_date");
    char *text = xstrfmt("%s/results/results.json", ag_root);
    struct strbuf sb = STRBUF_INIT;
    read_file(text, &sb, NULL);
    ck_assert_ptr_null(strstr(sb.buf, "777"));
    ck_assert_ptr_null(strstr(sb.buf, "/ nh"));
    strbuf_release(&sb);
    free(text);
    json_value_free(doc);
    free(zip);
    free(stage);
    free(log);
}
END_TEST

/* A compile error: the test says so with the compiler's own first error. */
START_TEST(test_compile_error_shows_the_compiler)
{
    char *log = path_join(tmp_root, "ce.log");
    char *stage = path_join(tmp_root, "ce-upload");
    ck_assert_int_eq(mkdir_p(stage, NULL), 0);
    char *c = path_join(stage, "scale_cpu.c");
    const char *bad =
        "#include <stdint.h>\nvoid scale_cpu(const float *x, float *out, int32_t "
        "n)\n{\n    for (int32_t i = 0; i < n; i++)\n        out[i] = 2.0f * x[i]\n}\n";
    ck_assert_int_eq(write_file_atomic(c, bad, strlen(bad), NULL), 0);
    new_submission(stage, NULL);
    ck_assert_int_eq(run_autograder("run_autograder", log), 0);
    struct json_value *doc = results_json(log);
    const struct json_value *t = test_named(doc, "scale / cpu / n1000");
    ck_assert_str_eq(json_get_string(t, "status"), "failed");
    ck_assert_msg(strstr(json_get_string(t, "output"), "error: expected"), "%s",
                  json_get_string(t, "output"));
    ck_assert(json_get_number(doc, "score", -1) == 0);
    json_value_free(doc);
    free(c);
    free(stage);
    free(log);
}
END_TEST

/* A hostile upload (far too many files) costs its owner the grade, with the limit named;
 * the autograder still answers and exits 0. */
START_TEST(test_hostile_upload_gets_a_verdict)
{
    char *log = path_join(tmp_root, "hostile.log");
    char *stage = path_join(tmp_root, "hostile-upload");
    char *cmd = xstrfmt("mkdir -p '%s/junk' && cd '%s/junk' && i=0; while [ $i -lt 2100 ]; do "
                        ": > f$i; i=$((i+1)); done",
                        stage, stage);
    sh(cmd, NULL);
    new_submission(stage, NULL);
    ck_assert_int_eq(run_autograder("run_autograder", log), 0);
    struct json_value *doc = results_json(log);
    ck_assert(json_get_number(doc, "score", -1) == 0);
    const char *out = json_get_string(test_named(doc, "scale / cpu / n1000"), "output");
    ck_assert_msg(strstr(out, "submission too large") && strstr(out, "2000"), "%s", out);
    json_value_free(doc);
    free(cmd);
    free(stage);
    free(log);
}
END_TEST

/* --gpu-policy fail: without a GPU, no results at all (an autograder failure to re-run). */
START_TEST(test_fail_policy_leaves_no_results)
{
    if (gpu_here) {
        printf("skipped: this machine has a GPU: the fail policy grades normally here\n");
        return;
    }
    static const char *const extra[] = {"--gpu-policy", "fail", NULL};
    char *zip = make_zip("fail.zip", extra), *dir = path_join(tmp_root, "fail-zip");
    char *log = path_join(tmp_root, "fail.log");
    unzip(zip, dir);
    char *script = path_join(dir, "run_autograder");
    new_submission(NULL, NULL);
    char *src = xstrfmt("%s/solution", lab_dir), *abs = path_abs(src, NULL);
    new_submission(abs, NULL);
    ck_assert_int_ne(run_autograder(script, log), 0);
    char *results = xstrfmt("%s/results/results.json", ag_root);
    ck_assert_msg(!file_exists(results), "the fail policy wrote results (see %s)", log);
    struct strbuf sb = STRBUF_INIT;
    read_file(log, &sb, NULL);
    ck_assert(strstr(sb.buf, "--gpu-policy fail"));
    strbuf_release(&sb);
    free(results);
    free(abs);
    free(src);
    free(script);
    free(log);
    free(dir);
    free(zip);
}
END_TEST

/* The text of file (empty when missing). Caller frees. */
static char *slurp_text(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    struct strbuf sb = STRBUF_INIT;
    read_file(path, &sb, NULL);
    free(path);
    return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

/* This GPU lab graded as a class, as an instructor grades (a GPU case that cannot run is the
 * grader's failure, XX): on a machine without a GPU no file carries a number for the two
 * students, every file says why, and the summary says so first; with a GPU, numbers. */
START_TEST(test_class_without_gpu_exports_no_number)
{
    char *cls = path_join(tmp_root, "class"), *out = path_join(tmp_root, "class-out");
    char *roster = path_join(tmp_root, "roster.csv"), *log = path_join(tmp_root, "class.log");
    char *cmd = xstrfmt("mkdir -p '%s' && cp -r '%s/solution' '%s/s01' && cp -r '%s/solution' "
                        "'%s/s02' && printf 'student_id,name,Email address\\ns01,Ana,"
                        "ana@uni.example\\ns02,Bob,bob@uni.example\\n' > '%s'",
                        cls, lab_dir, cls, lab_dir, cls, roster);
    sh(cmd, NULL);
    const char *argv[] = {e2e_bin(), "grade", lab_dir, "--submissions", cls,           "--roster",
                          roster,    "--out", out,     "--no-pdf",      "--no-timing", NULL};
    int st = e2e_run(argv, log);
    char *lab = path_join(out, "lab98");
    char *gb = slurp_text(lab, "gradebook.csv"), *cv = slurp_text(lab, "gradebook-canvas.csv");
    char *md = slurp_text(lab, "gradebook-moodle.csv"), *sum = slurp_text(lab, "summary.md");
    char *gs = slurp_text(lab, "s01/gradescope.json"), *ju = slurp_text(lab, "s01/junit.xml");
    if (gpu_here) {
        ck_assert_msg(st == 0, "grade exited %d (see %s)", st, log);
        ck_assert_msg(strstr(gb, "\r\ns01,Ana,6,6,8,ok,,,\r\n"), "%s", gb);
        ck_assert_msg(strstr(cv, "\r\nAna,,s01,ana@uni.example,,6,ok\r\n"), "%s", cv);
    } else {
        /* Exit 3: grader errors, graded again next time. */
        ck_assert_msg(st == 3, "grade exited %d (see %s)", st, log);
        for (int i = 0; i < 2; i++) {
            char *row =
                xstrfmt("\r\n%s,%s,,,8,grader-error,,,", i ? "s02" : "s01", i ? "Bob" : "Ana");
            ck_assert_msg(strstr(gb, row), "gradebook.csv: no empty row %s in\n%s", row, gb);
            free(row);
            row = xstrfmt("\r\n%s,,%s,%s@uni.example,,,grader-error\r\n", i ? "Bob" : "Ana",
                          i ? "s02" : "s01", i ? "bob" : "ana");
            ck_assert_msg(strstr(cv, row), "Canvas: no empty row %s in\n%s", row, cv);
            free(row);
            row = xstrfmt(",%s@uni.example,,%s,,", i ? "bob" : "ana", i ? "Bob" : "Ana");
            ck_assert_msg(strstr(md, row), "Moodle: no empty grade %s in\n%s", row, md);
            free(row);
        }
        ck_assert_msg(strstr(md, "Not graded yet: the grader failed on 3 cases, not your code") &&
                          strstr(md, ",grader-error\r\n"),
                      "%s", md);
        ck_assert_msg(!strstr(gs, "\"score\"") && strstr(gs, "\"labgrader_status\": "
                                                             "\"grader-error\""),
                      "%s", gs);
        ck_assert_msg(strstr(ju, "<property name=\"labgrader.status\" value=\"grader-error\"/>"),
                      "%s", ju);
        /* The summary's first page: how many, why, who; no score figure counts them. */
        const char *warn = strstr(sum, "**No grade yet for 2 of 2 students:**");
        ck_assert_msg(warn && warn < strstr(sum, "## Scores") &&
                          strstr(sum, "| grader-error | 2 | 6 | 0 | the grader failed: GPU "
                                      "variant not run here: ") &&
                          strstr(sum, "| s01, s02 |") && strstr(sum, "| – | – | – | – | 8 |"),
                      "%s", sum);
    }
    free(gb);
    free(cv);
    free(md);
    free(sum);
    free(gs);
    free(ju);
    free(lab);
    free(cmd);
    free(log);
    free(roster);
    free(out);
    free(cls);
}
END_TEST

/* An autograder zip for the remote policy (a key and known hosts of its own), unpacked into
 * tmp_root/<name>-zip, whose folder it returns; *fake gets an ssh stand-in that runs the command
 * on this machine, as the GPU machine's labgrader would (the GPU machine would have a GPU, so
 * here the informational policy stands in for it). Caller frees both. */
static char *remote_autograder(const char *name, char **fake)
{
    char *key = path_join(tmp_root, "key"), *hosts = path_join(tmp_root, "known_hosts");
    ck_assert_int_eq(write_file_atomic(key, "not a key\n", 10, NULL), 0);
    ck_assert_int_eq(write_file_atomic(hosts, "gpu.example ssh-ed25519 AAAA\n", 29, NULL), 0);
    char *remote_dir = xstrfmt("%s/source/labgrader", ag_root);
    const char *extra[] = {"--gpu-policy",
                           "remote",
                           "--remote-host",
                           "grader@gpu.example",
                           "--remote-dir",
                           remote_dir,
                           "--remote-key",
                           key,
                           "--known-hosts",
                           hosts,
                           NULL};
    char *zip_name = xstrfmt("%s.zip", name), *dir_name = xstrfmt("%s-zip", name);
    char *zip = make_zip(zip_name, extra), *dir = path_join(tmp_root, dir_name);
    unzip(zip, dir);
    char *ssh_name = xstrfmt("%s-ssh", name);
    *fake = path_join(tmp_root, ssh_name);
    const char *body =
        "#!/bin/sh\nfor last; do :; done\n"
        "exec sh -c \"$(printf '%s' \"$last\" | sed 's/--gpu-policy fail/--gpu-policy "
        "informational/')\"\n";
    ck_assert_int_eq(write_file_atomic(*fake, body, strlen(body), NULL), 0);
    ck_assert_int_eq(chmod(*fake, 0755), 0);
    free(ssh_name);
    free(zip);
    free(dir_name);
    free(zip_name);
    free(remote_dir);
    free(hosts);
    free(key);
    return dir;
}

/* --gpu-policy remote: the submission goes over ssh (here a stand-in that runs the command
 * on this machine, as the GPU machine's labgrader would) and results.json comes back. */
START_TEST(test_remote_policy_round_trip)
{
    char *fake = NULL, *dir = remote_autograder("remote", &fake);
    setenv("LABGRADER_SSH", fake, 1);
    char *src = xstrfmt("%s/solution", lab_dir), *abs = path_abs(src, NULL);
    new_submission(abs, NULL);
    char *script = path_join(dir, "run_autograder"), *log = path_join(tmp_root, "remote.log");
    int rc = run_autograder(script, log);
    unsetenv("LABGRADER_SSH");
    ck_assert_msg(rc == 0, "run_autograder (remote) exited %d (see %s)", rc, log);
    struct json_value *doc = results_json(log);
    ck_assert(json_get_number(doc, "score", -1) == 8);
    json_value_free(doc);
    /* No answer from the machine: no results, an autograder failure to re-run. */
    setenv("LABGRADER_SSH", "/bin/false", 1);
    new_submission(abs, NULL);
    ck_assert_int_ne(run_autograder(script, log), 0);
    unsetenv("LABGRADER_SSH");
    char *results = xstrfmt("%s/results/results.json", ag_root);
    ck_assert(!file_exists(results));
    free(results);
    free(log);
    free(script);
    free(abs);
    free(src);
    free(fake);
    free(dir);
}
END_TEST

/* One autograder run at a deadline: its own /autograder (root), a submission of one kind, run
 * in a child process of its own; its results.json read back afterwards. */
struct rush {
    char *root, *log;
    int kind; /* 0: the solution, 1: wrong values, 2: a compile error naming the run */
    pid_t pid;
    struct json_value *doc;
    char *text; /* results.json as written */
};

/* The submission of a kind into root/submission, with Gradescope's metadata naming run k. */
static void rush_submission(const struct rush *r, int k)
{
    char *sub = path_join(r->root, "submission"), *res = path_join(r->root, "results");
    ck_assert_int_eq(mkdir_p(sub, NULL), 0);
    ck_assert_int_eq(mkdir_p(res, NULL), 0);
    char *cmd = xstrfmt("cp '%s/solution/scale_gpu.cu' '%s/'", lab_dir, sub);
    sh(cmd, NULL);
    free(cmd);
    char *c = path_join(sub, "scale_cpu.c");
    char *text = r->kind == 0   ? xstrfmt("#include <stdint.h>\nvoid scale_cpu(const float *x, "
                                            "float *out, int32_t n)\n{ for (int32_t i = 0; i < n; "
                                            "i++) out[i] = 2.0f * x[i]; }\n")
                 : r->kind == 1 ? xstrfmt("#include <stdint.h>\nvoid scale_cpu(const float *x, "
                                          "float *out, int32_t n)\n{ for (int32_t i = 0; i < n; "
                                          "i++) out[i] = 3.0f * x[i]; }\n")
                                : xstrfmt("#include <stdint.h>\nvoid scale_cpu(const float *x, "
                                          "float *out, int32_t n)\n{ int broken%dvar = ; }\n",
                                          k);
    ck_assert_int_eq(write_file_atomic(c, text, strlen(text), NULL), 0);
    free(text);
    free(c);
    char *meta = path_join(r->root, "submission_metadata.json");
    char *json = xstrfmt("{\"id\": %d, \"users\": [{\"email\": \"s%d@uni.example\", \"name\": "
                         "\"Student %d\"}]}\n",
                         1000 + k, k, k);
    ck_assert_int_eq(write_file_atomic(meta, json, strlen(json), NULL), 0);
    free(json);
    free(meta);
    free(res);
    free(sub);
}

static void rush_start(struct rush *r, const char *script, const char *fake)
{
    r->pid = fork();
    ck_assert_int_ge(r->pid, 0);
    if (r->pid == 0) {
        setenv("LABGRADER_AUTOGRADER_ROOT", r->root, 1);
        setenv("LABGRADER_SSH", fake, 1);
        char *cmd = xstrfmt("cd '%s' && sh '%s' > '%s' 2>&1", r->root, script, r->log);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
}

static void rush_read(struct rush *r)
{
    int st;
    ck_assert_int_eq(waitpid(r->pid, &st, 0), r->pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "run_autograder of %s: %#x (see %s)",
                  r->root, st, r->log);
    char *path = xstrfmt("%s/results/results.json", r->root);
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s (see %s)", err.msg, r->log);
    ck_assert_msg(json_parse(sb.buf, sb.len, &r->doc, &err) == 0, "%s", err.msg);
    r->text = strbuf_detach(&sb);
    free(path);
}

/* The answer of a run, against its kind's answer graded alone: the same score, and every test
 * the same status and points; a compile error names its own run's code and no other's. */
static void rush_compare(const struct rush *r, const struct rush *alone, int k, int n)
{
    ck_assert_msg(json_get_number(r->doc, "score", -1) == json_get_number(alone->doc, "score", -2),
                  "run %d (kind %d): score %g, alone %g", k, r->kind,
                  json_get_number(r->doc, "score", -1), json_get_number(alone->doc, "score", -2));
    const struct json_value *t = json_get(r->doc, "tests"), *ta = json_get(alone->doc, "tests");
    ck_assert(t && ta && t->n == ta->n);
    for (size_t i = 0; i < t->n; i++) {
        const char *st = json_get_string(json_at(t, i), "status");
        const char *sa = json_get_string(json_at(ta, i), "status");
        ck_assert_msg(st && sa && !strcmp(st, sa), "run %d test %zu: %s, alone %s", k, i, st, sa);
    }
    for (int j = 0; j < n; j++) {
        char *token = xstrfmt("broken%dvar", j);
        bool own = r->kind == 2 && j == k;
        ck_assert_msg((strstr(r->text, token) != NULL) == own, "run %d: %s %s in its answer", k,
                      token, own ? "missing" : "found");
        free(token);
    }
}

/* The deadline rush (docs/coordinator.md): eight autogrades at once through the remote
 * policy's ssh (a stand-in running the command here), each with a submission of its own:
 * each answer is its own student's, with the grade it gets alone. */
START_TEST(test_deadline_rush)
{
    char *fake = NULL, *dir = remote_autograder("rush", &fake);
    char *script = path_join(dir, "run_autograder");
    enum { N_RUSH = 8 };
    struct rush alone[3], runs[N_RUSH];
    for (int k = 0; k < 3 + N_RUSH; k++) {
        struct rush *r = k < 3 ? &alone[k] : &runs[k - 3];
        memset(r, 0, sizeof(*r));
        r->kind = k < 3 ? k : (k - 3) % 3;
        r->root = xstrfmt("%s/rush/%s%d", tmp_root, k < 3 ? "alone" : "run", k < 3 ? k : k - 3);
        r->log = xstrfmt("%s.log", r->root);
        rush_submission(r, k < 3 ? 100 + k : k - 3);
    }
    for (int k = 0; k < 3; k++) {
        rush_start(&alone[k], script, fake);
        rush_read(&alone[k]);
    }
    for (int k = 0; k < N_RUSH; k++)
        rush_start(&runs[k], script, fake);
    for (int k = 0; k < N_RUSH; k++)
        rush_read(&runs[k]);
    for (int k = 0; k < N_RUSH; k++)
        rush_compare(&runs[k], &alone[runs[k].kind], k, N_RUSH);
    for (int k = 0; k < 3 + N_RUSH; k++) {
        struct rush *r = k < 3 ? &alone[k] : &runs[k - 3];
        json_value_free(r->doc);
        free(r->text);
        free(r->root);
        free(r->log);
    }
    free(script);
    free(fake);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gradescope");
    TCase *tc = tcase_create("autograder");
    /* A generous bound on a hang, never on speed: setup.sh builds the whole grader. */
    tcase_set_timeout(tc, 1800);
    tcase_add_unchecked_fixture(tc, build_image, drop_image);
    tcase_add_test(tc, test_correct_solution_full_marks);
    tcase_add_test(tc, test_compile_error_shows_the_compiler);
    tcase_add_test(tc, test_hostile_upload_gets_a_verdict);
    tcase_add_test(tc, test_fail_policy_leaves_no_results);
    tcase_add_test(tc, test_class_without_gpu_exports_no_number);
    tcase_add_test(tc, test_remote_policy_round_trip);
    tcase_add_test(tc, test_deadline_rush);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
