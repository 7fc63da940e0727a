/* profile (report): the Nsight Compute profile of a variant in words (report/profile.h). */
#include "report/profile.h"

#include "base/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.3%", "1.734 ms", "–" for what was not measured. */
static void num_text(char *buf, size_t size, double v, int decimals, const char *unit)
{
    if (isnan(v))
        snprintf(buf, size, "–");
    else
        snprintf(buf, size, "%.*f%s", decimals, v, unit);
}

static const struct ncu_kernel *main_kernel(const struct profile_side *s, int index)
{
    return s->status == PROFILE_RAN && index >= 0 ? &s->prof.kernels[index] : NULL;
}

/* The kernel's name without its argument list: "transpose_naive". */
static char *short_name(const char *name)
{
    const char *p = !strncmp(name, "void ", 5) ? name + 5 : name;
    return xstrndup(p, strcspn(p, "(<"));
}

static char *summary_sentence(const struct strings *s, bool md, const struct ncu_kernel *k,
                              const struct ncu_kernel *r, unsigned causes)
{
    char t[32], dram[32], sm[32], occ[32], rt[32], rdram[32], rsm[32], rocc[32];
    num_text(t, sizeof(t), k->m[NCU_DURATION_NS] / 1e6, 3, " ms");
    num_text(dram, sizeof(dram), k->m[NCU_DRAM_PCT], 0, "%");
    num_text(sm, sizeof(sm), k->m[NCU_SM_PCT], 0, "%");
    num_text(occ, sizeof(occ), k->m[NCU_OCC_ACHIEVED], 0, "%");
    const char *bound = causes & PROFILE_MEMORY_BOUND    ? "profile.bound.memory"
                        : causes & PROFILE_COMPUTE_BOUND ? "profile.bound.compute"
                        : causes & PROFILE_LATENCY_BOUND ? "profile.bound.latency"
                                                         : "profile.bound.unknown";
    char *name = short_name(k->name), *b = phrase(s, false, bound, NULL), *out;
    if (r) {
        char *rname = short_name(r->name);
        num_text(rt, sizeof(rt), r->m[NCU_DURATION_NS] / 1e6, 3, " ms");
        num_text(rdram, sizeof(rdram), r->m[NCU_DRAM_PCT], 0, "%");
        num_text(rsm, sizeof(rsm), r->m[NCU_SM_PCT], 0, "%");
        num_text(rocc, sizeof(rocc), r->m[NCU_OCC_ACHIEVED], 0, "%");
        out = phrase(s, md, "profile.summary_ref", "kernel", name, "time", t, "dram", dram, "sm",
                     sm, "occupancy", occ, "bound", b, "ref_kernel", rname, "ref_time", rt,
                     "ref_dram", rdram, "ref_sm", rsm, "ref_occupancy", rocc, NULL);
        free(rname);
    } else {
        out = phrase(s, md, "profile.summary", "kernel", name, "time", t, "dram", dram, "sm", sm,
                     "occupancy", occ, "bound", b, NULL);
    }
    free(name);
    free(b);
    return out;
}

static char *coalescing_sentence(const struct strings *s, bool md,
                                 const struct profile_diagnosis *d)
{
    char sec[32], ref[32];
    num_text(sec, sizeof(sec), d->sectors_per_request, 1, "");
    num_text(ref, sizeof(ref), d->ref_sectors_per_request, 1, "");
    return phrase(s, md, d->stores ? "profile.uncoalesced.stores" : "profile.uncoalesced.loads",
                  "sectors", sec, "ref_sectors", ref, NULL);
}

