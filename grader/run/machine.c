#include "run/machine.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void gpu_probe_init(struct gpu_probe *g)
{
    memset(g, 0, sizeof(*g));
}

bool gpu_probe_room_for_several(const struct gpu_probe *g)
{
    return !(g->memory_mib > 0 && g->memory_mib < GPU_ROOM_FOR_SEVERAL_MIB);
}

void gpu_probe_release(struct gpu_probe *g)
{
    free(g->reason);
    free(g->name);
    free(g->cc);
    free(g->driver);
    free(g->runtime);
    for (int i = 0; i < g->n_pci; i++)
        free(g->pci[i]);
    free(g->pci);
    gpu_probe_init(g);
}

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = xstrdup(v);
}

/* Device d's PCI bus id, lower case (what every process sees alike, whatever its
 * CUDA_VISIBLE_DEVICES: the timing coordinator's name for the GPU, run/turns.h). */
static void set_pci(struct gpu_probe *g, long d, const char *v)
{
    if (d < 0 || d > 4096)
        return;
    if (d >= g->n_pci) {
        g->pci = xrealloc(g->pci, (size_t)(d + 1) * sizeof(char *));
        for (long i = g->n_pci; i <= d; i++)
            g->pci[i] = NULL;
        g->n_pci = (int)d + 1;
    }
    set_str(&g->pci[d], v);
    for (char *c = g->pci[d]; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
}

/* One "key value" line of the probe's output; device 0's lines describe the GPU used. */
static void probe_line(struct gpu_probe *g, const char *key, const char *v, long *device)
{
    long n;
    bool in_device0 = *device == 0;
    if (!strcmp(key, "device"))
        *device = parse_long(v, &n) ? n : -1;
    else if (!strcmp(key, "pci"))
        set_pci(g, *device, v);
    else if (!strcmp(key, "error"))
        set_str(&g->reason, v);
    else if (!strcmp(key, "runtime"))
        set_str(&g->runtime, v);
    else if (!strcmp(key, "driver_api"))
        set_str(&g->driver, v);
    else if (!strcmp(key, "count") && parse_long(v, &n))
        g->count = (int)n;
    else if (!in_device0)
        return;
    else if (!strcmp(key, "name"))
        set_str(&g->name, v);
    else if (!strcmp(key, "cc"))
        set_str(&g->cc, v);
    else if (!strcmp(key, "memory_mib") && parse_long(v, &n))
        g->memory_mib = n;
    else if (!strcmp(key, "l2_bytes") && parse_long(v, &n))
        g->l2_bytes = n;
    else if (!strcmp(key, "sms") && parse_long(v, &n))
        g->sms = (int)n;
}

/* The probe's "key value" lines (text is consumed). */
static void probe_parse(struct gpu_probe *g, char *text)
{
    long device = -1;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n'), *sp;
        if (nl)
            *nl = '\0';
        if ((sp = strchr(line, ' '))) {
            *sp = '\0';
            probe_line(g, line, sp + 1, &device);
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* The probe's output read (it is consumed), and why there is no GPU where there is none. */
static void probe_read(struct gpu_probe *g, const struct sandbox_result *r)
{
    probe_parse(g, r->output);
    g->available = r->status == SB_EXITED && r->exit_code == 0 && g->name;
    if (!g->available && !g->reason) {
        char d[256];
        sandbox_describe(r, d, sizeof(d));
        g->reason = xstrfmt("the GPU probe failed: %s", d);
    }
    if (!g->available && g->reason && strncmp(g->reason, "no ", 3) != 0) {
        char *old = g->reason;
        g->reason = xstrfmt("no usable CUDA device: %s", old);
        free(old);
    }
}

bool gpu_probe_from_output(struct gpu_probe *g, const char *output)
{
    char *text = xstrdup(output);
    probe_parse(g, text);
    free(text);
    g->available = g->name && !g->reason;
    return g->available;
}

bool gpu_probe_disabled(struct gpu_probe *g, const struct toolchain *tc)
{
    const char *forced = getenv("LABGRADER_NO_GPU");
    if (forced && *forced) {
        g->reason = xstrfmt("GPU disabled by LABGRADER_NO_GPU=%s", forced);
        return true;
    }
    if (tc->no_cuda_reason) {
        g->reason = xstrdup(tc->no_cuda_reason);
        return true;
    }
    return false;
}

void gpu_probe_run(struct gpu_probe *g, const struct toolchain *tc, char **output)
{
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    if (output)
        *output = NULL;
    if (gpu_probe_disabled(g, tc))
        return;
    char *prog = path_join(tc->harness_dir, "gpuprobe");
    if (!file_exists(prog)) {
        g->reason = xstrfmt("%s is missing: run 'make'", prog);
        free(prog);
        return;
    }
    const char *argv[] = {prog, NULL};
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    o.argv = argv;
    o.workdir = "/tmp";
    o.wall_limit_s = 60;
    o.isolation = ISOLATION_SUPERVISOR;
    o.env = (const char *const *)tc->env;
    o.gpu = true;
    if (sandbox_run(&o, &r, &err) != 0) {
        g->reason = xstrfmt("cannot run the GPU probe: %s", err.msg);
    } else {
        char *raw = output && r.output ? xstrdup(r.output) : NULL;
        probe_read(g, &r);
        if (g->available && output)
            *output = raw;
        else
            free(raw);
    }
    /* A run that could not start still holds its (empty) output. */
    sandbox_result_release(&r);
    free(prog);
}

static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    char *model = NULL;
    if (!f)
        return xstrdup("unknown");
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5)) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = '\0';
                model = xstrdup(colon);
                break;
            }
        }
    }
    fclose(f);
    return model ? model : xstrdup("unknown");
}

void machine_info_collect(struct machine_info *m, const struct toolchain *tc,
                          const struct gpu_probe *g, const struct lab *lab)
{
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    m->hostname = xstrdup(host);
    m->cpu_model = cpu_model();
    m->cpu_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (g->available) {
        m->gpu_name = xstrdup(g->name);
        m->gpu_cc = xstrdup(g->cc ? g->cc : "?");
        m->gpu_memory_mib = g->memory_mib;
        m->gpu_status = xstrdup("available");
    } else {
        m->gpu_status = xstrdup(g->reason ? g->reason : "no GPU");
    }
    m->driver_version = g->driver ? xstrdup(g->driver) : NULL;
    m->cuda_runtime_version = g->runtime ? xstrdup(g->runtime) : NULL;
    m->cc_version = tc->cc_version ? xstrdup(tc->cc_version) : NULL;
    m->nvcc_version = tc->nvcc_version ? xstrdup(tc->nvcc_version) : NULL;
    m->cflags = toolchain_cflags(tc, lab);
    m->nvccflags = tc->nvcc ? toolchain_nvccflags(tc, lab) : NULL;
}
