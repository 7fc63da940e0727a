/*
 * The runner's main(): see harness.h. Reads job.txt, writes out_<arg>_<k>.bin
 * and result.txt into the working directory.
 *
 * result.txt is appended line by line and flushed before every call into the
 * student's code, so when the process dies the grader still knows which phase
 * it died in ("phase check 1", "phase time").
 */
#include "harness.h"
#include "rng.h"
#include "throttle.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 32
#define MAX_CHECKS 8
#define MAX_SAMPLES 10000

enum arg_kind { K_IN, K_OUT, K_INOUT, K_SCALAR };

struct job_arg {
    char name[64];
    enum arg_kind kind;
    enum lg_dtype dtype;
    size_t count;
    int space;
    enum lg_init_dist dist;
    double p1, p2;
    void *host;         /* the checked buffer on the host side (pageable or pinned) */
    void *dev;          /* device copy when space == DEVICE */
    void *pristine;     /* inputs as generated, to detect modification */
    void *dev_pristine; /* an inout's inputs on the device, restored before each timed call */
    void *xfer;         /* transfer-path host buffer (transfer_from space) */
    int xfer_space;
    void *last_out; /* outputs of the last checked call, to verify timed calls against */
    double rtol, atol;
    union {
        double f64;
        float f32;
        int64_t i64;
        int32_t i32;
        int16_t i16;
        int8_t i8;
        uint8_t u8;
    } scalar;
};

struct job {
    char function[128];
    bool gpu;
    int checks;
    uint64_t seeds[MAX_CHECKS];
    bool time;
    int warmup, min_samples, max_samples;
    double target_rse, budget_s;
    bool flush_l2;
    bool blocking; /* time GPU calls behind a blocking kernel (lg_gpu_block_arm) */
    bool transfer;
    int transfer_from;
    bool verify_timed;
    struct job_arg args[MAX_ARGS];
    int n_args;
};

static FILE *result_file;

static void result_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void result_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(result_file, fmt, ap);
    va_end(ap);
    fputc('\n', result_file);
    fflush(result_file);
}

