#include "run/ncu.h"

#include "run/cudatool.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ncu's raw names, checked against Nsight Compute's metric reference and its section files
 * (SpeedOfLight, Occupancy, LaunchStats, MemoryWorkloadAnalysis, WarpStateStats). */
static const struct {
    const char *name, *key;
} metrics[NCU_METRIC_COUNT] = {
    [NCU_DURATION_NS] = {"gpu__time_duration.sum", "duration_ns"},
    [NCU_DRAM_PCT] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_pct"},
    [NCU_SM_PCT] = {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_pct"},
    [NCU_OCC_ACHIEVED] = {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct"},
    [NCU_OCC_THEORETICAL] = {"sm__maximum_warps_per_active_cycle_pct", "occupancy_max_pct"},
    [NCU_REGISTERS] = {"launch__registers_per_thread", "registers"},
    [NCU_SMEM_STATIC] = {"launch__shared_mem_per_block_static", "smem_static"},
    [NCU_SMEM_DYNAMIC] = {"launch__shared_mem_per_block_dynamic", "smem_dynamic"},
    [NCU_GRID] = {"launch__grid_size", "grid"},
    [NCU_BLOCK] = {"launch__block_size", "block"},
    [NCU_LIMIT_REGISTERS] = {"launch__occupancy_limit_registers", "limit_registers"},
    [NCU_LIMIT_SMEM] = {"launch__occupancy_limit_shared_mem", "limit_smem"},
    [NCU_LIMIT_WARPS] = {"launch__occupancy_limit_warps", "limit_warps"},
    [NCU_LIMIT_BLOCKS] = {"launch__occupancy_limit_blocks", "limit_blocks"},
    [NCU_LD_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "ld_sectors"},
    [NCU_LD_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "ld_requests"},
    [NCU_ST_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "st_sectors"},
    [NCU_ST_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "st_requests"},
};

const char *ncu_metric_name(enum ncu_metric m)
{
    return (unsigned)m < NCU_METRIC_COUNT ? metrics[m].name : "?";
}

const char *ncu_metric_key(enum ncu_metric m)
{
    return (unsigned)m < NCU_METRIC_COUNT ? metrics[m].key : "?";
}

int ncu_metric_from_key(const char *key)
{
    for (int m = 0; key && m < NCU_METRIC_COUNT; m++)
        if (!strcmp(metrics[m].key, key))
            return m;
    return -1;
}

static int metric_from_name(const char *name)
{
    for (int m = 0; name && m < NCU_METRIC_COUNT; m++)
        if (!strcmp(metrics[m].name, name))
            return m;
    return -1;
}

void ncu_profile_init(struct ncu_profile *p)
{
    memset(p, 0, sizeof(*p));
}

static void line_release(struct ncu_line *l)
{
    free(l->file);
    free(l->source);
}

void ncu_profile_release(struct ncu_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        free(p->kernels[i].name);
        line_release(&p->kernels[i].hot_line);
        line_release(&p->kernels[i].excess_line);
        for (size_t s = 0; s < p->kernels[i].n_stalls; s++)
            free(p->kernels[i].stalls[s].reason);
    }
    free(p->kernels);
    ncu_profile_init(p);
}

/* ---- values and units ---- */

/* Units that need scaling to the base (nanoseconds, bytes). Any other unit (%, register/thread,
 * block, sector, cycle, "") is a count or a ratio taken as printed; an unknown unit of time or
 * size is not measured. */
static const struct {
    const char *unit;
    double scale;
} unit_scales[] = {
    {"nsecond", 1},   {"ns", 1},         {"usecond", 1e3},     {"us", 1e3}, {"msecond", 1e6},
    {"ms", 1e6},      {"second", 1e9},   {"s", 1e9},           {"byte", 1}, {"Kbyte", 1e3},
    {"Mbyte", 1e6},   {"Gbyte", 1e9},    {"KB", 1e3},          {"MB", 1e6}, {"KiB", 1024},
    {"MiB", 1048576}, {"byte/block", 1}, {"Kbyte/block", 1e3},
};

double ncu_value(const char *value, const char *unit)
{
    char digits[64];
    size_t n = 0;
    if (!value)
        return NAN;
    for (const char *p = value; *p && n + 1 < sizeof(digits); p++)
        if (*p != ',')
            digits[n++] = *p;
    digits[n] = '\0';
    char *end;
    double v = strtod(digits, &end);
    if (end == digits || *end != '\0' || !isfinite(v))
        return NAN;
    if (!unit)
        unit = "";
    for (size_t i = 0; i < sizeof(unit_scales) / sizeof(unit_scales[0]); i++)
        if (!strcmp(unit_scales[i].unit, unit))
            return v * unit_scales[i].scale;
    if (strstr(unit, "second") || strstr(unit, "byte"))
        return NAN;
    return v;
}

/* ---- CSV ---- */

/* One CSV record starting at *pos (quoted fields may hold commas, doubled quotes and newlines);
 * *pos moves past it. Returns the number of fields, 0 at the end. */
#define CSV_MAX_FIELDS 4096
static size_t csv_record(const char *text, size_t len, size_t *pos, char **fields)
{
    size_t n = 0, i = *pos;
    if (i >= len)
        return 0;
    struct strbuf cur = STRBUF_INIT;
    bool quoted = false;
    for (; i < len; i++) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < len && text[i + 1] == '"')
                strbuf_addch(&cur, text[++i]);
            else if (c == '"')
                quoted = false;
            else
                strbuf_addch(&cur, c);
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            if (n < CSV_MAX_FIELDS)
                fields[n++] = xstrdup(strbuf_str(&cur));
            strbuf_reset(&cur);
        } else if (c == '\n') {
            i++;
            break;
        } else if (c != '\r') {
            strbuf_addch(&cur, c);
        }
    }
    if (n < CSV_MAX_FIELDS)
        fields[n++] = xstrdup(strbuf_str(&cur));
    strbuf_release(&cur);
    *pos = i;
    return n;
}

