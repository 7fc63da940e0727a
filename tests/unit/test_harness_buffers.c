/* The harness's host-side passes over large buffers (grader/harness/par.h, buffers.h, fill.h):
 * split across CPUs, they must give what one CPU gives, whatever the split: every element
 * visited once, the same draws, the same digest, the same mismatch count and first index.
 * The harness is compiled into this test (its GPU functions are only reached for device
 * buffers, which these tests never make: the fakes below say so if one were). */
#include "harness/buffers.c"
#include "harness/fence.c"
#include "harness/fill.c"
#include "harness/par.c"
#include "harness/result.c"

#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *lg_gpu_alloc(size_t bytes, int space, char *err, size_t errsize)
{
    (void)bytes, (void)space;
    snprintf(err, errsize, "no GPU in this test");
    return NULL;
}
void lg_gpu_free(void *p, int space)
{
    (void)p, (void)space;
}
void *lg_gpu_alloc_fenceable(size_t bytes, char *err, size_t errsize)
{
    return lg_gpu_alloc(bytes, LG_SPACE_DEVICE, err, errsize);
}
int lg_gpu_fence(void *p, int on)
{
    return (void)p, (void)on, 1;
}
int lg_gpu_copy(void *dst, const void *src, size_t bytes, int to_device, char *err, size_t errsize)
{
    (void)dst, (void)src, (void)bytes, (void)to_device;
    snprintf(err, errsize, "no GPU in this test");
    return -1;
}
int lg_gpu_draw(void *dev, int dtype, size_t count, int dist, double p1, double p2, uint64_t seed)
{
    return (void)dev, (void)dtype, (void)count, (void)dist, (void)p1, (void)p2, (void)seed, -1;
}
long long lg_gpu_compare(const void *actual, const void *expected, int dtype, size_t count,
                         double rtol, double atol, int equal_nan, long long *first)
{
    (void)actual, (void)expected, (void)dtype, (void)count, (void)rtol, (void)atol, (void)equal_nan;
    *first = -1;
    return -1;
}
uint64_t lg_gpu_digest(const void *dev, size_t bytes)
{
    return (void)dev, (void)bytes, 0;
}

/* Runs of a test on one CPU, as a Slurm step or taskset may give: the single-threaded path. */
static cpu_set_t saved_cpus;
static void one_cpu(void)
{
    cpu_set_t one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof(saved_cpus), &saved_cpus), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &saved_cpus)) {
            CPU_SET(c, &one);
            break;
        }
    ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}
static void all_cpus(void)
{
    ck_assert_int_eq(sched_setaffinity(0, sizeof(saved_cpus), &saved_cpus), 0);
}

struct visits {
    unsigned char *seen;
    size_t part_lo[LG_PAR_MAX_PARTS], part_hi[LG_PAR_MAX_PARTS];
    int part_calls[LG_PAR_MAX_PARTS];
};

static void visit(void *ctx, size_t lo, size_t hi, size_t part)
{
    struct visits *v = ctx;
    for (size_t i = lo; i < hi; i++)
        v->seen[i]++;
    v->part_lo[part] = lo;
    v->part_hi[part] = hi;
    v->part_calls[part]++;
}

static void check_cover(size_t count, size_t n_parts)
{
    struct visits v = {.seen = calloc(count ? count : 1, 1)};
    lg_par_for(count, n_parts, visit, &v);
    for (size_t i = 0; i < count; i++)
        ck_assert_int_eq(v.seen[i], 1);
    for (size_t k = 0; k < n_parts; k++) {
        ck_assert_int_eq(v.part_calls[k], 1);
        ck_assert_uint_eq(v.part_lo[k], k ? v.part_hi[k - 1] : 0);
    }
    ck_assert_uint_eq(v.part_hi[n_parts - 1], count);
    free(v.seen);
}

START_TEST(test_parts_bounded)
{
    ck_assert_uint_eq(lg_par_parts(0, 100), 1);
    ck_assert_uint_eq(lg_par_parts(99, 100), 1);
    ck_assert_uint_eq(lg_par_parts(250, 100), 2);
    ck_assert_uint_eq(lg_par_parts((size_t)1 << 40, 100), LG_PAR_MAX_PARTS);
    ck_assert_uint_eq(lg_par_parts(7, 0), 7);
}
END_TEST

