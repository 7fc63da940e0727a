/*
 * kit: the student kit, staged from an allow-list into a temporary folder, checked, and
 * written as a tarball (kit.h). kit_spec.c edits lab.yaml, kit_readme.c writes the README,
 * kit_tar.c the tarball; this file decides what goes in.
 */
#include "class/kit.h"
#include "class/kitpack.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void kit_manifest_init(struct kit_manifest *m)
{
    memset(m, 0, sizeof(*m));
}

void kit_manifest_release(struct kit_manifest *m)
{
    for (size_t i = 0; i < m->n_files; i++)
        free(m->files[i].path);
    for (size_t i = 0; i < m->n_refused; i++)
        free(m->refused[i].path);
    free(m->files);
    free(m->refused);
    free(m->top);
    kit_manifest_init(m);
}

static void add_file(struct kit_manifest *m, enum kit_group group, const char *path)
{
    ALLOC_GROW(m->files, m->n_files + 1, m->alloc_files);
    m->files[m->n_files].group = group;
    m->files[m->n_files].path = xstrdup(path);
    m->n_files++;
}

static void add_refused(struct kit_manifest *m, enum kit_refusal why, const char *path)
{
    ALLOC_GROW(m->refused, m->n_refused + 1, m->alloc_refused);
    m->refused[m->n_refused].why = why;
    m->refused[m->n_refused].path = xstrdup(path);
    m->n_refused++;
}

/* ---- staging: the kit's tree in a temporary folder ---- */

struct stager {
    char *root;    /* repository root, absolute */
    char *lab_dir; /* the lab folder, absolute */
    char *lab_rel; /* "labs/lab6": where the lab folder goes in the kit */
    char *stage;   /* the kit's top folder in the temporary folder */
    struct kit_manifest *m;
    struct strbuf *warnings;
    struct error *err;
    char **seen; /* kit paths already staged */
    size_t n_seen, alloc_seen;
    char **refs; /* absolute paths of the reference sources (and their headers) */
    size_t n_refs, alloc_refs;
};

/* Which entries of a tree go into the kit; rel is relative to the tree, name its last part. */
typedef bool (*keep_fn)(const char *rel, const char *name, bool is_dir);

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static bool keep_grader(const char *rel, const char *name, bool is_dir)
{
    if (name[0] == '.')
        return false;
    /* One folder per stage (docs/architecture.md), the harness among them. */
    if (is_dir)
        return strchr(rel, '/') == NULL;
    return ends_with(name, ".c") || ends_with(name, ".h") || ends_with(name, ".cu") ||
           ends_with(name, ".cuh") || ends_with(name, ".sh");
}

static bool keep_any(const char *rel, const char *name, bool is_dir)
{
    (void)rel;
    (void)is_dir;
    return name[0] != '.';
}

static int stage_file(struct stager *s, const char *src, const char *rel, enum kit_group group)
{
    struct stat st;
    char *dst = path_join(s->stage, rel);
    char *dir = xstrdup(dst);
    int rc;
    *strrchr(dir, '/') = '\0';
    rc = mkdir_p(dir, s->err);
    if (!rc)
        rc = copy_file(src, dst, s->err);
    /* copy_file's mode went through the umask; the kit keeps the source's. */
    if (!rc && stat(src, &st) == 0 && chmod(dst, st.st_mode & 0777) != 0)
        rc = error_set_at(s->err, dst, 0, 0, "cannot set its mode: %s", strerror(errno));
    if (!rc)
        add_file(s->m, group, rel);
    free(dir);
    free(dst);
    return rc;
}

/* lstat's answer, as the three kinds the kit knows. */
enum kind { K_DIR, K_FILE, K_OTHER };

static enum kind kind_of(const char *path)
{
    struct stat lst, st;
    if (lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode))
        return K_DIR;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return K_FILE;
    return K_OTHER;
}

/*
 * Copy the tree src (tree-relative path sub, "" at the top) into the kit at dst_rel.
 * Links to files are copied as files (the kit holds no links); links to folders and
 * anything else are left out (in the lab folder: refused, with lab_sub its path there;
 * elsewhere: a warning), since following them could loop.
 */