static void fields_free(char **fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(fields[i]);
}

static int column(char *const *header, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(header[i], name))
            return (int)i;
    return -1;
}

/* ---- kernels ---- */

static struct ncu_kernel *kernel_for(struct ncu_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (!strcmp(p->kernels[i].name, name))
            return &p->kernels[i];
    p->kernels = xrealloc(p->kernels, (p->n_kernels + 1) * sizeof(*p->kernels));
    struct ncu_kernel *k = &p->kernels[p->n_kernels++];
    memset(k, 0, sizeof(*k));
    k->name = xstrdup(name);
    k->total_ns = NAN;
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        k->m[m] = NAN;
    return k;
}

/* One launch's values, gathered before they are merged into its kernel. */
struct launch {
    double m[NCU_METRIC_COUNT];
    struct ncu_stall stalls[NCU_MAX_STALLS];
    size_t n_stalls;
};

static void launch_init(struct launch *l)
{
    memset(l, 0, sizeof(*l));
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        l->m[m] = NAN;
}

static void launch_release(struct launch *l)
{
    for (size_t s = 0; s < l->n_stalls; s++)
        free(l->stalls[s].reason);
}

/* Keep the NCU_MAX_STALLS largest, largest first. */
static void launch_stall(struct launch *l, const char *metric, double cycles)
{
    size_t np = strlen(NCU_STALL_PREFIX), ns = strlen(NCU_STALL_SUFFIX), n = strlen(metric);
    if (isnan(cycles) || cycles <= 0 || n <= np + ns ||
        strcmp(metric + n - ns, NCU_STALL_SUFFIX) != 0)
        return;
    /* A warp selected, or ready but not selected, is issuing or could: not waiting on anything. */
    if ((n - np - ns == 8 && !strncmp(metric + np, "selected", 8)) ||
        (n - np - ns == 12 && !strncmp(metric + np, "not_selected", 12)))
        return;
    size_t at = l->n_stalls;
    while (at > 0 && l->stalls[at - 1].cycles < cycles)
        at--;
    if (at >= NCU_MAX_STALLS)
        return;
    if (l->n_stalls == NCU_MAX_STALLS)
        free(l->stalls[--l->n_stalls].reason);
    memmove(&l->stalls[at + 1], &l->stalls[at], (l->n_stalls - at) * sizeof(l->stalls[0]));
    l->stalls[at].reason = xstrndup(metric + np, n - np - ns);
    l->stalls[at].cycles = cycles;
    l->n_stalls++;
}