static char *occupancy_sentence(const struct strings *s, bool md, const struct ncu_kernel *k,
                                const struct profile_diagnosis *d)
{
    char theory[32], achieved[32], blocks[32], regs[32], smem[32], block[32], grid[32];
    num_text(theory, sizeof(theory), k->m[NCU_OCC_THEORETICAL], 0, "%");
    num_text(achieved, sizeof(achieved), k->m[NCU_OCC_ACHIEVED], 0, "%");
    num_text(blocks, sizeof(blocks), d->limiter >= 0 ? k->m[d->limiter] : NAN, 0, "");
    num_text(regs, sizeof(regs), k->m[NCU_REGISTERS], 0, "");
    double sm_bytes =
        k->m[NCU_SMEM_STATIC] + (isnan(k->m[NCU_SMEM_DYNAMIC]) ? 0 : k->m[NCU_SMEM_DYNAMIC]);
    num_text(smem, sizeof(smem), sm_bytes / 1024, 1, " KiB");
    num_text(block, sizeof(block), k->m[NCU_BLOCK], 0, "");
    num_text(grid, sizeof(grid), k->m[NCU_GRID], 0, "");
    if (d->causes & PROFILE_LOW_ACHIEVED)
        return phrase(s, md, "profile.low_achieved", "achieved", achieved, "theoretical", theory,
                      "grid", grid, NULL);
    const char *key = d->limiter == NCU_LIMIT_REGISTERS ? "profile.occupancy.registers"
                      : d->limiter == NCU_LIMIT_SMEM    ? "profile.occupancy.shared_memory"
                      : d->limiter == NCU_LIMIT_WARPS   ? "profile.occupancy.block_size"
                      : d->limiter == NCU_LIMIT_BLOCKS  ? "profile.occupancy.blocks"
                                                        : "profile.occupancy.unknown";
    return phrase(s, md, key, "theoretical", theory, "achieved", achieved, "blocks", blocks,
                  "registers", regs, "smem", smem, "block", block, NULL);
}

static char *stall_sentence(const struct strings *s, bool md, const struct ncu_kernel *k)
{
    if (k->n_stalls == 0)
        return NULL;
    char key[96], cycles[32];
    snprintf(key, sizeof(key), "profile.stall.%s", k->stalls[0].reason);
    char *reason =
        strings_find(s, key) ? phrase(s, false, key, NULL) : xstrdup(k->stalls[0].reason);
    num_text(cycles, sizeof(cycles), k->stalls[0].cycles, 1, "");
    char *out = phrase(s, md, "profile.stall", "reason", reason, "cycles", cycles, NULL);
    free(reason);
    return out;
}

/* The source line the diagnosis names: "scale_gpu.cu:12", its text, the share. */
static char *line_sentence(const struct strings *s, bool md, const struct ncu_kernel *k,
                           enum profile_line which)
{
    if (which == PROFILE_LINE_NONE)
        return NULL;
    const struct ncu_line *l = which == PROFILE_LINE_EXCESS ? &k->excess_line : &k->hot_line;
    char share[32], wasted[32];
    num_text(share, sizeof(share), l->share * 100, 0, "%");
    if (isnan(l->wasted))
        wasted[0] = '\0';
    else
        num_text(wasted, sizeof(wasted), l->wasted * 100, 0, "%");
    char *where = xstrfmt("%s:%ld", l->file, l->line);
    /* Results written before the grader read the text itself may hold ncu's own note. */
    const char *source = ncu_source_missing(l->source) ? "" : l->source;
    char *out =
        phrase(s, md, which == PROFILE_LINE_EXCESS ? "profile.line.excess" : "profile.line.hot",
               "where", where, "source", source, "share", share, "wasted", wasted, NULL);
    free(where);
    return out;
}

static char *check_sentence(const struct strings *s, bool md, const struct profile_crosscheck *x,
                            bool reference)
{
    if (!x->done)
        return NULL;
    char ncu[32], ev[32], tol[32];
    num_text(ncu, sizeof(ncu), x->ncu_ms, 4, "");
    num_text(ev, sizeof(ev), x->event_ms, 4, "");
    num_text(tol, sizeof(tol), profile_tolerance_ms(x->event_ms, x->launches), 4, "");
    const char *key =
        x->agree ? (reference ? "profile.crosscheck.ref_agree" : "profile.crosscheck.agree")
                 : (reference ? "profile.crosscheck.ref_disagree" : "profile.crosscheck.disagree");
    return phrase(s, md, key, "ncu", ncu, "event", ev, "tolerance", tol, NULL);
}

