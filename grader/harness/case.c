#include "case.h"

#include "clock.h"
#include "draw.h"
#include "fill.h"
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t arg_bytes(const struct lg_job_arg *a)
{
    return a->count * lg_dtype_size(a->dtype);
}

/* fenceable: an output of a timed pair's side, fenced off while the other side runs
 * (fence.h). */
static void alloc_or_fail(struct lg_buf *b, size_t bytes, int space, bool guarded, bool fenceable,
                          const char *name)
{
    char err[512];
    int rc = fenceable ? lg_buf_alloc_fenceable(b, bytes, space, guarded, err, sizeof(err))
                       : lg_buf_alloc(b, bytes, space, guarded, err, sizeof(err));
    if (rc != 0)
        lg_fail(LG_EXIT_SETUP, "setup", "cannot allocate %zu bytes (%s) for %s: %s", bytes,
                space == LG_SPACE_DEVICE   ? "device"
                : space == LG_SPACE_PINNED ? "pinned"
                                           : "host",
                name, err);
}

static void set_scalar(struct lg_arg_state *st)
{
    double v = st->spec->p1;
    switch (st->spec->dtype) {
    case LG_F64:
        st->scalar.f64 = v;
        break;
    case LG_F32:
        st->scalar.f32 = (float)v;
        break;
    case LG_I64:
        st->scalar.i64 = (int64_t)v;
        break;
    case LG_I32:
        st->scalar.i32 = (int32_t)v;
        break;
    case LG_I16:
        st->scalar.i16 = (int16_t)v;
        break;
    case LG_I8:
        st->scalar.i8 = (int8_t)v;
        break;
    case LG_U8:
        st->scalar.u8 = (uint8_t)v;
        break;
    default:
        lg_fail(LG_EXIT_SETUP, "setup", "scalar '%s' has unsupported dtype %s", st->spec->name,
                lg_dtype_name(st->spec->dtype));
    }
}

/* The buffers of one array argument; the transfer path only for device arguments. */
static void setup_array(struct lg_case_state *s, struct lg_arg_state *st, bool transfer)
{
    const struct lg_job_arg *a = st->spec;
    size_t bytes = arg_bytes(a);
    bool device = a->space == LG_SPACE_DEVICE, writes = a->kind != LG_ARG_IN;
    bool paired_out = s->ref && writes;
    alloc_or_fail(&st->data, bytes, a->space, s->job->guards, paired_out, a->name);
    if (device)
        alloc_or_fail(&st->mirror, bytes, LG_SPACE_HOST, false, false, a->name);
    if (a->kind != LG_ARG_OUT)
        alloc_or_fail(&st->pristine, bytes, LG_SPACE_HOST, false, false, a->name);
    if (writes)
        alloc_or_fail(&st->ready, bytes, device ? LG_SPACE_DEVICE : LG_SPACE_HOST, false, false,
                      a->name);
    /* Guarded like the function's: the timed pairs trade the two (timing.c). */
    if (paired_out)
        alloc_or_fail(&st->ref, bytes, a->space, s->job->guards, true, a->name);
    if (transfer && device) {
        int from = s->job->timing.transfer_from;
        alloc_or_fail(&st->xfer, bytes, from, false, false, a->name);
        if (paired_out)
            alloc_or_fail(&st->xfer_ref, bytes, from, false, false, a->name);
    }
}

void lg_case_setup(struct lg_case_state *s, const struct lg_job *job, int index, lg_invoke_fn ref)
{
    memset(s, 0, sizeof(*s));
    s->job = job;
    s->c = &job->cases[index];
    s->index = index;
    s->ref = ref;
    for (int i = 0; i < s->c->n_args; i++)
        s->has_device |=
            s->c->args[i].kind != LG_ARG_SCALAR && s->c->args[i].space == LG_SPACE_DEVICE;
    bool transfer = job->time && job->timing.transfer && s->has_device;
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        st->spec = &s->c->args[i];
        if (st->spec->kind == LG_ARG_SCALAR) {
            set_scalar(st);
            s->argv[i] = s->ref_argv[i] = &st->scalar;
            continue;
        }
        setup_array(s, st, transfer);
        s->argv[i] = st->data.p;
        s->ref_argv[i] = st->ref.p ? st->ref.p : st->data.p;
    }
}

void lg_case_release(struct lg_case_state *s)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        lg_buf_free(&st->data);
        lg_buf_free(&st->ref);
        lg_buf_free(&st->mirror);
        lg_buf_free(&st->pristine);
        lg_buf_free(&st->ready);
        lg_buf_free(&st->xfer);
        lg_buf_free(&st->xfer_ref);
    }
}