static int stage_tree(struct stager *s, const char *src, const char *sub, const char *dst_rel,
                      keep_fn keep, enum kit_group group)
{
    char *dir = *sub ? path_join(src, sub) : xstrdup(src);
    size_t n = 0;
    char **names = kit_list_dir(dir, &n, s->err);
    int rc = 0;
    if (!names) {
        free(dir);
        return -1;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char *path = path_join(dir, names[i]);
        char *rel = *sub ? xstrfmt("%s/%s", sub, names[i]) : xstrdup(names[i]);
        char *kit_rel = xstrfmt("%s/%s", dst_rel, rel);
        enum kind k = kind_of(path);
        if (!keep(rel, names[i], k == K_DIR))
            ;
        else if (k == K_DIR)
            rc = stage_tree(s, src, rel, dst_rel, keep, group);
        else if (k == K_FILE)
            rc = stage_file(s, path, kit_rel, group);
        else if (group == KIT_LAB)
            add_refused(s->m, KIT_NOT_REGULAR, kit_rel + strlen(s->lab_rel) + 1);
        else if (s->warnings)
            strbuf_addf(s->warnings, "%s: not a regular file or folder: left out of the kit\n",
                        path);
        free(kit_rel);
        free(rel);
        free(path);
    }
    kit_free_names(names, n);
    free(dir);
    return rc;
}

/* The part of abs below dir, or NULL when abs is not inside dir. */
static const char *below(const char *abs, const char *dir)
{
    size_t n = strlen(dir);
    if (strncmp(abs, dir, n) || abs[n] != '/')
        return NULL;
    return abs + n + 1;
}

/* Where abs goes in the kit: under the lab folder, or where it is in the repository. */
static char *kit_path_of(const struct stager *s, const char *abs)
{
    const char *in;
    if ((in = below(abs, s->lab_dir)))
        return xstrfmt("%s/%s", s->lab_rel, in);
    if ((in = below(abs, s->root)))
        return xstrdup(in);
    return NULL;
}

static bool seen(struct stager *s, const char *rel)
{
    for (size_t i = 0; i < s->n_seen; i++)
        if (!strcmp(s->seen[i], rel))
            return true;
    ALLOC_GROW(s->seen, s->n_seen + 1, s->alloc_seen);
    s->seen[s->n_seen++] = xstrdup(rel);
    return false;
}

/* ---- the lab folder: lab.yaml (written apart), README.md, skeleton/; nothing else ---- */

/* Names that say "the instructor's": solutions, test submissions, expected verdicts. */
static bool private_name(const char *name)
{
    static const char *const prefixes[] = {"solution", "expected",   "test",   "submission",
                                           "private",  "instructor", "hidden", "fixture",
                                           "answer",   "grading",    NULL};
    char low[64];
    size_t i = 0;
    for (; name[i] && i < sizeof(low) - 1; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    for (size_t p = 0; prefixes[p]; p++)
        if (!strncmp(low, prefixes[p], strlen(prefixes[p])))
            return true;
    return ends_with(low, ".expected");
}

/* A reference source, or a folder holding one. */
static bool holds_reference(const struct stager *s, const char *abs)
{
    for (size_t i = 0; i < s->n_refs; i++)
        if (!strcmp(s->refs[i], abs) || below(s->refs[i], abs))
            return true;
    return false;
}

static void refuse(struct stager *s, const char *name, const char *abs, enum kind k)
{
    enum kit_refusal why = KIT_NOT_LISTED;
    if (private_name(name) || holds_reference(s, abs))
        why = KIT_PRIVATE;
    else if (k == K_OTHER)
        why = KIT_NOT_REGULAR;
    char *shown = xstrfmt("%s%s", name, k == K_DIR ? "/" : "");
    add_refused(s->m, why, shown);
    free(shown);
}

static int stage_lab(struct stager *s)
{
    size_t n = 0;
    char **names = kit_list_dir(s->lab_dir, &n, s->err);
    int rc = 0;
    if (!names)
        return -1;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *name = names[i];
        char *abs = path_join(s->lab_dir, name);
        char *kit_rel = xstrfmt("%s/%s", s->lab_rel, name);
        enum kind k = kind_of(abs);
        if (name[0] == '.' || !strcmp(name, "lab.yaml"))
            ; /* dot-files are nobody's business; lab.yaml is written with hidden cases withheld */
        else if (!strcmp(name, "README.md") && k == K_FILE)
            rc = stage_file(s, abs, kit_rel, KIT_LAB);
        else if (!strcmp(name, "skeleton") && k == K_DIR)
            rc = stage_tree(s, abs, "", kit_rel, keep_any, KIT_LAB);
        else
            refuse(s, name, abs, k);
        free(kit_rel);
        free(abs);
    }
    kit_free_names(names, n);
    return rc;
}

