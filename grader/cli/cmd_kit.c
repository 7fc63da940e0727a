/*
 * grader kit: the student kit (class/kit.h), and the list of what went in, group by group,
 * and of what stayed out: a warning for anything refused that looks meant for students.
 */
#include "cli/cli.h"

#include "class/kit.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

/* Fat objects: SASS for every major GPU architecture and PTX for newer ones (nvcc >= 11.5),
 * so that a student's GPU runs the reference as compiled for it; older nvcc: its default. */
static void portable_arch(struct toolchain *tc)
{
    int major = 0, minor = 0;
    const char *rel = tc->nvcc_version ? strstr(tc->nvcc_version, "release ") : NULL;
    free(tc->gpu_arch);
    tc->gpu_arch = NULL;
    if (rel && sscanf(rel, "release %d.%d", &major, &minor) == 2 &&
        (major > 11 || (major == 11 && minor >= 5)))
        tc->gpu_arch = xstrdup("all-major");
}

static const char *group_title(const struct cli *c, enum kit_group g)
{
    switch (g) {
    case KIT_TOP:
        return cli_tr(c, "top level");
    case KIT_LAB:
        return cli_tr(c, "the lab (lab.yaml without its hidden cases, README.md, skeleton/)");
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
        portable_arch(&tc);
    }
    if (status == 0)
        status = make_kit(c, &lab, lab.kit_reference_sources ? NULL : &tc);
    toolchain_release(&tc);
    lab_release(&lab);
    return status;
}