/* a and b (either may be NULL) as one item of the list: the line goes with the finding it
 * locates, so the explanation keeps its few items. Frees both. */
static char *joined(char *a, char *b)
{
    if (!a || !b)
        return a ? a : b;
    char *out = xstrfmt("%s %s", a, b);
    free(a);
    free(b);
    return out;
}

static void push(char ***list, size_t *n, char *sentence)
{
    if (!sentence)
        return;
    *list = xrealloc(*list, (*n + 2) * sizeof(char *));
    (*list)[(*n)++] = sentence;
    (*list)[*n] = NULL;
}

char **profile_sentences(const struct strings *s, bool markdown, const struct variant_profile *p,
                         size_t *n)
{
    char **list = xcalloc(1, sizeof(char *));
    struct profile_diagnosis d;
    *n = 0;
    profile_diagnose(&p->student.prof, &p->reference.prof, &d);
    const struct ncu_kernel *k = main_kernel(&p->student, d.kernel);
    const struct ncu_kernel *r = main_kernel(&p->reference, d.ref_kernel);
    if (k) {
        push(&list, n, summary_sentence(s, markdown, k, r, d.causes));
        if (d.causes & PROFILE_UNCOALESCED)
            push(&list, n,
                 joined(coalescing_sentence(s, markdown, &d),
                        d.line == PROFILE_LINE_EXCESS ? line_sentence(s, markdown, k, d.line)
                                                      : NULL));
        if (d.causes & (PROFILE_LOW_OCCUPANCY | PROFILE_LOW_ACHIEVED))
            push(&list, n, occupancy_sentence(s, markdown, k, &d));
        push(&list, n,
             joined(stall_sentence(s, markdown, k),
                    d.line == PROFILE_LINE_HOT ? line_sentence(s, markdown, k, d.line) : NULL));
    }
    push(&list, n, check_sentence(s, markdown, &p->check, false));
    push(&list, n, check_sentence(s, markdown, &p->ref_check, true));
    return list;
}

void profile_sentences_free(char **sentences)
{
    for (size_t i = 0; sentences && sentences[i]; i++)
        free(sentences[i]);
    free(sentences);
}

char *profile_missing_line(const struct strings *s, bool markdown, const struct variant_profile *p)
{
    if (p->student.status == PROFILE_RAN)
        return NULL;
    char key[64];
    snprintf(key, sizeof(key), "profile.why.%s", profile_reason_name(p->student.reason));
    return phrase(s, markdown, key, "detail", p->student.detail ? p->student.detail : "", NULL);
}

/* ---- the table ---- */

static void cell(char *buf, size_t size, const struct ncu_kernel *k, int row)
{
    if (!k) {
        snprintf(buf, size, "–");
        return;
    }
    char a[32], b[32];
    switch (row) {
    case 0:
        num_text(buf, size, k->m[NCU_DURATION_NS] / 1e6, 4, "");
        return;
    case 1:
        num_text(buf, size, k->m[NCU_DRAM_PCT], 1, "%");
        return;
    case 2:
        num_text(buf, size, k->m[NCU_SM_PCT], 1, "%");
        return;
    case 3:
        num_text(a, sizeof(a), k->m[NCU_OCC_ACHIEVED], 0, "%");
        num_text(b, sizeof(b), k->m[NCU_OCC_THEORETICAL], 0, "%");
        snprintf(buf, size, "%s / %s", a, b);
        return;
    case 4:
        num_text(buf, size, k->m[NCU_REGISTERS], 0, "");
        return;
    case 5:
        num_text(a, sizeof(a), k->m[NCU_SMEM_STATIC], 0, "");
        num_text(b, sizeof(b), k->m[NCU_SMEM_DYNAMIC], 0, "");
        snprintf(buf, size, "%s + %s", a, b);
        return;
    case 6:
        num_text(a, sizeof(a), k->m[NCU_GRID], 0, "");
        num_text(b, sizeof(b), k->m[NCU_BLOCK], 0, "");
        snprintf(buf, size, "%s × %s", a, b);
        return;
    default:
        num_text(a, sizeof(a), profile_sectors_per_request(k, false), 1, "");
        num_text(b, sizeof(b), profile_sectors_per_request(k, true), 1, "");
        snprintf(buf, size, "%s / %s", a, b);
        return;
    }
}