START_TEST(test_every_element_once)
{
    check_cover(1000003, 17);
    check_cover(5, 5);
    check_cover(1, 1);
    check_cover(100, LG_PAR_MAX_PARTS);
    one_cpu();
    check_cover(1000003, 17); /* one thread takes every part */
    all_cpus();
}
END_TEST

static void host_buf(struct lg_buf *b, size_t bytes)
{
    char err[128];
    ck_assert_int_eq(lg_buf_alloc(b, bytes, LG_SPACE_HOST, true, err, sizeof(err)), 0);
}

START_TEST(test_fill_same_on_one_cpu)
{
    size_t n = 3000017;
    struct lg_buf a, b;
    host_buf(&a, n * sizeof(double));
    host_buf(&b, n * sizeof(double));
    lg_host_fill(LG_F64, a.p, n, 1, 0, 1, 42);
    one_cpu();
    lg_host_fill(LG_F64, b.p, n, 1, 0, 1, 42);
    all_cpus();
    ck_assert_int_eq(memcmp(a.p, b.p, n * sizeof(double)), 0);
    lg_host_fill(LG_F64, b.p, n, 1, 0, 1, 43);
    ck_assert_int_ne(memcmp(a.p, b.p, n * sizeof(double)), 0);
    lg_buf_free(&a);
    lg_buf_free(&b);
}
END_TEST

/* The uniform loop of its own draws what lg_draw_value draws, to the bit (the oracle and the
 * GPU draw through it), and the other distributions still go through it. */
START_TEST(test_fill_values_are_the_draws)
{
    size_t n = 1000;
    double d[1000];
    float f[1000];
    int32_t k[1000];
    lg_host_fill(LG_F64, d, n, 0, -3, 5, 11);
    lg_host_fill(LG_F32, f, n, 0, 0, 1, 12);
    for (size_t i = 0; i < n; i++) {
        ck_assert(d[i] == lg_draw_value(11, i, 0, -3, 5, 0));
        ck_assert(f[i] == (float)lg_draw_value(12, i, 0, 0, 1, 0));
    }
    lg_host_fill(LG_F64, d, n, 1, 2, 0.5, 13);
    lg_host_fill(LG_I32, k, n, 0, -4, 4, 14);
    for (size_t i = 0; i < n; i++) {
        ck_assert(d[i] == lg_draw_value(13, i, 1, 2, 0.5, 0));
        ck_assert_int_eq(k[i], (int32_t)lg_draw_value(14, i, 0, -4, 4, 1));
    }
}
END_TEST

START_TEST(test_digest_sees_every_byte)
{
    /* Several parts, and a tail that is not a whole word. */
    size_t bytes = (size_t)5 * 8 * DIGEST_MIN_WORDS + 5;
    struct lg_buf a;
    host_buf(&a, bytes);
    lg_host_fill(LG_U8, a.p, bytes, 0, 0, 255, 7);
    uint64_t h = lg_buf_digest(&a);
    one_cpu();
    ck_assert_uint_eq(lg_buf_digest(&a), h); /* the split is the buffer's, not the threads' */
    all_cpus();
    size_t at[] = {0,        8 * DIGEST_MIN_WORDS - 1, 8 * DIGEST_MIN_WORDS, bytes / 2, bytes - 6,
                   bytes - 1};
    unsigned char *p = a.p;
    for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
        p[at[k]] ^= 0x10;
        ck_assert_msg(lg_buf_digest(&a) != h, "a change at byte %zu went unseen", at[k]);
        p[at[k]] ^= 0x10;
        ck_assert_uint_eq(lg_buf_digest(&a), h);
    }
    /* Two words swapped across parts: the positions count, not only the values. */
    uint64_t w0, w1, w = 8 * DIGEST_MIN_WORDS;
    memcpy(&w0, p, 8);
    memcpy(&w1, p + w, 8);
    memcpy(p, &w1, 8);
    memcpy(p + w, &w0, 8);
    ck_assert(w0 == w1 || lg_buf_digest(&a) != h);
    lg_buf_free(&a);
}
END_TEST