void lg_after_call(const struct lg_case_state *s, const char *when)
{
    char err[1024];
    if (s->job->gpu && lg_gpu_sync(err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_CUDA, "cuda", "%s %s: %s", when, s->job->function, err);
}

static void copy_or_fail(void *dst, const void *src, size_t bytes, int to_device, const char *what)
{
    char err[512];
    if (lg_gpu_copy(dst, src, bytes, to_device, err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_CUDA, "cuda", "copying %s %s the device failed: %s", what,
                to_device ? "to" : "from", err);
}

static uint64_t arg_seed(uint64_t check_seed, int arg_index)
{
    return lg_draw_mix(check_seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(arg_index + 1)));
}

/* The host side of an argument in a checked call: its mirror on the device's behalf. */
static void *host_side(struct lg_arg_state *st)
{
    return st->spec->space == LG_SPACE_DEVICE ? st->mirror.p : st->data.p;
}

/* Inputs from the check's seed (as the oracle drew them), every output element poisoned. */
static void prepare_check(struct lg_case_state *s, int k)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        const struct lg_job_arg *a = st->spec;
        if (a->kind == LG_ARG_SCALAR)
            continue;
        void *host = host_side(st);
        if (a->kind == LG_ARG_OUT) {
            lg_dtype_poison(a->dtype, host, a->count, k % 2);
        } else {
            lg_host_fill(a->dtype, host, a->count, (int)a->dist, a->p1, a->p2,
                         arg_seed(s->c->seeds[k], i));
            memcpy(st->pristine.p, host, arg_bytes(a));
        }
        if (a->space == LG_SPACE_DEVICE)
            copy_or_fail(st->data.p, host, arg_bytes(a), 1, a->name);
        if (lg_buf_guard_reset(&st->data) != 0)
            lg_fail(LG_EXIT_CUDA, "cuda", "resetting the guards of %s failed", a->name);
    }
}

int lg_case_guards(struct lg_case_state *s, const char *label)
{
    int damaged = 0;
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        struct lg_guard_damage d;
        if (st->spec->kind == LG_ARG_SCALAR)
            continue;
        int rc = lg_buf_guard_check(&st->data, &d);
        if (rc < 0)
            lg_fail(LG_EXIT_CUDA, "cuda", "reading the guards of %s failed", st->spec->name);
        if (rc == 0)
            continue;
        lg_result("%s %s %zu %zu %lld", label, st->spec->name, d.before, d.after, d.first);
        lg_buf_guard_reset(&st->data);
        damaged++;
    }
    return damaged;
}

static void write_outputs(struct lg_case_state *s, int k)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        const struct lg_job_arg *a = st->spec;
        size_t bytes = arg_bytes(a);
        char path[256];
        if (a->kind == LG_ARG_SCALAR)
            continue;
        void *host = host_side(st);
        if (a->space == LG_SPACE_DEVICE)
            copy_or_fail(host, st->data.p, bytes, 0, a->name);
        if (a->kind == LG_ARG_IN) {
            if (memcmp(host, st->pristine.p, bytes) != 0)
                lg_result("modified %d %s", k, a->name);
            continue;
        }
        snprintf(path, sizeof(path), "c%d_%s_%d.bin", s->index, a->name, k);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(host, 1, bytes, f) != bytes || fclose(f) != 0)
            lg_fail(LG_EXIT_SETUP, "setup", "cannot write %s: %s", path, strerror(errno));
    }
}

/* The outputs the moment the function returned, before the harness waits for the GPU: what a
 * caller reading them right away gets. Device outputs are copied on the legacy default stream,
 * which waits for the caller's own work and for blocking streams, as a caller's next kernel or
 * copy would; not for a non-blocking stream or a thread the function left running. */
static void snapshot_outputs(struct lg_case_state *s)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        if (!st->ready.p)
            continue;
        if (st->spec->space == LG_SPACE_DEVICE) {
            if (lg_gpu_copy_d2d(st->ready.p, st->data.p, arg_bytes(st->spec)) != 0)
                lg_fail(LG_EXIT_CUDA, "cuda", "after the checked call of %s: copying '%s' failed",
                        s->job->function, st->spec->name);
        } else {
            memcpy(st->ready.p, st->data.p, arg_bytes(st->spec));
        }
    }
}

/* Once everything the function started has finished: an output that changed since it returned
 * was not ready then. */
static void outputs_ready(struct lg_case_state *s, int k)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        if (!st->ready.p)
            continue;
        bool same = st->spec->space == LG_SPACE_DEVICE
                        ? lg_buf_digest(&st->ready) == lg_buf_digest(&st->data)
                        : memcmp(st->ready.p, st->data.p, arg_bytes(st->spec)) == 0;
        if (!same)
            lg_result("unready %d %s", k, st->spec->name);
    }
}

void lg_case_checks(struct lg_case_state *s)
{
    char label[32];
    lg_control("P %d checks", s->index);
    for (int k = 0; k < s->c->checks; k++) {
        prepare_check(s, k);
        lg_result("phase check %d", k);
        double t0 = lg_now_ms();
        lg_invoke(s->argv);
        snapshot_outputs(s);
        lg_after_call(s, "after the checked call of");
        s->checked_ms = fmax(s->checked_ms, lg_now_ms() - t0);
        outputs_ready(s, k);
        snprintf(label, sizeof(label), "guard %d", k);
        lg_case_guards(s, label);
        write_outputs(s, k);
        lg_result("check %d done", k);
    }
}
