#include "run/build_internal.h"

#include "spec/driver.h"
#include "base/messages.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/space.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void build_result_init(struct build_result *r)
{
    memset(r, 0, sizeof(*r));
    strbuf_init(&r->log);
}

void build_result_release(struct build_result *r)
{
    free(r->message);
    strbuf_release(&r->log);
    free(r->runner);
    build_result_init(r);
}

/* Copy regular files of the submission (no links, no devices) within limits. */
static int copy_tree(const char *src, const char *dst, long long *bytes, long *files,
                     struct error *err)
{
    DIR *d = opendir(src);
    struct dirent *de;
    int rc = 0;
    if (!d)
        return error_set_at(err, src, 0, 0, "cannot read the submission folder: %s",
                            strerror(errno));
    if (mkdir_p(dst, err) != 0) {
        closedir(d);
        return -1;
    }
    while (rc == 0 && (de = readdir(d))) {
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        char *s = path_join(src, de->d_name), *t = path_join(dst, de->d_name);
        if (lstat(s, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                rc = copy_tree(s, t, bytes, files, err);
            else if (S_ISREG(st.st_mode)) {
                *bytes += st.st_size;
                if (++*files > SUBMISSION_MAX_FILES || *bytes > SUBMISSION_MAX_BYTES)
                    rc = error_set_at(err, src, 0, 0,
                                      "the submission is too large (over %d files or %lld MiB)",
                                      SUBMISSION_MAX_FILES, SUBMISSION_MAX_BYTES >> 20);
                else
                    rc = copy_file(s, t, err);
            }
        }
        free(s);
        free(t);
    }
    closedir(d);
    return rc;
}

static int digest_tree(struct sha256 *h, const char *dir, const char *rel, struct error *err)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    int rc = 0;
    if (n < 0)
        return error_set_at(err, dir, 0, 0, "cannot read: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        struct stat st;
        if (rc == 0 && name[0] != '.') {
            char *p = path_join(dir, name);
            char *r = *rel ? xstrfmt("%s/%s", rel, name) : xstrdup(name);
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                rc = digest_tree(h, p, r, err);
            } else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                sha256_update(h, r, strlen(r) + 1);
                rc = sha256_file(h, p, err);
            }
            free(p);
            free(r);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int submission_files_digest(const char *dir, char out[65], struct error *err)
{
    struct sha256 h;
    sha256_init(&h);
    if (digest_tree(&h, dir, "", err) != 0)
        return -1;
    sha256_final_hex(&h, out);
    return 0;
}

static bool is_header(const char *name)
{
    return build_ends_with(name, ".h") || build_ends_with(name, ".cuh") ||
           build_ends_with(name, ".hpp");
}

/* The headers the lab hands out with its skeleton (labN.h), in the build folder's handout/,
 * searched after the submission's own folder: a submission of only the lab's sources (as an
 * LMS asks students to upload them) includes them as the skeleton did; one that brings its own
 * copy uses that. */
static int write_handout(const struct build_ctx *b, struct error *err)
{
    char *skel = path_join(b->lab->dir, "skeleton");
    char *dst = path_join(b->dir, BUILD_HANDOUT_DIR);
    DIR *d = opendir(skel);
    struct dirent *de;
    int rc = mkdir_p(dst, err);
    while (rc == 0 && d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !is_header(de->d_name))
            continue;
        char *from = path_join(skel, de->d_name), *to = path_join(dst, de->d_name);
        struct strbuf text = STRBUF_INIT, cur = STRBUF_INIT;
        if (read_file(from, &text, NULL) == 0 &&
            (read_file(to, &cur, NULL) != 0 || strcmp(strbuf_str(&cur), strbuf_str(&text))))
            rc = write_file_atomic(to, text.buf, text.len, err);
        strbuf_release(&text);
        strbuf_release(&cur);
        free(from);
        free(to);
    }
    if (d)
        closedir(d);
    free(skel);
    free(dst);
    return rc;
}

