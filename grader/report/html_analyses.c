/* html_analyses: what `grader similarity` and `grader mutate` left in the class's folder, on
 * the class's page (report/html_parts.h). Both are read as data; unknown keys are ignored, a
 * missing file shows nothing, and one that cannot be read is a note on the page. */
#include "report/html_parts.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/json.h"
#include "report/format.h"
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAIRS 200
#define MAX_GROUPS 50
#define FRAGMENT_LINES 30
#define MAX_SURVIVORS 100

static void note(struct tpl_value *notes, const char *path, const char *why)
{
    char *text = xstrfmt("%s: %s", path, why);
    tpl_set_str(tpl_push_map(notes), "text", text);
    free(text);
}

/* The file's JSON object; NULL (with a note) when it is there but unreadable, NULL silently
 * when it is not there. */
static struct json_value *read_json(const struct report_ctx *rc, const char *name,
                                    struct tpl_value *notes)
{
    char *path = path_join(rc->outdir, name);
    struct json_value *root = NULL;
    struct strbuf text = STRBUF_INIT;
    struct error err;
    error_init(&err);
    if (file_exists(path)) {
        if (read_file(path, &text, &err) != 0 || json_parse(text.buf, text.len, &root, &err) != 0)
            note(notes, path, err.msg);
        else if (root->type != JSON_OBJECT)
            note(notes, path, "not a JSON object");
    }
    if (root && root->type != JSON_OBJECT) {
        json_value_free(root);
        root = NULL;
    }
    strbuf_release(&text);
    free(path);
    return root;
}

static int student_index(const struct results *const *rs, size_t n, const char *id)
{
    for (size_t i = 0; id && i < n; i++)
        if (rs[i]->student_id && !strcmp(rs[i]->student_id, id))
            return (int)i;
    return -1;
}

/* An id as the page shows it, with the link to its report when it is a student of the
 * class (solution or unknown ids are plain text). */
static void set_member(struct tpl_value *m, const struct results *const *rs, size_t n,
                       const char *id, int *counts)
{
    int i = student_index(rs, n, id);
    char *shown = esc_clip(id ? id : "", NAME_CHARS);
    tpl_set_str(m, "id", shown);
    free(shown);
    tpl_set_bool(m, "known", i >= 0);
    struct strbuf href = STRBUF_INIT;
    html_url_segment(&href, id ? id : "");
    strbuf_addstr(&href, "/report.html");
    tpl_set_md(m, "href", strbuf_str(&href));
    strbuf_release(&href);
    if (i >= 0 && counts)
        counts[i]++;
}

static void set_groups(const struct report_ctx *rc, const struct json_value *groups,
                       const struct results *const *rs, size_t n, int *counts, struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sim_groups");
    for (size_t g = 0; groups && groups->type == JSON_ARRAY && g < groups->n; g++) {
        const struct json_value *gv = json_at(groups, g);
        const struct json_value *members = json_get(gv, "members");
        if (g >= MAX_GROUPS || !members || members->type != JSON_ARRAY)
            continue;
        struct tpl_value *item = tpl_push_map(list);
        tpl_set_num(item, "index", (double)g + 1);
        tpl_set_num(item, "size", json_get_number(gv, "size", (double)members->n));
        /* A group of shared code: the tokens its members hold in common; a group of pairs: the
         * range of its pairs' similarity (it has no one fragment all hold). */
        const char *kind = json_get_string(gv, "kind");
        bool pairs = kind && !strcmp(kind, "pairs");
        tpl_set_bool(item, "of_pairs", pairs);
        tpl_set_num(item, "tokens", json_get_number(gv, "shared_tokens", 0));
        set_own(item, "similarity_min", fmt_pct(json_get_number(gv, "similarity_min", 0), 1));
        set_own(item, "similarity_max", fmt_pct(json_get_number(gv, "similarity_max", 0), 1));
        tpl_set_bool(item, "matches_solution", json_get_bool(gv, "matches_solution", false));
        const char *frag = json_get_string(gv, "fragment");
        tpl_set_bool(item, "has_fragment", frag && *frag);
        set_code(rc, item, "fragment", frag ? frag : "", FRAGMENT_LINES);
        struct tpl_value *ml = tpl_set_list(item, "members");
        for (size_t k = 0; k < members->n; k++)
            if (members->items[k]->type == JSON_STRING)
                set_member(tpl_push_map(ml), rs, n, members->items[k]->string, counts);
    }
    tpl_set_bool(m, "has_sim_groups", tpl_list_len(list) > 0);
}

static void count_pair(const struct results *const *rs, size_t n, const char *id, int *counts)
{
    int i = student_index(rs, n, id);
    if (i >= 0 && counts)
        counts[i]++;
}