static void fail(int code, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void fail(int code, const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (result_file)
        result_line("error %s %s", kind, msg);
    fprintf(stderr, "labgrader harness: %s\n", msg);
    exit(code);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int parse_space(const char *s)
{
    if (!strcmp(s, "pinned"))
        return LG_SPACE_PINNED;
    if (!strcmp(s, "device"))
        return LG_SPACE_DEVICE;
    if (!strcmp(s, "host"))
        return LG_SPACE_HOST;
    return -1;
}

static int parse_kind(const char *s)
{
    if (!strcmp(s, "in"))
        return K_IN;
    if (!strcmp(s, "out"))
        return K_OUT;
    if (!strcmp(s, "inout"))
        return K_INOUT;
    if (!strcmp(s, "scalar"))
        return K_SCALAR;
    return -1;
}

static int parse_dist(const char *s)
{
    if (!strcmp(s, "uniform"))
        return LG_INIT_UNIFORM;
    if (!strcmp(s, "normal"))
        return LG_INIT_NORMAL;
    if (!strcmp(s, "arange"))
        return LG_INIT_ARANGE;
    if (!strcmp(s, "constant") || !strcmp(s, "value"))
        return LG_INIT_CONSTANT;
    return -1;
}

static void set_scalar(struct job_arg *a, double v)
{
    switch (a->dtype) {
    case LG_F64:
        a->scalar.f64 = v;
        break;
    case LG_F32:
        a->scalar.f32 = (float)v;
        break;
    case LG_I64:
        a->scalar.i64 = (int64_t)v;
        break;
    case LG_I32:
        a->scalar.i32 = (int32_t)v;
        break;
    case LG_I16:
        a->scalar.i16 = (int16_t)v;
        break;
    case LG_I8:
        a->scalar.i8 = (int8_t)v;
        break;
    case LG_U8:
        a->scalar.u8 = (uint8_t)v;
        break;
    default:
        fail(LG_EXIT_SETUP, "setup", "scalar '%s' has unsupported dtype %s", a->name,
             lg_dtype_name(a->dtype));
    }
}

static void parse_job(const char *path, struct job *j)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int lineno = 0;
    if (!f)
        fail(LG_EXIT_SETUP, "setup", "cannot open job file %s: %s", path, strerror(errno));
    memset(j, 0, sizeof(*j));
    j->checks = 1;
    j->warmup = 1;
    j->min_samples = 3;
    j->max_samples = 20;
    j->target_rse = 0.01;
    j->budget_s = 2;
    while (fgets(line, sizeof(line), f)) {
        char key[64], a[128], b[64], c[64], d[64], e[64], g[64], h[64];
        unsigned long long u;
        double x;
        int n;
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%63s", key) != 1)
            continue;
        if (!strcmp(key, "function") && sscanf(line, "%*s %127s", j->function) == 1)
            continue;
        if (!strcmp(key, "target") && sscanf(line, "%*s %63s", b) == 1) {
            j->gpu = !strcmp(b, "gpu");
            continue;
        }
        if (!strcmp(key, "checks") && sscanf(line, "%*s %d", &n) == 1 && n >= 0 &&
            n <= MAX_CHECKS) {
            j->checks = n;
            continue;
        }
        if (!strcmp(key, "seed") && sscanf(line, "%*s %d %llu", &n, &u) == 2 && n >= 0 &&
            n < MAX_CHECKS) {
            j->seeds[n] = u;
            continue;
        }
        if (!strcmp(key, "time") && sscanf(line, "%*s %d", &n) == 1) {
            j->time = n != 0;
            continue;
        }
        if (!strcmp(key, "warmup") && sscanf(line, "%*s %d", &n) == 1 && n >= 0) {
            j->warmup = n;
            continue;
        }
        if (!strcmp(key, "min_samples") && sscanf(line, "%*s %d", &n) == 1 && n >= 1) {
            j->min_samples = n;
            continue;
        }
        if (!strcmp(key, "max_samples") && sscanf(line, "%*s %d", &n) == 1 && n >= 1) {
            j->max_samples = n > MAX_SAMPLES ? MAX_SAMPLES : n;
            continue;
        }
        if (!strcmp(key, "target_rse") && sscanf(line, "%*s %lf", &x) == 1) {
            j->target_rse = x;
            continue;
        }
        if (!strcmp(key, "budget") && sscanf(line, "%*s %lf", &x) == 1) {
            j->budget_s = x;
            continue;
        }
        if (!strcmp(key, "blocking") && sscanf(line, "%*s %d", &n) == 1) {
            j->blocking = n != 0;
            continue;
        }
        if (!strcmp(key, "flush_l2") && sscanf(line, "%*s %d", &n) == 1) {
            j->flush_l2 = n != 0;
            continue;
        }
        if (!strcmp(key, "transfer") && sscanf(line, "%*s %d", &n) == 1) {
            j->transfer = n != 0;
            continue;
        }
        if (!strcmp(key, "verify_timed") && sscanf(line, "%*s %d", &n) == 1) {
            j->verify_timed = n != 0;
            continue;
        }
        if (!strcmp(key, "tol") && sscanf(line, "%*s %127s %lf %63s", a, &x, b) == 3) {
            char *end;
            double at = strtod(b, &end);
            for (int i = 0; i < j->n_args; i++)
                if (!strcmp(j->args[i].name, a)) {
                    j->args[i].rtol = x;
                    j->args[i].atol = *end ? 0 : at;
                }
            continue;
        }
        if (!strcmp(key, "transfer_from") && sscanf(line, "%*s %63s", b) == 1 &&
            parse_space(b) >= 0) {
            j->transfer_from = parse_space(b);
            continue;
        }
        if (!strcmp(key, "arg") && j->n_args < MAX_ARGS &&
            sscanf(line, "%*s %127s %63s %63s %llu %63s %63s %63s %63s", a, b, c, &u, d, e, g, h) ==
                8) {
            struct job_arg *ar = &j->args[j->n_args];
            int kind = parse_kind(b), space = parse_space(d), dist = parse_dist(e);
            double p1, p2;
            char *end1, *end2;
            p1 = strtod(g, &end1);
            p2 = strtod(h, &end2);
            if (kind < 0 || space < 0 || dist < 0 || lg_dtype_parse(c) == LG_DTYPE_INVALID ||
                *end1 || *end2 || strlen(a) >= sizeof(ar->name))
                fail(LG_EXIT_SETUP, "setup", "%s:%d: malformed argument line", path, lineno);
            snprintf(ar->name, sizeof(ar->name), "%s", a);
            ar->kind = (enum arg_kind)kind;
            ar->dtype = lg_dtype_parse(c);
            ar->count = (size_t)u;
            ar->space = space;
            ar->dist = (enum lg_init_dist)dist;
            ar->p1 = p1;
            ar->p2 = p2;
            if (ar->kind == K_SCALAR)
                set_scalar(ar, p1);
            j->n_args++;
            continue;
        }
        fail(LG_EXIT_SETUP, "setup", "%s:%d: cannot understand '%.60s'", path, lineno, line);
    }
    fclose(f);
    if (strcmp(j->function, lg_function_name) != 0)
        fail(LG_EXIT_SETUP, "setup", "job is for '%s' but this runner calls '%s'", j->function,
             lg_function_name);
}

static size_t arg_bytes(const struct job_arg *a)
{
    return a->count * lg_dtype_size(a->dtype);
}

/*
 * The host arrays a function is given end exactly at an inaccessible page, so that reading or
 * writing one element past the end (`i <= n`) is a segmentation fault (SG) instead of passing
 * unseen: a one-element overrun of a malloc'd array lands in the allocator's padding or its
 * next chunk, and was caught only when it happened to corrupt the allocator's bookkeeping.
 * The start is then aligned to the element size only (4000 bytes of floats start 96 bytes into
 * a page): loads that require 16-byte alignment fail, as they would on any such array.
 */
static size_t guard_span(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page + page;
}

static void *guarded_alloc(size_t bytes)
{
    size_t span = guard_span(bytes), page = (size_t)sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    if (mprotect(base + span - page, page, PROT_NONE) != 0) {
        munmap(base, span);
        return NULL;
    }
    return base + span - page - bytes;
}

static void guarded_free(void *p, size_t bytes)
{
    size_t span = guard_span(bytes), page = (size_t)sysconf(_SC_PAGESIZE);
    if (p)
        munmap((char *)p + bytes + page - span, span);
}

static void *alloc_space(size_t bytes, int space, const char *what)
{
    char err[512];
    void *p;
    if (space == LG_SPACE_HOST) {
        p = malloc(bytes ? bytes : 1);
        if (!p)
            fail(LG_EXIT_SETUP, "setup", "cannot allocate %zu bytes of host memory for %s", bytes,
                 what);
        return p;
    }
    p = lg_gpu_alloc(bytes ? bytes : 1, space, err, sizeof(err));
    if (!p)
        fail(LG_EXIT_SETUP, "setup", "cannot allocate %zu bytes (%s) for %s: %s", bytes,
             space == LG_SPACE_DEVICE ? "device" : "pinned", what, err);
    return p;
}

static void copy_checked(void *dst, const void *src, size_t bytes, int to_device, const char *what)
{
    char err[512];
    if (lg_gpu_copy(dst, src, bytes, to_device, err, sizeof(err)) != 0)
        fail(LG_EXIT_CUDA, "cuda", "copying %s %s the device failed: %s", what,
             to_device ? "to" : "from", err);
}

static void setup_buffers(struct job *j)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        size_t bytes = arg_bytes(a);
        if (a->kind == K_SCALAR)
            continue;
        if (a->space == LG_SPACE_PINNED) {
            a->host = alloc_space(bytes, LG_SPACE_PINNED, a->name);
        } else if (!(a->host = guarded_alloc(bytes))) {
            fail(LG_EXIT_SETUP, "setup", "cannot allocate %zu bytes of host memory for %s", bytes,
                 a->name);
        }
        if (a->space == LG_SPACE_DEVICE)
            a->dev = alloc_space(bytes, LG_SPACE_DEVICE, a->name);
        if (a->kind != K_OUT)
            a->pristine = alloc_space(bytes, LG_SPACE_HOST, a->name);
        if (a->kind != K_IN && j->verify_timed)
            a->last_out = alloc_space(bytes, LG_SPACE_HOST, a->name);
        if (a->kind == K_INOUT && a->space == LG_SPACE_DEVICE && j->verify_timed && j->time)
            a->dev_pristine = alloc_space(bytes, LG_SPACE_DEVICE, a->name);
        if (j->transfer && a->space == LG_SPACE_DEVICE) {
            a->xfer_space = j->transfer_from;
            a->xfer = alloc_space(bytes, a->xfer_space, a->name);
        }
    }
}

