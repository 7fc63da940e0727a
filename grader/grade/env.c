/* env: what stays the same across submissions (grade.h): toolchain, GPU, caches, limits. */
#include "grade/grade.h"
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/sha256.h"
#include "base/trace.h"
#include "grade/bootmemo.h"
#include "grade/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void grade_env_init(struct grade_env *env)
{
    memset(env, 0, sizeof(*env));
    toolchain_init(&env->tc);
    gpu_probe_init(&env->gpu);
    turns_init(&env->turns);
}

void grade_env_release(struct grade_env *env)
{
    toolchain_release(&env->tc);
    gpu_probe_release(&env->gpu);
    turns_release(&env->turns);
    free(env->cache_dir);
    free(env->gpu_memo);
    for (size_t i = 0; i < env->n_ref_times; i++) {
        free(env->ref_times[i].key);
        free(env->ref_times[i].message);
    }
    free(env->ref_times);
    for (size_t i = 0; i < env->n_sealed_ok; i++)
        free(env->sealed_ok[i]);
    free(env->sealed_ok);
    free(env->sanitizer);
    free(env->blas_forced);
    free(env->blas_chosen);
    grade_env_init(env);
}

void grade_opts_init(struct grade_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->gpu_policy = GPU_POLICY_DEFAULT;
}

struct say {
    FILE *log;
    const struct messages *msgs;
};

static void say_waiting(void *arg)
{
    const struct say *s = arg;
    if (s->log)
        fprintf(s->log, "%s",
                messages_get(s->msgs, "waiting for another grader of this machine measuring its "
                                      "limits ...\n"));
}

/* While the measurement waits for the machine's turn: the console says so, and who holds it. */
static void say_queued(void *arg, double waited_s, const char *holders)
{
    const struct say *s = arg;
    if (!s->log)
        return;
    fprintf(s->log,
            messages_get(s->msgs, "  queued: waiting %.0f s for this machine's turn to measure "
                                  "its limits (held by %s)\n"),
            waited_s, holders ? holders : "?");
    fflush(s->log);
}

/* Run build/harness/calibrate (args: NULL or "--core") in the sandbox; its output, or NULL.
 * The measurement of the machine's limits has its lane's cores and GPU to itself through the
 * timing coordinator, as a timed series has: limits measured beside other graders' work would
 * be too low, and honest code judged against them impossibly fast. Not measured alone (the
 * machine held past the wait): nothing, so that nothing is kept. */