/* The draw's own digest is the buffer's: every element size, counts that leave a tail shorter
 * than a word, one part and several, on one CPU and on all (timing.c compares the two after a
 * pair: a mismatch would fail an honest function). */
START_TEST(test_draw_digest_is_the_buffers)
{
    static const struct {
        enum lg_dtype t;
        size_t count;
    } cases[] = {{LG_F64, 123457},  {LG_F64, 3 * (1u << 18) + 1}, {LG_F32, 2250001}, {LG_F32, 7},
                 {LG_I16, 1000003}, {LG_U8, 5 * (1u << 18) + 5},  {LG_I32, 1}};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct lg_buf b;
        size_t bytes = cases[k].count * lg_dtype_size(cases[k].t);
        host_buf(&b, bytes);
        uint64_t drawn = 0, again = 0;
        ck_assert_int_eq(lg_buf_draw(&b, cases[k].t, cases[k].count, 0, 0, 100, 5 + k, &drawn), 0);
        ck_assert_uint_eq(lg_buf_digest(&b), drawn);
        one_cpu();
        ck_assert_int_eq(lg_buf_draw(&b, cases[k].t, cases[k].count, 0, 0, 100, 5 + k, &again), 0);
        all_cpus();
        ck_assert_uint_eq(again, drawn);
        /* The last byte: a tail's, or the last word's. */
        ((unsigned char *)b.p)[bytes - 1] ^= 1;
        ck_assert_msg(lg_buf_digest(&b) != drawn, "dtype %d count %zu: last byte unseen",
                      (int)cases[k].t, cases[k].count);
        lg_buf_free(&b);
    }
}
END_TEST

START_TEST(test_compare_counts_across_parts)
{
    size_t n = 4 * COMPARE_MIN_PER_PART + 3;
    struct lg_buf a, e;
    host_buf(&a, n * sizeof(float));
    host_buf(&e, n * sizeof(float));
    lg_host_fill(LG_F32, e.p, n, 0, -1, 1, 9);
    memcpy(a.p, e.p, n * sizeof(float));
    float *x = a.p, *y = e.p;
    long long first;
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_F32, n, 1e-5, 1e-8, false, &first), 0);
    ck_assert_int_eq(first, -1);
    /* Mismatches in the third part and the first: the first index is the smallest. */
    size_t late = 2 * COMPARE_MIN_PER_PART + 11, early = 5;
    x[late] += 1;
    x[early] = NAN;
    x[n - 1] = y[n - 1] * (1 + 1e-6f); /* within rtol */
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_F32, n, 1e-5, 1e-8, false, &first), 2);
    ck_assert_int_eq(first, (long long)early);
    one_cpu();
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_F32, n, 1e-5, 1e-8, false, &first), 2);
    ck_assert_int_eq(first, (long long)early);
    all_cpus();
    y[early] = NAN; /* NaN against NaN: equal only with equal_nan */
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_F32, n, 1e-5, 1e-8, true, &first), 1);
    ck_assert_int_eq(first, (long long)late);
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_F32, n, 1e-5, 1e-8, false, &first), 2);
    lg_buf_free(&a);
    lg_buf_free(&e);
}
END_TEST

START_TEST(test_compare_other_types)
{
    size_t n = 2 * COMPARE_MIN_PER_PART + 1;
    struct lg_buf a, e;
    host_buf(&a, n * sizeof(int32_t));
    host_buf(&e, n * sizeof(int32_t));
    lg_host_fill(LG_I32, e.p, n, 4, -100, 100, 3);
    memcpy(a.p, e.p, n * sizeof(int32_t));
    int32_t *x = a.p;
    x[n - 1] += 2;
    long long first;
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_I32, n, 0, 1, false, &first), 1);
    ck_assert_int_eq(first, (long long)(n - 1));
    ck_assert_int_eq(lg_buf_compare(&a, &e, LG_I32, n, 0, 2, false, &first), 0);
    lg_buf_free(&a);
    lg_buf_free(&e);
}
END_TEST

