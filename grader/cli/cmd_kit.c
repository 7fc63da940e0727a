/*
 * grader kit: the student kit (class/kit.h), and the list of what went in, group by group,
 * and of what stayed out: a warning for anything refused that looks meant for students.
 */
#include "cli/cli.h"

#include "class/kit.h"
#include "run/sandbox.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

/* "sm_75,sm_80,sm_90,...": the lowest minor of every major architecture nvcc lists (a cubin
 * for X.y runs on X.z, z >= y). Machine code for each and no PTX, which reads almost like
 * source: a kit's CUDA references run on the students' GPUs and give away no more than any
 * binary. NULL when nvcc does not list them (nvcc's default, PTX included, then). */
static char *portable_codes(const struct toolchain *tc)
{
    const char *argv[] = {tc->nvcc, "--list-gpu-code", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct strbuf codes = STRBUF_INIT;
    struct error err;
    int lowest[64] = {0}; /* per major: the lowest sm_XY listed */
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    o.argv = argv;
    o.workdir = "/tmp";
    o.wall_limit_s = 30;
    o.isolation = ISOLATION_SUPERVISOR;
    if (sandbox_run(&o, &r, &err) == 0 && r.status == SB_EXITED && r.exit_code == 0 && r.output)
        for (const char *line = r.output; line && *line;) {
            int v = 0, used = 0;
            /* sm_90a and the like are for one chip only: plain ones alone. */
            if (sscanf(line, "sm_%d%n", &v, &used) == 1 && (line[used] == '\n' || !line[used]) &&
                v > 0 && v / 10 < 64 && (!lowest[v / 10] || v < lowest[v / 10]))
                lowest[v / 10] = v;
            line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
        }
    sandbox_result_release(&r);
    for (int m = 0; m < 64; m++)
        if (lowest[m])
            strbuf_addf(&codes, "%ssm_%d", codes.len ? "," : "", lowest[m]);
    if (!codes.len) {
        strbuf_release(&codes);
        return NULL;
    }
    return strbuf_detach(&codes);
}

static const char *group_title(const struct cli *c, enum kit_group g)
{
    switch (g) {
    case KIT_TOP:
        return cli_tr(c, "top level");
    case KIT_LAB:
        return cli_tr(c, "the lab (lab.yaml with its hidden cases withheld, README.md, skeleton/)");
    case KIT_REF_OBJECTS:
        return cli_tr(c, "references, compiled (their sources stay out)");
    case KIT_REF_SOURCES:
        return cli_tr(c, "references as sources (kit: {references: sources} in lab.yaml)");
    case KIT_GRADER:
        return cli_tr(c, "the grader's sources");
    case KIT_TEMPLATES:
        return cli_tr(c, "templates");
    case KIT_GROUPS:
        break;
    }
    return "";
}

/* The length of path's folder part, its last '/' included (0 for a name alone). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* By folder (a folder's own files before its sub-folders'), then by name. */
static int cmp_path(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t dx = dir_len(x), dy = dir_len(y);
    int d = strncmp(x, y, dx < dy ? dx : dy);
    if (d || dx == dy)
        return d ? d : strcmp(x, y);
    return dx < dy ? -1 : 1;
}

/* One line per folder: "    grader/base/ alloc.c alloc.h ...", every file named. */
static void print_group(const char **paths, size_t n)
{
    qsort(paths, n, sizeof(*paths), cmp_path);
    for (size_t i = 0; i < n;) {
        const char *first = paths[i];
        size_t d = dir_len(first);
        int col = printf("    %.*s", (int)d, first);
        bool lead = d == 0;
        for (; i < n && dir_len(paths[i]) == d && !strncmp(paths[i], first, d); i++) {
            const char *name = paths[i] + d;
            if (col + 1 + (int)strlen(name) > 100) {
                fputs("\n     ", stdout);
                col = 5;
            }
            col += printf("%s%s", lead ? "" : " ", name);
            lead = false;
        }
        putchar('\n');
    }
}

static void print_packed(const struct cli *c, const struct kit_manifest *m, const char *out)
{
    const char **paths = xcalloc(m->n_files + 1, sizeof(*paths));
    printf(cli_tr(c, "packed %zu files into %s (under %s/):\n"), m->n_files, out, m->top);
    for (int g = 0; g < KIT_GROUPS; g++) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_files; i++)
            if ((int)m->files[i].group == g)
                paths[n++] = m->files[i].path;
        if (!n)
            continue;
        printf("  %s (%zu):\n", group_title(c, (enum kit_group)g), n);
        print_group(paths, n);
    }
    free(paths);
}

