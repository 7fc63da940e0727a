/*
 * The student kit: hidden cases cut out of the spec's text (comments kept), the
 * tarball's file list (an allow-list: references as objects), a scan of a kit made from a
 * lab folder full of the instructor's things (solution, test submissions, expected
 * verdicts, a lab-local reference) for any of them, the references-as-sources choice, and,
 * inside an unpacked kit, `make check LAB=6` building the grader from the kit's sources,
 * linking the references' objects and grading the skeleton: the solution copied over the
 * skeleton passes (exit 0), the untouched stubs fail (exit 1).
 * Run from the repository root.
 */
#include "e2e.h"
#include "class/kit.h"
#include "base/fs.h"
#include "spec/spec.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <sys/stat.h>

static char *cwd_abs(void)
{
    struct error err;
    char *abs = path_abs(".", &err);
    ck_assert_msg(abs != NULL, "%s", err.msg);
    return abs;
}

static char *write_tmp_yaml(const char *dir, const char *text)
{
    struct error err;
    char *labdir = xstrfmt("%s/labs/lab6", dir);
    char *path = path_join(labdir, "lab.yaml");
    error_init(&err);
    ck_assert_msg(mkdir_p(labdir, &err) == 0, "%s", err.msg);
    ck_assert_msg(write_file_atomic(path, text, strlen(text), &err) == 0, "%s", err.msg);
    free(labdir);
    return path;
}

START_TEST(test_strip_lab6)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    struct lab lab;
    char *dir = e2e_tmpdir("kitstrip"), *root = cwd_abs();
    error_init(&err);
    ck_assert_msg(kit_strip_hidden("labs/lab6/lab.yaml", &sb, &err) == 0, "%s", err.msg);
    const char *t = strbuf_str(&sb);
    /* Each hidden case is withheld: where it stood, an id of the kit's, nothing of its own. */
    ck_assert_msg(!strstr(t, "n1500") && !strstr(t, "n123457") && !strstr(t, "20000001") &&
                      !strstr(t, "{id: n1,"),
                  "a hidden case's id or size is left:\n%s", t);
    ck_assert_msg(strstr(t, "      - {id: n7000, sizes: {n: 7000}, slow: true, timeout: 300}\n"
                            "      - {id: hidden1, hidden: true, withheld: true}\n"),
                  "matmul's hidden case is not withheld in its place:\n%s", t);
    ck_assert_msg(strstr(t, "      - {id: hidden3, hidden: true, withheld: true}\n"),
                  "grade2's third hidden case is not withheld:\n%s", t);
    static const char *const visible[] = {"n256", "n1024", "n7000", "n1000", "n5M"};
    for (size_t i = 0; i < sizeof(visible) / sizeof(visible[0]); i++)
        ck_assert_msg(strstr(t, visible[i]) != NULL, "case %s is gone", visible[i]);
    /* No comment at all: the instructor's talk about the hidden cases ("15 to 25 at n=1500",
     * "n = 1 ... past 65535 blocks of 256 threads"); the layout and the data are kept. */
    ck_assert_msg(!strchr(t, '#'), "a comment is left:\n%s", t);
    ck_assert_msg(!strstr(t, "1500") && !strstr(t, "65535") && !strstr(t, "n = 1"),
                  "a word about a hidden case is left:\n%s", t);
    ck_assert_msg(strstr(t, "    timing: {blocking: true, warmup: 2,"), "the layout changed:\n%s",
                  t);

    /* It loads as a spec (kernels from this repository), with every visible case. */
    char *path = write_tmp_yaml(dir, t);
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, path, root, &err) == 0, "%s:%d:%d: %s", err.file, err.line,
                  err.col, err.msg);
    ck_assert_int_eq(lab.n_exercises, 2);
    ck_assert_int_eq(lab_exercise(&lab, "matmul")->n_cases, 4);
    ck_assert_int_eq(lab_exercise(&lab, "grade2")->n_cases, 5);
    for (size_t e = 0; e < lab.n_exercises; e++)
        for (size_t c = 0; c < lab.exercises[e].n_cases; c++)
            ck_assert(lab.exercises[e].cases[c].hidden == lab.exercises[e].cases[c].withheld);
    lab_release(&lab);
    remove_tree(dir, &err);
    free(path);
    free(dir);
    free(root);
    strbuf_release(&sb);
}
END_TEST