START_TEST(test_large_host_buffers_huge_page_aligned)
{
    /* Both sides' large buffers start alike (on a 2 MiB page), whatever malloc would do. */
    struct lg_buf big[2], small;
    for (int k = 0; k < 2; k++) {
        host_buf(&big[k], 3 * HUGE_PAGE + 100 * k);
        ck_assert_uint_eq((uintptr_t)big[k].base % HUGE_PAGE, 0);
        ck_assert_uint_ge(big[k].mapped, big[k].bytes + 2 * big[k].guard);
        memset(big[k].p, 1, big[k].bytes); /* the whole of it is writable */
        struct lg_guard_damage d;
        ck_assert_int_eq(lg_buf_guard_check(&big[k], &d), 0);
    }
    host_buf(&small, 1000);
    /* A small buffer is whole pages of its own too, so that a fence takes nothing else. */
    ck_assert_uint_eq(small.mapped, 3 * 4096);
    ck_assert_uint_eq((uintptr_t)small.base % 4096, 0);
    lg_buf_free(&big[0]);
    lg_buf_free(&big[1]);
    lg_buf_free(&small);
    ck_assert_ptr_null(small.base);
}
END_TEST

/* Issue 47: a function that copies past the end of its input into past the end of its output
 * (memcpy of n + 1 elements, z[n + k] = x[n + k]) left every guard as it was, each holding the
 * same fill. Each guard's canary is its own: what lies past one buffer does not match what
 * lies past another. */
START_TEST(test_guard_copied_from_another_buffer)
{
    size_t n = 1000;
    struct lg_buf x, z;
    struct lg_guard_damage d;
    host_buf(&x, n * sizeof(float));
    host_buf(&z, n * sizeof(float));
    ck_assert_int_eq(lg_buf_guard_check(&x, &d), 0);
    ck_assert_int_eq(lg_buf_guard_check(&z, &d), 0);
    memcpy(z.p, x.p, (n + 1) * sizeof(float));
    ck_assert_int_eq(lg_buf_guard_check(&z, &d), 1);
    ck_assert_uint_eq(d.before, 0);
    ck_assert_uint_ge(d.after, 1);
    ck_assert_int_eq(d.first, (long long)(n * sizeof(float)));
    ck_assert_int_eq(lg_buf_guard_reset(&z), 0);
    ck_assert_int_eq(lg_buf_guard_check(&z, &d), 0);
    /* Eight doubles past the end, and the guard before the start from the input's. */
    float *zf = z.p;
    const float *xf = x.p;
    for (int k = 0; k < 16; k++)
        zf[n + (size_t)k] = xf[n + (size_t)k];
    memcpy(z.base, x.base, LG_GUARD_BYTES);
    ck_assert_int_eq(lg_buf_guard_check(&z, &d), 1);
    ck_assert_uint_ge(d.after, 57);
    ck_assert_uint_ge(d.before, LG_GUARD_BYTES - 64);
    ck_assert_int_ge(d.first, -8);
    ck_assert_int_lt(d.first, 0);
    lg_buf_free(&x);
    lg_buf_free(&z);
}
END_TEST

/* The canary is not one pattern: its words differ between buffers, between the two sides of
 * one buffer, and along a guard; none of its bytes is zero, so a zero written past the end is
 * always seen (it was with the old fill); a byte written with the canary's own value is not. */
START_TEST(test_guard_canary_is_each_buffers_own)
{
    struct lg_buf a, b;
    struct lg_guard_damage d;
    host_buf(&a, 24);
    host_buf(&b, 24);
    const unsigned char *after_a = a.base + a.guard + a.bytes, *after_b = b.base + b.guard + 24;
    size_t same_word = 0, same_side = 0;
    for (size_t w = 0; w < LG_GUARD_BYTES / 8; w++) {
        same_word += !memcmp(after_a + 8 * w, after_b + 8 * w, 8);
        same_side += !memcmp(after_a + 8 * w, a.base + 8 * w, 8);
        if (w)
            ck_assert(memcmp(after_a + 8 * w, after_a + 8 * w - 8, 8) != 0);
    }
    ck_assert_uint_eq(same_word, 0);
    ck_assert_uint_eq(same_side, 0);
    for (size_t i = 0; i < LG_GUARD_BYTES; i++)
        ck_assert(after_a[i] != 0 && a.base[i] != 0);
    unsigned char *za = a.p;
    za[24] = 0;
    ck_assert_int_eq(lg_buf_guard_check(&a, &d), 1);
    ck_assert_int_eq(d.first, 24);
    ck_assert_uint_eq(d.after, 1);
    lg_buf_guard_reset(&a);
    volatile unsigned char *before_z = za - 1;
    *before_z = *before_z; /* the value it holds: no change to see */
    za[24 + 100] ^= 0x40;
    ck_assert_int_eq(lg_buf_guard_check(&a, &d), 1);
    ck_assert_int_eq(d.first, 124);
    lg_buf_free(&a);
    lg_buf_free(&b);
}
END_TEST

