/*
 * kit: the student kit tarball. See kit.h.
 */
#include "class/kit.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* ---- cutting hidden cases out of the spec's text ---- */

struct span {
    size_t start, end;
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

static void add_cut(struct cutter *c, size_t start, size_t end)
{
    ALLOC_GROW(c->cuts, c->n_cuts + 1, c->alloc_cuts);
    c->cuts[c->n_cuts].start = start;
    c->cuts[c->n_cuts].end = end;
    c->n_cuts++;
}

/*
 * Cut a block sequence's item i: whole lines, from the line of its "- " to the end of
 * the line its content ends on (a trailing comment there goes with it).
 */
static int cut_block_item(struct cutter *c, const yaml_node_t *seq, size_t i)
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
    s--;
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

/*
 * Count the hidden cases of the document; with cut set, also record the spans to
 * remove (hidden cases, and whole exercises that have nothing else).
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
            if ((drop[i] = is_true(map_get(c->doc, seq_item(c->doc, cases, i), "hidden"))))
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
                rc = cut_items(c, cases, drop);
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
    qsort(c->cuts, c->n_cuts, sizeof(*c->cuts), cmp_span);
    for (size_t i = 0; i < c->n_cuts; i++) {
        const struct span *s = &c->cuts[i];
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

static void free_ids(char **ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

/* dropped (may be NULL) receives the ids of the exercises cut whole; the caller frees them. */
static int strip_hidden(const char *yaml_path, struct strbuf *out, struct strbuf *warnings,
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
    if (scan_hidden(&c, true, &n_hidden) == 0) {
        size_t start = out->len;
        apply_cuts(&c, out);
        rc = 0;
        /* The cut text must parse and have nothing hidden left; otherwise the cut is wrong. */
        yaml_document_t check;
        char *what = xstrfmt("%s (without hidden cases)", yaml_path);
        if (load_doc(what, out->buf + start, out->len - start, &check, err) != 0) {
            rc = -1;
        } else {
            struct cutter cc = c;
            cc.doc = &check;
            if (scan_hidden(&cc, false, &n_hidden) != 0)
                rc = -1;
            else if (n_hidden)
                rc = error_set_at(err, yaml_path, 0, 0,
                                  "%zu hidden cases are still there after cutting them out",
                                  n_hidden);
            yaml_document_delete(&check);
        }
        free(what);
        if (rc)
            strbuf_setlen(out, start);
    }
    if (dropped && rc == 0) {
        *dropped = c.dropped;
        *n_dropped = c.n_dropped;
    } else {
        free_ids(c.dropped, c.n_dropped);
    }
    free(c.cuts);
    free(c.byte_of);
    yaml_document_delete(&doc);
    strbuf_release(&text);
    return rc;
}

int kit_strip_hidden(const char *yaml_path, struct strbuf *out, struct error *err)
{
    return strip_hidden(yaml_path, out, NULL, NULL, NULL, err);
}

/* ---- staging: the kit's tree in a temporary folder ---- */

struct stager {
    char *root;  /* repository root, absolute */
    char *stage; /* the kit's top folder in the temporary folder */
    struct strbuf *warnings;
    struct error *err;
    char **seen; /* repository-relative files already staged */
    size_t n_seen, alloc_seen;
};

/* Which entries of a tree go into the kit; rel is relative to the tree, name its last part. */
typedef bool (*keep_fn)(const char *rel, const char *name, bool is_dir);

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static bool keep_grader(const char *rel, const char *name, bool is_dir)
{
    if (name[0] == '.')
        return false;
    /* One folder per stage (docs/architecture.md), the harness among them. */
    if (is_dir)
        return strchr(rel, '/') == NULL;
    return ends_with(name, ".c") || ends_with(name, ".h") || ends_with(name, ".cu") ||
           ends_with(name, ".cuh") || ends_with(name, ".sh");
}

static bool keep_any(const char *rel, const char *name, bool is_dir)
{
    (void)rel;
    (void)is_dir;
    return name[0] != '.';
}

/* The lab folder: no solution, and lab.yaml is written separately without hidden cases. */
static bool keep_lab(const char *rel, const char *name, bool is_dir)
{
    if (name[0] == '.')
        return false;
    if (is_dir)
        return strcmp(rel, "solution") != 0;
    return strcmp(rel, "lab.yaml") != 0;
}

static int stage_file(struct stager *s, const char *src, const char *rel)
{
    struct stat st;
    char *dst = path_join(s->stage, rel);
    char *dir = xstrdup(dst);
    int rc;
    *strrchr(dir, '/') = '\0';
    rc = mkdir_p(dir, s->err);
    if (!rc)
        rc = copy_file(src, dst, s->err);
    /* copy_file's mode went through the umask; the kit keeps the source's. */
    if (!rc && stat(src, &st) == 0 && chmod(dst, st.st_mode & 0777) != 0)
        rc = error_set_at(s->err, dst, 0, 0, "cannot set its mode: %s", strerror(errno));
    free(dir);
    free(dst);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir, sorted, without . and ..; NULL with err set. */
static char **list_dir(const char *dir, size_t *n_out, struct error *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    if (!d) {
        error_set_at(err, dir, 0, 0, "cannot open directory: %s", strerror(errno));
        return NULL;
    }
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        ALLOC_GROW(names, n + 1, alloc);
        names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (!names)
        names = xmalloc(sizeof(*names));
    qsort(names, n, sizeof(*names), cmp_str);
    *n_out = n;
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/*
 * Copy the tree src (tree-relative path sub, "" at the top) into the kit at dst_rel.
 * Links to files are copied as files (the kit holds no links); links to folders are
 * skipped with a warning, since following them could loop.
 */
static int stage_tree(struct stager *s, const char *src, const char *sub, const char *dst_rel,
                      keep_fn keep)
{
    char *dir = *sub ? path_join(src, sub) : xstrdup(src);
    size_t n = 0;
    char **names = list_dir(dir, &n, s->err);
    int rc = 0;
    if (!names) {
        free(dir);
        return -1;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char *path = path_join(dir, names[i]);
        char *rel = *sub ? xstrfmt("%s/%s", sub, names[i]) : xstrdup(names[i]);
        char *kit_rel = xstrfmt("%s/%s", dst_rel, rel);
        struct stat lst, st;
        if (lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode)) {
            if (keep(rel, names[i], true))
                rc = stage_tree(s, src, rel, dst_rel, keep);
        } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (keep(rel, names[i], false))
                rc = stage_file(s, path, kit_rel);
        } else if (keep(rel, names[i], false) && s->warnings) {
            strbuf_addf(s->warnings, "%s: not a regular file or folder: left out of the kit\n",
                        path);
        }
        free(kit_rel);
        free(rel);
        free(path);
    }
    free_names(names, n);
    free(dir);
    return rc;
}

/* The part of abs below dir, or NULL when abs is not inside dir. */
static const char *below(const char *abs, const char *dir)
{
    size_t n = strlen(dir);
    if (strncmp(abs, dir, n) || abs[n] != '/')
        return NULL;
    return abs + n + 1;
}

static bool seen(struct stager *s, const char *rel)
{
    for (size_t i = 0; i < s->n_seen; i++)
        if (!strcmp(s->seen[i], rel))
            return true;
    ALLOC_GROW(s->seen, s->n_seen + 1, s->alloc_seen);
    s->seen[s->n_seen++] = xstrdup(rel);
    return false;
}

static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/*
 * Stage a reference source of the repository (abs: absolute) and the local headers it
 * includes ("#include \"x.h\"" found next to it), which it cannot compile without.
 */
static int stage_reference(struct stager *s, const char *abs, int depth)
{
    const char *rel = below(abs, s->root);
    struct strbuf text = STRBUF_INIT;
    if (!rel)
        return error_set_at(s->err, abs, 0, 0,
                            "reference source outside the repository (%s): the kit cannot "
                            "carry it",
                            s->root);
    if (seen(s, rel))
        return 0;
    if (stage_file(s, abs, rel) != 0)
        return -1;
    if (depth > 8 || read_file(abs, &text, s->err) != 0) {
        strbuf_release(&text);
        return depth > 8 ? 0 : -1;
    }
    char *dir = xstrdup(abs);
    *strrchr(dir, '/') = '\0';
    int rc = 0;
    for (const char *line = text.buf; line && *line && !rc; line = next_line(line)) {
        const char *q = line;
        while (is_blank(*q))
            q++;
        if (*q++ != '#')
            continue;
        while (is_blank(*q))
            q++;
        if (strncmp(q, "include", 7))
            continue;
        q += 7;
        while (is_blank(*q))
            q++;
        if (*q != '"')
            continue;
        const char *close = strchr(q + 1, '"');
        const char *eol = strchr(q + 1, '\n');
        if (!close || (eol && close > eol))
            continue;
        char *name = xstrndup(q + 1, (size_t)(close - q - 1));
        char *cand = path_join(dir, name);
        struct error ignored;
        char *cand_abs = file_exists(cand) ? path_abs(cand, &ignored) : NULL;
        /* Headers outside the repository are the system's (CUDA, BLAS), not the kit's. */
        if (cand_abs && below(cand_abs, s->root))
            rc = stage_reference(s, cand_abs, depth + 1);
        free(cand_abs);
        free(cand);
        free(name);
    }
    free(dir);
    strbuf_release(&text);
    return rc;
}

static bool in_ids(char *const *ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ids[i], id))
            return true;
    return false;
}