static void launch_value(struct launch *l, const char *metric, const char *unit, const char *value)
{
    int m = metric_from_name(metric);
    double v = ncu_value(value, unit);
    if (m >= 0)
        l->m[m] = v;
    else if (!strncmp(metric, NCU_STALL_PREFIX, strlen(NCU_STALL_PREFIX)))
        launch_stall(l, metric, v);
}

/* The harness's own kernels (grader/harness/harness_gpu.cu) are not the student's. */
static bool harness_kernel(const char *name)
{
    const char *p = name;
    if (!strncmp(p, "void ", 5))
        p += 5;
    return !strncmp(p, "lg_", 3);
}

static void launch_merge(struct ncu_profile *p, const char *name, struct launch *l)
{
    p->rows++;
    if (harness_kernel(name)) {
        p->skipped++;
        launch_release(l);
        return;
    }
    struct ncu_kernel *k = kernel_for(p, name);
    double d = l->m[NCU_DURATION_NS];
    k->launches++;
    if (!isnan(d))
        k->total_ns = isnan(k->total_ns) ? d : k->total_ns + d;
    bool longest = k->launches == 1 ||
                   (!isnan(d) && (isnan(k->m[NCU_DURATION_NS]) || d > k->m[NCU_DURATION_NS]));
    if (!longest) {
        launch_release(l);
        return;
    }
    for (size_t s = 0; s < k->n_stalls; s++)
        free(k->stalls[s].reason);
    memcpy(k->m, l->m, sizeof(k->m));
    memcpy(k->stalls, l->stalls, sizeof(k->stalls));
    k->n_stalls = l->n_stalls;
}

/* The raw page: a header of columns, a row of units, one row per launch. */
static void parse_wide(const char *text, size_t len, size_t pos, char **header, size_t nh,
                       struct ncu_profile *p)
{
    char **units = xcalloc(CSV_MAX_FIELDS, sizeof(char *));
    char **row = xcalloc(CSV_MAX_FIELDS, sizeof(char *));
    int name_col = column(header, nh, "Kernel Name");
    size_t nu = csv_record(text, len, &pos, units);
    size_t nr;
    while ((nr = csv_record(text, len, &pos, row)) > 0) {
        if (nr == nh && name_col >= 0 && *row[name_col]) {
            struct launch l;
            launch_init(&l);
            for (size_t c = 0; c < nh; c++)
                launch_value(&l, header[c], c < nu ? units[c] : "", row[c]);
            launch_merge(p, row[name_col], &l);
        }
        fields_free(row, nr);
    }
    fields_free(units, nu);
    free(units);
    free(row);
}