/* Block and flow sequences, comments, and an exercise with nothing but hidden cases. */
START_TEST(test_strip_layouts)
{
    static const char in[] =
        "# top comment: non-ASCII text (función z = a·x²) shifts byte offsets\n"
        "lab: 9\n"
        "exercises:\n"
        "  - id: a\n"
        "    title: \"Producto C = A·B # no comment\"\n"
        "    note: a#b   # a comment after the value\n"
        "    text: |\n"
        "      # a line of a block scalar, not a comment\n"
        "    cases:\n"
        "      - {id: s1, sizes: {n: 1}}\n"
        "      # about h1 (año, ±1)\n"
        "      - id: h1\n"
        "        sizes: {n: 2}\n"
        "        points: 2.5\n"
        "        hidden: true   # trailing\n"
        "\n"
        "      - {id: s2, sizes: {n: 3}}  # keep me\n"
        "  - id: b\n"
        "    cases: [{id: s3}, {id: h2, hidden: true}, {id: h3, hidden: True}]\n"
        "  - id: c\n"
        "    cases:\n"
        "      - {id: h4, hidden: true}\n"
        "  - id: d\n"
        "    cases: [{id: h5, hidden: true}, {id: h6, hidden: TRUE}, {id: s4, "
        "hidden: false}, {id: s5, hidden: \"true\"}]\n"
        "  - id: e\n"
        "    cases:\n"
        "    - id: h7\n"
        "      hidden: true\n"
        "    - id: hidden1\n"
        "    - id: s6";
    /* Comments go, whole lines and trailing ones; a '#' inside a value stays. Each hidden case
     * is withheld where it stood, with its points, under an id no visible case has. */
    static const char want[] =
        "lab: 9\n"
        "exercises:\n"
        "  - id: a\n"
        "    title: \"Producto C = A·B # no comment\"\n"
        "    note: a#b\n"
        "    text: |\n"
        "      # a line of a block scalar, not a comment\n"
        "    cases:\n"
        "      - {id: s1, sizes: {n: 1}}\n"
        "      - {id: hidden1, hidden: true, withheld: true, points: 2.5}\n"
        "\n"
        "      - {id: s2, sizes: {n: 3}}\n"
        "  - id: b\n"
        "    cases: [{id: s3}, {id: hidden1, hidden: true, withheld: true}, {id: hidden2, "
        "hidden: true, withheld: true}]\n"
        "  - id: d\n"
        "    cases: [{id: hidden1, hidden: true, withheld: true}, {id: hidden2, hidden: true, "
        "withheld: true}, {id: s4, hidden: false}, {id: s5, hidden: \"true\"}]\n"
        "  - id: e\n"
        "    cases:\n"
        "    - {id: hidden2, hidden: true, withheld: true}\n"
        "    - id: hidden1\n"
        "    - id: s6";
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    char *dir = e2e_tmpdir("kitlayout");
    char *path = write_tmp_yaml(dir, in);
    error_init(&err);
    ck_assert_msg(kit_strip_hidden(path, &sb, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(strbuf_str(&sb), want);

    /* Nothing left at all is an error, not an empty kit. */
    free(path);
    path = write_tmp_yaml(dir, "exercises:\n  - id: a\n    cases: [{id: h, hidden: true}]\n");
    strbuf_reset(&sb);
    ck_assert_int_eq(kit_strip_hidden(path, &sb, &err), -1);
    ck_assert_msg(strstr(err.msg, "only hidden cases"), "%s", err.msg);
    remove_tree(dir, &err);
    free(path);
    free(dir);
    strbuf_release(&sb);
}
END_TEST

/* The kit's spec of the fixture lab in fixture (its references copied beside it), loaded. */
static void load_kit_spec(const char *fixture, const char *dir, struct lab *kit)
{
    static const char *const refs[] = {"ref_saxpy.c", "ref_dot.c", "ref_stencil.c",
                                       "ref_stencil.cu"};
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    char *yaml = path_join(fixture, "lab.yaml");
    error_init(&err);
    ck_assert_msg(kit_strip_hidden(yaml, &sb, &err) == 0, "%s", err.msg);
    char *path = write_tmp_yaml(dir, strbuf_str(&sb));
    char *labdir = path_join(dir, "labs/lab6");
    for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
        char *src = path_join(fixture, refs[i]), *dst = path_join(labdir, refs[i]);
        if (file_exists(src))
            ck_assert_msg(copy_file(src, dst, &err) == 0, "%s", err.msg);
        free(src);
        free(dst);
    }
    lab_init(kit);
    ck_assert_msg(spec_load(kit, path, NULL, &err) == 0, "the kit's lab.yaml of %s: %s:%d:%d: %s",
                  fixture, err.file, err.line, err.col, err.msg);
    free(labdir);
    free(path);
    free(yaml);
    strbuf_release(&sb);
}

/* Issue 47: a student's check in the kit shares each exercise's points among its cases as the
 * instructor's grading does. The kit's lab.yaml cut its hidden cases out: an exercise's points
 * went to its visible cases alone (labcpu's saxpy: 3 a case where the grading gives 2), and a
 * lab with points per case did not load (the stencil lab: "add up to 6, but the exercise has
 * 8 points"). The hidden cases are withheld instead, with their points. */
START_TEST(test_kit_shares_points_as_graded)
{
    static const char *const fixtures[] = {"tests/fixtures/labcpu", "tests/fixtures/labstencil"};
    for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
        struct lab full, kit;
        struct error err;
        char *dir = e2e_tmpdir("kitshare"), *yaml = path_join(fixtures[f], "lab.yaml");
        error_init(&err);
        lab_init(&full);
        ck_assert_msg(spec_load(&full, yaml, NULL, &err) == 0, "%s", err.msg);
        load_kit_spec(fixtures[f], dir, &kit);
        ck_assert_int_eq(kit.n_exercises, full.n_exercises);
        for (size_t e = 0; e < full.n_exercises; e++) {
            const struct exercise_spec *fx = &full.exercises[e], *kx = &kit.exercises[e];
            ck_assert_int_eq(kx->n_cases, fx->n_cases);
            for (size_t c = 0; c < fx->n_cases; c++) {
                ck_assert_msg(exercise_case_points(kx, c) == exercise_case_points(fx, c),
                              "%s %s/%s: %g points in the kit, %g when graded", fixtures[f], fx->id,
                              fx->cases[c].id, exercise_case_points(kx, c),
                              exercise_case_points(fx, c));
                ck_assert(kx->cases[c].withheld == fx->cases[c].hidden);
                if (!fx->cases[c].hidden)
                    ck_assert_str_eq(kx->cases[c].id, fx->cases[c].id);
            }
        }
        lab_release(&kit);
        lab_release(&full);
        remove_tree(dir, &err);
        free(yaml);
        free(dir);
    }
}
END_TEST