static void stalls_cell(struct strbuf *sb, const struct ncu_kernel *k)
{
    for (size_t i = 0; k && i < k->n_stalls; i++)
        strbuf_addf(sb, "%s%s %.1f", i ? ", " : "", k->stalls[i].reason, k->stalls[i].cycles);
    if (!sb->len)
        strbuf_addstr(sb, "–");
}

static void add_rows(const struct report_ctx *rc, const struct ncu_kernel *k,
                     const struct ncu_kernel *r, struct tpl_value *pm)
{
    static const char *const labels[] = {
        "profile.row.duration",  "profile.row.dram", "profile.row.sm",     "profile.row.occupancy",
        "profile.row.registers", "profile.row.smem", "profile.row.launch", "profile.row.sectors"};
    struct tpl_value *rows = tpl_set_list(pm, "rows");
    char a[96], b[96];
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
        struct tpl_value *row = tpl_push_map(rows);
        char *label = phrase(&rc->strings, false, labels[i], NULL);
        cell(a, sizeof(a), k, (int)i);
        cell(b, sizeof(b), r, (int)i);
        tpl_set_str(row, "label", label);
        tpl_set_str(row, "student", a);
        tpl_set_str(row, "reference", b);
        free(label);
    }
    struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
    stalls_cell(&sa, k);
    stalls_cell(&sb, r);
    struct tpl_value *row = tpl_push_map(rows);
    char *label = phrase(&rc->strings, false, "profile.row.stalls", NULL);
    tpl_set_str(row, "label", label);
    tpl_set_str(row, "student", strbuf_str(&sa));
    tpl_set_str(row, "reference", strbuf_str(&sb));
    free(label);
    strbuf_release(&sa);
    strbuf_release(&sb);
}

void add_profile(const struct report_ctx *rc, const struct variant_result *vr, struct tpl_value *m)
{
    const struct variant_profile *p = vr->profile;
    tpl_set_bool(m, "has_profile", p != NULL);
    if (!p)
        return;
    struct tpl_value *pm = tpl_set_map(m, "profile");
    struct profile_diagnosis d;
    profile_diagnose(&p->student.prof, &p->reference.prof, &d);
    const struct ncu_kernel *k = main_kernel(&p->student, d.kernel);
    const struct ncu_kernel *r = main_kernel(&p->reference, d.ref_kernel);
    tpl_set_str(pm, "case_id", p->case_id ? p->case_id : "–");
    tpl_set_bool(pm, "ran", k != NULL);
    char *missing = profile_missing_line(&rc->strings, false, p);
    tpl_set_str(pm, "missing", missing ? missing : "");
    free(missing);
    /* The reference's side alone missing: said under the table. */
    char key[64];
    snprintf(key, sizeof(key), "profile.why.%s", profile_reason_name(p->reference.reason));
    char *ref_missing = k && !r ? phrase(&rc->strings, false, key, "detail",
                                         p->reference.detail ? p->reference.detail : "", NULL)
                                : NULL;
    tpl_set_bool(pm, "has_ref_missing", ref_missing != NULL);
    tpl_set_str(pm, "ref_missing", ref_missing ? ref_missing : "");
    free(ref_missing);
    char *kname = k ? short_name(k->name) : xstrdup("–"), *rname = r ? short_name(r->name) : NULL;
    tpl_set_str(pm, "kernel", kname);
    tpl_set_str(pm, "ref_kernel", rname ? rname : "–");
    free(kname);
    free(rname);
    add_rows(rc, k, r, pm);
    size_t n;
    char **sentences = profile_sentences(&rc->strings, false, p, &n);
    struct tpl_value *list = tpl_set_list(pm, "sentences");
    for (size_t i = 0; i < n; i++)
        tpl_set_str(tpl_push_map(list), "text", sentences[i]);
    profile_sentences_free(sentences);
}