/* The references of every exercise but the dropped ones (left out of the kit). */
static int stage_references(struct stager *s, const struct lab *lab, const char *lab_dir,
                            char *const *dropped, size_t n_dropped)
{
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (in_ids(dropped, n_dropped, ex->id))
            continue;
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_spec *var = &ex->variants[v];
            if (!var->has_reference)
                continue;
            for (size_t i = 0; i < var->reference.n_sources; i++) {
                const char *src = var->reference.sources[i];
                struct error e2;
                char *abs = path_abs(src, &e2);
                const char *in_lab;
                int rc = 0;
                if (!abs)
                    return error_set_at(s->err, src, 0, 0, "reference source: %s", e2.msg);
                if ((in_lab = below(abs, lab_dir))) {
                    /* Travels with the lab folder, unless it is in the part left out. */
                    if (!strncmp(in_lab, "solution/", 9))
                        rc = error_set_at(s->err, abs, 0, 0,
                                          "%s/%s: the reference source is in solution/, which "
                                          "the kit leaves out: move it out of solution/",
                                          ex->id, var->id);
                } else {
                    rc = stage_reference(s, abs, 0);
                }
                free(abs);
                if (rc)
                    return -1;
            }
        }
    }
    return 0;
}

/* ---- the students' README ---- */