/* The compilers the grader uses, with the harness built beside the grader under test. */
static void kit_toolchain(struct toolchain *tc)
{
    struct error err;
    char *bin = xstrdup(e2e_bin());
    char *slash = strrchr(bin, '/');
    char *harness = slash ? (*slash = '\0', path_join(bin, "harness")) : xstrdup("harness");
    toolchain_init(tc);
    error_init(&err);
    ck_assert_msg(toolchain_detect(tc, harness, "grader/harness", &err) == 0, "%s", err.msg);
    free(harness);
    free(bin);
}

/* Build the kit of the lab at yaml (kernels/ from root) into out; m filled. */
static void build_kit_of(const char *yaml, const char *root, const char *out, struct lab *lab,
                         struct kit_manifest *m, struct strbuf *warnings)
{
    struct error err;
    struct toolchain tc;
    struct kit_opts o = {.repo_root = ".", .out_path = out, .tc = &tc};
    kit_toolchain(&tc);
    error_init(&err);
    lab_init(lab);
    kit_manifest_init(m);
    ck_assert_msg(spec_load(lab, yaml, root, &err) == 0, "%s", err.msg);
    ck_assert_msg(kit_build(lab, &o, m, warnings, &err) == 0, "%s:%d: %s", err.file, err.line,
                  err.msg);
    ck_assert(file_exists(out));
    toolchain_release(&tc);
}

/* Build lab 6's kit into dir/kits/lab6-kit.tar.gz; returns the tarball's path. */
static char *build_kit(const char *dir, struct lab *lab)
{
    struct strbuf warnings = STRBUF_INIT;
    struct kit_manifest m;
    char *out = xstrfmt("%s/kits/lab6-kit.tar.gz", dir);
    build_kit_of("labs/lab6/lab.yaml", NULL, out, lab, &m, &warnings);
    ck_assert_msg(warnings.len == 0, "unexpected warnings: %s", strbuf_str(&warnings));
    /* Of lab 6's folder, only solution/ stays out, as the instructor's. */
    ck_assert_uint_eq(m.n_refused, 1);
    ck_assert_int_eq(m.refused[0].why, KIT_PRIVATE);
    ck_assert_str_eq(m.refused[0].path, "solution/");
    ck_assert(!m.reference_sources);
    kit_manifest_release(&m);
    strbuf_release(&warnings);
    return out;
}