/* The details page: one row per metric, launches told apart by their ID. */
static void parse_long(const char *text, size_t len, size_t pos, char **header, size_t nh,
                       struct ncu_profile *p)
{
    int c_id = column(header, nh, "ID"), c_name = column(header, nh, "Kernel Name");
    int c_metric = column(header, nh, "Metric Name"), c_unit = column(header, nh, "Metric Unit");
    int c_value = column(header, nh, "Metric Value");
    char **row = xcalloc(CSV_MAX_FIELDS, sizeof(char *));
    char *cur_id = NULL, *cur_name = NULL;
    struct launch l;
    launch_init(&l);
    size_t nr;
    while ((nr = csv_record(text, len, &pos, row)) > 0) {
        if (nr == nh && *row[c_name]) {
            if (cur_id && (strcmp(cur_id, row[c_id]) || strcmp(cur_name, row[c_name]))) {
                launch_merge(p, cur_name, &l);
                launch_init(&l);
                free(cur_id);
                free(cur_name);
                cur_id = NULL;
            }
            if (!cur_id) {
                cur_id = xstrdup(row[c_id]);
                cur_name = xstrdup(row[c_name]);
            }
            launch_value(&l, row[c_metric], c_unit >= 0 ? row[c_unit] : "", row[c_value]);
        }
        fields_free(row, nr);
    }
    if (cur_id)
        launch_merge(p, cur_name, &l);
    else
        launch_release(&l);
    free(cur_id);
    free(cur_name);
    free(row);
}

int ncu_parse_csv(const char *text, size_t len, struct ncu_profile *p)
{
    size_t pos = 0;
    /* The header is the first line that starts with "ID" (quoted or not) and names the kernel. */
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) + 1 : len - pos;
        if ((n >= 4 && !strncmp(line, "\"ID\"", 4)) || (n >= 3 && !strncmp(line, "ID,", 3)))
            break;
        pos += n;
    }
    if (pos >= len)
        return -1;
    char **header = xcalloc(CSV_MAX_FIELDS, sizeof(char *));
    size_t nh = csv_record(text, len, &pos, header);
    int rc = -1;
    if (column(header, nh, "Kernel Name") >= 0) {
        rc = 0;
        if (column(header, nh, "Metric Name") >= 0 && column(header, nh, "Metric Value") >= 0 &&
            column(header, nh, "ID") >= 0)
            parse_long(text, len, pos, header, nh, p);
        else
            parse_wide(text, len, pos, header, nh, p);
    }
    fields_free(header, nh);
    free(header);
    return rc;
}

/* ---- the source page ---- */

/* One file and line of one kernel, its counts summed over every block that names it. */
struct src_line {
    size_t kernel;
    char *file, *source;
    long line;
    double samples, excess, sectors; /* NAN: not measured */
};

struct src_state {
    struct ncu_profile *p;
    struct src_line *lines;
    size_t n;
    char *file;   /* the current block's file, base name */
    int kernel;   /* the current block's kernel; -1: none of ours */
    int c_source; /* the current header's columns; -1: not printed */
    int c_samples, c_excess, c_sectors;
    size_t n_header;
    bool header;
};

static int kernel_named(const struct ncu_profile *p, const char *name)
{
    const char *n = !strncmp(name, "void ", 5) ? name + 5 : name;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const char *k = p->kernels[i].name;
        if (!strncmp(k, "void ", 5))
            k += 5;
        if (!strcmp(k, n))
            return (int)i;
    }
    return -1;
}

static double add_count(double sum, double v)
{
    return isnan(v) ? sum : (isnan(sum) ? v : sum + v);
}

/* The line's text: spaces around it dropped, tabs made spaces, at most NCU_SOURCE_MAX bytes cut
 * before a UTF-8 character's continuation byte. */
