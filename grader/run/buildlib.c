/* buildlib: a reference built as a shared object (run/build.h's build_reference_library): the
 * student's process loads it to time the two side by side (docs/timing.md, "Timed pairs"). */
#include "run/build_internal.h"

#include "spec/driver.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"

#include <stdlib.h>
#include <string.h>

/* The reference's objects for a shared object: PIC, hidden. Fills objs; false on failure
 * (r says why). */
static bool library_objects(struct build_ctx *b, const struct variant_spec *v,
                            struct argv_list *objs, bool *any_cuda, struct build_result *r,
                            struct error *err, int *rc)
{
    b->pic = true;
    for (size_t i = 0; i < v->reference.n_sources; i++) {
        struct build_obj *o = build_compile_source(b, v, v->reference.sources[i], err);
        if (!o) {
            *rc = -1;
            break;
        }
        *any_cuda |= build_is_cuda_source(o->source);
        if (o->status != BUILD_OK) {
            r->status = o->status;
            r->message = xstrdup(o->message);
            strbuf_addstr(&r->log, o->log ? o->log : "");
            break;
        }
        argv_list_push(objs, o->object);
    }
    b->pic = false;
    return *rc == 0 && r->status == BUILD_OK;
}

/* The generated entry point, compiled like the reference. */
static int library_entry(struct build_ctx *b, const struct exercise_spec *ex,
                         const struct variant_spec *v, const char *vrel, struct argv_list *objs,
                         struct build_result *r, struct error *err)
{
    struct strbuf src = STRBUF_INIT, log = STRBUF_INIT;
    struct argv_list cmd = {0};
    char *c_rel = xstrfmt("%s/ref_entry.c", vrel), *o_rel = xstrfmt("%s/ref_entry.o", vrel);
    char *c_abs = path_join(b->dir, c_rel);
    bool ok = false;
    driver_reference_entry(ex, v, &src);
    int rc = write_file_atomic(c_abs, src.buf, src.len, err);
    if (rc == 0) {
        argv_list_push(&cmd, b->tc->cc);
        argv_list_push_split(&cmd, "-std=gnu11 -O2 -Wall -fPIC -fvisibility=hidden -I .");
        argv_list_push_split(&cmd, "-c");
        argv_list_push(&cmd, c_rel);
        argv_list_push(&cmd, "-o");
        argv_list_push(&cmd, o_rel);
        rc = build_tool_run(b, &cmd, &log, &ok, err);
    }
    if (rc == 0 && !ok)
        rc = error_set(err, "the generated reference entry for %s/%s does not compile:\n%s", ex->id,
                       v->id, strbuf_str(&log));
    if (rc == 0)
        argv_list_push(objs, o_rel);
    (void)r;
    argv_list_release(&cmd);
    strbuf_release(&src);
    strbuf_release(&log);
    free(c_rel);
    free(o_rel);
    free(c_abs);
    return rc;
}

static int library_link(struct build_ctx *b, const struct variant_spec *v, const char *vrel,
                        const struct argv_list *objs, bool any_cuda, struct build_result *r,
                        struct error *err)
{
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    char *lib = xstrfmt("%s/libref.so", vrel);
    bool ok = false;
    argv_list_push(&cmd, any_cuda ? b->tc->nvcc : b->tc->cc);
    argv_list_push(&cmd, "-shared");
    argv_list_push(&cmd, "-o");
    argv_list_push(&cmd, lib);
    for (size_t i = 0; i < objs->n; i++)
        argv_list_push(&cmd, objs->v[i]);
    for (size_t i = 0; i < v->reference.n_libs; i++)
        build_lib_flags(v->reference.libs[i], false, &cmd);
    if (any_cuda) {
        build_cudart_shared(b->tc, &cmd);
        argv_list_push_split(&cmd, "-Xlinker=-Bsymbolic -Xlinker=--strip-all");
    } else {
        argv_list_push_split(&cmd, "-Wl,-Bsymbolic -s");
    }
    argv_list_push(&cmd, "-lm");
    int rc = build_tool_run(b, &cmd, &log, &ok, err);
    if (log.len)
        strbuf_addf(&r->log, "$ link %s\n%s", lib, log.buf);
    if (rc == 0 && !ok) {
        r->status = BUILD_COMPILE_ERROR;
        r->message = xstrfmt("linking the reference %s failed", v->reference.function);
    } else if (rc == 0) {
        r->runner = path_join(b->dir, lib);
    }
    argv_list_release(&cmd);
    strbuf_release(&log);
    free(lib);
    return rc;
}

int build_reference_library(struct build_ctx *b, const struct exercise_spec *ex,
                            const struct variant_spec *v, struct build_result *r, struct error *err)
{
    struct argv_list objs = {0};
    bool any_cuda = v->target == TARGET_GPU;
    int rc = 0;
    char *vrel = xstrfmt("%s-%s", ex->id, v->id), *vdir = path_join(b->dir, vrel);
    r->status = BUILD_OK;
    if (!b->reference || !v->has_reference) {
        rc = error_set(err, "%s/%s: only a reference builds as a shared object", ex->id, v->id);
    } else if (v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
    } else if (mkdir_p(vdir, err) != 0) {
        rc = -1;
    } else if (library_objects(b, v, &objs, &any_cuda, r, err, &rc)) {
        rc = library_entry(b, ex, v, vrel, &objs, r, err);
        if (rc == 0)
            rc = library_link(b, v, vrel, &objs, any_cuda, r, err);
    }
    argv_list_release(&objs);
    free(vrel);
    free(vdir);
    return rc;
}