static bool ends_with_name(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

struct kit_entry {
    char *name;
    unsigned mode;
    bool is_dir;
    char *text; /* lab.yaml and README.md only */
};

static size_t list_kit(const char *tarball, struct kit_entry *v, size_t max)
{
    struct archive *a = archive_read_new();
    struct archive_entry *ent;
    size_t n = 0;
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    ck_assert_msg(archive_read_open_filename(a, tarball, 16384) == ARCHIVE_OK, "%s",
                  archive_error_string(a));
    while (archive_read_next_header(a, &ent) == ARCHIVE_OK) {
        ck_assert(n < max);
        const char *name = archive_entry_pathname(ent);
        mode_t type = archive_entry_filetype(ent);
        ck_assert_msg(type == AE_IFREG || type == AE_IFDIR, "%s: neither a file nor a folder",
                      name);
        ck_assert_msg(archive_entry_symlink(ent) == NULL && archive_entry_hardlink(ent) == NULL,
                      "%s: a link", name);
        v[n].name = xstrdup(name);
        v[n].mode = archive_entry_perm(ent);
        v[n].is_dir = type == AE_IFDIR;
        v[n].text = NULL;
        if (ends_with_name(name, "/lab.yaml") || !strcmp(name, "lab6-kit/README.md")) {
            struct strbuf sb = STRBUF_INIT;
            char buf[8192];
            la_ssize_t got;
            while ((got = archive_read_data(a, buf, sizeof(buf))) > 0)
                strbuf_add(&sb, buf, (size_t)got);
            v[n].text = strbuf_detach(&sb);
        }
        n++;
    }
    archive_read_free(a);
    return n;
}

static const struct kit_entry *find_entry(const struct kit_entry *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

/* kit_name is the object of one of lab's references (kernels/x.cu.o for kernels/x.cu). */
static bool is_reference_object(const struct lab *lab, const char *kit_name)
{
    char *rel_o = xstrdup(kit_name + strlen("lab6-kit/"));
    size_t len = strlen(rel_o);
    if (len < 3 || strcmp(rel_o + len - 2, ".o")) {
        free(rel_o);
        return false;
    }
    rel_o[len - 2] = '\0';
    const char *rel = rel_o;
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct impl_spec *r = &lab->exercises[e].variants[v].reference;
            for (size_t i = 0; i < r->n_sources; i++) {
                size_t a = strlen(r->sources[i]), b = strlen(rel);
                if (a > b && r->sources[i][a - b - 1] == '/' &&
                    !strcmp(r->sources[i] + a - b, rel)) {
                    free(rel_o);
                    return true;
                }
            }
        }
    free(rel_o);
    return false;
}

START_TEST(test_kit_contents)
{
    struct lab lab;
    struct error err;
    static struct kit_entry v[2048];
    char *dir = e2e_tmpdir("kitlist");
    char *tarball = build_kit(dir, &lab);
    size_t n = list_kit(tarball, v, 2048);

    for (size_t i = 0; i < n; i++) {
        const char *name = v[i].name;
        ck_assert_msg(!strncmp(name, "lab6-kit", 8) && (name[8] == '\0' || name[8] == '/'),
                      "%s: outside lab6-kit/", name);
        ck_assert_msg(!strstr(name, "..") && !strstr(name, "//"), "%s: not a plain path", name);
        ck_assert_msg(
            !strstr(name, "/solution") && !strstr(name, "/.git") &&
                strncmp(name, "lab6-kit/tests", 14) && strncmp(name, "lab6-kit/reports", 16) &&
                strncmp(name, "lab6-kit/build", 14) && strncmp(name, "lab6-kit/notes", 14),
            "%s: should not be in the kit", name);
        if (!v[i].is_dir && !strncmp(name, "lab6-kit/kernels/", 17))
            ck_assert_msg(is_reference_object(&lab, name), "%s: not a reference's object", name);
        if (!v[i].is_dir && !strncmp(name, "lab6-kit/grader/", 16))
            ck_assert_msg(ends_with_name(name, ".c") || ends_with_name(name, ".h") ||
                              ends_with_name(name, ".cu") || ends_with_name(name, ".sh"),
                          "%s: not a grader source", name);
    }
    static const char *const needed[] = {
        "lab6-kit/Makefile",
        "lab6-kit/VERSION",
        "lab6-kit/README.md",
        "lab6-kit/grader/cli/main.c",
        "lab6-kit/grader/class/kit.c",
        "lab6-kit/grader/spec/spec.h",
        "lab6-kit/grader/harness/harness.h",
        "lab6-kit/grader/harness/harness.c",
        "lab6-kit/kernels/matmul_openblas.c.o",
        "lab6-kit/kernels/matmul_cublas.cu.o",
        "lab6-kit/kernels/grade2.c.o",
        "lab6-kit/kernels/grade2.cu.o",
        "lab6-kit/labs/lab6/lab.yaml",
        "lab6-kit/labs/lab6/skeleton/matmul_cpu.c",
        "lab6-kit/labs/lab6/skeleton/matmul_gpu.cu",
        "lab6-kit/labs/lab6/skeleton/grade2_cpu.c",
        "lab6-kit/labs/lab6/skeleton/grade2_gpu.cu",
    };
    for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
        ck_assert_msg(find_entry(v, n, needed[i]) != NULL, "%s is missing", needed[i]);

    const struct kit_entry *deps = find_entry(v, n, "lab6-kit/grader/deps.sh");
    ck_assert_msg(deps != NULL, "deps.sh is missing");
    ck_assert_msg((deps->mode & 0111) == 0111, "deps.sh lost its executable mode (%o)", deps->mode);
    ck_assert_uint_eq(find_entry(v, n, "lab6-kit/Makefile")->mode & 0777, 0644);

    const struct kit_entry *yaml = find_entry(v, n, "lab6-kit/labs/lab6/lab.yaml");
    ck_assert_ptr_nonnull(yaml->text);
    ck_assert_msg(!strstr(yaml->text, "n1500") && !strstr(yaml->text, "n123457") &&
                      !strstr(yaml->text, "sizes: {n: 1}") && !strstr(yaml->text, "20000001"),
                  "the kit's lab.yaml has a hidden case's id or size");
    /* Every hidden case withheld (spec.h): 1 and 3, as counted below. */
    size_t hidden = 0, withheld = 0;
    for (const char *p = yaml->text; (p = strstr(p, "hidden: true")); p++)
        hidden++;
    for (const char *p = yaml->text; (p = strstr(p, "hidden: true, withheld: true}")); p++)
        withheld++;
    ck_assert_msg(hidden == 4 && withheld == 4, "%zu hidden, %zu withheld:\n%s", hidden, withheld,
                  yaml->text);
    ck_assert_msg(strstr(yaml->text, "n7000") && strstr(yaml->text, "n5M"), "visible cases lost");

    /* lab 6 is in Spanish: so is the students' README. */
    const struct kit_entry *readme = find_entry(v, n, "lab6-kit/README.md");
    ck_assert_ptr_nonnull(readme->text);
    ck_assert_msg(strstr(readme->text, "make check LAB=6") && strstr(readme->text, "--full") &&
                      strstr(readme->text, "Veredictos") &&
                      strstr(readme->text, "reports/lab6/skeleton/") &&
                      strstr(readme->text, "matmul_gpu_dev"),
                  "README.md:\n%s", readme->text);
    ck_assert_msg(!strstr(readme->text, "n1500"), "README names a hidden case");
    /* How many there are, the true count, per exercise and in all (lab 6: 1 and 3). */
    ck_assert_msg(strstr(readme->text, "`n7000` (lento: `--full`) y 1 oculto |") &&
                      strstr(readme->text, "`n5M` y 3 ocultos |") &&
                      strstr(readme->text, "La nota final incluye además 4 casos ocultos"),
                  "README.md:\n%s", readme->text);
    /* The lab's statement says the same (its text is the instructor's: checked here). */
    const struct kit_entry *statement = find_entry(v, n, "lab6-kit/labs/lab6/README.md");
    ck_assert_ptr_nonnull(statement);
    char *full = NULL;
    struct strbuf sb = STRBUF_INIT;
    if (read_file("labs/lab6/README.md", &sb, NULL) == 0)
        full = strbuf_detach(&sb);
    ck_assert_msg(full && strstr(full, "y un\ncaso oculto") && strstr(full, "y tres casos ocultos"),
                  "labs/lab6/README.md does not say 1 and 3 hidden cases");
    free(full);

    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].text);
    }
    lab_release(&lab);
    error_init(&err);
    remove_tree(dir, &err);
    free(tarball);
    free(dir);
}
END_TEST