/* One guard's bytes in a fresh process, for test_guard_canary_per_run. */
static void first_guard_bytes(int fd)
{
    struct lg_buf b;
    char err[128];
    canary.keyed = false; /* as in a new runner process */
    canary.made = 0;
    if (lg_buf_alloc(&b, 16, LG_SPACE_HOST, true, err, sizeof(err)) != 0 ||
        write(fd, b.base, 64) != 64)
        _exit(1);
    _exit(0);
}

/* Two runs draw two keys: the first buffer of one run has another canary than the first
 * buffer of the next, so no run can learn a later run's canary. */
START_TEST(test_guard_canary_per_run)
{
    unsigned char got[2][64];
    for (int r = 0; r < 2; r++) {
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            close(fds[0]);
            first_guard_bytes(fds[1]);
        }
        close(fds[1]);
        ck_assert_int_eq(read(fds[0], got[r], 64), 64);
        close(fds[0]);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    ck_assert(memcmp(got[0], got[1], 64) != 0);
}
END_TEST

/* How a child that runs fn ends: its signal, 0 when it returned, -1 when it exited with a
 * failure (under AddressSanitizer, whose handler reports a fault and exits). */
static int child_signal(void (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) ? -1 : 0;
}

/* A child's access faulted: killed by SIGSEGV, or a sanitizer's report of it. */
static bool faults(void (*fn)(void *), void *arg)
{
    int how = child_signal(fn, arg);
    return how == SIGSEGV || how == -1;
}

static void read_byte(void *p)
{
    volatile unsigned char *b = p;
    (void)b[0];
}

static void write_byte(void *p)
{
    volatile unsigned char *b = p;
    b[0] = 1;
}

/* A fenced buffer is out of reach, guards included, and comes back as it was. */
START_TEST(test_fence_host)
{
    size_t sizes[] = {1, 1000, 800000, 3 * HUGE_PAGE + 5};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        struct lg_buf b;
        host_buf(&b, sizes[k]);
        memset(b.p, 0x5a, b.bytes);
        ck_assert(lg_buf_holds(&b, b.base) && lg_buf_holds(&b, b.base + b.mapped - 1));
        ck_assert(!lg_buf_holds(&b, b.base + b.mapped) && !lg_buf_holds(&b, b.base - 1));
        ck_assert_int_eq(lg_buf_fence(&b, true), 0);
        ck_assert(faults(read_byte, b.p));
        ck_assert(faults(read_byte, (unsigned char *)b.p + b.bytes - 1));
        ck_assert(faults(read_byte, b.base)); /* a guard */
        ck_assert_int_eq(lg_buf_fence(&b, false), 0);
        ck_assert_int_eq(child_signal(read_byte, b.p), 0);
        for (size_t i = 0; i < b.bytes; i += 997)
            ck_assert_int_eq(((unsigned char *)b.p)[i], 0x5a);
        struct lg_guard_damage d;
        ck_assert_int_eq(lg_buf_guard_check(&b, &d), 0);
        lg_buf_free(&b);
    }
}
END_TEST

/* A case of one input x and one output z, paired: the function's z in data, the reference's
 * in ref (case.h). */
struct fence_case {
    struct lg_job_case c;
    struct lg_case_state s;
};