int build_ctx_init(struct build_ctx *b, const struct toolchain *tc, const struct lab *lab,
                   bool reference, const char *src_dir, const char *dir, struct error *err)
{
    struct strbuf hdr = STRBUF_INIT;
    memset(b, 0, sizeof(*b));
    b->tc = tc;
    b->lab = lab;
    b->reference = reference;
    b->dir = xstrdup(dir);
    b->src_dir = src_dir ? xstrdup(src_dir) : NULL;
    if (mkdir_p(dir, err) != 0)
        return -1;
    driver_prototypes_header(lab, reference, &hdr);
    char *hpath = path_join(dir, "lg_prototypes.h");
    struct strbuf cur = STRBUF_INIT;
    int rc = 0;
    if (read_file(hpath, &cur, NULL) != 0 || strcmp(strbuf_str(&cur), strbuf_str(&hdr)))
        rc = write_file_atomic(hpath, hdr.buf, hdr.len, err);
    strbuf_release(&cur);
    free(hpath);
    strbuf_release(&hdr);
    if (rc != 0)
        return -1;
    if (!reference && write_handout(b, err) != 0)
        return -1;
    if (!reference) {
        /* A folder built earlier from the same files (batch grading builds ahead in
         * parallel, then runs) is reused as it is. */
        char digest[65];
        char *stamp = path_join(dir, "src.digest");
        struct strbuf old = STRBUF_INIT;
        if (submission_files_digest(src_dir, digest, err) != 0) {
            free(stamp);
            return -1;
        }
        memcpy(b->src_digest, digest, sizeof(b->src_digest));
        if (read_file(stamp, &old, NULL) == 0 && !strcmp(strbuf_str(&old), digest)) {
            strbuf_release(&old);
            free(stamp);
            return 0;
        }
        strbuf_release(&old);
        char *dst = path_join(dir, "src");
        long long bytes = 0;
        long files = 0;
        remove_tree(dst, NULL);
        rc = copy_tree(src_dir, dst, &bytes, &files, err);
        free(dst);
        if (rc == 0)
            rc = write_file_atomic(stamp, digest, strlen(digest), err);
        free(stamp);
        if (rc != 0)
            return -1;
    }
    return 0;
}

void build_ctx_release(struct build_ctx *b)
{
    for (size_t i = 0; i < b->n_objs; i++) {
        free(b->objs[i].source);
        free(b->objs[i].flags);
        free(b->objs[i].object);
        free(b->objs[i].message);
        free(b->objs[i].log);
    }
    free(b->objs);
    free(b->dir);
    free(b->src_dir);
    memset(b, 0, sizeof(*b));
}

/* The object a source compiles to with the variant's libraries: the one already built here,
 * or a new slot (*fresh). */
static struct build_obj *obj_slot(struct build_ctx *b, const struct impl_spec *impl,
                                  const char *source, bool *fresh)
{
    struct strbuf flags = STRBUF_INIT;
    for (size_t i = 0; i < impl->n_libs; i++)
        strbuf_addf(&flags, " %s", impl->libs[i]);
    if (b->pic)
        strbuf_addstr(&flags, " (pic)");
    *fresh = false;
    for (size_t i = 0; i < b->n_objs; i++)
        if (!strcmp(b->objs[i].source, source) && !strcmp(b->objs[i].flags, strbuf_str(&flags))) {
            strbuf_release(&flags);
            return &b->objs[i];
        }
    ALLOC_GROW(b->objs, b->n_objs + 1, b->alloc_objs);
    struct build_obj *o = &b->objs[b->n_objs++];
    memset(o, 0, sizeof(*o));
    o->source = xstrdup(source);
    o->flags = strbuf_detach(&flags);
    *fresh = true;
    return o;
}

/* An object that could not even be compiled: its status, and the message as its log. */
static struct build_obj *obj_not_built(struct build_obj *o, enum build_status status, char *message)
{
    o->status = status;
    o->message = message;
    o->log = xstrdup(message);
    return o;
}

/* The compiler's command line for src_path (relative to the build folder) into o->object;
 * false when the source is CUDA and there is no nvcc. */
static bool compile_command(struct build_ctx *b, const struct impl_spec *impl,
                            const struct build_obj *o, const char *src_path, const char *src_dir,
                            struct argv_list *cmd)
{
    if (build_is_cuda_source(o->source)) {
        if (!b->tc->nvcc)
            return false;
        char *f = toolchain_nvccflags(b->tc, b->lab);
        argv_list_push(cmd, b->tc->nvcc);
        build_push_nvcc_flags(b, f, cmd);
        free(f);
    } else {
        char *f = toolchain_cflags(b->tc, b->lab);
        argv_list_push(cmd, b->tc->cc);
        argv_list_push_split(cmd, f);
        if (b->pic) {
            argv_list_push(cmd, "-fPIC");
            argv_list_push(cmd, "-fvisibility=hidden");
        }
        free(f);
    }
    for (size_t i = 0; i < impl->n_libs; i++)
        build_lib_flags(impl->libs[i], true, cmd);
    const char *tail[] = {"-include", "lg_prototypes.h", "-I", src_dir,
                          "-c",       src_path,          "-o", o->object};
    for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
        argv_list_push(cmd, tail[i]);
    /* The lab's handed-out headers, searched after the submission's own folder (write_handout);
     * -I, which nvcc takes too. */
    if (!b->reference) {
        argv_list_push(cmd, "-I");
        argv_list_push(cmd, BUILD_HANDOUT_DIR);
    }
    return true;
}