static void print_refused(const struct cli *c, const struct kit_manifest *m, const char *labdir)
{
    struct strbuf private_ones = STRBUF_INIT;
    for (size_t i = 0; i < m->n_refused; i++) {
        const struct kit_refused *r = &m->refused[i];
        if (r->why == KIT_PRIVATE)
            strbuf_addf(&private_ones, "%s%s", private_ones.len ? ", " : "", r->path);
        else if (r->why == KIT_NOT_REGULAR)
            cli_error(c, cli_tr(c, "warning: %s/%s is not packed: not a regular file or folder"),
                      labdir, r->path);
        else
            cli_error(c,
                      cli_tr(c, "warning: %s/%s is not packed: a kit takes only lab.yaml, "
                                "README.md and skeleton/ of the lab folder (move it into "
                                "skeleton/ to hand it out)"),
                      labdir, r->path);
    }
    if (private_ones.len)
        printf(cli_tr(c, "not packed (the instructor's): %s\n"), strbuf_str(&private_ones));
    strbuf_release(&private_ones);
}

static bool packed_cuda_object(const struct kit_manifest *m)
{
    for (size_t i = 0; i < m->n_files; i++) {
        size_t n = strlen(m->files[i].path);
        if (m->files[i].group == KIT_REF_OBJECTS && n > 5 &&
            !strcmp(m->files[i].path + n - 5, ".cu.o"))
            return true;
    }
    return false;
}

static int make_kit(struct cli *c, const struct lab *lab, const struct toolchain *tc)
{
    char *out = c->a.out ? xstrdup(c->a.out) : xstrfmt("reports/kits/%s-kit.tar.gz", lab->id);
    char *root = home_repo_root();
    struct kit_opts ko = {root, out, tc, NULL};
    struct kit_manifest m;
    struct strbuf warnings = STRBUF_INIT;
    struct error err;
    int status = EXIT_PASS;
    kit_manifest_init(&m);
    error_init(&err);
    if (kit_build(lab, &ko, &m, &warnings, &err) != 0) {
        error_print(&err, stderr);
        status = EXIT_GRADER;
    } else {
        print_packed(c, &m, out);
        if (tc && tc->gpu_codes && packed_cuda_object(&m))
            printf(cli_tr(c, "CUDA references: machine code for %s, no PTX (a GPU of another "
                             "major architecture cannot run them)\n"),
                   tc->gpu_codes);
        if (m.reference_sources)
            printf("%s\n", cli_tr(c, "the references are shipped as sources, as lab.yaml asks "
                                     "(kit: {references: sources}): students can read them"));
        print_refused(c, &m, lab->dir);
        if (warnings.len)
            fprintf(stderr, "%s", warnings.buf);
        printf("kit: %s\n", out);
        printf(cli_tr(c, "students: tar xzf %s && cd %s && make check LAB=%ld\n"), path_base(out),
               m.top, lab->number);
    }
    kit_manifest_release(&m);
    strbuf_release(&warnings);
    free(root);
    free(out);
    return status;
}

int cmd_kit(struct cli *c)
{
    struct lab lab;
    struct toolchain tc;
    struct error err;
    toolchain_init(&tc);
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_home(c);
    /* Compiling the references into objects needs the compilers the grader uses. */
    if (status == 0 && !lab.kit_reference_sources) {
        error_init(&err);
        if (toolchain_detect(&tc, c->home.harness_dir, c->home.include_dir, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        }
        tc.gpu_codes = tc.nvcc ? portable_codes(&tc) : NULL;
    }
    if (status == 0)
        status = make_kit(c, &lab, lab.kit_reference_sources ? NULL : &tc);
    toolchain_release(&tc);
    lab_release(&lab);
    return status;
}