/* An exercise with nothing but hidden cases leaves the kit, with a warning. */
START_TEST(test_kit_drops_all_hidden_exercise)
{
    struct strbuf text = STRBUF_INIT, warnings = STRBUF_INIT;
    struct error err;
    struct lab lab;
    static struct kit_entry v[2048];
    char *dir = e2e_tmpdir("kitdrop"), *root = cwd_abs();
    error_init(&err);
    ck_assert_msg(read_file("labs/lab6/lab.yaml", &text, &err) == 0, "%s", err.msg);
    static const char *const visible[] = {"{id: n1000, sizes: {n: 1000}",
                                          "{id: n5M, sizes: {n: 5000000}"};
    for (size_t i = 0; i < 2; i++) {
        char *at = strstr(text.buf, visible[i]);
        ck_assert_msg(at != NULL, "labs/lab6/lab.yaml has no '%s'", visible[i]);
        struct strbuf edited = STRBUF_INIT;
        size_t cut = (size_t)(at - text.buf) + strlen(visible[i]);
        strbuf_add(&edited, text.buf, cut);
        strbuf_addstr(&edited, ", hidden: true");
        strbuf_addstr(&edited, text.buf + cut);
        strbuf_release(&text);
        text = edited;
    }
    char *path = write_tmp_yaml(dir, text.buf);
    char *out = xstrfmt("%s/lab6-kit.tar.gz", dir);
    struct kit_manifest m;
    build_kit_of(path, root, out, &lab, &m, &warnings);
    kit_manifest_release(&m);
    ck_assert_msg(strstr(strbuf_str(&warnings), "'grade2' has only hidden cases"), "warnings: %s",
                  strbuf_str(&warnings));
    size_t n = list_kit(out, v, 2048);
    const struct kit_entry *yaml = find_entry(v, n, "lab6-kit/labs/lab6/lab.yaml");
    ck_assert_ptr_nonnull(yaml);
    ck_assert_msg(!strstr(yaml->text, "id: grade2") && strstr(yaml->text, "id: matmul"), "%s",
                  yaml->text);
    /* Only the references of what is left travel. */
    ck_assert_ptr_null(find_entry(v, n, "lab6-kit/kernels/grade2.c.o"));
    ck_assert_ptr_nonnull(find_entry(v, n, "lab6-kit/kernels/matmul_openblas.c.o"));
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].text);
    }
    lab_release(&lab);
    remove_tree(dir, &err);
    free(out);
    free(path);
    free(root);
    free(dir);
    strbuf_release(&text);
    strbuf_release(&warnings);
}
END_TEST

/* ---- a kit made from a lab folder full of the instructor's things leaks none of them ---- */