static void free_buffers(struct job *j)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        if (a->kind == K_SCALAR)
            continue;
        if (a->space == LG_SPACE_PINNED)
            lg_gpu_free(a->host, LG_SPACE_PINNED);
        else
            guarded_free(a->host, arg_bytes(a));
        if (a->dev)
            lg_gpu_free(a->dev, LG_SPACE_DEVICE);
        if (a->dev_pristine)
            lg_gpu_free(a->dev_pristine, LG_SPACE_DEVICE);
        free(a->pristine);
        free(a->last_out);
        if (a->xfer)
            lg_gpu_free(a->xfer, a->xfer_space);
    }
}

static uint64_t arg_seed(uint64_t check_seed, int arg_index)
{
    uint64_t st = check_seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(arg_index + 1));
    return lg_splitmix64(&st);
}

/* Generate inputs, poison outputs, and place both where the function will read them. */
static void prepare_call(struct job *j, int check)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        size_t bytes = arg_bytes(a);
        if (a->kind == K_SCALAR)
            continue;
        if (a->kind == K_OUT)
            lg_dtype_poison(a->dtype, a->host, a->count, check % 2);
        else {
            lg_fill(a->dtype, a->host, a->count, a->dist, a->p1, a->p2,
                    arg_seed(j->seeds[check], i));
            memcpy(a->pristine, a->host, bytes);
        }
        if (a->space == LG_SPACE_DEVICE)
            copy_checked(a->dev, a->host, bytes, 1, a->name);
        if (a->xfer)
            memcpy(a->xfer, a->host, bytes);
    }
}

