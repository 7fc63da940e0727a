/*
 * kit_spec: the kit's lab.yaml, edited as text so that the layout survives (see kitpack.h):
 * each hidden case replaced by a withheld one (spec.h: an id of the kit's, its points, no
 * sizes), reference sources pointed at their objects, and every comment taken out, since an
 * instructor's comments talk about the hidden cases ("15 to 25 pairs at n=1500", "n = 1 ...
 * past 65535 blocks"): nothing but the data goes to students. The withheld cases keep what a
 * student's check must know to share the points as the instructor's grading does: that they
 * exist, where, and what they are worth.
 */
#include "class/kit.h"
#include "class/kitpack.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* A cut [start, end) of the original text, or, with insert set, text put in at start. */
struct span {
    size_t start, end;
    const char *insert;
};

struct cutter {
    const char *path;
    const char *text;
    size_t len;
    yaml_document_t *doc;
    size_t *byte_of; /* libyaml's marks count characters: character index -> byte offset */
    size_t n_chars;
    struct span *cuts;
    size_t n_cuts, alloc_cuts;
    char **texts; /* the inserts made here (withheld cases), owned */
    size_t n_texts, alloc_texts;
    struct strbuf *warnings;
    char **dropped; /* ids of the exercises cut whole */
    size_t n_dropped, alloc_dropped;
    struct error *err;
};

/* Aliases can make a node its own descendant; real specs nest a handful of levels. */
enum { MAX_DEPTH = 64 };

static const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static yaml_node_t *map_get(yaml_document_t *doc, const yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp(scalar_text(k), key))
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

/* The spellings spec.c accepts for true (a quoted "true" is a string there, not hidden). */
static bool is_true(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = scalar_text(n);
    return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE");
}

static size_t seq_len(const yaml_node_t *seq)
{
    return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

static yaml_node_t *seq_item(yaml_document_t *doc, const yaml_node_t *seq, size_t i)
{
    return yaml_document_get_node(doc, seq->data.sequence.items.start[i]);
}

/*
 * Where a node's own text ends. Block collections end, in libyaml, where the next
 * token starts (past trailing comments and blank lines), so their end is taken from
 * their last descendant instead; scalars and flow collections end exactly.
 */
static size_t content_end(yaml_document_t *doc, const yaml_node_t *n, int depth)
{
    size_t end = n->start_mark.index;
    if (depth > MAX_DEPTH)
        return n->end_mark.index;
    if (n->type == YAML_MAPPING_NODE && n->data.mapping.style != YAML_FLOW_MAPPING_STYLE) {
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            yaml_node_t *v = yaml_document_get_node(doc, p->value);
            size_t e;
            if (k && (e = content_end(doc, k, depth + 1)) > end)
                end = e;
            if (v && (e = content_end(doc, v, depth + 1)) > end)
                end = e;
        }
        return end;
    }
    if (n->type == YAML_SEQUENCE_NODE && n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE) {
        for (size_t i = 0; i < seq_len(n); i++) {
            yaml_node_t *item = seq_item(doc, n, i);
            size_t e;
            if (item && (e = content_end(doc, item, depth + 1)) > end)
                end = e;
        }
        return end;
    }
    return n->end_mark.index;
}

/* Map character indexes to byte offsets (UTF-8; a BOM is skipped by libyaml, unmarked). */
static void index_chars(struct cutter *c)
{
    size_t start = 0, n = 0;
    const unsigned char *t = (const unsigned char *)c->text;
    if (c->len >= 3 && t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF)
        start = 3;
    c->byte_of = xmalloc((c->len + 1) * sizeof(*c->byte_of));
    for (size_t b = start; b < c->len; b++)
        if ((t[b] & 0xC0) != 0x80)
            c->byte_of[n++] = b;
    c->byte_of[n] = c->len;
    c->n_chars = n;
}