/* ---- the references: compiled objects, or (kit: {references: sources}) the sources ---- */

static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/* The file a line's `#include "name"` names, next to dir; NULL when it is not one. */
static char *local_include(const char *line, const char *dir)
{
    const char *q = line + strspn(line, " \t");
    if (*q++ != '#')
        return NULL;
    q += strspn(q, " \t");
    if (strncmp(q, "include", 7))
        return NULL;
    q += 7;
    q += strspn(q, " \t");
    if (*q != '"')
        return NULL;
    const char *close = strchr(q + 1, '"'), *eol = strchr(q + 1, '\n');
    if (!close || (eol && close > eol))
        return NULL;
    char *name = xstrndup(q + 1, (size_t)(close - q - 1));
    char *cand = path_join(dir, name);
    struct error ignored;
    char *abs = file_exists(cand) ? path_abs(cand, &ignored) : NULL;
    free(name);
    free(cand);
    return abs;
}

/*
 * Stage a reference source (abs: absolute) and the local headers it includes
 * ("#include \"x.h\"" found next to it), which it cannot compile without.
 */
static int stage_reference_source(struct stager *s, const char *abs, int depth)
{
    struct strbuf text = STRBUF_INIT;
    char *rel = kit_path_of(s, abs);
    int rc = 0;
    if (!rel)
        return error_set_at(s->err, abs, 0, 0,
                            "reference source outside the repository (%s) and the lab folder: "
                            "the kit cannot carry it",
                            s->root);
    if (seen(s, rel) || depth > 8) {
        free(rel);
        return 0;
    }
    rc = stage_file(s, abs, rel, KIT_REF_SOURCES);
    free(rel);
    if (rc || read_file(abs, &text, s->err) != 0) {
        strbuf_release(&text);
        return -1;
    }
    char *dir = xstrdup(abs);
    *strrchr(dir, '/') = '\0';
    for (const char *line = text.buf; line && *line && !rc; line = next_line(line)) {
        char *inc = local_include(line, dir);
        /* Headers outside the repository are the system's (CUDA, BLAS), not the kit's. */
        if (inc && (below(inc, s->root) || below(inc, s->lab_dir)))
            rc = stage_reference_source(s, inc, depth + 1);
        free(inc);
    }
    free(dir);
    strbuf_release(&text);
    return rc;
}

static int compile_failed(struct stager *s, const struct exercise_spec *ex,
                          const struct variant_spec *var, const char *src,
                          const struct build_result *r)
{
    if (r->status == BUILD_NO_TOOLCHAIN)
        return error_set_at(s->err, src, 0, 0,
                            "%s/%s: the kit ships this reference compiled, which needs %s; "
                            "install it, or ship the sources (kit: {references: sources} in "
                            "lab.yaml)",
                            ex->id, var->id, r->message ? r->message : "its compiler");
    return error_set_at(s->err, src, 0, 0,
                        "%s/%s: the reference does not compile for the kit: %s\n%s", ex->id,
                        var->id, r->message ? r->message : "", strbuf_str(&r->log));
}