static void call_args(struct job *j, void **argv)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        if (a->kind == K_SCALAR)
            argv[i] = &a->scalar;
        else
            argv[i] = a->space == LG_SPACE_DEVICE ? a->dev : a->host;
    }
}

static void after_call(struct job *j, const char *when)
{
    char err[1024];
    if (!j->gpu)
        return;
    if (lg_gpu_sync(err, sizeof(err)) != 0)
        fail(LG_EXIT_CUDA, "cuda", "%s %s: %s", when, j->function, err);
}

static void write_outputs(struct job *j, int check)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        size_t bytes = arg_bytes(a);
        char path[256];
        if (a->kind == K_SCALAR)
            continue;
        if (a->space == LG_SPACE_DEVICE)
            copy_checked(a->host, a->dev, bytes, 0, a->name);
        if (a->kind == K_IN) {
            if (memcmp(a->host, a->pristine, bytes) != 0)
                result_line("modified %d %s", check, a->name);
            continue;
        }
        if (a->last_out)
            memcpy(a->last_out, a->host, bytes);
        snprintf(path, sizeof(path), "out_%s_%d.bin", a->name, check);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(a->host, 1, bytes, f) != bytes || fclose(f) != 0)
            fail(LG_EXIT_SETUP, "setup", "cannot write %s: %s", path, strerror(errno));
    }
}

/* All ones is a NaN in every float format (exponent all ones, mantissa not zero); integers
 * alternate two patterns, as lg_dtype_poison does. */
static int poison_byte(enum lg_dtype t, int sample)
{
    return lg_dtype_is_float(t) ? 0xff : sample % 2 ? 0x5a : 0xa5;
}

/* The timed calls reuse the last checked call's inputs: an inout's go to the device once. */
static void stage_timed_inputs(struct job *j)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        if (a->dev_pristine)
            copy_checked(a->dev_pristine, a->pristine, arg_bytes(a), 1, a->name);
    }
}