struct readme_words {
    const char *kit, *intro, *req_h, *req, *todo_h, *todo, *fn_line, *header_hint, *run_h,
        *run_quick, *run_full, *run_one, *run_other, *ex_h, *ex_cols, *pts_perf, *slow,
        *hidden_note, *verdicts_h, *verdicts, *report_h, *report, *exit;
};

static const struct readme_words readme_es = {
    .kit = "kit del estudiante",
    .intro = "Este kit trae el enunciado del laboratorio (`{}/lab.yaml`), el esqueleto que "
             "tienes que completar (`{}/skeleton/`) y el mismo corrector que usará el "
             "profesor, para que compruebes tu código en tu máquina antes de entregarlo.\n",
    .req_h = "Requisitos",
    .req = "Debian o Ubuntu con `make`. La primera vez, `make check` instala los paquetes de "
           "Debian que falten (como root o con `sudo` sin contraseña); si no puede, imprime la "
           "orden `apt-get install` que tienes que ejecutar. Las variantes de GPU necesitan el "
           "CUDA toolkit (en `$CUDA_HOME`, `/usr/local/cuda` o en el `PATH`) y una GPU NVIDIA; "
           "sin ellas esas variantes salen como `SK` (no ejecutadas, con el motivo) y el resto "
           "se corrige igual.\n",
    .todo_h = "Qué tienes que hacer",
    .todo = "Completa estos ficheros de `{}/skeleton/`:\n\n",
    .fn_line = "- `{}`: `{}` (ejercicio `{}`, variante `{}`)\n",
    .header_hint = "\nTras compilar con `make`, `build/grader header {}` imprime los prototipos "
                   "exactos que deben tener tus funciones.\n",
    .run_h = "Cómo comprobar tu código",
    .run_quick = "casos rápidos (sin los lentos)",
    .run_full = "también los casos lentos",
    .run_one = "un ejercicio y un caso, sin medir tiempos",
    .run_other = "otra carpeta en lugar del esqueleto",
    .ex_h = "Ejercicios",
    .ex_cols = "| ejercicio | puntos | variantes | casos |\n| --- | --- | --- | --- |\n",
    .pts_perf = " + {} de rendimiento",
    .slow = " (lento: `--full`)",
    .hidden_note = "\nLa nota final incluye además casos ocultos que no están en este kit: "
                   "tu código tiene que funcionar para cualquier tamaño, no solo para estos.\n",
    .verdicts_h = "Veredictos",
    .verdicts =
        "| código | significado |\n| --- | --- |\n"
        "| OK | coincide con la referencia dentro de la tolerancia |\n"
        "| WA | valores incorrectos: el informe dice cuántos elementos difieren, las mayores "
        "diferencias y los primeros índices erróneos |\n"
        "| CE | error de compilación o enlazado (el mensaje del compilador está en el informe) |\n"
        "| MF | falta una función o un fichero obligatorio, o su nombre está mal escrito |\n"
        "| SG | terminado por una señal (violación de segmento, abort, ...) |\n"
        "| RE | salida con error, o un error de CUDA tras tu llamada |\n"
        "| TO | superó el tiempo límite |\n"
        "| ML / OL | límite de memoria / de salida o de tamaño de fichero |\n"
        "| CH | manipulación detectada |\n"
        "| SK | no ejecutado aquí, con el motivo (sin GPU, caso lento sin `--full`) |\n"
        "| XX | falló el corrector o la máquina; nunca cuenta contra ti |\n\n"
        "Antes de cada llamada las salidas se rellenan con NaN, así que un elemento que tu "
        "código no escribe falla; cada función se llama dos veces con entradas distintas.\n",
    .report_h = "Dónde está el informe",
    .report = "`make check` imprime una tabla por ejercicio y escribe en `reports/{}/skeleton/` "
              "(o `reports/{}/<nombre de tu carpeta>/` con `SUBMISSION=`) el informe "
              "`report.md`, `report.pdf` (si están pandoc y xelatex) y `results.json`.\n",
    .exit = "\nCódigo de salida de `build/grader check` (`make check` falla si no es `0`): `0` "
            "todo lo corregido pasa (se permiten `SK`), `1` algo falla, "
            "`2` error de uso o del enunciado, `3` falló el propio corrector (no es culpa "
            "tuya: avisa al profesor).\n",
};