static char *source_text(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    bool cut = n > NCU_SOURCE_MAX;
    if (cut) {
        n = NCU_SOURCE_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    char *out = xstrndup(s, n);
    for (char *c = out; *c; c++)
        if (*c == '\t' || *c == '\r' || *c == '\n')
            *c = ' ';
    if (!cut)
        return out;
    char *dots = xstrfmt("%s…", out);
    free(out);
    return dots;
}

bool ncu_source_missing(const char *source)
{
    if (!source)
        return true;
    while (*source == ' ' || *source == '\t')
        source++;
    size_t n = strlen(source);
    /* ncu's notes are one bracketed phrase; no line of C or CUDA both opens and closes so
     * while naming a source file it cannot open. */
    return n == 0 || (source[0] == '<' && source[n - 1] == '>' &&
                      (strstr(source, "nable to") || strstr(source, "source file") ||
                       strstr(source, "not available")));
}

char *ncu_source_line(const char *text, size_t len, long line)
{
    const char *p = text, *end = text + len;
    for (long k = 1; k < line && p < end; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (line < 1 || p >= end)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    char *raw = xstrndup(p, (size_t)((nl ? nl : end) - p));
    char *out = source_text(raw);
    free(raw);
    return out;
}

static double cell_value(char **row, size_t n, int col)
{
    return col >= 0 && (size_t)col < n ? ncu_value(row[col], "") : NAN;
}

static void src_row(struct src_state *st, char **row, size_t n)
{
    char *end;
    long line = strtol(row[0], &end, 10);
    if (st->kernel < 0 || !st->file || *end != '\0' || line <= 0 || n != st->n_header)
        return;
    struct src_line *l = NULL;
    for (size_t i = 0; i < st->n && !l; i++)
        if (st->lines[i].kernel == (size_t)st->kernel && st->lines[i].line == line &&
            !strcmp(st->lines[i].file, st->file))
            l = &st->lines[i];
    if (!l) {
        st->lines = xrealloc(st->lines, (st->n + 1) * sizeof(*st->lines));
        l = &st->lines[st->n++];
        *l = (struct src_line){(size_t)st->kernel, xstrdup(st->file), NULL, line, NAN, NAN, NAN};
        const char *text = st->c_source >= 0 ? row[st->c_source] : "";
        l->source = source_text(ncu_source_missing(text) ? "" : text);
    }
    l->samples = add_count(l->samples, cell_value(row, n, st->c_samples));
    l->excess = add_count(l->excess, cell_value(row, n, st->c_excess));
    l->sectors = add_count(l->sectors, cell_value(row, n, st->c_sectors));
}

static void src_header(struct src_state *st, char **row, size_t n)
{
    st->header = true;
    st->n_header = n;
    st->c_source = column(row, n, "Source");
    st->c_samples = column(row, n, "Warp Stall Sampling (All Samples)");
    st->c_excess = column(row, n, "L2 Theoretical Sectors Global Excessive");
    st->c_sectors = column(row, n, "L2 Theoretical Sectors Global");
}

static void src_record(struct src_state *st, char **row, size_t n)
{
    if (n == 2 && !strcmp(row[0], "File Path")) {
        free(st->file);
        st->file = xstrdup(path_base(row[1]));
    } else if (n == 2 && !strcmp(row[0], "Function Name")) {
        st->kernel = harness_kernel(row[1]) ? -1 : kernel_named(st->p, row[1]);
    } else if (n > 1 && !strcmp(row[0], "Line No")) {
        src_header(st, row, n);
    } else if (st->header && *row[0]) {
        src_row(st, row, n);
    }
}

/* The kernel's line with the largest count (samples: excess false), and its share. */
static bool pick_line(const struct src_state *st, size_t k, bool excess, struct ncu_line *out)
{
    const struct src_line *best = NULL;
    double total = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct src_line *l = &st->lines[i];
        double v = excess ? l->excess : l->samples;
        if (l->kernel != k || isnan(v))
            continue;
        total += v;
        if (v > 0 && (!best || v > (excess ? best->excess : best->samples)))
            best = l;
    }
    if (!best || total <= 0)
        return false;
    double v = excess ? best->excess : best->samples;
    *out = (struct ncu_line){xstrdup(best->file), best->line, xstrdup(best->source), v,
                             v / total,           NAN};
    if (excess && !isnan(best->sectors) && best->sectors > 0)
        out->wasted = v / best->sectors;
    return true;
}

int ncu_parse_source(const char *text, size_t len, struct ncu_profile *p)
{
    struct src_state st = {.p = p, .kernel = -1};
    char **row = xcalloc(CSV_MAX_FIELDS, sizeof(char *));
    size_t pos = 0, n;
    while ((n = csv_record(text, len, &pos, row)) > 0) {
        src_record(&st, row, n);
        fields_free(row, n);
    }
    int given = 0;
    for (size_t k = 0; k < p->n_kernels; k++) {
        struct ncu_kernel *kn = &p->kernels[k];
        line_release(&kn->hot_line);
        line_release(&kn->excess_line);
        memset(&kn->hot_line, 0, sizeof(kn->hot_line));
        memset(&kn->excess_line, 0, sizeof(kn->excess_line));
        bool hot = pick_line(&st, k, false, &kn->hot_line);
        given += pick_line(&st, k, true, &kn->excess_line) || hot;
    }
    for (size_t i = 0; i < st.n; i++) {
        free(st.lines[i].file);
        free(st.lines[i].source);
    }
    free(st.lines);
    free(st.file);
    free(row);
    return st.header ? given : -1;
}

/* ---- why a run gave nothing ---- */

static const char *const failure_names[] = {"ok", "no_permission", "no_kernel", "unsupported",
                                            "tool_failed"};

const char *ncu_failure_name(enum ncu_failure f)
{
    return (unsigned)f <= NCU_TOOL_FAILED ? failure_names[f] : "tool_failed";
}

int ncu_failure_parse(const char *name)
{
    for (int i = 0; name && i <= NCU_TOOL_FAILED; i++)
        if (!strcmp(failure_names[i], name))
            return i;
    return -1;
}

static bool contains(const char *text, size_t len, const char *what)
{
    return text && memmem(text, len, what, strlen(what)) != NULL;
}

static char *first_error(const char *text, size_t len)
{
    static const char prefix[] = "==ERROR== ";
    const char *at = text ? memmem(text, len, prefix, strlen(prefix)) : NULL;
    if (!at)
        return NULL;
    at += strlen(prefix);
    size_t n = strcspn(at, "\r\n");
    size_t left = len - (size_t)(at - text);
    return xstrndup(at, n < left ? (n < 300 ? n : 300) : left);
}

enum ncu_failure ncu_diagnose(const char *output, size_t len, int exit_code, char **detail)
{
    if (detail)
        *detail = first_error(output, len);
    if (contains(output, len, "ERR_NVGPUCTRPERM"))
        return NCU_NO_PERMISSION;
    if (contains(output, len, "No kernels were profiled"))
        return NCU_NO_KERNEL;
    if (contains(output, len, "is not supported") || contains(output, len, "not supported on"))
        return NCU_UNSUPPORTED;
    if (exit_code != 0 || contains(output, len, "==ERROR=="))
        return NCU_TOOL_FAILED;
    return NCU_OK;
}

/* ---- finding and running the tool ---- */

char *ncu_find(const char *cuda_home, const char *path_env, const char *nvcc_home)
{
    return cudatool_find("ncu", cuda_home, path_env, nvcc_home);
}

#define NCU_OPT_DIR "/opt/nvidia/nsight-compute"

/* System folders are visible in the sandbox anyway; a shallow one ("/opt") shows too much. */
static bool worth_showing(const char *dir)
{
    static const char *const system[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"};
    size_t depth = 0;
    for (const char *p = dir; *p; p++)
        depth += *p == '/';
    for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++) {
        size_t n = strlen(system[i]);
        if (!strncmp(dir, system[i], n) && (dir[n] == '/' || dir[n] == '\0'))
            return false;
    }
    return depth >= 2;
}

static void add_path(char ***paths, size_t *n, char *dir)
{
    if (!worth_showing(dir)) {
        free(dir);
        return;
    }
    *paths = xrealloc(*paths, (*n + 2) * sizeof(char *));
    (*paths)[(*n)++] = dir;
    (*paths)[*n] = NULL;
}

char **ncu_ro_paths(const char *program)
{
    char **paths = xcalloc(1, sizeof(char *));
    size_t n = 0;
    const char *slash = program ? strrchr(program, '/') : NULL;
    if (!slash || slash == program)
        return paths;
    char *dir = xstrndup(program, (size_t)(slash - program));
    if (!strcmp(path_base(dir), "bin") && strrchr(dir, '/') != dir) {
        char *home = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));
        DIR *d = opendir(home);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, "nsight-compute", 14))
                add_path(&paths, &n, path_join(home, e->d_name));
        if (d)
            closedir(d);
        free(home);
    }
    /* The toolkit's bin/ncu is a script that runs the Nsight Compute it finds beside the
     * toolkit or under /opt/nvidia (where NVIDIA's own packages install it): seen so on the
     * H100, where the sandbox showed neither and ncu answered "Nsight Compute is not
     * installed". */
    if (dir_exists(NCU_OPT_DIR))
        add_path(&paths, &n, xstrdup(NCU_OPT_DIR));
    add_path(&paths, &n, dir);
    return paths;
}