/*
 * Before a timed call: poison the outputs again, so a call that skips the work leaves
 * poison behind; inouts get their inputs back. Outside the timed region.
 *
 * The poison is sparse: one element in every POISON_STRIPE_BYTES of each output, at a
 * position that changes with every stripe and every call. Poisoning every element dirtied
 * the whole output in the caches just before the call, which then paid for writing it
 * back: on an H100, lab 6's grade2 at 5M elements (40 MB out) measured 43.9 µs after a
 * full cudaMemset against 42.4 µs without (Nsight Compute: 41.1 µs for the kernel alone).
 * One element per 4 KiB dirties 1/128 of it. A call that skips any stripe of its work, or
 * a share of its elements, still leaves poison behind (tests/hostile/partial_when_timed);
 * the checked calls poison every element. Device outputs are poisoned on the GPU, queued ahead of
 * the call: poisoning on the host and uploading left the GPU idle for milliseconds between samples,
 * long enough for its clocks to drop.
 */
#define POISON_STRIPE_BYTES 4096
/* Small outputs get narrower stripes, so a call that skips every other element is still
 * caught with certainty (all but 2^-64); outputs of 64 elements or fewer are poisoned whole. */
#define POISON_MIN_STRIPES 64

static uint64_t poison_seed;

static size_t poison_stripe_elems(const struct job_arg *a)
{
    size_t widest = POISON_STRIPE_BYTES / lg_dtype_size(a->dtype);
    size_t per = (a->count + POISON_MIN_STRIPES - 1) / POISON_MIN_STRIPES;
    return per < 1 ? 1 : per > widest ? widest : per;
}

static void poison_sparse_host(struct job_arg *a, int byte, uint64_t seed)
{
    size_t esz = lg_dtype_size(a->dtype);
    size_t per = poison_stripe_elems(a);
    for (size_t first = 0; first < a->count; first += per) {
        uint64_t st = seed ^ (first * 0x9e3779b97f4a7c15ull);
        size_t n = a->count - first < per ? a->count - first : per;
        size_t i = first + lg_splitmix64(&st) % n;
        memset((unsigned char *)a->host + i * esz, byte, esz);
    }
}

static void repoison_outputs(struct job *j, int sample)
{
    uint64_t st = poison_seed ^ (uint64_t)sample;
    uint64_t seed = lg_splitmix64(&st);
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        size_t bytes = arg_bytes(a), esz = lg_dtype_size(a->dtype);
        int byte = poison_byte(a->dtype, sample);
        if (a->kind == K_SCALAR || a->kind == K_IN)
            continue;
        if (a->space == LG_SPACE_DEVICE) {
            int rc = a->dev_pristine
                         ? lg_gpu_copy_device_async(a->dev, a->dev_pristine, bytes)
                         : lg_gpu_poison_sparse_async(a->dev, esz, a->count, poison_stripe_elems(a),
                                                      byte, seed);
            if (rc != 0)
                fail(LG_EXIT_CUDA, "cuda", "poisoning %s before a timed call failed", a->name);
        } else if (a->kind == K_OUT) {
            poison_sparse_host(a, byte, seed);
        } else {
            memcpy(a->host, a->pristine, bytes);
        }
    }
}

/* After a timed call: its outputs must agree with the last checked call's (same inputs)
 * within the tolerance. Returns the number of outputs that did not. */
static int verify_outputs(struct job *j, int sample)
{
    int bad_args = 0;
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        size_t bytes = arg_bytes(a), bad = 0;
        if (a->kind == K_SCALAR || a->kind == K_IN || !a->last_out)
            continue;
        if (a->space == LG_SPACE_DEVICE)
            copy_checked(a->host, a->dev, bytes, 0, a->name);
        for (size_t k = 0; k < a->count; k++) {
            double got = lg_dtype_load(a->dtype, a->host, k);
            double want = lg_dtype_load(a->dtype, a->last_out, k);
            /* got == want first: infinities of one sign agree (numpy's allclose), though
             * their difference is NaN (an f16 output overflows to inf from large inputs). */
            if (got == want)
                continue;
            if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= a->atol + a->rtol * fabs(want)))
                bad++;
        }
        if (bad) {
            result_line("timed_mismatch %d %s %zu", sample, a->name, bad);
            bad_args++;
        }
    }
    return bad_args;
}

static double rse(const double *x, int n)
{
    double mean = 0, var = 0;
    if (n < 2)
        return INFINITY;
    for (int i = 0; i < n; i++)
        mean += x[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    var /= (n - 1);
    return mean > 0 ? sqrt(var / n) / mean : INFINITY;
}

static void emit_samples(const char *name, const double *x, int n)
{
    char buf[64];
    fprintf(result_file, "samples %s", name);
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof(buf), " %.6f", x[i]);
        fputs(buf, result_file);
    }
    fputc('\n', result_file);
    fflush(result_file);
}