static const struct readme_words readme_en = {
    .kit = "student kit",
    .intro = "This kit holds the lab's description (`{}/lab.yaml`), the skeleton you complete "
             "(`{}/skeleton/`) and the same grader your instructor uses, so that you can check "
             "your code on your own machine before you hand it in.\n",
    .req_h = "Requirements",
    .req = "Debian or Ubuntu with `make`. The first time, `make check` installs the Debian "
           "packages it misses (as root, or with passwordless `sudo`); when it cannot, it "
           "prints the one `apt-get install` command to run. GPU variants need the CUDA "
           "toolkit (in `$CUDA_HOME`, `/usr/local/cuda` or on `PATH`) and an NVIDIA GPU; "
           "without them those variants show as `SK` (skipped, with the reason) and the rest "
           "is graded as usual.\n",
    .todo_h = "What to do",
    .todo = "Complete these files in `{}/skeleton/`:\n\n",
    .fn_line = "- `{}`: `{}` (exercise `{}`, variant `{}`)\n",
    .header_hint = "\nAfter building with `make`, `build/grader header {}` prints the exact "
                   "prototypes your functions must have.\n",
    .run_h = "Checking your code",
    .run_quick = "quick cases (no slow ones)",
    .run_full = "slow cases too",
    .run_one = "one exercise and one case, no timing",
    .run_other = "another folder instead of the skeleton",
    .ex_h = "Exercises",
    .ex_cols = "| exercise | points | variants | cases |\n| --- | --- | --- | --- |\n",
    .pts_perf = " + {} for speed",
    .slow = " (slow: `--full`)",
    .hidden_note = "\nYour grade also includes hidden cases that are not in this kit: your "
                   "code must work for any size, not just these.\n",
    .verdicts_h = "Verdicts",
    .verdicts =
        "| code | meaning |\n| --- | --- |\n"
        "| OK | agrees with the reference within the tolerance |\n"
        "| WA | wrong values: the report shows how many elements differ, the largest "
        "differences and the first mismatching indices |\n"
        "| CE | compile or link error (the compiler's message is in the report) |\n"
        "| MF | a required function or source file is missing, or misspelt |\n"
        "| SG | killed by a signal (segmentation fault, abort, ...) |\n"
        "| RE | non-zero exit, or a CUDA error after your call |\n"
        "| TO | wall-clock limit exceeded |\n"
        "| ML / OL | memory / output or file size limit |\n"
        "| CH | tampering detected |\n"
        "| SK | not run here, with the reason (no GPU, slow case without `--full`) |\n"
        "| XX | the grader or the machine failed; never charged to you |\n\n"
        "Outputs are filled with NaN before each call, so an element your code never writes "
        "fails; each function is called twice with different inputs.\n",
    .report_h = "Where the report is",
    .report = "`make check` prints a table per exercise and writes to `reports/{}/skeleton/` "
              "(or `reports/{}/<your folder's name>/` with `SUBMISSION=`) the report "
              "`report.md`, `report.pdf` (when pandoc and xelatex are there) and "
              "`results.json`.\n",
    .exit = "\nExit status of `build/grader check` (`make check` fails unless it is `0`): `0` "
            "everything graded passed (`SK` allowed), `1` something failed, "
            "`2` usage or spec error, `3` the grader itself failed (not your fault: tell your "
            "instructor).\n",
};