static size_t byte_at(const struct cutter *c, size_t char_index)
{
    return c->byte_of[char_index < c->n_chars ? char_index : c->n_chars];
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static void add_span(struct cutter *c, size_t start, size_t end, const char *insert)
{
    ALLOC_GROW(c->cuts, c->n_cuts + 1, c->alloc_cuts);
    c->cuts[c->n_cuts].start = start;
    c->cuts[c->n_cuts].end = end;
    c->cuts[c->n_cuts].insert = insert;
    c->n_cuts++;
}

static void add_cut(struct cutter *c, size_t start, size_t end)
{
    add_span(c, start, end, NULL);
}

/* Text put in at start, owned by the cutter. */
static void add_text(struct cutter *c, size_t start, char *text)
{
    ALLOC_GROW(c->texts, c->n_texts + 1, c->alloc_texts);
    c->texts[c->n_texts++] = text;
    add_span(c, start, start, text);
}

/*
 * A block sequence's item i as whole lines, [*start, *end): from the line of its "- " to the
 * end of the line its content ends on (a trailing comment there goes with it); *dash is where
 * its "-" is.
 */
static int block_item_lines(struct cutter *c, const yaml_node_t *seq, size_t i, size_t *start,
                            size_t *end, size_t *dash)
{
    const char *t = c->text;
    yaml_node_t *item = seq_item(c->doc, seq, i);
    size_t s = byte_at(c, item->start_mark.index);
    while (s > 0 && is_blank(t[s - 1]))
        s--;
    if (s == 0 || t[s - 1] != '-')
        return error_set_at(c->err, c->path, (int)item->start_mark.line + 1,
                            (int)item->start_mark.column + 1,
                            "cannot find the '-' of this sequence item to cut it out");
    *dash = --s;
    while (s > 0 && is_blank(t[s - 1]))
        s--;
    if (s > 0 && t[s - 1] != '\n')
        return error_set_at(c->err, c->path, (int)item->start_mark.line + 1,
                            (int)item->start_mark.column + 1,
                            "this item shares its line with other text: put its '-' on a line "
                            "of its own so that it can be cut out");
    size_t e = byte_at(c, content_end(c->doc, item, 0));
    while (e > s && (is_blank(t[e - 1]) || t[e - 1] == '\n' || t[e - 1] == '\r'))
        e--;
    while (e < c->len && t[e] != '\n')
        e++;
    if (e < c->len)
        e++;
    *start = s;
    *end = e;
    return 0;
}

/* Cut a block sequence's item i, its whole lines. */
static int cut_block_item(struct cutter *c, const yaml_node_t *seq, size_t i)
{
    size_t s, e, dash;
    if (block_item_lines(c, seq, i, &s, &e, &dash) != 0)
        return -1;
    add_cut(c, s, e);
    return 0;
}

/*
 * Cut the items of seq marked in drop. In a flow sequence the commas must come out
 * with them: dropped items before the first kept one go up to its start, later ones
 * from the end of the item before them, so that runs of dropped items join up.
 */
static int cut_items(struct cutter *c, const yaml_node_t *seq, const bool *drop)
{
    size_t n = seq_len(seq), first_kept = 0;
    if (seq->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE) {
        for (size_t i = 0; i < n; i++)
            if (drop[i] && cut_block_item(c, seq, i) != 0)
                return -1;
        return 0;
    }
    while (first_kept < n && drop[first_kept])
        first_kept++;
    if (first_kept == n && n > 0)
        add_cut(c, byte_at(c, seq_item(c->doc, seq, 0)->start_mark.index),
                byte_at(c, seq_item(c->doc, seq, n - 1)->end_mark.index));
    else if (first_kept > 0)
        add_cut(c, byte_at(c, seq_item(c->doc, seq, 0)->start_mark.index),
                byte_at(c, seq_item(c->doc, seq, first_kept)->start_mark.index));
    for (size_t i = first_kept + 1; i < n; i++)
        if (drop[i])
            add_cut(c, byte_at(c, seq_item(c->doc, seq, i - 1)->end_mark.index),
                    byte_at(c, seq_item(c->doc, seq, i)->end_mark.index));
    return 0;
}

static const char *node_id(yaml_document_t *doc, const yaml_node_t *m)
{
    yaml_node_t *id = map_get(doc, m, "id");
    return id && id->type == YAML_SCALAR_NODE ? scalar_text(id) : "?";
}

/* A hidden case of the instructor's (a withheld one is the kit's already). */
static bool is_hidden(yaml_document_t *doc, const yaml_node_t *kase)
{
    return is_true(map_get(doc, kase, "hidden")) && !is_true(map_get(doc, kase, "withheld"));
}

static bool id_taken(yaml_document_t *doc, const yaml_node_t *cases, const bool *drop,
                     const char *id, char **given, size_t n_given)
{
    for (size_t i = 0; i < seq_len(cases); i++)
        if (!drop[i] && !strcmp(node_id(doc, seq_item(doc, cases, i)), id))
            return true;
    for (size_t i = 0; i < n_given; i++)
        if (!strcmp(given[i], id))
            return true;
    return false;
}

/* "{id: hidden1, hidden: true, withheld: true, points: 2}": the k-th hidden case of the
 * exercise, under an id no visible case has; its points when it has its own. */
static char *withheld_text(struct cutter *c, const yaml_node_t *cases, const bool *drop, size_t i,
                           char **given, size_t n_given)
{
    char *id = NULL;
    for (size_t k = n_given + 1; !id || id_taken(c->doc, cases, drop, id, given, n_given); k++) {
        free(id);
        id = xstrfmt("hidden%zu", k);
    }
    given[n_given] = id;
    yaml_node_t *points = map_get(c->doc, seq_item(c->doc, cases, i), "points");
    if (points && points->type == YAML_SCALAR_NODE)
        return xstrfmt("{id: %s, hidden: true, withheld: true, points: %s}", id,
                       scalar_text(points));
    return xstrfmt("{id: %s, hidden: true, withheld: true}", id);
}

/* Each case marked in drop replaced by a withheld one, where it stood. */
static int withhold_items(struct cutter *c, const yaml_node_t *cases, const bool *drop)
{
    size_t n = seq_len(cases), n_given = 0;
    char **given = xcalloc(n + 1, sizeof(*given));
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!drop[i])
            continue;
        char *text = withheld_text(c, cases, drop, i, given, n_given++);
        yaml_node_t *item = seq_item(c->doc, cases, i);
        size_t s, e, dash;
        if (cases->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE) {
            s = byte_at(c, item->start_mark.index);
            add_text(c, s, text);
            add_cut(c, s, byte_at(c, item->end_mark.index));
        } else if ((rc = block_item_lines(c, cases, i, &s, &e, &dash)) == 0) {
            add_text(c, s, xstrfmt("%.*s- %s\n", (int)(dash - s), c->text + s, text));
            add_cut(c, s, e);
            free(text);
        } else {
            free(text);
        }
    }
    for (size_t i = 0; i < n_given; i++)
        free(given[i]);
    free(given);
    return rc;
}

