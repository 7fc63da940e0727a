#include "grade/calibration.h"

#include "base/alloc.h"
#include "base/messages.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void calibration_parse(const char *text, struct calibration *c)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"cpu_bw_gbs", offsetof(struct calibration, cpu_bw_gbs)},
        {"cpu_sgemm_gflops", offsetof(struct calibration, cpu_sgemm_gflops)},
        {"gpu_copy_gbs", offsetof(struct calibration, gpu_copy_gbs)},
        {"h2d_pinned_gbs", offsetof(struct calibration, h2d_pinned_gbs)},
        {"h2d_pageable_gbs", offsetof(struct calibration, h2d_pageable_gbs)},
        {"d2h_pinned_gbs", offsetof(struct calibration, d2h_pinned_gbs)},
        {"d2h_pageable_gbs", offsetof(struct calibration, d2h_pageable_gbs)},
        {"gpu_sgemm_gflops", offsetof(struct calibration, gpu_sgemm_gflops)},
        {"gpu_tf32_gflops", offsetof(struct calibration, gpu_tf32_gflops)},
    };
    memset(c, 0, sizeof(*c));
    for (const char *line = text; line && *line;) {
        char key[64], word[32];
        double v;
        if (sscanf(line, "%63s %lf", key, &v) == 2) {
            for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                if (!strcmp(key, keys[i].key))
                    *(double *)((char *)c + keys[i].off) = v;
            if (!strcmp(key, "gpu_l2_bytes"))
                c->gpu_l2_bytes = (long)v;
        } else if (sscanf(line, "openblas_core %31s", word) == 1) {
            snprintf(c->openblas_core, sizeof(c->openblas_core), "%s", word);
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    c->cpu_cache_bytes = calibration_cpu_cache_bytes();
    c->valid = c->cpu_bw_gbs > 0;
}

char *calibration_summary(const struct calibration *c, const struct messages *m)
{
    struct strbuf sb = STRBUF_INIT;
    if (!c->valid)
        return NULL;
    strbuf_addf(&sb, messages_get(m, "CPU memory %.1f GB/s, OpenBLAS SGEMM %.0f GFLOP/s"),
                c->cpu_bw_gbs, c->cpu_sgemm_gflops);
    if (c->openblas_core[0])
        strbuf_addf(&sb, messages_get(m, " (%s kernels)"), c->openblas_core);
    if (c->gpu_copy_gbs > 0)
        strbuf_addf(&sb,
                    messages_get(m, "; GPU copy %.0f GB/s, host-to-device %.1f GB/s pinned / "
                                    "%.1f GB/s pageable, device-to-host %.1f / %.1f GB/s, cuBLAS "
                                    "SGEMM %.0f GFLOP/s"),
                    c->gpu_copy_gbs, c->h2d_pinned_gbs, c->h2d_pageable_gbs, c->d2h_pinned_gbs,
                    c->d2h_pageable_gbs, c->gpu_sgemm_gflops);
    if (c->gpu_tf32_gflops > 0)
        strbuf_addf(&sb, messages_get(m, " (TF32 tensor cores %.0f GFLOP/s)"), c->gpu_tf32_gflops);
    return strbuf_detach(&sb);
}

/* OpenBLAS's x86 kernel families, oldest first: a later one needs the CPU features of the
 * earlier ones (and its own). */
static const char *const cores[] = {"Prescott",    "Core2",   "Penryn",   "Dunnington", "Nehalem",
                                    "Sandybridge", "Haswell", "SkylakeX", "Cooperlake", NULL};

static int core_rank(const char *name)
{
    for (int i = 0; cores[i]; i++)
        if (!strcasecmp(cores[i], name))
            return i;
    return -1; /* an unknown name (another architecture): leave it alone */
}

static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)); p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
            return true;
    return false;
}

const char *calibration_blas_core(const char *chosen, const char *cpu_flags)
{
    const char *best = NULL;
    if (has_flag(cpu_flags, "avx512f") && has_flag(cpu_flags, "avx512bw") &&
        has_flag(cpu_flags, "avx512vl") && has_flag(cpu_flags, "avx512dq"))
        best = "SkylakeX";
    else if (has_flag(cpu_flags, "avx2") && has_flag(cpu_flags, "fma"))
        best = "Haswell";
    else if (has_flag(cpu_flags, "avx"))
        best = "Sandybridge";
    int have = core_rank(chosen);
    if (!best || have < 0 || have >= core_rank(best))
        return NULL;
    return best;
}

char *calibration_cpu_flags(void)
{
    struct strbuf text = STRBUF_INIT;
    char *flags = NULL;
    if (read_file("/proc/cpuinfo", &text, NULL) == 0) {
        const char *p = strstr(text.buf, "\nflags");
        if (p && (p = strchr(p, ':')))
            flags = xstrndup(p + 1, strcspn(p + 1, "\n"));
    }
    strbuf_release(&text);
    return flags ? flags : xstrdup("");
}

long calibration_cpu_cache_bytes(void)
{
    long best = 0;
    for (int i = 0; i < 8; i++) {
        char path[128];
        struct strbuf t = STRBUF_INIT;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_file(path, &t, NULL) == 0) {
            char unit = 0;
            long v = 0;
            if (sscanf(t.buf, "%ld%c", &v, &unit) >= 1) {
                v *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
                best = v > best ? v : best;
            }
        }
        strbuf_release(&t);
    }
    return best;
}

double calibration_bus_gbs(const struct calibration *c, const struct exercise_spec *ex,
                           const struct variant_spec *v, const char **what, double *peak_gbs)
{
    bool in_host = false, in_dev = false, out_host = false, out_dev = false, pageable = false;
    *what = NULL;
    *peak_gbs = 0;
    if (!c->valid || v->target != TARGET_GPU)
        return 0;
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        if (a->kind == ARG_SCALAR)
            continue;
        enum mem_space m = variant_arg_memory(v, ex, i);
        bool host = m != MEM_DEVICE;
        pageable = pageable || m == MEM_HOST;
        if (a->kind != ARG_OUT)
            *(host ? &in_host : &in_dev) = true;
        if (a->kind != ARG_IN)
            *(host ? &out_host : &out_dev) = true;
    }
    double gbs;
    if (in_host && !in_dev && out_dev && !out_host) {
        gbs = pageable ? c->h2d_pageable_gbs : c->h2d_pinned_gbs;
        *peak_gbs = c->h2d_pinned_gbs;
        *what = pageable ? "pageable host-to-device" : "pinned host-to-device";
    } else if (in_dev && !in_host && out_host && !out_dev) {
        gbs = pageable ? c->d2h_pageable_gbs : c->d2h_pinned_gbs;
        *peak_gbs = c->d2h_pinned_gbs;
        *what = pageable ? "pageable device-to-host" : "pinned device-to-host";
    } else {
        return 0;
    }
    if (gbs <= 0) {
        *what = NULL;
        *peak_gbs = 0;
    }
    return gbs > 0 ? gbs : 0;
}