static void sh(const char *cmd)
{
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/*
 * dir/labs/lab6 as an instructor keeps it: the spec (grade2's CPU reference moved into the
 * lab folder, ref/), README.md, skeleton/, solution/, test submissions with their expected
 * verdicts naming the hidden case, and a handout that nothing lists.
 */
static char *instructor_lab(const char *dir, const char *extra_yaml)
{
    struct strbuf text = STRBUF_INIT;
    struct error err;
    char *lab = xstrfmt("%s/labs/lab6", dir);
    char *cmd = xstrfmt("mkdir -p '%s/tests' '%s/ref' && cp -r labs/lab6/README.md "
                        "labs/lab6/skeleton labs/lab6/solution '%s/' && cp -r labs/lab6/solution "
                        "'%s/tests/full' && cp kernels/grade2.c '%s/ref/grade2_ref.c' && "
                        "printf 'full grade2 cpu n123457 OK\nfull matmul cpu n1500 OK\n' > "
                        "'%s/tests/EXPECTED' && printf '%%%%PDF-1.4 handout' > '%s/handout.pdf'",
                        lab, lab, lab, lab, lab, lab, lab);
    sh(cmd);
    error_init(&err);
    ck_assert_msg(read_file("labs/lab6/lab.yaml", &text, &err) == 0, "%s", err.msg);
    char *at = strstr(text.buf, "sources: [kernels/grade2.c]");
    ck_assert_ptr_nonnull(at);
    struct strbuf yaml = STRBUF_INIT;
    strbuf_add(&yaml, text.buf, (size_t)(at - text.buf));
    strbuf_addstr(&yaml, "sources: [ref/grade2_ref.c]");
    strbuf_addstr(&yaml, at + strlen("sources: [kernels/grade2.c]"));
    strbuf_addstr(&yaml, extra_yaml);
    char *path = path_join(lab, "lab.yaml");
    ck_assert_msg(write_file_atomic(path, yaml.buf, yaml.len, &err) == 0, "%s", err.msg);
    strbuf_release(&text);
    strbuf_release(&yaml);
    free(cmd);
    free(lab);
    return path;
}

struct blob {
    char *name;
    char *data;
    size_t len;
};

/* Every regular file of the kit, with its bytes. */
static size_t read_kit(const char *tarball, struct blob *v, size_t max)
{
    struct archive *a = archive_read_new();
    struct archive_entry *ent;
    size_t n = 0;
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    ck_assert(archive_read_open_filename(a, tarball, 16384) == ARCHIVE_OK);
    while (archive_read_next_header(a, &ent) == ARCHIVE_OK) {
        if (archive_entry_filetype(ent) != AE_IFREG)
            continue;
        ck_assert(n < max);
        struct strbuf sb = STRBUF_INIT;
        char buf[8192];
        la_ssize_t got;
        while ((got = archive_read_data(a, buf, sizeof(buf))) > 0)
            strbuf_add(&sb, buf, (size_t)got);
        v[n].name = xstrdup(archive_entry_pathname(ent));
        v[n].len = sb.len;
        v[n].data = strbuf_detach(&sb);
        n++;
    }
    archive_read_free(a);
    return n;
}

static bool holds(const struct blob *b, const char *text, size_t len)
{
    return len && b->len >= len && memmem(b->data, b->len, text, len) != NULL;
}

/* Shared by design: the grader's and the templates' files, and the skeleton. */
static bool public_part(const char *name)
{
    return !strncmp(name, "lab6-kit/grader/", 16) || !strncmp(name, "lab6-kit/templates/", 19) ||
           !strncmp(name, "lab6-kit/labs/lab6/skeleton/", 28);
}

/* No line of forbidden (a file of the instructor's) that only it has is anywhere in the kit. */
static void assert_not_leaked(const char *forbidden, const struct blob *kit, size_t n)
{
    struct strbuf text = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(forbidden, &text, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(!(kit[i].len == text.len && !memcmp(kit[i].data, text.buf, text.len)) ||
                          public_part(kit[i].name),
                      "%s is in the kit as %s", forbidden, kit[i].name);
    for (char *line = text.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        while (len && (*line == ' ' || *line == '\t'))
            line++, len--;
        bool comment = !strncmp(line, "/*", 2) || !strncmp(line, "*", 1) || !strncmp(line, "//", 2);
        bool shared = false;
        for (size_t i = 0; i < n && !comment && len >= 20 && !shared; i++)
            shared = public_part(kit[i].name) && holds(&kit[i], line, len);
        for (size_t i = 0; i < n && !comment && len >= 20 && !shared; i++)
            ck_assert_msg(!holds(&kit[i], line, len), "%s: '%.*s' is in the kit's %s", forbidden,
                          (int)len, line, kit[i].name);
        line = nl ? nl + 1 : NULL;
    }
    strbuf_release(&text);
}

static void assert_tree_not_leaked(const char *dir, const struct blob *kit, size_t n)
{
    struct error err;
    DIR *d = opendir(dir);
    struct dirent *de;
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *p = path_join(dir, de->d_name);
        if (dir_exists(p))
            assert_tree_not_leaked(p, kit, n);
        else
            assert_not_leaked(p, kit, n);
        free(p);
    }
    closedir(d);
    error_init(&err);
}

static const struct kit_refused *refused(const struct kit_manifest *m, const char *path)
{
    for (size_t i = 0; i < m->n_refused; i++)
        if (!strcmp(m->refused[i].path, path))
            return &m->refused[i];
    return NULL;
}

START_TEST(test_kit_leaks_nothing)
{
    static struct blob kit[2048];
    struct strbuf warnings = STRBUF_INIT;
    struct kit_manifest m;
    struct lab lab;
    struct error err;
    char *dir = e2e_tmpdir("kitscan"), *root = cwd_abs();
    char *yaml = instructor_lab(dir, "");
    char *out = xstrfmt("%s/lab6-kit.tar.gz", dir);
    char *lab_dir = xstrfmt("%s/labs/lab6", dir);
    build_kit_of(yaml, root, out, &lab, &m, &warnings);

    /* What stayed out, and why: the instructor's things quietly, the handout with a warning. */
    static const char *const private_ones[] = {"solution/", "tests/", "ref/"};
    for (size_t i = 0; i < 3; i++) {
        const struct kit_refused *r = refused(&m, private_ones[i]);
        ck_assert_msg(r && r->why == KIT_PRIVATE, "%s: not refused as the instructor's",
                      private_ones[i]);
    }
    ck_assert_msg(refused(&m, "handout.pdf") && refused(&m, "handout.pdf")->why == KIT_NOT_LISTED,
                  "handout.pdf: no warning");
    ck_assert_uint_eq(m.n_refused, 4);

    size_t n = read_kit(out, kit, 2048);
    ck_assert_uint_gt(n, 50);
    for (size_t i = 0; i < n; i++) {
        const char *name = kit[i].name;
        ck_assert_msg(!strstr(name, "/solution") && !strstr(name, "/tests") &&
                          !strstr(name, "EXPECTED") && !strstr(name, "handout.pdf"),
                      "%s: the instructor's, in the kit", name);
        /* References travel compiled: no source of one, anywhere. */
        ck_assert_msg(strncmp(name, "lab6-kit/kernels/", 17) || ends_with_name(name, ".o"),
                      "%s: a reference source in the kit", name);
        ck_assert_msg(!holds(&kit[i], "n1500", 5) && !holds(&kit[i], "n123457", 7),
                      "%s names a hidden case", name);
    }
    char *sol = path_join(lab_dir, "solution"), *tests = path_join(lab_dir, "tests");
    assert_tree_not_leaked(sol, kit, n);
    assert_tree_not_leaked(tests, kit, n);
    char *ref = path_join(lab_dir, "ref/grade2_ref.c");
    assert_not_leaked(ref, kit, n);
    for (size_t e = 0; e < lab.n_exercises; e++)
        for (size_t v = 0; v < lab.exercises[e].n_variants; v++)
            for (size_t s = 0; s < lab.exercises[e].variants[v].reference.n_sources; s++)
                assert_not_leaked(lab.exercises[e].variants[v].reference.sources[s], kit, n);
    bool lab_ref_object = false;
    for (size_t i = 0; i < n; i++)
        lab_ref_object |= !strcmp(kit[i].name, "lab6-kit/labs/lab6/ref/grade2_ref.c.o");
    ck_assert_msg(lab_ref_object, "the lab folder's reference did not travel compiled");

    for (size_t i = 0; i < n; i++) {
        free(kit[i].name);
        free(kit[i].data);
    }
    kit_manifest_release(&m);
    lab_release(&lab);
    error_init(&err);
    remove_tree(dir, &err);
    strbuf_release(&warnings);
    free(sol);
    free(tests);
    free(ref);
    free(lab_dir);
    free(out);
    free(yaml);
    free(root);
    free(dir);
}
END_TEST

/* kit: {references: sources}: the lab chooses to hand its references out as sources. */
START_TEST(test_kit_reference_sources)
{
    static struct blob kit[2048];
    struct strbuf warnings = STRBUF_INIT;
    struct kit_manifest m;
    struct lab lab;
    struct error err;
    char *dir = e2e_tmpdir("kitsrc"), *root = cwd_abs();
    char *yaml = instructor_lab(dir, "kit: {references: sources}\n");
    char *out = xstrfmt("%s/lab6-kit.tar.gz", dir);
    build_kit_of(yaml, root, out, &lab, &m, &warnings);
    ck_assert(m.reference_sources);
    size_t n = read_kit(out, kit, 2048);
    static const char *const want[] = {
        "lab6-kit/kernels/grade2.cu", "lab6-kit/kernels/matmul_cublas.cu",
        "lab6-kit/kernels/matmul_openblas.c", "lab6-kit/labs/lab6/ref/grade2_ref.c"};
    for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= !strcmp(kit[i].name, want[w]);
        ck_assert_msg(found, "%s is missing", want[w]);
    }
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(!ends_with_name(kit[i].name, ".o"), "%s: an object", kit[i].name);
        ck_assert_msg(!strstr(kit[i].name, "/solution") && !strstr(kit[i].name, "/tests"), "%s",
                      kit[i].name);
        if (!strcmp(kit[i].name, "lab6-kit/labs/lab6/lab.yaml"))
            ck_assert_msg(strstr(kit[i].data, "sources: [ref/grade2_ref.c]") &&
                              strstr(kit[i].data, "sources: [kernels/grade2.cu]"),
                          "%s", kit[i].data);
        free(kit[i].name);
        free(kit[i].data);
    }
    kit_manifest_release(&m);
    lab_release(&lab);
    error_init(&err);
    remove_tree(dir, &err);
    strbuf_release(&warnings);
    free(out);
    free(yaml);
    free(root);
    free(dir);
}
END_TEST