/* Append tmpl with each "{}" replaced by the next of vals (the words are data, not formats). */
static void add_fill(struct strbuf *sb, const char *tmpl, const char *const *vals, size_t n_vals)
{
    size_t used = 0;
    for (const char *p = tmpl; *p;) {
        const char *hole = strstr(p, "{}");
        if (!hole || used == n_vals) {
            strbuf_addstr(sb, p);
            return;
        }
        strbuf_add(sb, p, (size_t)(hole - p));
        strbuf_addstr(sb, vals[used++]);
        p = hole + 2;
    }
}

#define ADD_FILL(sb, tmpl, ...)                                                                    \
    do {                                                                                           \
        const char *const fill_vals[] = {__VA_ARGS__};                                             \
        add_fill((sb), (tmpl), fill_vals, sizeof(fill_vals) / sizeof(fill_vals[0]));               \
    } while (0)

/* kit_lab: the kit's own spec (no hidden cases); had_hidden: the original had some. */
static void write_readme(const struct lab *kit_lab, bool had_hidden, struct strbuf *sb)
{
    const struct readme_words *w =
        kit_lab->lang && !strcmp(kit_lab->lang, "en") ? &readme_en : &readme_es;
    char *labdir = xstrfmt("labs/lab%ld", kit_lab->number);
    const char *slow_case = NULL, *first_ex = NULL, *first_case = NULL;

    strbuf_addf(sb, "# Lab %ld: %s (%s)\n\n", kit_lab->number, kit_lab->title, w->kit);
    if (kit_lab->course && *kit_lab->course)
        strbuf_addf(sb, "%s\n\n", kit_lab->course);
    ADD_FILL(sb, w->intro, labdir, labdir);
    strbuf_addf(sb, "\n## %s\n\n%s", w->req_h, w->req);

    strbuf_addf(sb, "\n## %s\n\n", w->todo_h);
    ADD_FILL(sb, w->todo, labdir);
    for (size_t e = 0; e < kit_lab->n_exercises; e++) {
        const struct exercise_spec *ex = &kit_lab->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_spec *var = &ex->variants[v];
            for (size_t i = 0; i < var->student.n_sources; i++)
                ADD_FILL(sb, w->fn_line, var->student.sources[i], var->student.function, ex->id,
                         var->id);
        }
    }
    ADD_FILL(sb, w->header_hint, labdir);

    for (size_t e = 0; e < kit_lab->n_exercises; e++) {
        const struct exercise_spec *ex = &kit_lab->exercises[e];
        for (size_t c = 0; c < ex->n_cases; c++) {
            if (ex->cases[c].slow && !slow_case)
                slow_case = ex->cases[c].id;
            if (!ex->cases[c].slow && !first_case) {
                first_case = ex->cases[c].id;
                first_ex = ex->id;
            }
        }
    }
    strbuf_addf(sb, "\n## %s\n\n```sh\n", w->run_h);
    strbuf_addf(sb, "make check LAB=%ld                 # %s\n", kit_lab->number, w->run_quick);
    strbuf_addf(sb, "make check LAB=%ld ARGS=--full     # %s%s%s%s\n", kit_lab->number, w->run_full,
                slow_case ? " (" : "", slow_case ? slow_case : "", slow_case ? ")" : "");
    if (first_ex)
        strbuf_addf(sb, "make check LAB=%ld ARGS=\"--only %s --case %s --no-timing\"   # %s\n",
                    kit_lab->number, first_ex, first_case, w->run_one);
    strbuf_addf(sb, "make check LAB=%ld SUBMISSION=path/to/folder   # %s\n```\n", kit_lab->number,
                w->run_other);

    strbuf_addf(sb, "\n## %s\n\n%s", w->ex_h, w->ex_cols);
    for (size_t e = 0; e < kit_lab->n_exercises; e++) {
        const struct exercise_spec *ex = &kit_lab->exercises[e];
        strbuf_addf(sb, "| `%s`: %s | %g", ex->id, ex->title ? ex->title : "", ex->points);
        if (ex->has_perf && ex->perf.points > 0) {
            char pts[32];
            snprintf(pts, sizeof(pts), "%g", ex->perf.points);
            ADD_FILL(sb, w->pts_perf, pts);
        }
        strbuf_addstr(sb, " | ");
        for (size_t v = 0; v < ex->n_variants; v++)
            strbuf_addf(sb, "%s`%s`", v ? ", " : "", ex->variants[v].id);
        strbuf_addstr(sb, " | ");
        for (size_t c = 0; c < ex->n_cases; c++)
            strbuf_addf(sb, "%s`%s`%s", c ? ", " : "", ex->cases[c].id,
                        ex->cases[c].slow ? w->slow : "");
        strbuf_addstr(sb, " |\n");
    }
    if (had_hidden)
        strbuf_addstr(sb, w->hidden_note);

    strbuf_addf(sb, "\n## %s\n\n%s", w->verdicts_h, w->verdicts);
    strbuf_addf(sb, "\n## %s\n\n", w->report_h);
    ADD_FILL(sb, w->report, kit_lab->id ? kit_lab->id : "", kit_lab->id ? kit_lab->id : "");
    strbuf_addstr(sb, w->exit);
    free(labdir);
}