/* Compile o's source (its path relative to the build folder) and record how it went; -1 only
 * when the grader itself failed. */
static int compile_object(struct build_ctx *b, const struct impl_spec *impl, struct build_obj *o,
                          const char *src_path, const char *src_dir, struct error *err)
{
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    bool ok;
    if (!compile_command(b, impl, o, src_path, src_dir, &cmd)) {
        argv_list_release(&cmd);
        obj_not_built(o, BUILD_NO_TOOLCHAIN, xstrdup(b->tc->no_cuda_reason));
        return 0;
    }
    int rc = build_compile_cached(b, &cmd, src_path, o->object, &log, &ok, err);
    argv_list_release(&cmd);
    if (rc != 0) {
        strbuf_release(&log);
        return -1;
    }
    o->n_warnings = build_count_warnings(strbuf_str(&log));
    o->log = strbuf_detach(&log);
    if (!ok && build_disk_full(b, &o->message)) {
        o->status = BUILD_GRADER_ERROR;
    } else if (!ok) {
        o->status = BUILD_COMPILE_ERROR;
        o->message = xstrfmt(messages_get(b->messages, "%s does not compile"), o->source);
    }
    return 0;
}

struct build_obj *build_compile_source(struct build_ctx *b, const struct variant_spec *v,
                                       const char *source, struct error *err)
{
    const struct impl_spec *impl = build_impl_of(b, v);
    bool fresh;
    struct build_obj *o = obj_slot(b, impl, source, &fresh);
    if (!fresh)
        return o;
    /* A reference shipped compiled (a student kit's, kit.h): linked as it is. */
    if (b->reference && build_ends_with(source, ".o")) {
        o->object = xstrdup(source);
        return o;
    }
    /* Named after the variant too: variants are built in parallel processes (grade/), and two of
     * them compiling one source must not write one file. */
    o->object = xstrfmt("obj/%s%s%zu-%s.o", b->variant ? b->variant : "", b->variant ? "-" : "",
                        b->n_objs, path_base(source));
    char *objdir = path_join(b->dir, "obj");
    int made = mkdir_p(b->dir, err) == 0 ? mkdir_p(objdir, err) : -1;
    free(objdir);
    if (made != 0)
        return NULL;
    char *src_path = b->reference ? xstrdup(source) : xstrfmt("src/%s", source);
    char *abs_src = path_join(b->dir, src_path);
    char *src_dir = xstrdup(b->reference ? source : abs_src), *slash = strrchr(src_dir, '/');
    int rc = 0;
    if (slash)
        *slash = '\0';
    if (!file_exists(b->reference ? source : abs_src))
        obj_not_built(
            o, BUILD_MISSING_FUNCTION,
            xstrfmt(messages_get(b->messages, "source file '%s' is missing from the submission"),
                    source));
    else
        rc = compile_object(b, impl, o, src_path, src_dir, err);
    free(src_path);
    free(abs_src);
    free(src_dir);
    return rc == 0 ? o : NULL;
}

int build_reference_object(struct build_ctx *b, const struct variant_spec *v, const char *source,
                           char **object, struct build_result *r, struct error *err)
{
    b->pic = true;
    struct build_obj *o = build_compile_source(b, v, source, err);
    b->pic = false;
    *object = NULL;
    if (!o)
        return -1;
    r->status = o->status;
    free(r->message);
    r->message = o->message ? xstrdup(o->message) : NULL;
    if (o->log)
        strbuf_addstr(&r->log, o->log);
    if (o->status == BUILD_OK)
        *object = o->object[0] == '/' ? xstrdup(o->object) : path_join(b->dir, o->object);
    return 0;
}

static bool link_log_misses(const char *log, const char *function)
{
    char *pat1 = xstrfmt("undefined reference to `%s'", function);
    char *pat2 = xstrfmt("undefined reference to '%s'", function);
    bool r = strstr(log, pat1) || strstr(log, pat2);
    free(pat1);
    free(pat2);
    return r;
}

/* build.txt + build.log in the variant's folder: the outcome of an earlier build. A grader
 * error is not recorded: the next build tries again. */