/* The last part of a log, for failure messages. */
static char *log_tail(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    if (read_file(path, &sb, &err) != 0)
        return xstrdup("(no log)");
    size_t from = sb.len > 3000 ? sb.len - 3000 : 0;
    char *tail = xstrdup(sb.buf + from);
    strbuf_release(&sb);
    return tail;
}

/*
 * make -j2 check LAB=6 in the kit, as a student would run it. The make variables of
 * whoever runs this test (make test-asan passes BUILD and CFLAGS down) must not leak
 * into the kit's build, and packages are never installed from a test.
 */
static int kit_make_check(const char *kit, const char *log, const char *args)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        static const char *const scrub[] = {"MAKEFLAGS", "MFLAGS",     "MAKELEVEL", "MAKEOVERRIDES",
                                            "BUILD",     "CFLAGS",     "LDFLAGS",   "CPPFLAGS",
                                            "LDLIBS",    "SUBMISSION", "ARGS",      "LAB"};
        for (size_t i = 0; i < sizeof(scrub) / sizeof(scrub[0]); i++)
            unsetenv(scrub[i]);
        setenv("LG_NO_INSTALL", "1", 1);
        setenv("LC_ALL", "C", 1); /* make's "Error 1" line, untranslated */
        if (chdir(kit) != 0)
            _exit(126);
        execlp("make", "make", "-j2", "check", "LAB=6", args, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int untar(const char *tarball, const char *dir, const char *member)
{
    char *tar = find_program("tar");
    ck_assert_msg(tar != NULL, "tar is not installed");
    const char *argv[] = {tar, "-xzf", tarball, "-C", dir, member, NULL};
    int rc = e2e_run(argv, NULL);
    free(tar);
    return rc;
}

static void copy_solution_over(const char *skeleton)
{
    struct error err;
    DIR *d = opendir("labs/lab6/solution");
    struct dirent *de;
    int copied = 0;
    ck_assert_ptr_nonnull(d);
    error_init(&err);
    while ((de = readdir(d))) {
        if (!ends_with_name(de->d_name, ".c") && !ends_with_name(de->d_name, ".cu"))
            continue;
        char *src = path_join("labs/lab6/solution", de->d_name);
        char *dst = path_join(skeleton, de->d_name);
        ck_assert_msg(copy_file(src, dst, &err) == 0, "%s", err.msg);
        copied++;
        free(src);
        free(dst);
    }
    closedir(d);
    ck_assert_int_gt(copied, 0);
}

/* What the kit's grader wrote where the README says: reports/lab6/skeleton/results.json. */
static struct results read_kit_results(const char *json, const char *log)
{
    struct results r;
    struct error err;
    error_init(&err);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0,
                  "no results where the README says (%s): %s; log %s", json, err.msg, log);
    ck_assert_int_eq(r.n_grader_errors, 0);
    return r;
}

