#include "grade/decisions.h"

#include "base/alloc.h"
#include "base/codetext.h"
#include "base/fs.h"
#include "base/sha256.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The variant's sources in the submission, as code (codetext.h), with their names. */
static void code_of(const struct grading *g, const struct variant_spec *v, struct sha256 *h)
{
    for (size_t i = 0; i < v->student.n_sources; i++) {
        const char *name = v->student.sources[i];
        char *path = path_join(g->o->submission, name);
        struct strbuf text = STRBUF_INIT, code = STRBUF_INIT;
        if (read_file(path, &text, NULL) == 0)
            code_text(text.buf, text.len, &code);
        sha256_update(h, name, strlen(name) + 1);
        sha256_update(h, code.buf ? code.buf : "", code.len + 1);
        strbuf_release(&text);
        strbuf_release(&code);
        free(path);
    }
}

/* The entry's file: the machine, the references, the case and its timing rules, the code. */
static char *entry_path(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, const struct case_result *cr)
{
    struct sha256 h;
    char hex[65], host[256] = "";
    struct timing_spec t = grading_timing(g, ex);
    gethostname(host, sizeof(host) - 1);
    struct strbuf key = STRBUF_INIT;
    strbuf_addf(&key, "decision-1 %s %s %d %s %s %s %s %d %d %g %g %g %g %g\n", host,
                g->env->gpu.name ? g->env->gpu.name : "-", g->env->turns.n_cpus, g->ref_digest,
                ex->id, v->id, cr->case_id ? cr->case_id : "-", t.min_samples, t.max_samples,
                t.target_rse, t.budget_s, ex->perf.full_at, ex->perf.zero_at, ex->perf.points);
    sha256_init(&h);
    sha256_update(&h, key.buf, key.len);
    code_of(g, v, &h);
    sha256_final_hex(&h, hex);
    strbuf_release(&key);
    return xstrfmt("%s/decisions/%.2s/%s", g->env->cache_dir, hex, hex + 2);
}

/* The band kept in the entry, or -1. */
static double kept_band(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    double f = -1;
    if (read_file(path, &sb, NULL) != 0 ||
        sscanf(strbuf_str(&sb), "labgrader-decision 1 %lf", &f) != 1 || !(f >= 0 && f <= 1))
        f = -1;
    strbuf_release(&sb);
    return f;
}

/* The band f written to path: only where none is (first), or over an older one (!first). */
static void keep_band(const char *path, double f, bool first)
{
    char *dir = xstrdup(path), *slash = strrchr(dir, '/'), text[64];
    if (slash)
        *slash = '\0';
    int len = snprintf(text, sizeof(text), "labgrader-decision 1 %.1f\n", f);
    char *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
    if (mkdir_p(dir, NULL) == 0 && write_file_atomic(tmp, text, (size_t)len, NULL) == 0) {
        if (first ? link(tmp, path) != 0 && errno != EEXIST : rename(tmp, path) != 0)
            unlink(path);
        unlink(tmp);
    }
    free(tmp);
    free(dir);
}

/* Whether band k (a share in tenths) lies within what the interval allows, [f, f_best]. */
static bool allowed(double k, double f, double f_best)
{
    return k >= f - 1e-9 && k <= f_best + 1e-9;
}

double decisions_settle(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, const struct case_result *cr, double f,
                        double f_best)
{
    if (!g->env->cache_dir || !g->o->submission || f < 0)
        return f;
    char *path = entry_path(g, ex, v, cr);
    double k = kept_band(path);
    if (k < 0) {
        keep_band(path, f, true);
        k = kept_band(path); /* another grading of the same code may have been first */
    } else if (!allowed(k, f, f_best)) {
        keep_band(path, f, false);
        k = f;
    }
    free(path);
    return k >= 0 && allowed(k, f, f_best) ? k : f;
}
