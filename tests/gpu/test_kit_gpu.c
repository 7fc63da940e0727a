/*
 * The student kit on a GPU: `grader kit labs/lab6` (LG_BIN) ships lab 6's references as
 * objects, CUDA ones as machine code for every major architecture; unpacked, with the
 * solution copied over the skeleton, `make check LAB=6` (timed) builds the grader from the
 * kit's sources, links the reference objects (kernels/x.cu.o) into GPU runners and into the
 * references' shared objects of the timed pairs, and every variant, GPU ones included,
 * passes: none skipped. Fails when the grader sees no GPU. Run from the repository root.
 */
#include "../e2e/e2e.h"
#include "base/fs.h"

#include <dirent.h>

static void sh(const char *cmd)
{
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/* The last max bytes of a log (all of it when max is 0). */
static char *tail_of(const char *path, size_t max)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    if (read_file(path, &sb, &err) != 0)
        return xstrdup("(no log)");
    char *t = xstrdup(sb.buf + (max && sb.len > max ? sb.len - max : 0));
    strbuf_release(&sb);
    return t;
}

START_TEST(test_kit_links_gpu_reference_objects)
{
    struct results r;
    struct error err;
    char *dir = e2e_tmpdir("kitgpu");
    char *tarball = xstrfmt("%s/lab6-kit.tar.gz", dir), *log = xstrfmt("%s/kit.log", dir);
    const char *kit_argv[] = {e2e_bin(), "kit", "labs/lab6", "--out", tarball, NULL};
    int rc = e2e_run(kit_argv, log);
    /* The whole listing: the grader's sources come after the references and run long. */
    char *tail = tail_of(log, 0);
    ck_assert_msg(rc == 0 && strstr(tail, "grade2.cu.o matmul_cublas.cu.o"),
                  "grader kit: exit %d:\n%s", rc, tail);
    free(tail);
    /* The solution, from this repository, copied over the kit's skeleton. */
    char *root = path_abs(".", &err);
    char *cmd =
        xstrfmt("cd '%s' && tar xzf lab6-kit.tar.gz && test ! -e lab6-kit/kernels/grade2.cu && "
                "cp '%s'/labs/lab6/solution/* lab6-kit/labs/lab6/skeleton/",
                dir, root);
    sh(cmd);
    free(cmd);
    char *make_log = xstrfmt("%s/make.log", dir);
    cmd = xstrfmt(
        "cd '%s/lab6-kit' && env -u MAKEFLAGS -u BUILD -u CFLAGS -u LDFLAGS LG_NO_INSTALL=1 "
        "make -j\"$(nproc)\" check LAB=6 ARGS='--case n256,n1000 --no-pdf' "
        "> '%s' 2>&1",
        dir, make_log);
    rc = system(cmd);
    tail = tail_of(make_log, 3000);
    ck_assert_msg(rc == 0, "make check in the kit on the solution failed:\n%s", tail);
    free(tail);
    free(cmd);

    char *json = xstrfmt("%s/lab6-kit/reports/lab6/skeleton/results.json", dir);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    ck_assert_msg(r.machine.gpu_name, "the grader saw no GPU: %s",
                  r.machine.gpu_status ? r.machine.gpu_status : "?");
    size_t gpu_ok = 0;
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (strcmp(cr->case_id, "n256") && strcmp(cr->case_id, "n1000"))
                    continue;
                ck_assert_msg(!strcmp(verdict_code(cr->verdict), "OK"), "%s/%s %s: %s (%s)",
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "");
                gpu_ok += !strncmp(vr->variant_id, "gpu", 3);
            }
        }
    ck_assert_uint_eq(gpu_ok, 4);
    results_release(&r);
    remove_tree(dir, &err);
    free(json);
    free(make_log);
    free(root);
    free(log);
    free(tarball);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kit_gpu");
    TCase *tc = tcase_create("core");
    /* Builds the kit's references and then its grader: minutes. */
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_kit_links_gpu_reference_objects);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