static char *run_calibrate(struct grade_env *env, const char *arg, double limit_s, struct say *say)
{
    char *prog = path_join(env->tc.harness_dir, "calibrate"), *out = NULL;
    const char *argv[] = {prog, arg, NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct turns_locks locks;
    struct error err;
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    error_init(&err);
    o.argv = argv;
    o.workdir = "/tmp";
    o.wall_limit_s = limit_s;
    o.isolation = ISOLATION_SUPERVISOR;
    o.env = (const char *const *)env->tc.env;
    o.gpu = env->gpu.available && !arg;
    memset(&locks, 0, sizeof(locks));
    if (!arg && !env->turns.problem) {
        turns_join(&env->turns, TURNS_EXCLUSIVE, o.gpu, &o, &locks);
        o.on_wait = say ? say_queued : NULL;
        o.on_wait_arg = say;
    }
    if (file_exists(prog) && sandbox_run(&o, &r, &err) == 0 && r.status == SB_EXITED &&
        r.exit_code == 0 && r.output && !r.uncoordinated)
        out = xstrdup(r.output);
    sandbox_result_release(&r);
    turns_locks_release(&locks);
    free(prog);
    return out;
}

/*
 * OpenBLAS on its best kernel: the user's OPENBLAS_CORETYPE goes through as it is (the
 * toolchain passes it); otherwise, when the kernel OpenBLAS chose is older than the CPU
 * supports, every child gets the right one (calibration.h).
 */
static void choose_blas_core(struct grade_env *env)
{
    const char *user = getenv("OPENBLAS_CORETYPE");
    if (user && *user)
        return;
    char *prog = path_join(env->tc.harness_dir, "calibrate");
    char *memo = bootmemo_path(env->cache_dir, "blascore", prog, NULL, 0);
    char *out = memo ? bootmemo_read(memo) : NULL, core[32] = "";
    bool remembered = out != NULL;
    if (!out)
        out = run_calibrate(env, "--core", 30, NULL);
    if (out && sscanf(out, "openblas_core %31s", core) == 1) {
        char *flags = calibration_cpu_flags();
        const char *best = calibration_blas_core(core, flags);
        env->blas_chosen = xstrdup(core);
        if (best) {
            env->blas_forced = xstrdup(best);
            toolchain_setenv(&env->tc, "OPENBLAS_CORETYPE", best);
        }
        free(flags);
        if (!remembered && memo)
            bootmemo_write(memo, out, NULL);
    }
    trace_point("BLAS core chosen%s", remembered ? " (remembered)" : "");
    free(out);
    free(memo);
    free(prog);
}

/* The GPU probe's answer, remembered for the boot where the GPU answered (bootmemo.h): a
 * check then creates no CUDA context before its first run. */
static void probe_gpu(struct grade_env *env)
{
    if (gpu_probe_disabled(&env->gpu, &env->tc)) {
        trace_point("GPU probed: none (%s)", env->gpu.reason);
        return;
    }
    char *prog = path_join(env->tc.harness_dir, "gpuprobe");
    char *driver = read_first_line("/proc/driver/nvidia/version");
    const char *extra[] = {driver, getenv("CUDA_VISIBLE_DEVICES"), getenv("NVIDIA_VISIBLE_DEVICES"),
                           getenv("CUDA_DEVICE_ORDER")};
    char *memo = driver ? bootmemo_path(env->cache_dir, "gpuprobe", prog, extra, 4) : NULL;
    char *text = memo ? bootmemo_read(memo) : NULL;
    if (text && gpu_probe_from_output(&env->gpu, text)) {
        trace_point("GPU probed: available (remembered)");
    } else {
        char *out = NULL;
        gpu_probe_release(&env->gpu);
        gpu_probe_run(&env->gpu, &env->tc, &out);
        if (out && memo)
            bootmemo_write(memo, out, NULL);
        free(out);
        trace_point("GPU probed: %s", env->gpu.available ? "available" : "none");
    }
    free(text);
    env->gpu_memo = memo;
    free(driver);
    free(prog);
}

/* The machine's timing coordinator (run/turns.h): a lane per GPU this process sees, and the
 * lane of the GPU it grades on (CUDA's device 0: the first of CUDA_VISIBLE_DEVICES). */
void grade_env_place(struct grade_env *env, int device)
{
    int n_gpus = env->gpu.available && env->gpu.count > 0 ? env->gpu.count : 1;
    int n_keys = env->gpu.n_pci < n_gpus ? env->gpu.n_pci : n_gpus;
    const char *key =
        env->gpu.available && device >= 0 && device < n_keys ? env->gpu.pci[device] : NULL;
    turns_place(&env->turns, key ? turns_lane_of(key, env->gpu.pci, (size_t)n_keys) : 0, key);
}

static void take_lane(struct grade_env *env)
{
    turns_setup(&env->turns, env->gpu.available && env->gpu.count > 0 ? env->gpu.count : 1);
    grade_env_place(env, 0);
    env->tc.turns = &env->turns;
}

int grade_env_setup(struct grade_env *env, const char *harness_dir, const char *include_dir,
                    const char *cache_dir, enum isolation iso, struct error *err)
{
    if (toolchain_detect(&env->tc, harness_dir, include_dir, err) != 0)
        return -1;
    env->tc.isolation = iso;
    trace_point("toolchain detected");
    /* One cache for several output folders (a course machine, a test run): its entries are
     * keyed by content and published atomically, so graders may share it. */
    const char *shared = getenv("LABGRADER_CACHE");
    if (shared && *shared)
        cache_dir = shared;
    if (mkdir_p(cache_dir, err) != 0)
        return -1;
    /* Absolute: programs run with their own scratch folder as working directory. */
    env->cache_dir = path_abs(cache_dir, err);
    if (!env->cache_dir)
        return -1;
    probe_gpu(env);
    take_lane(env);
    env->cal.valid = false;
    if (env->gpu.available && env->gpu.cc) {
        int major = 0, minor = 0;
        if (sscanf(env->gpu.cc, "%d.%d", &major, &minor) == 2)
            env->tc.gpu_arch = xstrfmt("sm_%d%d", major, minor);
    }
    if (env->memory_limit_bytes == 0) {
        /* Three quarters of the machine's memory: a runaway allocation costs its own
         * grade, not the grader. */
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            env->memory_limit_bytes = (long long)pages * page / 4 * 3;
    }
    const char *off = getenv("LABGRADER_NO_CALIBRATE");
    if (!(off && *off))
        choose_blas_core(env);
    return 0;
}

/* The cache key of this machine's calibration: host, GPU, toolchain, and the BLAS kernel (a
 * changed kernel is a changed machine). */
static char *calibration_path(const struct grade_env *env)
{
    struct sha256 h;
    char hex[65], host[256] = "";
    gethostname(host, sizeof(host) - 1);
    const char *core = getenv("OPENBLAS_CORETYPE");
    const char *parts[] = {host,          env->gpu.name,    env->tc.nvcc_version,
                           "calibrate-2", env->blas_forced, core};
    sha256_init(&h);
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        sha256_update(&h, parts[i] ? parts[i] : "-", strlen(parts[i] ? parts[i] : "-") + 1);
    sha256_final_hex(&h, hex);
    hex[16] = '\0';
    return xstrfmt("%s/calibration/%s.txt", env->cache_dir, hex);
}

/* The machine's calibration as cached, into text; false when there is none to trust: the limits
 * decide "impossible time" verdicts, so an edited or damaged file is measured again (cache.h). */
static bool calibration_cached(const char *path, struct strbuf *text)
{
    char why[512];
    enum cache_check cc = cache_check_file(path, why, sizeof(why));
    if (cc == CACHE_BAD)
        cache_discard(path, why);
    strbuf_reset(text);
    return cc == CACHE_OK && read_file(path, text, NULL) == 0;
}

void grade_calibrate(struct grade_env *env, FILE *log)
{
    grade_calibrate_say(env, log, NULL);
}

void grade_calibrate_say(struct grade_env *env, FILE *log, const struct messages *msgs)
{
    const char *off = getenv("LABGRADER_NO_CALIBRATE");
    if (off && *off)
        return;
    char *path = calibration_path(env);
    struct strbuf text = STRBUF_INIT;
    /* One grader of the machine measures it; the others wait, then read what it measured. */
    struct say say = {log, msgs};
    bool cached = calibration_cached(path, &text);
    int fd = cached ? -1 : cache_lock(path, say_waiting, &say);
    if (!cached && !calibration_cached(path, &text)) {
        strbuf_reset(&text);
        if (log)
            fprintf(log, "%s",
                    messages_get(msgs, "measuring this machine's limits once (memory bandwidth, "
                                       "BLAS, GPU copies) ...\n"));
        char *out = run_calibrate(env, NULL, 180, &say);
        if (out) {
            strbuf_addstr(&text, out);
            char *dir = xstrdup(path);
            *strrchr(dir, '/') = '\0';
            mkdir_p(dir, NULL);
            if (write_file_atomic(path, text.buf, text.len, NULL) == 0)
                cache_seal_file(path, NULL);
            free(dir);
        }
        free(out);
    }
    cache_unlock(fd);
    calibration_parse(strbuf_str(&text), &env->cal);
    trace_point("calibration loaded");
    strbuf_release(&text);
    free(path);
}