/*
 * Count the hidden cases of the document; with cut set, also record the spans that replace
 * them by withheld ones, and cut the exercises that have nothing else.
 */
static int scan_hidden(struct cutter *c, bool cut, size_t *n_hidden)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    yaml_node_t *exercises = map_get(c->doc, root, "exercises");
    size_t kept = 0, n_ex;
    bool *drop_ex;
    int rc = 0;
    *n_hidden = 0;
    if (!exercises || exercises->type != YAML_SEQUENCE_NODE)
        return 0;
    n_ex = seq_len(exercises);
    drop_ex = xcalloc(n_ex + 1, sizeof(*drop_ex));
    for (size_t e = 0; e < n_ex && !rc; e++) {
        yaml_node_t *ex = seq_item(c->doc, exercises, e);
        yaml_node_t *cases = map_get(c->doc, ex, "cases");
        size_t hidden = 0, n_cases;
        if (!cases || cases->type != YAML_SEQUENCE_NODE) {
            kept++;
            continue;
        }
        n_cases = seq_len(cases);
        bool *drop = xcalloc(n_cases + 1, sizeof(*drop));
        for (size_t i = 0; i < n_cases; i++)
            if ((drop[i] = is_hidden(c->doc, seq_item(c->doc, cases, i))))
                hidden++;
        *n_hidden += hidden;
        if (cut && hidden > 0 && hidden == n_cases) {
            drop_ex[e] = true;
            ALLOC_GROW(c->dropped, c->n_dropped + 1, c->alloc_dropped);
            c->dropped[c->n_dropped++] = xstrdup(node_id(c->doc, ex));
            if (c->warnings)
                strbuf_addf(c->warnings,
                            "%s:%d: exercise '%s' has only hidden cases: left out of the kit\n",
                            c->path, (int)ex->start_mark.line + 1, node_id(c->doc, ex));
        } else {
            kept++;
            if (cut && hidden > 0)
                rc = withhold_items(c, cases, drop);
        }
        free(drop);
    }
    if (!rc && cut && n_ex > 0 && kept == 0)
        rc = error_set_at(c->err, c->path, (int)exercises->start_mark.line + 1,
                          (int)exercises->start_mark.column + 1,
                          "every exercise has only hidden cases: the kit would have none");
    if (!rc && cut)
        rc = cut_items(c, exercises, drop_ex);
    free(drop_ex);
    return rc;
}

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static void apply_cuts(struct cutter *c, struct strbuf *out)
{
    size_t pos = 0;
    if (c->n_cuts)
        qsort(c->cuts, c->n_cuts, sizeof(*c->cuts), cmp_span);
    for (size_t i = 0; i < c->n_cuts; i++) {
        const struct span *s = &c->cuts[i];
        if (s->insert) {
            /* Inside a cut (a dropped exercise's reference): gone with it. */
            if (s->start < pos)
                continue;
            strbuf_add(out, c->text + pos, s->start - pos);
            strbuf_addstr(out, s->insert);
            pos = s->start;
            continue;
        }
        if (s->end <= pos)
            continue;
        if (s->start > pos)
            strbuf_add(out, c->text + pos, s->start - pos);
        pos = s->end;
    }
    if (pos < c->len)
        strbuf_add(out, c->text + pos, c->len - pos);
}