void ncu_paths_free(char **paths)
{
    for (size_t i = 0; paths && paths[i]; i++)
        free(paths[i]);
    free(paths);
}

static size_t fill_argv(const char *const *v, size_t nv, const char **argv)
{
    size_t n = 0;
    for (size_t i = 0; i < nv && n + 1 < NCU_ARGV_MAX; i++)
        argv[n++] = v[i];
    argv[n] = NULL;
    return n;
}

size_t ncu_profile_argv(const char *program, const char *report, bool flush_caches,
                        char **metric_list, const char **argv)
{
    struct strbuf sb = STRBUF_INIT;
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        strbuf_addf(&sb, "%s,", metrics[m].name);
    strbuf_addstr(&sb, "regex:^" NCU_STALL_PREFIX ".*_per_issue_active\\.ratio$");
    *metric_list = strbuf_detach(&sb);
    /* --section SourceCounters: the per-line counts of the source page (ncu_parse_source);
     * --import-source yes: the source text kept in the report, since the import runs where the
     * build folder (whose paths -lineinfo recorded) is not shown;
     * --clock-control none: the GPU at the clocks the grader's timing ran at, so that the
     * durations can be checked against it (ncu's default locks the base clock). */
    const char *v[] = {program,
                       "--target-processes",
                       "all",
                       "--metrics",
                       *metric_list,
                       "--section",
                       "SourceCounters",
                       "--import-source",
                       "yes",
                       "--launch-count",
                       NCU_LAUNCH_COUNT,
                       "--clock-control",
                       "none",
                       "--cache-control",
                       flush_caches ? "all" : "none",
                       "--export",
                       report,
                       "--force-overwrite"};
    return fill_argv(v, sizeof(v) / sizeof(v[0]), argv);
}

size_t ncu_import_argv(const char *program, const char *report_file, const char **argv)
{
    const char *v[] = {program,  "--import", report_file,     "--csv",
                       "--page", "raw",      "--print-units", "base"};
    return fill_argv(v, sizeof(v) / sizeof(v[0]), argv);
}

size_t ncu_source_argv(const char *program, const char *report_file, const char **argv)
{
    const char *v[] = {program,  "--import", report_file,      "--csv",
                       "--page", "source",   "--print-source", "cuda,sass"};
    return fill_argv(v, sizeof(v) / sizeof(v[0]), argv);
}

double ncu_wall_limit(double case_timeout_s)
{
    double w = 20 * (case_timeout_s > 0 ? case_timeout_s : 30);
    if (w > NCU_MAX_WALL_S)
        w = NCU_MAX_WALL_S;
    if (w < NCU_MIN_WALL_S)
        w = NCU_MIN_WALL_S;
    return w;
}
