/* mutant: edits of a source file, and the operators' names. See mutant.h. */
#include "analyze/mutant.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <string.h>

static const struct {
    const char *id, *title;
} ops[MUT_N_OPS] = {
    [MUT_REL_BOUND] = {"rel_bound", "comparison off by one (< and <=, > and >=)"},
    [MUT_BOUND_MINUS_ONE] = {"bound_minus_one", "bound one lower (n to n - 1)"},
    [MUT_DROP_GUARD] = {"drop_guard", "bounds check dropped"},
    [MUT_SINGLE_PASS] = {"single_pass", "grid-stride loop cut to a single pass"},
    [MUT_BLOCKS_DOWN] = {"blocks_down", "block count rounded down"},
    [MUT_DROP_SYNCTHREADS] = {"drop_syncthreads", "__syncthreads() dropped"},
    [MUT_SWAP_INDEX] = {"swap_index", "row and column indexes swapped"},
    [MUT_SWAP_ARGS] = {"swap_args", "two arguments of the same type swapped"},
    [MUT_ACCUM_ASSIGN] = {"accum_assign", "+= replaced by ="},
    [MUT_WRONG_STRIDE] = {"wrong_stride", "loop stride doubled"},
    [MUT_DROP_SYNC] = {"drop_sync", "synchronization dropped"},
    [MUT_HALF_ACCUM] = {"half_accum", "accumulator in lower precision"},
    [MUT_LOOP_START] = {"loop_start", "loop starts one element late"},
    [MUT_ZERO_RESULT] = {"zero_result", "outputs left as zeros"},
    [MUT_ECHO_INPUT] = {"echo_input", "an input copied to the output"},
};

const char *mut_op_id(enum mut_op op)
{
    return (unsigned)op < MUT_N_OPS ? ops[op].id : NULL;
}

const char *mut_op_title(enum mut_op op)
{
    return (unsigned)op < MUT_N_OPS ? ops[op].title : "";
}

int mut_op_parse(const char *id)
{
    for (int i = 0; i < MUT_N_OPS; i++)
        if (!strcmp(ops[i].id, id))
            return i;
    return -1;
}

bool mutant_reaches_further(const struct mutant *m)
{
    const char *to = m->n_edits ? m->edits[0].text : "";
    if (m->op == MUT_REL_BOUND)
        return !strcmp(to, "<=") || !strcmp(to, ">=");
    return m->op == MUT_DROP_GUARD && !strcmp(to, "1");
}

void mutant_list_init(struct mutant_list *l)
{
    memset(l, 0, sizeof(*l));
}

void mutant_release(struct mutant *m)
{
    for (size_t i = 0; i < m->n_edits; i++)
        free(m->edits[i].text);
    free(m->edits);
    m->edits = NULL;
    m->n_edits = 0;
}

void mutant_list_release(struct mutant_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        mutant_release(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
}

struct mutant *mutant_new(struct mutant_list *out, enum mut_op op, const struct token_list *l,
                          size_t tok)
{
    ALLOC_GROW(out->items, out->n + 1, out->alloc);
    struct mutant *m = &out->items[out->n++];
    memset(m, 0, sizeof(*m));
    m->op = op;
    m->tok = tok;
    m->line = tok < l->n ? l->items[tok].line : 0;
    m->col = tok < l->n ? l->items[tok].col : 0;
    return m;
}

void mutant_edit(struct mutant *m, size_t offset, size_t len, const char *text)
{
    size_t at = m->n_edits;
    m->edits = xrealloc(m->edits, (m->n_edits + 1) * sizeof(*m->edits));
    while (at > 0 && m->edits[at - 1].offset > offset) {
        m->edits[at] = m->edits[at - 1];
        at--;
    }
    m->edits[at] = (struct mut_edit){offset, len, xstrdup(text)};
    m->n_edits++;
}

char *mutant_apply(const char *src, size_t len, const struct mutant *m, size_t *out_len)
{
    struct strbuf out = STRBUF_INIT;
    size_t at = 0;
    for (size_t i = 0; i < m->n_edits; i++) {
        const struct mut_edit *e = &m->edits[i];
        if (e->offset < at || e->offset + e->len > len)
            continue; /* overlapping or outside: never made by the operators */
        strbuf_add(&out, src + at, e->offset - at);
        strbuf_addstr(&out, e->text);
        at = e->offset + e->len;
    }
    strbuf_add(&out, src + at, len - at);
    if (out_len)
        *out_len = out.len;
    return strbuf_detach(&out);
}