/* Compile src as the grader would and stage the object at its kit path + ".o". */
static int stage_reference_object(struct stager *s, struct build_ctx *b,
                                  const struct exercise_spec *ex, const struct variant_spec *var,
                                  const char *src)
{
    char *rel = kit_path_of(s, src), *object = NULL;
    struct build_result r;
    int rc = 0;
    if (!rel)
        return error_set_at(s->err, src, 0, 0,
                            "reference source outside the repository (%s) and the lab folder: "
                            "the kit cannot carry it",
                            s->root);
    char *obj_rel = xstrfmt("%s.o", rel);
    build_result_init(&r);
    if (!seen(s, obj_rel)) {
        if (build_reference_object(b, var, src, &object, &r, s->err) != 0)
            rc = -1;
        else if (!object)
            rc = compile_failed(s, ex, var, src, &r);
        else
            rc = stage_file(s, object, obj_rel, KIT_REF_OBJECTS);
    }
    build_result_release(&r);
    free(object);
    free(obj_rel);
    free(rel);
    return rc;
}

static bool in_ids(char *const *ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ids[i], id))
            return true;
    return false;
}

static int stage_one_reference(struct stager *s, struct build_ctx *b,
                               const struct exercise_spec *ex, const struct variant_spec *var,
                               const char *src)
{
    const char *in_lab = below(src, s->lab_dir);
    /* Travels with the lab folder, unless it is in the part left out. */
    if (in_lab && !strncmp(in_lab, "solution/", 9))
        return error_set_at(s->err, src, 0, 0,
                            "%s/%s: the reference source is in solution/, which the kit "
                            "leaves out: move it out of solution/",
                            ex->id, var->id);
    if (b)
        return stage_reference_object(s, b, ex, var, src);
    return stage_reference_source(s, src, 0);
}

/* The references of every exercise but the dropped ones (left out of the kit). b: compile
 * them (objects); NULL: their sources. */
static int stage_references(struct stager *s, const struct lab *lab, struct build_ctx *b,
                            char *const *dropped, size_t n_dropped)
{
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (in_ids(dropped, n_dropped, ex->id))
            continue;
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_spec *var = &ex->variants[v];
            for (size_t i = 0; var->has_reference && i < var->reference.n_sources; i++)
                if (stage_one_reference(s, b, ex, var, var->reference.sources[i]) != 0)
                    return -1;
        }
    }
    return 0;
}

/* Every reference source, so that the lab folder's copy of one is known as private. */
static void note_references(struct stager *s, const struct lab *lab)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct impl_spec *r = &lab->exercises[e].variants[v].reference;
            for (size_t i = 0; lab->exercises[e].variants[v].has_reference && i < r->n_sources;
                 i++) {
                ALLOC_GROW(s->refs, s->n_refs + 1, s->alloc_refs);
                s->refs[s->n_refs++] = xstrdup(r->sources[i]);
            }
        }
}

/* Flags that tie an object to the machine it was built on: a student's may not run it. */
static void warn_native(struct stager *s, const struct lab *lab)
{
    const char *flags[] = {lab->cflags, lab->nvccflags};
    for (size_t i = 0; i < 2 && s->warnings; i++)
        if (flags[i] && (strstr(flags[i], "=native") || strstr(flags[i], "-arch=native")))
            strbuf_addf(s->warnings,
                        "%s: build.%s has '%s': the reference objects are built for this "
                        "machine and may not run on a student's; drop it, or ship the sources "
                        "(kit: {references: sources})\n",
                        lab->path, i ? "nvccflags" : "cflags", flags[i]);
}

/* The objects are compiled in tmp/build, with the flags a grading build would use. */
static int compile_references(struct stager *s, const struct lab *lab, const struct kit_opts *o,
                              const char *tmp, char *const *dropped, size_t n_dropped)
{
    struct build_ctx b;
    warn_native(s, lab);
    char *dir = path_join(tmp, "build");
    int rc = build_ctx_init(&b, o->tc, lab, true, NULL, dir, s->err);
    if (rc == 0)
        rc = stage_references(s, lab, &b, dropped, n_dropped);
    build_ctx_release(&b);
    free(dir);
    return rc;
}

/* ---- kit_build ---- */

static int write_text(struct stager *s, const char *rel, const struct strbuf *sb,
                      enum kit_group group)
{
    char *path = path_join(s->stage, rel);
    char *dir = xstrdup(path);
    *strrchr(dir, '/') = '\0';
    int rc = mkdir_p(dir, s->err);
    free(dir);
    if (!rc)
        rc = write_file_atomic(path, sb->buf ? sb->buf : "", sb->len, s->err);
    if (!rc && chmod(path, 0644) != 0)
        rc = error_set_at(s->err, path, 0, 0, "cannot set its mode: %s", strerror(errno));
    if (!rc)
        add_file(s->m, group, rel);
    free(path);
    return rc;
}