static int load_doc(const char *path, const char *text, size_t len, yaml_document_t *doc,
                    struct error *err)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return error_set(err, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, doc)) {
        error_set_at(err, path, (int)parser.problem_mark.line + 1,
                     (int)parser.problem_mark.column + 1, "%s",
                     parser.problem ? parser.problem : "YAML error");
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_delete(&parser);
    return 0;
}

/* A reference source's path given ".o": the kit carries it compiled (build.h). */
static int mark_scalar(struct cutter *c, const yaml_node_t *n)
{
    size_t at = byte_at(c, n->end_mark.index);
    switch (n->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        at--; /* before the closing quote */
        break;
    default:
        return error_set_at(c->err, c->path, (int)n->start_mark.line + 1,
                            (int)n->start_mark.column + 1,
                            "write this reference source as a plain or quoted path (not a "
                            "block scalar), so that the kit can point it at its object");
    }
    /* An alias reaches the same node twice: one ".o". */
    for (size_t i = 0; i < c->n_cuts; i++)
        if (c->cuts[i].insert && c->cuts[i].start == at)
            return 0;
    add_span(c, at, at, ".o");
    return 0;
}

static int mark_reference_sources(struct cutter *c)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    yaml_node_t *exercises = map_get(c->doc, root, "exercises");
    if (!exercises || exercises->type != YAML_SEQUENCE_NODE)
        return 0;
    for (size_t e = 0; e < seq_len(exercises); e++) {
        yaml_node_t *variants = map_get(c->doc, seq_item(c->doc, exercises, e), "variants");
        if (!variants || variants->type != YAML_SEQUENCE_NODE)
            continue;
        for (size_t v = 0; v < seq_len(variants); v++) {
            yaml_node_t *ref = map_get(c->doc, seq_item(c->doc, variants, v), "reference");
            yaml_node_t *sources = map_get(c->doc, ref, "sources");
            if (!sources || sources->type != YAML_SEQUENCE_NODE)
                continue;
            for (size_t i = 0; i < seq_len(sources); i++) {
                yaml_node_t *s = seq_item(c->doc, sources, i);
                if (s && s->type == YAML_SCALAR_NODE && mark_scalar(c, s) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* ---- comments ---- */

/* Byte offsets of text's characters (libyaml's marks count characters); [n] is len. */
static size_t *char_offsets(const char *text, size_t len, size_t *n)
{
    struct cutter c;
    memset(&c, 0, sizeof(c));
    c.text = text;
    c.len = len;
    index_chars(&c);
    *n = c.n_chars;
    return c.byte_of;
}

/* The byte ranges of every scalar of text (keys, values; plain, quoted and block), from
 * libyaml's scanner, in order: a '#' inside one is data, not a comment. */
static int scalar_spans(const char *path, const char *text, size_t len, struct span **out,
                        size_t *n_out, struct error *err)
{
    yaml_parser_t parser;
    yaml_token_t tok;
    size_t n_chars, alloc = 0, n = 0;
    struct span *spans = NULL;
    int rc = 0;
    *out = NULL;
    *n_out = 0;
    if (!yaml_parser_initialize(&parser))
        return error_set(err, "cannot initialise the YAML parser");
    size_t *byte_of = char_offsets(text, len, &n_chars);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (bool done = false; !done && rc == 0;) {
        if (!yaml_parser_scan(&parser, &tok)) {
            rc = error_set_at(err, path, (int)parser.problem_mark.line + 1,
                              (int)parser.problem_mark.column + 1, "%s",
                              parser.problem ? parser.problem : "YAML error");
            break;
        }
        done = tok.type == YAML_STREAM_END_TOKEN;
        if (tok.type == YAML_SCALAR_TOKEN) {
            size_t a = tok.start_mark.index, b = tok.end_mark.index;
            ALLOC_GROW(spans, n + 1, alloc);
            spans[n].start = byte_of[a < n_chars ? a : n_chars];
            spans[n].end = byte_of[b < n_chars ? b : n_chars];
            spans[n].insert = NULL;
            n++;
        }
        yaml_token_delete(&tok);
    }
    yaml_parser_delete(&parser);
    free(byte_of);
    *out = spans;
    *n_out = n;
    return rc;
}

/* Where the comment of line [ls, le) starts (a '#' after a blank or at the line's start,
 * outside every scalar); le when it has none. *k walks the spans along with the lines. */
static size_t comment_at(const char *t, size_t ls, size_t le, const struct span *sc, size_t n,
                         size_t *k)
{
    for (size_t p = ls; p < le; p++) {
        while (*k < n && sc[*k].end <= p)
            (*k)++;
        if (t[p] != '#' || (p > ls && !is_blank(t[p - 1])))
            continue;
        if (*k < n && sc[*k].start <= p && p < sc[*k].end)
            continue;
        return p;
    }
    return le;
}

/* text without its comments: a comment line goes whole, a trailing comment with the blanks
 * before it. */
static int strip_comments(const char *path, const char *text, size_t len, struct strbuf *out,
                          struct error *err)
{
    struct span *sc;
    size_t n, k = 0;
    if (scalar_spans(path, text, len, &sc, &n, err) != 0) {
        free(sc);
        return -1;
    }
    for (size_t ls = 0; ls < len;) {
        size_t le = ls;
        while (le < len && text[le] != '\n')
            le++;
        size_t c = comment_at(text, ls, le, sc, n, &k), end = c;
        while (c < le && end > ls && is_blank(text[end - 1]))
            end--;
        bool only_comment = c < le && end == ls;
        if (!only_comment) {
            strbuf_add(out, text + ls, end - ls);
            if (le < len)
                strbuf_addch(out, '\n');
        }
        ls = le < len ? le + 1 : le;
    }
    free(sc);
    return 0;
}

/* Whether two texts are the same YAML, event by event (the comments' removal changed no
 * data): kinds, anchors, tags and scalar values. */
static bool same_yaml(const char *a, size_t la, const char *b, size_t lb)
{
    yaml_parser_t pa, pb;
    yaml_event_t ea, eb;
    bool same = true, done = false;
    yaml_parser_initialize(&pa);
    yaml_parser_initialize(&pb);
    yaml_parser_set_input_string(&pa, (const unsigned char *)a, la);
    yaml_parser_set_input_string(&pb, (const unsigned char *)b, lb);
    while (same && !done) {
        if (!yaml_parser_parse(&pa, &ea))
            break;
        if (!yaml_parser_parse(&pb, &eb)) {
            yaml_event_delete(&ea);
            same = false;
            break;
        }
        same = ea.type == eb.type;
        if (same && ea.type == YAML_SCALAR_EVENT)
            same = ea.data.scalar.length == eb.data.scalar.length &&
                   !memcmp(ea.data.scalar.value, eb.data.scalar.value, ea.data.scalar.length);
        done = ea.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ea);
        yaml_event_delete(&eb);
    }
    yaml_parser_delete(&pa);
    yaml_parser_delete(&pb);
    return same && done;
}

/* out[start..] without comments, checked to hold the same data. */
static int uncomment(const char *yaml_path, struct strbuf *out, size_t start, struct error *err)
{
    struct strbuf bare = STRBUF_INIT;
    int rc = strip_comments(yaml_path, out->buf + start, out->len - start, &bare, err);
    if (rc == 0 &&
        !same_yaml(out->buf + start, out->len - start, bare.buf ? bare.buf : "", bare.len))
        rc = error_set_at(err, yaml_path, 0, 0,
                          "taking the comments out changed the data: write the spec more "
                          "plainly (no '#' right after a value's last character)");
    if (rc == 0) {
        strbuf_setlen(out, start);
        strbuf_add(out, bare.buf ? bare.buf : "", bare.len);
    }
    strbuf_release(&bare);
    return rc;
}

/* What the cutter owns: its spans, the texts they insert, its character index. */
static void cutter_release(struct cutter *c)
{
    free(c->cuts);
    for (size_t i = 0; i < c->n_texts; i++)
        free(c->texts[i]);
    free(c->texts);
    free(c->byte_of);
}

void kit_free_ids(char **ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

int kit_spec_text(const char *yaml_path, bool objects, struct strbuf *out, struct strbuf *warnings,
                  char ***dropped, size_t *n_dropped, struct error *err)
{
    struct strbuf text = STRBUF_INIT;
    yaml_document_t doc;
    struct cutter c;
    size_t n_hidden = 0;
    int rc = -1;

    if (read_file(yaml_path, &text, err) != 0)
        return -1;
    if (load_doc(yaml_path, text.buf, text.len, &doc, err) != 0) {
        strbuf_release(&text);
        return -1;
    }
    memset(&c, 0, sizeof(c));
    c.path = yaml_path;
    c.text = text.buf;
    c.len = text.len;
    c.doc = &doc;
    c.warnings = warnings;
    c.err = err;
    index_chars(&c);
    if (scan_hidden(&c, true, &n_hidden) == 0 && (!objects || mark_reference_sources(&c) == 0)) {
        size_t start = out->len;
        apply_cuts(&c, out);
        rc = 0;
        /* The cut text must parse and have nothing hidden left; otherwise the cut is wrong. */
        yaml_document_t check;
        char *what = xstrfmt("%s (its hidden cases withheld)", yaml_path);
        if (load_doc(what, out->buf + start, out->len - start, &check, err) != 0) {
            rc = -1;
        } else {
            struct cutter cc = c;
            cc.doc = &check;
            if (scan_hidden(&cc, false, &n_hidden) != 0)
                rc = -1;
            else if (n_hidden)
                rc = error_set_at(err, yaml_path, 0, 0,
                                  "%zu hidden cases are still there after withholding them",
                                  n_hidden);
            yaml_document_delete(&check);
        }
        free(what);
        if (rc == 0)
            rc = uncomment(yaml_path, out, start, err);
        if (rc)
            strbuf_setlen(out, start);
    }
    if (dropped && rc == 0) {
        *dropped = c.dropped;
        *n_dropped = c.n_dropped;
    } else {
        kit_free_ids(c.dropped, c.n_dropped);
    }
    cutter_release(&c);
    yaml_document_delete(&doc);
    strbuf_release(&text);
    return rc;
}

int kit_strip_hidden(const char *yaml_path, struct strbuf *out, struct error *err)
{
    return kit_spec_text(yaml_path, false, out, NULL, NULL, NULL, err);
}