static void fence_case_setup(struct fence_case *f)
{
    memset(f, 0, sizeof(*f));
    f->c.n_args = 2;
    snprintf(f->c.args[0].name, sizeof(f->c.args[0].name), "x");
    f->c.args[0].kind = LG_ARG_IN;
    snprintf(f->c.args[1].name, sizeof(f->c.args[1].name), "z");
    f->c.args[1].kind = LG_ARG_OUT;
    f->s.c = &f->c;
    for (int i = 0; i < 2; i++)
        f->s.args[i].spec = &f->c.args[i];
    host_buf(&f->s.args[0].data, 4000);
    host_buf(&f->s.args[1].data, 4000);
    host_buf(&f->s.args[1].ref, 4000);
}

struct fence_touch {
    struct fence_case *f;
    bool fence_student; /* whose outputs are fenced */
    void *touch;
    bool write;
};

static void fence_and_touch(void *arg)
{
    struct fence_touch *t = arg;
    ck_assert_int_eq(lg_result_open(), 0);
    lg_fence_init();
    ck_assert_int_eq(lg_fence_side(&t->f->s, t->fence_student, true, "call", 7), 1);
    if (t->write)
        write_byte(t->touch);
    else
        read_byte(t->touch);
}

static char *result_text(void)
{
    static char buf[4096];
    FILE *f = fopen("result.txt", "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* A touch of a fenced buffer names the buffer, its owner, the series and the pair, and the
 * process still ends by the signal; a fault elsewhere writes nothing. */
START_TEST(test_fence_fault_line)
{
    char dir[] = "/tmp/lg-fence-XXXXXX", cwd[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(chdir(dir), 0);
    struct fence_case f;
    fence_case_setup(&f);
    struct fence_touch t = {&f, false, (unsigned char *)f.s.args[1].ref.p + 100, false};
    ck_assert_int_eq(child_signal(fence_and_touch, &t), SIGSEGV);
    ck_assert_str_eq(result_text(), "timed_fault call 7 z reference read\n");
    t = (struct fence_touch){&f, true, f.s.args[1].data.p, false};
    ck_assert_int_eq(child_signal(fence_and_touch, &t), SIGSEGV);
    ck_assert_str_eq(result_text(), "timed_fault call 7 z function read\n");
#if defined(__x86_64__)
    /* A write is told from a read (the page fault's error code). */
    t = (struct fence_touch){&f, false, f.s.args[1].ref.p, true};
    ck_assert_int_eq(child_signal(fence_and_touch, &t), SIGSEGV);
    ck_assert_str_eq(result_text(), "timed_fault call 7 z reference write\n");
#endif
    /* The input is shared: never fenced. An unmapped page is no fenced buffer. */
    t = (struct fence_touch){&f, false, f.s.args[0].data.p, false};
    ck_assert_int_eq(child_signal(fence_and_touch, &t), 0);
    t = (struct fence_touch){&f, false, (void *)16, false};
    ck_assert_int_eq(child_signal(fence_and_touch, &t), SIGSEGV);
    ck_assert_str_eq(result_text(), "");
    /* Unfenced, the reference's output is the process's again. */
    ck_assert_int_eq(lg_fence_side(&f.s, false, true, "call", 1), 1);
    ck_assert_int_eq(lg_fence_side(&f.s, false, false, "call", 1), 0);
    read_byte(f.s.args[1].ref.p);
    for (int i = 0; i < 2; i++)
        lg_buf_free(&f.s.args[i].data);
    lg_buf_free(&f.s.args[1].ref);
    unlink("result.txt");
    ck_assert_int_eq(chdir(cwd), 0);
    rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("harness buffers");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_parts_bounded);
    tcase_add_test(tc, test_every_element_once);
    tcase_add_test(tc, test_fill_same_on_one_cpu);
    tcase_add_test(tc, test_fill_values_are_the_draws);
    tcase_add_test(tc, test_digest_sees_every_byte);
    tcase_add_test(tc, test_draw_digest_is_the_buffers);
    tcase_add_test(tc, test_compare_counts_across_parts);
    tcase_add_test(tc, test_compare_other_types);
    tcase_add_test(tc, test_large_host_buffers_huge_page_aligned);
    tcase_add_test(tc, test_guard_copied_from_another_buffer);
    tcase_add_test(tc, test_guard_canary_is_each_buffers_own);
    tcase_add_test(tc, test_guard_canary_per_run);
    tcase_add_test(tc, test_fence_host);
    tcase_add_test(tc, test_fence_fault_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