static void transfer_in(struct job *j)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        if (a->xfer && a->kind != K_OUT)
            copy_checked(a->dev, a->xfer, arg_bytes(a), 1, a->name);
    }
}

static void transfer_out(struct job *j)
{
    for (int i = 0; i < j->n_args; i++) {
        struct job_arg *a = &j->args[i];
        if (a->xfer && a->kind != K_IN)
            copy_checked(a->xfer, a->dev, arg_bytes(a), 0, a->name);
    }
}

/* Long enough for any honest host-side launch work, short enough that a function that
 * synchronizes inside (and so waits on the blocked stream) costs one probe, not a run. */
#define BLOCK_TIMEOUT_MS 200.0

/*
 * Whether the call path can be timed behind the blocking kernel: one probe call, during
 * warm-up. A call that synchronizes inside waits for the blocker's timeout, and every
 * sample would: such a function is timed plainly (its launch overhead counted).
 */
static bool blocking_usable(struct job *j, void **argv)
{
    if (lg_gpu_block_arm(BLOCK_TIMEOUT_MS) != 0) {
        result_line("blocking off setup");
        return false;
    }
    lg_gpu_event_start();
    lg_invoke(argv);
    lg_gpu_event_stop();
    after_call(j, "during warm-up of");
    if (lg_gpu_block_timed_out()) {
        result_line("blocking off synchronizes");
        return false;
    }
    result_line("blocking on");
    return true;
}

/*
 * One timing loop. GPU samples are taken two ways: CUDA events on the default
 * stream, and the host clock around a device-wide synchronize. The grader
 * compares them: a large gap means work escaped the events (another stream).
 */
static void time_loop(struct job *j, void **argv, bool with_transfer, const char *label)
{
    static double host_ms[MAX_SAMPLES], event_ms[MAX_SAMPLES];
    /* n counts the samples kept; timed_calls every call made, dropped ones included, so
     * each call's poison positions are new. */
    int n = 0, timed_calls = 0, clk_min = 0, clk_max = 0;
    double start = now_ms();
    char name[64];
    struct lg_throttle throttle;

    lg_throttle_init(&throttle, j->gpu ? lg_gpu_sm_clock_max_mhz() : 0);

    result_line("phase warmup %s", label);
    for (int w = 0; w < j->warmup; w++) {
        if (with_transfer)
            transfer_in(j);
        lg_invoke(argv);
        if (with_transfer)
            transfer_out(j);
        after_call(j, "during warm-up of");
    }
    /* Only the call alone: the with-transfer path copies synchronously inside the timed
     * region, which would wait on the blocked stream. */
    bool block = j->gpu && j->blocking && !with_transfer && blocking_usable(j, argv);
    result_line("phase time %s", label);
    start = now_ms();
    /* Outputs are poisoned before every timed call (so skipping the work when timed
     * leaves poison behind) but verified after the last one only: verifying copies and
     * scans the outputs, and doing that between samples would leave the device idle
     * and slow the next call. The stop rule is adaptive, so no call knows it is last.
     * The reference is timed with the same procedure, so comparisons stay fair. */
    bool verify = j->verify_timed && !with_transfer;
    if (verify)
        stage_timed_inputs(j);
    while (n < j->max_samples) {
        if (verify)
            repoison_outputs(j, timed_calls);
        timed_calls++;
        if (j->gpu && j->flush_l2)
            lg_gpu_flush_l2();
        /* The repoisoning is queued on the default stream and must be over before the host
         * clock starts, and before the call: work a function puts on a stream of its own
         * is not ordered after it. Waiting here costs the measurement nothing, even behind
         * the blocking kernel, which is only queued next. */
        if (j->gpu)
            after_call(j, "before a timed call of");
        if (block && lg_gpu_block_arm(BLOCK_TIMEOUT_MS) != 0) {
            block = false;
            result_line("blocking off setup");
        }
        double t0 = now_ms();
        if (j->gpu) {
            lg_gpu_event_start();
            if (with_transfer)
                transfer_in(j);
            lg_invoke(argv);
            if (with_transfer)
                transfer_out(j);
            event_ms[n] = lg_gpu_event_stop();
        } else {
            lg_invoke(argv);
        }
        double t1 = now_ms();
        after_call(j, "while timing");
        if (block && lg_gpu_block_timed_out()) {
            /* Synchronized inside this time though not in the probe: the sample holds the
             * blocker's timeout. Dropped, and the rest are taken plainly. */
            block = false;
            result_line("blocking off synchronizes");
            continue;
        }
        host_ms[n] = t1 - t0;
        if (j->gpu) {
            int clk = lg_gpu_sm_clock_mhz();
            if (!lg_throttle_keep(&throttle, clk)) {
                /* Taken while throttled: dropped, and the GPU given time to recover. */
                sleep_ms(LG_THROTTLE_RECOVERY_MS);
                continue;
            }
            if (clk > 0) {
                clk_min = clk_min == 0 || clk < clk_min ? clk : clk_min;
                clk_max = clk > clk_max ? clk : clk_max;
            }
        }
        n++;
        double elapsed_s = (now_ms() - start) / 1e3;
        /* Stop on the precision of the series that will count: the events on the GPU
         * (the host clock adds launch and synchronize jitter the events do not see). */
        const double *counted = j->gpu && event_ms[n - 1] > 0 ? event_ms : host_ms;
        if (n >= j->min_samples && rse(counted, n) <= j->target_rse)
            break;
        if (elapsed_s > j->budget_s && n >= (j->min_samples < 3 ? j->min_samples : 3))
            break;
        if (elapsed_s > 4 * j->budget_s)
            break;
    }
    if (verify && n > 0)
        verify_outputs(j, timed_calls - 1);
    snprintf(name, sizeof(name), "%s_host", label);
    emit_samples(name, host_ms, n);
    if (j->gpu) {
        snprintf(name, sizeof(name), "%s_event", label);
        emit_samples(name, event_ms, n);
        if (clk_max > 0)
            result_line("clock %s %d %d", label, clk_min, clk_max);
        /* Whenever the maximum is known, so results record what the samples were held to. */
        if (throttle.max_mhz > 0)
            result_line("throttle %s %d %d %d", label, throttle.dropped, throttle.gave_up ? 1 : 0,
                        throttle.max_mhz);
    }
}

