#include "report/cases.h"

#include "base/alloc.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

bool case_visible(const struct report_ctx *rc, const struct case_result *cr)
{
    return !(cr->hidden && rc->hide_hidden);
}

size_t exercise_cases(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct case_key **out)
{
    struct case_key *keys = NULL;
    size_t n = 0, alloc = 0;
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        for (size_t c = 0; c < vr->n_cases; c++) {
            const struct case_result *cr = &vr->cases[c];
            if (!case_visible(rc, cr) || !cr->case_id)
                continue;
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen = !strcmp(keys[k].id, cr->case_id);
            if (seen)
                continue;
            ALLOC_GROW(keys, n + 1, alloc);
            keys[n].id = cr->case_id;
            keys[n].sizes = cr->sizes ? cr->sizes : "";
            n++;
        }
    }
    *out = keys;
    return n;
}

const struct case_result *find_case(const struct report_ctx *rc, const struct variant_result *vr,
                                    const char *id)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, id) &&
            case_visible(rc, &vr->cases[c]))
            return &vr->cases[c];
    return NULL;
}

double case_baseline(const struct report_ctx *rc, const struct exercise_result *ex, const char *id)
{
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        if (cr && cr->baseline_ms > 0)
            return cr->baseline_ms;
    }
    return 0;
}

const char *variant_title(const struct variant_result *vr)
{
    return vr->title && *vr->title ? vr->title : vr->variant_id ? vr->variant_id : "";
}

bool variant_is_gpu(const struct variant_result *vr)
{
    return vr->target && !strcmp(vr->target, "gpu");
}

bool has_transfer_times(const struct variant_result *vr)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].time_transfer.valid)
            return true;
    return false;
}

const char *exercise_title(const struct exercise_result *ex)
{
    return ex->title && *ex->title ? ex->title : ex->exercise_id ? ex->exercise_id : "";
}

bool size_param(const char *sizes, const char *key, double *val)
{
    size_t klen = strlen(key);
    for (const char *p = sizes; p && *p;) {
        p += strspn(p, " ,;");
        const char *end = p + strcspn(p, ",;");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            const char *ks = p, *ke = eq;
            while (ke > ks && ke[-1] == ' ')
                ke--;
            if ((size_t)(ke - ks) == klen && !memcmp(ks, key, klen)) {
                char buf[64];
                const char *vs = eq + 1 + strspn(eq + 1, " ");
                size_t vlen = (size_t)(end - vs);
                while (vlen && vs[vlen - 1] == ' ')
                    vlen--;
                if (vlen == 0 || vlen >= sizeof(buf))
                    return false;
                memcpy(buf, vs, vlen);
                buf[vlen] = '\0';
                return parse_double(buf, val);
            }
        }
        p = end;
    }
    return false;
}

/* The i-th parameter name of a sizes string. Caller frees; NULL past the end. */
static char *size_param_name(const char *sizes, size_t i)
{
    size_t k = 0;
    for (const char *p = sizes; p && *p;) {
        p += strspn(p, " ,;");
        const char *end = p + strcspn(p, ",;");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq && eq > p) {
            if (k++ == i) {
                const char *ke = eq;
                while (ke > p && ke[-1] == ' ')
                    ke--;
                return xstrndup(p, (size_t)(ke - p));
            }
        }
        p = end;
    }
    return NULL;
}

char *varying_param(const struct case_key *keys, size_t n)
{
    if (n < 2)
        return NULL;
    for (size_t i = 0;; i++) {
        char *name = size_param_name(keys[0].sizes, i);
        if (!name)
            return NULL;
        bool all = true, varies = false;
        double first = 0, v;
        for (size_t k = 0; k < n && all; k++) {
            all = size_param(keys[k].sizes, name, &v);
            if (k == 0)
                first = v;
            else
                varies |= v != first;
        }
        if (all && varies)
            return name;
        free(name);
    }
}