static void set_pairs(const struct json_value *pairs, const struct results *const *rs, size_t n,
                      int *counts, struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sim_pairs");
    size_t total = 0;
    for (size_t p = 0; pairs && pairs->type == JSON_ARRAY && p < pairs->n; p++) {
        const struct json_value *pv = json_at(pairs, p);
        const char *a = json_get_string(pv, "a"), *b = json_get_string(pv, "b");
        if (!a || !b)
            continue;
        total++;
        count_pair(rs, n, a, counts);
        count_pair(rs, n, b, counts);
        if (total > MAX_PAIRS)
            continue;
        struct tpl_value *item = tpl_push_map(list);
        set_member(tpl_set_map(item, "a"), rs, n, a, NULL);
        set_member(tpl_set_map(item, "b"), rs, n, b, NULL);
        double score = json_get_number(pv, "similarity", NAN);
        set_own(item, "score", isfinite(score) ? fmt_pct(score, 1) : xstrdup(NO_VALUE));
        tpl_set_num(item, "tokens", json_get_number(pv, "a_shared_tokens", 0));
    }
    tpl_set_bool(m, "has_sim_pairs", tpl_list_len(list) > 0);
    tpl_set_num(m, "sim_pairs_more", (double)(total > MAX_PAIRS ? total - MAX_PAIRS : 0));
}

static void set_solution_matches(const struct json_value *sm, const struct results *const *rs,
                                 size_t n, struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sim_solution");
    for (size_t i = 0; sm && sm->type == JSON_ARRAY && i < sm->n; i++) {
        const struct json_value *v = json_at(sm, i);
        const char *id = json_get_string(v, "id");
        if (!id)
            continue;
        struct tpl_value *item = tpl_push_map(list);
        set_member(item, rs, n, id, NULL);
        tpl_set_num(item, "tokens", json_get_number(v, "matched_tokens", 0));
        tpl_set_num(item, "fragments", json_get_number(v, "fragments", 0));
    }
    tpl_set_bool(m, "has_sim_solution", tpl_list_len(list) > 0);
}

static void set_similarity(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                           struct tpl_value *m, struct tpl_value *notes, int **similar)
{
    struct json_value *root = read_json(rc, "similarity.json", notes);
    tpl_set_bool(m, "has_similarity", root != NULL);
    /* The rows link to similarity.html's evidence only where the similarity check was run. */
    *similar = root ? xcalloc(n + 1, sizeof(int)) : NULL;
    int *counts = *similar;
    double threshold = json_get_number(root, "threshold", NAN);
    set_own(m, "sim_threshold", isfinite(threshold) ? fmt_pct(threshold, 1) : xstrdup(NO_VALUE));
    set_groups(rc, json_get(root, "groups"), rs, n, counts, m);
    set_pairs(json_get(root, "pairs"), rs, n, counts, m);
    set_solution_matches(json_get(root, "solution_matches"), rs, n, m);
    json_value_free(root);
}

/* ---- mutation testing ---- */

static void set_survivor(const struct json_value *mv, struct tpl_value *item)
{
    tpl_set_str(item, "id", json_get_string(mv, "id"));
    tpl_set_str(item, "operator", json_get_string(mv, "operator"));
    const char *file = json_get_string(mv, "file");
    char *where = xstrfmt("%s:%.0f", file ? file : "", json_get_number(mv, "line", 0));
    tpl_set_str(item, "where", where);
    free(where);
    struct strbuf reaches = STRBUF_INIT;
    const struct json_value *r = json_get(mv, "reaches");
    for (size_t k = 0; r && r->type == JSON_ARRAY && k < r->n; k++)
        if (r->items[k]->type == JSON_STRING)
            strbuf_addf(&reaches, "%s%s", reaches.len ? ", " : "", r->items[k]->string);
    tpl_set_str(item, "reaches", strbuf_str(&reaches));
    strbuf_release(&reaches);
}

static void set_mutation(const struct report_ctx *rc, struct tpl_value *m, struct tpl_value *notes)
{
    struct json_value *root = read_json(rc, "mutate/mutants.json", notes);
    tpl_set_bool(m, "has_mutation", root != NULL);
    static const char *const keys[] = {"killed",     "survived", "ce",
                                       "equivalent", "not_run",  "errors"};
    double v[6];
    for (size_t k = 0; k < 6; k++) {
        v[k] = json_get_number(root, keys[k], 0);
        char *key = xstrfmt("mut_%s", keys[k]);
        tpl_set_num(m, key, v[k]);
        free(key);
    }
    set_own(m, "mut_score",
            v[0] + v[1] > 0 ? xstrfmt("%.1f%%", 100 * v[0] / (v[0] + v[1])) : xstrdup(NO_VALUE));
    tpl_set_bool(m, "mut_gpu", json_get_bool(root, "gpu", false));
    struct tpl_value *list = tpl_set_list(m, "mut_survivors");
    const struct json_value *mutants = json_get(root, "mutants");
    size_t more = 0;
    for (size_t i = 0; mutants && mutants->type == JSON_ARRAY && i < mutants->n; i++) {
        const struct json_value *mv = json_at(mutants, i);
        const char *st = json_get_string(mv, "status");
        if (!st || strcmp(st, "survived"))
            continue;
        if (tpl_list_len(list) >= MAX_SURVIVORS)
            more++;
        else
            set_survivor(mv, tpl_push_map(list));
    }
    tpl_set_bool(m, "has_mut_survivors", tpl_list_len(list) > 0);
    tpl_set_num(m, "mut_survivors_more", (double)more);
    json_value_free(root);
}

void html_add_analyses(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                       struct tpl_value *m, int **similar)
{
    struct tpl_value *notes = tpl_set_list(m, "analysis_notes");
    set_similarity(rc, rs, n, m, notes, similar);
    set_mutation(rc, m, notes);
    tpl_set_bool(m, "has_analysis_notes", tpl_list_len(notes) > 0);
}