int build_record_save(const char *vdir, const struct build_result *r, struct error *err)
{
    if (r->status == BUILD_GRADER_ERROR)
        return 0;
    char *txt = xstrfmt("status %d\nwarnings %d\nmessage %s\n", (int)r->status, r->n_warnings,
                        r->message ? r->message : "");
    char *p = path_join(vdir, "build.log");
    int rc = write_file_atomic(p, strbuf_str(&r->log), r->log.len, err);
    free(p);
    p = path_join(vdir, "build.txt");
    if (rc == 0)
        rc = write_file_atomic(p, txt, strlen(txt), err);
    free(p);
    free(txt);
    return rc;
}

bool build_record_load(const char *vdir, struct build_result *r)
{
    struct strbuf txt = STRBUF_INIT;
    char *p = path_join(vdir, "build.txt");
    int status = -1, warnings = 0;
    bool ok = false;
    if (read_file(p, &txt, NULL) == 0 &&
        sscanf(strbuf_str(&txt), "status %d\nwarnings %d\n", &status, &warnings) == 2 &&
        status >= BUILD_OK && status <= BUILD_GRADER_ERROR) {
        const char *m = strstr(txt.buf, "message ");
        char *runner = path_join(vdir, "runner");
        if (status != BUILD_OK || file_exists(runner)) {
            r->status = (enum build_status)status;
            r->n_warnings = warnings;
            if (m) {
                m += 8;
                size_t len = strcspn(m, "\n");
                r->message = len ? xstrndup(m, len) : NULL;
            }
            char *lp = path_join(vdir, "build.log");
            read_file(lp, &r->log, NULL);
            free(lp);
            if (status == BUILD_OK)
                r->runner = xstrdup(runner);
            ok = true;
        }
        free(runner);
    }
    free(p);
    strbuf_release(&txt);
    return ok;
}

/* Compile the variant's sources: fills objs; r gets the first failure (the grader's own
 * first, since a CE may be the disk's doing). -1 only when the grader failed. */
static int variant_objects(struct build_ctx *b, const struct variant_spec *v,
                           struct argv_list *objs, bool *any_cuda, struct build_result *r,
                           struct error *err)
{
    const struct impl_spec *impl = build_impl_of(b, v);
    for (size_t i = 0; i < impl->n_sources; i++) {
        struct build_obj *o = build_compile_source(b, v, impl->sources[i], err);
        if (!o)
            return -1;
        if (o->log && *o->log) {
            strbuf_addf(&r->log, "$ compile %s\n%s", o->source, o->log);
            if (r->log.len && r->log.buf[r->log.len - 1] != '\n')
                strbuf_addch(&r->log, '\n');
        }
        r->n_warnings += o->n_warnings;
        *any_cuda |= build_is_cuda_source(o->source);
        if (o->status != BUILD_OK &&
            (o->status == BUILD_GRADER_ERROR ||
             (r->status != BUILD_COMPILE_ERROR && r->status != BUILD_MISSING_FUNCTION))) {
            free(r->message);
            r->status = o->status;
            r->message = xstrdup(o->message);
        }
        argv_list_push(objs, o->object);
    }
    return 0;
}

/* The generated driver: from the spec and trusted, but compiled the same way (and cached the
 * same way: its key holds lg_prototypes.h and every other file it reads). Its object's
 * path (relative to the build folder) in *relo. -1 when the grader failed; a full disk is
 * BUILD_GRADER_ERROR in r. */