/* ---- the tarball ---- */

static int archive_fail(struct archive *a, const char *path, struct error *err)
{
    const char *msg = archive_error_string(a);
    return error_set_at(err, path, 0, 0, "cannot write the kit: %s",
                        msg ? msg : "libarchive error");
}

static int add_entry(struct archive *a, const char *out, const char *disk, const char *name,
                     struct error *err)
{
    struct stat st;
    struct archive_entry *ent;
    int rc = 0;
    if (stat(disk, &st) != 0)
        return error_set_at(err, disk, 0, 0, "cannot stat: %s", strerror(errno));
    ent = archive_entry_new();
    archive_entry_set_pathname(ent, name);
    archive_entry_set_uid(ent, 0);
    archive_entry_set_gid(ent, 0);
    archive_entry_set_uname(ent, "root");
    archive_entry_set_gname(ent, "root");
    archive_entry_set_mtime(ent, st.st_mtime, 0);
    if (S_ISDIR(st.st_mode)) {
        archive_entry_set_filetype(ent, AE_IFDIR);
        archive_entry_set_perm(ent, 0755);
        archive_entry_set_size(ent, 0);
        if (archive_write_header(a, ent) != ARCHIVE_OK)
            rc = archive_fail(a, out, err);
        archive_entry_free(ent);
        return rc;
    }
    archive_entry_set_filetype(ent, AE_IFREG);
    archive_entry_set_perm(ent, st.st_mode & 0777);
    archive_entry_set_size(ent, st.st_size);
    if (archive_write_header(a, ent) != ARCHIVE_OK) {
        archive_entry_free(ent);
        return archive_fail(a, out, err);
    }
    archive_entry_free(ent);
    int fd = open(disk, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, disk, 0, 0, "cannot open: %s", strerror(errno));
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = error_set_at(err, disk, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (archive_write_data(a, buf, (size_t)n) != n) {
            rc = archive_fail(a, out, err);
            break;
        }
    }
    close(fd);
    return rc;
}