START_TEST(test_kit_grades_skeleton)
{
    struct lab lab;
    struct error err;
    struct results r;
    char *dir = e2e_tmpdir("kitrun");
    char *tarball = build_kit(dir, &lab);
    char *kit = path_join(dir, "lab6-kit");
    char *skeleton = path_join(kit, "labs/lab6/skeleton");
    char *log = path_join(dir, "solution.log");
    char *json = path_join(kit, "reports/lab6/skeleton/results.json");
    error_init(&err);
    ck_assert_int_eq(untar(tarball, dir, "lab6-kit"), 0);
    ck_assert(dir_exists(skeleton));

    /* The skeleton turned solution: everything graded here passes. */
    copy_solution_over(skeleton);
    /* Correctness only: timings on a loaded CI machine can be flagged impossible against its
     * calibration. tests/gpu/test_kit_gpu.c grades the kit timed, on a GPU machine. */
    int rc = kit_make_check(kit, log, "ARGS=--no-timing --case n256,n1000 --no-pdf");
    char *tail = log_tail(log);
    ck_assert_msg(rc == 0, "make check on the solution: exit %d, expected 0 (%s):\n%s", rc, log,
                  tail);
    free(tail);
    r = read_kit_results(json, log);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_gt(r.n_pass, 0);
    results_release(&r);
    unlink(json);

    /*
     * The stubs, back from the tarball: they fail. The grader exits 1, which make
     * reports as "Error 1" and turns into its own exit status 2.
     */
    ck_assert_msg(remove_tree(skeleton, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(untar(tarball, dir, "lab6-kit/labs/lab6/skeleton"), 0);
    free(log);
    log = path_join(dir, "skeleton.log");
    rc = kit_make_check(kit, log, "ARGS=--no-timing --case n256,n1000 --no-pdf");
    tail = log_tail(log);
    ck_assert_msg(rc == 2 && strstr(tail, "check] Error 1"),
                  "make check on the skeleton: exit %d, expected make's 2 after the grader's 1 "
                  "(%s):\n%s",
                  rc, log, tail);
    free(tail);
    r = read_kit_results(json, log);
    ck_assert_int_gt(r.n_fail, 0);
    ck_assert_int_eq(r.n_pass, 0);
    results_release(&r);

    lab_release(&lab);
    remove_tree(dir, &err);
    free(json);
    free(log);
    free(skeleton);
    free(kit);
    free(tarball);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kit");
    TCase *strip = tcase_create("strip_hidden");
    TCase *contents = tcase_create("contents");
    TCase *grades = tcase_create("make_check");
    tcase_add_test(strip, test_strip_lab6);
    tcase_add_test(strip, test_strip_layouts);
    tcase_add_test(strip, test_kit_shares_points_as_graded);
    tcase_add_test(contents, test_kit_contents);
    tcase_add_test(contents, test_kit_drops_all_hidden_exercise);
    tcase_add_test(contents, test_kit_leaks_nothing);
    tcase_add_test(contents, test_kit_reference_sources);
    /* Each kit compiles lab 6's references, CUDA ones for every major GPU architecture. */
    tcase_set_timeout(contents, 600);
    tcase_add_test(grades, test_kit_grades_skeleton);
    /* Builds the grader from the kit's sources: a minute or two on two cores. */
    tcase_set_timeout(grades, 600);
    suite_add_tcase(s, strip);
    suite_add_tcase(s, contents);
    suite_add_tcase(s, grades);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