/* Load the staged spec from inside the kit: it must resolve with nothing outside. The staged
 * copy is gone when this returns, so a failure names the instructor's lab.yaml, and the line
 * of the copy (comments out, hidden cases withheld: its lines are not the original's). */
static int check_staged(const char *stage, const char *yaml_rel, const struct lab *lab,
                        struct lab *kit_lab, struct error *err)
{
    char *path = path_join(stage, yaml_rel);
    struct error e;
    int rc;
    error_init(&e);
    lab_init(kit_lab);
    rc = spec_load(kit_lab, path, stage, &e);
    if (rc)
        error_set_at(err, lab->path, 0, 0,
                     "the kit's copy of this file (comments out, hidden cases withheld) does "
                     "not load inside the kit, at its line %d, column %d: %s; no kit was "
                     "written. grader validate accepts the lab, so this is the grader's to fix: "
                     "please report it with the lab",
                     e.line, e.col, e.msg);
    for (size_t x = 0; !rc && x < kit_lab->n_exercises; x++)
        for (size_t c = 0; c < kit_lab->exercises[x].n_cases; c++)
            if (kit_lab->exercises[x].cases[c].hidden && !kit_lab->exercises[x].cases[c].withheld) {
                rc = error_set(err, "the kit's lab.yaml still has hidden case %s/%s",
                               kit_lab->exercises[x].id, kit_lab->exercises[x].cases[c].id);
                break;
            }
    free(path);
    return rc;
}