int main(int argc, char **argv)
{
    static struct job j;
    void *cargs[MAX_ARGS];
    char err[1024];
    bool has_device_args = false;

    if (argc != 2) {
        fprintf(stderr, "usage: %s job.txt (this program is run by labgrader)\n", argv[0]);
        return LG_EXIT_SETUP;
    }
    result_file = fopen("result.txt", "w");
    if (!result_file) {
        fprintf(stderr, "labgrader harness: cannot create result.txt: %s\n", strerror(errno));
        return LG_EXIT_SETUP;
    }
    result_line("harness 1");
    parse_job(argv[1], &j);
    /* Poison positions the function cannot know in advance; they never change what a
     * correct function computes, so grades stay reproducible. */
    if (getrandom(&poison_seed, sizeof(poison_seed), 0) != (ssize_t)sizeof(poison_seed))
        poison_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    result_line("phase setup");
    if (j.gpu) {
        if (lg_gpu_init(err, sizeof(err)) != 0)
            fail(LG_EXIT_NOGPU, "nogpu", "%s", err);
    }
    for (int i = 0; i < j.n_args; i++)
        if (j.args[i].kind != K_SCALAR && j.args[i].space == LG_SPACE_DEVICE)
            has_device_args = true;
    if (!has_device_args)
        j.transfer = false;
    setup_buffers(&j);
    call_args(&j, cargs);

    for (int k = 0; k < j.checks; k++) {
        prepare_call(&j, k);
        result_line("phase check %d", k);
        lg_invoke(cargs);
        after_call(&j, "after the checked call of");
        write_outputs(&j, k);
        result_line("check %d done", k);
    }
    if (j.time) {
        time_loop(&j, cargs, false, "call");
        if (j.transfer)
            time_loop(&j, cargs, true, "transfer");
    }
    free_buffers(&j);
    result_line("status ok");
    fclose(result_file);
    return LG_EXIT_OK;
}