/* Add the staged tree dir (archive name prefix) in sorted order: the same kit, the same list. */
static int add_tree(struct archive *a, const char *out, const char *dir, const char *prefix,
                    struct error *err)
{
    size_t n = 0;
    char **names = list_dir(dir, &n, err);
    int rc = 0;
    if (!names)
        return -1;
    for (size_t i = 0; i < n && !rc; i++) {
        char *disk = path_join(dir, names[i]);
        char *name = xstrfmt("%s/%s", prefix, names[i]);
        rc = add_entry(a, out, disk, name, err);
        if (!rc && dir_exists(disk))
            rc = add_tree(a, out, disk, name, err);
        free(name);
        free(disk);
    }
    free_names(names, n);
    return rc;
}

static int write_tarball(const char *stage, const char *top, const char *out, struct error *err)
{
    char *tmp = xstrfmt("%s.tmp.%ld", out, (long)getpid());
    struct archive *a = archive_write_new();
    int rc = 0;
    if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_filename(a, tmp) != ARCHIVE_OK)
        rc = archive_fail(a, out, err);
    if (!rc)
        rc = add_entry(a, out, stage, top, err);
    if (!rc)
        rc = add_tree(a, out, stage, top, err);
    if (archive_write_close(a) != ARCHIVE_OK && !rc)
        rc = archive_fail(a, out, err);
    archive_write_free(a);
    if (!rc && rename(tmp, out) != 0)
        rc = error_set_at(err, out, 0, 0, "cannot rename into place: %s", strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* ---- kit_build ---- */

static int write_text(const char *stage, const char *rel, const struct strbuf *sb,
                      struct error *err)
{
    char *path = path_join(stage, rel);
    char *dir = xstrdup(path);
    *strrchr(dir, '/') = '\0';
    int rc = mkdir_p(dir, err);
    free(dir);
    if (!rc)
        rc = write_file_atomic(path, sb->buf ? sb->buf : "", sb->len, err);
    if (!rc && chmod(path, 0644) != 0)
        rc = error_set_at(err, path, 0, 0, "cannot set its mode: %s", strerror(errno));
    free(path);
    return rc;
}

/* Load the staged spec from inside the kit: it must resolve with nothing outside. */
static int check_staged(const char *stage, const char *yaml_rel, struct lab *kit_lab,
                        struct error *err)
{
    char *path = path_join(stage, yaml_rel);
    struct error e;
    int rc;
    error_init(&e);
    lab_init(kit_lab);
    rc = spec_load(kit_lab, path, stage, &e);
    if (rc) {
        char msg[3200];
        error_format(&e, msg, sizeof(msg));
        error_set(err, "the kit's lab.yaml does not load inside the kit: %s", msg);
    }
    for (size_t x = 0; !rc && x < kit_lab->n_exercises; x++)
        for (size_t c = 0; c < kit_lab->exercises[x].n_cases; c++)
            if (kit_lab->exercises[x].cases[c].hidden) {
                rc = error_set(err, "the kit's lab.yaml still has hidden case %s/%s",
                               kit_lab->exercises[x].id, kit_lab->exercises[x].cases[c].id);
                break;
            }
    free(path);
    return rc;
}

static bool lab_has_hidden(const struct lab *lab)
{
    for (size_t x = 0; x < lab->n_exercises; x++)
        for (size_t c = 0; c < lab->exercises[x].n_cases; c++)
            if (lab->exercises[x].cases[c].hidden)
                return true;
    return false;
}

static char *make_stage_dir(struct error *err)
{
    const char *tmpdir = getenv("TMPDIR");
    char *t = xstrfmt("%s/lg-kit-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(t)) {
        error_set_at(err, t, 0, 0, "cannot create a temporary folder: %s", strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

int kit_build(const struct lab *lab, const struct kit_opts *o, struct strbuf *warnings,
              struct error *err)
{
    struct stager s;
    struct strbuf yaml = STRBUF_INIT, readme = STRBUF_INIT;
    struct lab kit_lab;
    char *tmp = NULL, *top = NULL, *lab_dir = NULL, *lab_rel = NULL, *yaml_rel = NULL;
    char *out_dir = NULL, **dropped = NULL;
    size_t n_dropped = 0;
    bool kit_loaded = false;
    int rc = -1;

    memset(&s, 0, sizeof(s));
    s.warnings = warnings;
    s.err = err;
    if (!o || !o->repo_root || !o->out_path || !*o->out_path)
        return error_set(err, "kit: the repository root and the output path are required");
    if (!(s.root = path_abs(o->repo_root, err)))
        goto out;
    if (!(lab_dir = path_abs(lab->dir, err)))
        goto out;
    {
        char *mk = path_join(s.root, "Makefile"), *gr = path_join(s.root, "grader/deps.sh");
        bool ok = file_exists(mk) && file_exists(gr);
        free(mk);
        free(gr);
        if (!ok) {
            error_set_at(err, s.root, 0, 0,
                         "not a labgrader repository (no Makefile and grader/deps.sh)");
            goto out;
        }
    }
    if (strip_hidden(lab->path, &yaml, warnings, &dropped, &n_dropped, err) != 0)
        goto out;

    if (!(tmp = make_stage_dir(err)))
        goto out;
    top = xstrfmt("lab%ld-kit", lab->number);
    s.stage = path_join(tmp, top);
    lab_rel = xstrfmt("labs/lab%ld", lab->number);
    yaml_rel = xstrfmt("%s/lab.yaml", lab_rel);
    if (mkdir_p(s.stage, err) != 0)
        goto out;

    static const char *const top_files[] = {"Makefile", "VERSION", "LICENSE", NULL};
    for (size_t i = 0; top_files[i]; i++) {
        char *src = path_join(s.root, top_files[i]);
        int r = file_exists(src) ? stage_file(&s, src, top_files[i]) : 0;
        free(src);
        if (r)
            goto out;
    }
    {
        char *grader = path_join(s.root, "grader"), *templates = path_join(s.root, "templates");
        int r = stage_tree(&s, grader, "", "grader", keep_grader);
        if (!r && dir_exists(templates))
            r = stage_tree(&s, templates, "", "templates", keep_any);
        free(grader);
        free(templates);
        if (r)
            goto out;
    }
    if (stage_tree(&s, lab_dir, "", lab_rel, keep_lab) != 0 ||
        stage_references(&s, lab, lab_dir, dropped, n_dropped) != 0 ||
        write_text(s.stage, yaml_rel, &yaml, err) != 0)
        goto out;

    if (warnings) {
        /* make check grades skeleton/ when there is no solution/: without one it has nothing. */
        char *skeleton = path_join(lab_dir, "skeleton");
        if (!dir_exists(skeleton))
            strbuf_addf(warnings,
                        "%s: no skeleton/ folder: the kit gives students nothing to "
                        "start from, and make check nothing to grade\n",
                        lab_dir);
        free(skeleton);
    }
    if (check_staged(s.stage, yaml_rel, &kit_lab, err) != 0) {
        lab_release(&kit_lab);
        goto out;
    }
    kit_loaded = true;
    write_readme(&kit_lab, lab_has_hidden(lab), &readme);
    if (write_text(s.stage, "README.md", &readme, err) != 0)
        goto out;

    out_dir = xstrdup(o->out_path);
    {
        char *slash = strrchr(out_dir, '/');
        if (slash && slash != out_dir) {
            *slash = '\0';
            if (mkdir_p(out_dir, err) != 0)
                goto out;
        }
    }
    rc = write_tarball(s.stage, top, o->out_path, err);

out:
    if (kit_loaded)
        lab_release(&kit_lab);
    if (tmp) {
        struct error ignored;
        remove_tree(tmp, &ignored);
    }
    for (size_t i = 0; i < s.n_seen; i++)
        free(s.seen[i]);
    free(s.seen);
    free_ids(dropped, n_dropped);
    free(s.stage);
    free(s.root);
    free(tmp);
    free(top);
    free(lab_dir);
    free(lab_rel);
    free(yaml_rel);
    free(out_dir);
    strbuf_release(&yaml);
    strbuf_release(&readme);
    return rc;
}
