/* mutop: the token-level operators over one file. See mutop.h. */
#include "analyze/mutop.h"

#include "analyze/mutop_int.h"

#include <stdlib.h>
#include <string.h>

/* Two mutants that make the same edits (two operators meeting on one site). */
static bool same_edits(const struct mutant *a, const struct mutant *b)
{
    if (a->n_edits != b->n_edits)
        return false;
    for (size_t i = 0; i < a->n_edits; i++)
        if (a->edits[i].offset != b->edits[i].offset || a->edits[i].len != b->edits[i].len ||
            strcmp(a->edits[i].text, b->edits[i].text))
            return false;
    return true;
}

void mutop_generate(const struct token_list *l, const struct syntax *s, enum src_lang lang,
                    struct mutant_list *out)
{
    struct mutgen g = {l, s, lang, out, NULL, 0};
    size_t first = out->n;
    mg_find_dead(&g);
    mutop_bounds(&g);
    mutop_loops(&g);
    mutop_swaps(&g);
    mutop_cuda(&g);
    size_t kept = first;
    for (size_t i = first; i < out->n; i++) {
        bool dup = false;
        for (size_t j = first; j < kept && !dup; j++)
            dup = same_edits(&out->items[j], &out->items[i]);
        if (dup)
            mutant_release(&out->items[i]);
        else
            out->items[kept++] = out->items[i];
    }
    out->n = kept;
    free(g.dead);
}