static int variant_driver(struct build_ctx *b, const struct exercise_spec *ex,
                          const struct variant_spec *v, const char *vdir, char **relo,
                          struct build_result *r, struct error *err)
{
    struct strbuf drv = STRBUF_INIT, log = STRBUF_INIT;
    struct argv_list cmd = {0};
    char *path = xstrfmt("%s/driver.c", vdir), *rel = xstrfmt("%s-%s/driver.c", ex->id, v->id);
    bool ok = false;
    *relo = xstrfmt("%s-%s/driver.o", ex->id, v->id);
    driver_source(ex, v, b->reference, &drv);
    int rc = write_file_atomic(path, drv.buf, drv.len, err);
    if (rc == 0) {
        argv_list_push(&cmd, b->tc->cc);
        argv_list_push_split(&cmd, "-std=gnu11 -O2 -Wall");
        argv_list_push(&cmd, "-I");
        argv_list_push(&cmd, b->tc->harness_include);
        argv_list_push_split(&cmd, "-I . -c");
        argv_list_push(&cmd, rel);
        argv_list_push(&cmd, "-o");
        argv_list_push(&cmd, *relo);
        /* The same for every submission of the lab: taken from the object cache after the
         * first build (a class, a rush, a check after an edit compile it once). */
        rc = build_compile_cached(b, &cmd, rel, *relo, &log, &ok, err);
    }
    if (rc == 0 && !ok && build_disk_full(b, &r->message)) {
        /* A full disk is the grader's error, said in r (not recorded: the next run retries). */
        r->status = BUILD_GRADER_ERROR;
    } else if (rc == 0 && !ok) {
        /* Only the lab's own declarations can break the generated driver. */
        rc = error_set(err, "the generated driver for %s/%s does not compile:\n%s", ex->id, v->id,
                       strbuf_str(&log));
        r->status = BUILD_GRADER_ERROR;
    }
    argv_list_release(&cmd);
    strbuf_release(&drv);
    strbuf_release(&log);
    free(path);
    free(rel);
    return rc;
}

/* Link the runner: driver, objects, harness, libraries. A failure names the missing function
 * when that is what the linker says. */
static int variant_link(struct build_ctx *b, const struct exercise_spec *ex,
                        const struct variant_spec *v, const char *relo,
                        const struct argv_list *objs, bool any_cuda, struct build_result *r,
                        struct error *err)
{
    const struct impl_spec *impl = build_impl_of(b, v);
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    char *runner_rel = xstrfmt("%s-%s/runner", ex->id, v->id);
    bool ok = false;
    argv_list_push(&cmd, any_cuda ? b->tc->nvcc : b->tc->cc);
    if (any_cuda && b->tc->gpu_arch) {
        char *a = xstrfmt("-arch=%s", b->tc->gpu_arch);
        argv_list_push(&cmd, a);
        free(a);
    }
    argv_list_push(&cmd, "-o");
    argv_list_push(&cmd, runner_rel);
    argv_list_push(&cmd, relo);
    for (size_t i = 0; i < objs->n; i++)
        argv_list_push(&cmd, objs->v[i]);
    const char *hobjs[] = {"libharness.a",
                           v->target == TARGET_GPU ? "harness_gpu.o" : "harness_nogpu.o"};
    for (size_t i = 0; i < 2; i++) {
        char *p = path_join(b->tc->harness_dir, hobjs[i]);
        argv_list_push(&cmd, p);
        free(p);
    }
    for (size_t i = 0; i < impl->n_libs; i++)
        build_lib_flags(impl->libs[i], false, &cmd);
    if (b->lab->ldflags)
        argv_list_push_split(&cmd, b->lab->ldflags);
    if (any_cuda)
        build_cudart_shared(b->tc, &cmd);
    argv_list_push_split(&cmd, "-ldl -lpthread -lm");
    int rc = build_link_cached(b, &cmd, runner_rel, relo, &log, &ok, err);
    if (rc == 0 && log.len)
        strbuf_addf(&r->log, "$ link %s\n%s", runner_rel, log.buf);
    if (rc == 0 && !ok && link_log_misses(strbuf_str(&log), impl->function)) {
        r->status = BUILD_MISSING_FUNCTION;
        r->message = xstrfmt(
            messages_get(b->messages, "function '%s' is not defined in %s"), impl->function,
            impl->n_sources == 1 ? impl->sources[0] : messages_get(b->messages, "the sources"));
    } else if (rc == 0 && !ok && build_disk_full(b, &r->message)) {
        r->status = BUILD_GRADER_ERROR;
    } else if (rc == 0 && !ok) {
        r->status = BUILD_COMPILE_ERROR;
        r->message = xstrfmt(messages_get(b->messages, "linking %s failed"), impl->function);
    } else if (rc == 0) {
        r->runner = path_join(b->dir, runner_rel);
    }
    argv_list_release(&cmd);
    strbuf_release(&log);
    free(runner_rel);
    return rc;
}