static char *make_stage_dir(struct error *err)
{
    const char *tmpdir = getenv("TMPDIR");
    char *t = xstrfmt("%s/lg-kit-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(t)) {
        error_set_at(err, t, 0, 0, "cannot create a temporary folder: %s", strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

static int check_root(struct stager *s)
{
    char *mk = path_join(s->root, "Makefile"), *gr = path_join(s->root, "grader/deps.sh");
    bool ok = file_exists(mk) && file_exists(gr);
    free(mk);
    free(gr);
    if (!ok)
        return error_set_at(s->err, s->root, 0, 0,
                            "not a labgrader repository (no Makefile and grader/deps.sh)");
    return 0;
}

/* Makefile, VERSION, LICENSE, grader/ and templates/ of the repository. */
static int stage_repository(struct stager *s)
{
    static const char *const top_files[] = {"Makefile", "VERSION", "LICENSE", NULL};
    int rc = 0;
    for (size_t i = 0; top_files[i] && !rc; i++) {
        char *src = path_join(s->root, top_files[i]);
        rc = file_exists(src) ? stage_file(s, src, top_files[i], KIT_TOP) : 0;
        free(src);
    }
    char *grader = path_join(s->root, "grader"), *templates = path_join(s->root, "templates");
    if (!rc)
        rc = stage_tree(s, grader, "", "grader", keep_grader, KIT_GRADER);
    if (!rc && dir_exists(templates))
        rc = stage_tree(s, templates, "", "templates", keep_any, KIT_TEMPLATES);
    free(grader);
    free(templates);
    return rc;
}

/* The students' README, from the spec as the kit has it. */
static int stage_readme(struct stager *s, const struct lab *lab, const struct kit_opts *o,
                        const char *yaml_rel)
{
    struct lab kit_lab;
    struct strbuf readme = STRBUF_INIT;
    char *templates =
        o->templates_dir ? xstrdup(o->templates_dir) : path_join(s->root, "templates");
    int rc = check_staged(s->stage, yaml_rel, lab, &kit_lab, s->err);
    if (!rc)
        rc = kit_readme(&kit_lab, lab, templates, &readme, s->err);
    if (!rc)
        rc = write_text(s, "README.md", &readme, KIT_TOP);
    lab_release(&kit_lab);
    strbuf_release(&readme);
    free(templates);
    return rc;
}

static void warn_no_skeleton(struct stager *s)
{
    /* make check grades skeleton/ when there is no solution/: without one it has nothing. */
    char *skeleton = path_join(s->lab_dir, "skeleton");
    if (s->warnings && !dir_exists(skeleton))
        strbuf_addf(s->warnings,
                    "%s: no skeleton/ folder: the kit gives students nothing to start from, "
                    "and make check nothing to grade\n",
                    s->lab_dir);
    free(skeleton);
}

/* Everything into s->stage (in tmp); the kit's lab.yaml text is yaml. */
static int stage_all(struct stager *s, const struct lab *lab, const struct kit_opts *o,
                     const char *tmp, const struct strbuf *yaml, char *const *dropped,
                     size_t n_dropped)
{
    char *yaml_rel = xstrfmt("%s/lab.yaml", s->lab_rel);
    int rc = mkdir_p(s->stage, s->err);
    note_references(s, lab);
    if (!rc)
        rc = stage_repository(s);
    if (!rc)
        rc = write_text(s, yaml_rel, yaml, KIT_LAB);
    if (!rc)
        rc = stage_lab(s);
    if (!rc && s->m->reference_sources)
        rc = stage_references(s, lab, NULL, dropped, n_dropped);
    else if (!rc)
        rc = compile_references(s, lab, o, tmp, dropped, n_dropped);
    if (!rc) {
        warn_no_skeleton(s);
        rc = stage_readme(s, lab, o, yaml_rel);
    }
    free(yaml_rel);
    return rc;
}

static void stager_release(struct stager *s)
{
    for (size_t i = 0; i < s->n_seen; i++)
        free(s->seen[i]);
    for (size_t i = 0; i < s->n_refs; i++)
        free(s->refs[i]);
    free(s->seen);
    free(s->refs);
    free(s->root);
    free(s->lab_dir);
    free(s->lab_rel);
    free(s->stage);
}

static int write_kit(const char *stage_parent, const char *top, const char *out, struct error *err)
{
    char *out_dir = xstrdup(out);
    char *slash = strrchr(out_dir, '/');
    int rc = 0;
    if (slash && slash != out_dir) {
        *slash = '\0';
        rc = mkdir_p(out_dir, err);
    }
    free(out_dir);
    char *stage = path_join(stage_parent, top);
    if (!rc)
        rc = kit_write_tarball(stage, top, out, err);
    free(stage);
    return rc;
}

int kit_build(const struct lab *lab, const struct kit_opts *o, struct kit_manifest *m,
              struct strbuf *warnings, struct error *err)
{
    struct stager s;
    struct strbuf yaml = STRBUF_INIT;
    char *tmp = NULL, **dropped = NULL;
    size_t n_dropped = 0;
    int rc = -1;

    memset(&s, 0, sizeof(s));
    s.m = m;
    s.warnings = warnings;
    s.err = err;
    m->reference_sources = lab->kit_reference_sources;
    if (!o || !o->repo_root || !o->out_path || !*o->out_path)
        return error_set(err, "kit: the repository root and the output path are required");
    if (!m->reference_sources && !o->tc)
        return error_set(err, "kit: compiling the references needs a toolchain");
    if (!(s.root = path_abs(o->repo_root, err)) || check_root(&s) != 0 ||
        !(s.lab_dir = path_abs(lab->dir, err)))
        goto out;
    if (kit_spec_text(lab->path, !m->reference_sources, &yaml, warnings, &dropped, &n_dropped,
                      err) != 0 ||
        !(tmp = make_stage_dir(err)))
        goto out;
    m->top = xstrfmt("lab%ld-kit", lab->number);
    s.stage = path_join(tmp, m->top);
    s.lab_rel = xstrfmt("labs/lab%ld", lab->number);
    if (stage_all(&s, lab, o, tmp, &yaml, dropped, n_dropped) == 0)
        rc = write_kit(tmp, m->top, o->out_path, err);
out:
    if (tmp) {
        struct error ignored;
        remove_tree(tmp, &ignored);
    }
    kit_free_ids(dropped, n_dropped);
    stager_release(&s);
    free(tmp);
    strbuf_release(&yaml);
    return rc;
}