int build_variant(struct build_ctx *b, const struct exercise_spec *ex, const struct variant_spec *v,
                  struct build_result *r, struct error *err)
{
    struct argv_list objs = {0};
    bool any_cuda = v->target == TARGET_GPU;
    char *vdir = xstrfmt("%s/%s-%s", b->dir, ex->id, v->id), *relo = NULL;
    int rc = 0;
    r->status = BUILD_OK;
    b->variant = vdir + strlen(b->dir) + 1;
    if (build_record_load(vdir, r))
        goto out;
    if (v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
        /* Still compile CUDA sources when nvcc exists: a student without a GPU wants to know
         * whether the code compiles. */
        if (!b->tc->nvcc)
            goto out;
    }
    if (variant_objects(b, v, &objs, &any_cuda, r, err) != 0 || mkdir_p(vdir, err) != 0) {
        rc = -1;
        goto out;
    }
    if (r->status == BUILD_OK && variant_driver(b, ex, v, vdir, &relo, r, err) != 0)
        rc = -1;
    else if (r->status == BUILD_OK && !build_symbols_refused(b, &objs, r))
        rc = variant_link(b, ex, v, relo, &objs, any_cuda, r, err);
    if (rc == 0 && r->status == BUILD_OK && v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
    }
    if (rc == 0)
        rc = build_record_save(vdir, r, err);
out:
    b->variant = NULL;
    argv_list_release(&objs);
    free(vdir);
    free(relo);
    return rc;
}

/* The handed-out headers a student build may include (write_handout): names and contents. */
static int handout_digest(const struct build_ctx *b, struct sha256 *h, struct error *err)
{
    char *skel = path_join(b->lab->dir, "skeleton");
    struct dirent **list = NULL;
    int n = scandir(skel, &list, NULL, alphasort), rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && list[i]->d_name[0] != '.' && is_header(list[i]->d_name)) {
            char *p = path_join(skel, list[i]->d_name);
            sha256_update(h, list[i]->d_name, strlen(list[i]->d_name) + 1);
            rc = sha256_file(h, p, err);
            free(p);
        }
        free(list[i]);
    }
    free(list);
    free(skel);
    return rc;
}

int build_environment_digest(const struct build_ctx *b, struct sha256 *h, struct error *err)
{
    const struct toolchain *tc = b->tc;
    const char *parts[] = {"labgrader-student-build-3",
                           tc->cc,
                           tc->cc_version,
                           tc->nvcc,
                           tc->nvcc_version,
                           tc->gpu_arch,
                           b->lab->cflags,
                           b->lab->nvccflags,
                           b->lab->ldflags};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *p = parts[i] ? parts[i] : "-";
        sha256_update(h, p, strlen(p) + 1);
    }
    /* A compile stopped by the limit is a CE kept with the build: another limit, another
     * build. */
    char limit[64];
    snprintf(limit, sizeof(limit), "compile limit %.17g", tc->compile_timeout_s);
    sha256_update(h, limit, strlen(limit) + 1);
    struct strbuf hdr = STRBUF_INIT;
    driver_prototypes_header(b->lab, false, &hdr);
    sha256_update(h, hdr.buf, hdr.len);
    strbuf_release(&hdr);
    if (handout_digest(b, h, err) != 0)
        return -1;
    const char *hobjs[] = {"libharness.a", "harness_gpu.o", "harness_nogpu.o"};
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(tc->harness_dir, hobjs[i]);
        int rc = file_exists(p) ? sha256_file(h, p, err) : 0;
        free(p);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int build_reference_digest(const struct toolchain *tc, const struct lab *lab, char out[65],
                           struct error *err)
{
    struct sha256 s;
    struct strbuf hdr = STRBUF_INIT;
    sha256_init(&s);
    sha256_update(&s, "labgrader-ref-1", 15);
    driver_prototypes_header(lab, true, &hdr);
    sha256_update(&s, hdr.buf, hdr.len);
    strbuf_release(&hdr);
    const char *parts[] = {tc->cc,       tc->cc_version, tc->nvcc,       tc->nvcc_version,
                           tc->gpu_arch, lab->cflags,    lab->nvccflags, lab->ldflags};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *p = parts[i] ? parts[i] : "-";
        sha256_update(&s, p, strlen(p) + 1);
    }
    const char *hobjs[] = {"libharness.a", "harness_gpu.o", "harness_nogpu.o"};
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(tc->harness_dir, hobjs[i]);
        if (file_exists(p) && sha256_file(&s, p, err) != 0) {
            free(p);
            return -1;
        }
        free(p);
    }
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct variant_spec *var = &lab->exercises[e].variants[v];
            if (!var->has_reference)
                continue;
            for (size_t i = 0; i < var->reference.n_sources; i++)
                if (sha256_file(&s, var->reference.sources[i], err) != 0)
                    return -1;
            for (size_t i = 0; i < var->reference.n_libs; i++)
                sha256_update(&s, var->reference.libs[i], strlen(var->reference.libs[i]) + 1);
        }
    sha256_final_hex(&s, out);
    return 0;
}
