#include "base/template.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Values                                                                   */

struct tpl_value {
    enum tpl_type type;
    bool markdown; /* TPL_STRING that is already safe output */
    bool block;    /* TPL_STRING of several lines: the render's block function inserts it */
    char *str;
    double num;
    bool b;
    struct tpl_value **items; /* list items, or map values */
    char **keys;              /* map keys */
    size_t n, alloc;
};

static struct tpl_value *value_new(enum tpl_type type)
{
    struct tpl_value *v = xcalloc(1, sizeof(*v));
    v->type = type;
    return v;
}

struct tpl_value *tpl_string(const char *s)
{
    struct tpl_value *v = value_new(TPL_STRING);
    v->str = xstrdup(s ? s : "");
    return v;
}

struct tpl_value *tpl_markdown(const char *s)
{
    struct tpl_value *v = tpl_string(s);
    v->markdown = true;
    return v;
}

struct tpl_value *tpl_block(const char *s)
{
    struct tpl_value *v = tpl_string(s);
    v->block = true;
    return v;
}

struct tpl_value *tpl_number(double x)
{
    struct tpl_value *v = value_new(TPL_NUMBER);
    v->num = x;
    return v;
}

struct tpl_value *tpl_bool(bool b)
{
    struct tpl_value *v = value_new(TPL_BOOL);
    v->b = b;
    return v;
}

struct tpl_value *tpl_list(void)
{
    return value_new(TPL_LIST);
}

struct tpl_value *tpl_map(void)
{
    return value_new(TPL_MAP);
}

void tpl_value_free(struct tpl_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        tpl_value_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

enum tpl_type tpl_type_of(const struct tpl_value *v)
{
    return v->type;
}

size_t tpl_list_len(const struct tpl_value *list)
{
    return list && list->type == TPL_LIST ? list->n : 0;
}

static struct tpl_value *map_find(const struct tpl_value *map, const char *key, size_t key_len)
{
    if (!map || map->type != TPL_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strlen(map->keys[i]) == key_len && !memcmp(map->keys[i], key, key_len))
            return map->items[i];
    return NULL;
}

struct tpl_value *tpl_set(struct tpl_value *map, const char *key, struct tpl_value *v)
{
    for (size_t i = 0; i < map->n; i++) {
        if (!strcmp(map->keys[i], key)) {
            tpl_value_free(map->items[i]);
            map->items[i] = v;
            return v;
        }
    }
    if (map->n + 1 > map->alloc) {
        size_t alloc = map->alloc ? map->alloc * 2 : 8;
        map->items = xrealloc(map->items, alloc * sizeof(*map->items));
        map->keys = xrealloc(map->keys, alloc * sizeof(*map->keys));
        map->alloc = alloc;
    }
    map->keys[map->n] = xstrdup(key);
    map->items[map->n++] = v;
    return v;
}

struct tpl_value *tpl_push(struct tpl_value *list, struct tpl_value *v)
{
    ALLOC_GROW(list->items, list->n + 1, list->alloc);
    list->items[list->n++] = v;
    return v;
}

void tpl_set_str(struct tpl_value *map, const char *key, const char *s)
{
    tpl_set(map, key, tpl_string(s));
}

void tpl_set_md(struct tpl_value *map, const char *key, const char *s)
{
    tpl_set(map, key, tpl_markdown(s));
}

void tpl_set_block(struct tpl_value *map, const char *key, const char *s)
{
    tpl_set(map, key, tpl_block(s));
}

void tpl_set_mdf(struct tpl_value *map, const char *key, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    struct tpl_value *v = value_new(TPL_STRING);
    v->markdown = true;
    v->str = sb.buf ? strbuf_detach(&sb) : xstrdup("");
    tpl_set(map, key, v);
}

void tpl_set_num(struct tpl_value *map, const char *key, double x)
{
    tpl_set(map, key, tpl_number(x));
}

void tpl_set_bool(struct tpl_value *map, const char *key, bool b)
{
    tpl_set(map, key, tpl_bool(b));
}

struct tpl_value *tpl_set_map(struct tpl_value *map, const char *key)
{
    return tpl_set(map, key, tpl_map());
}

struct tpl_value *tpl_set_list(struct tpl_value *map, const char *key)
{
    return tpl_set(map, key, tpl_list());
}

struct tpl_value *tpl_push_map(struct tpl_value *list)
{
    return tpl_push(list, tpl_map());
}

const struct tpl_value *tpl_get(const struct tpl_value *v, const char *dotted)
{
    const char *p = dotted;
    while (v && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        v = map_find(v, p, len);
        p += len + (dot ? 1 : 0);
    }
    return v;
}

const char *tpl_str(const struct tpl_value *v)
{
    return v && v->type == TPL_STRING ? v->str : NULL;
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */

enum node_kind { NODE_TEXT, NODE_VAR, NODE_RAW, NODE_SECTION, NODE_INVERTED };

struct tpl_node {
    enum node_kind kind;
    char *text; /* the text, or the name */
    size_t len;
    int line, col;
    struct tpl_node **children;
    size_t n_children, alloc_children;
};

static struct tpl_node *node_new(enum node_kind kind, const char *text, size_t len, int line,
                                 int col)
{
    struct tpl_node *n = xcalloc(1, sizeof(*n));
    n->kind = kind;
    n->text = xstrndup(text ? text : "", len);
    n->len = len;
    n->line = line;
    n->col = col;
    return n;
}

static void node_free(struct tpl_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n_children; i++)
        node_free(n->children[i]);
    free(n->children);
    free(n->text);
    free(n);
}

static void node_add(struct tpl_node *parent, struct tpl_node *child)
{
    ALLOC_GROW(parent->children, parent->n_children + 1, parent->alloc_children);
    parent->children[parent->n_children++] = child;
}

struct parser {
    const char *name;
    const char *s;
    size_t len;
    struct error *err;
    /* line and column of offset `at`, advanced incrementally */
    size_t at;
    int line, col;
};

/* Line and column (in characters) of offset `to`, which must not go backwards. */
static void locate(struct parser *p, size_t to, int *line, int *col)
{
    for (; p->at < to; p->at++) {
        unsigned char c = (unsigned char)p->s[p->at];
        if (c == '\n') {
            p->line++;
            p->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            p->col++;
        }
    }
    *line = p->line;
    *col = p->col;
}

static const char *find(const char *s, size_t len, size_t from, const char *needle)
{
    size_t nl = strlen(needle);
    for (size_t i = from; i + nl <= len; i++)
        if (!memcmp(s + i, needle, nl))
            return s + i;
    return NULL;
}

static bool valid_name(const char *s, size_t len)
{
    if (len == 1 && s[0] == '.')
        return true;
    if (len == 0 || s[0] == '.' || s[len - 1] == '.')
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || (c == '@' && i == 0)))
            return false;
        if (c == '.' && s[i + 1] == '.')
            return false;
    }
    return true;
}

static void add_text(struct tpl_node *parent, const char *s, size_t from, size_t to)
{
    if (to > from)
        node_add(parent, node_new(NODE_TEXT, s + from, to - from, 0, 0));
}

void template_init(struct template *t)
{
    t->name = NULL;
    t->root = NULL;
}

void template_release(struct template *t)
{
    free(t->name);
    node_free(t->root);
    template_init(t);
}

/* One tag: where it starts and ends, its sigil ('\0' for a variable) and its trimmed name. */
struct tag {
    size_t start, end;
    char sigil;
    const char *name;
    size_t name_len;
    int line, col;
};

/* The tag opening at p->s[start] ("{{"); -1 when it is never closed. */
static int read_tag(struct parser *p, size_t start, struct tag *tg)
{
    const char *text = p->s;
    locate(p, start, &tg->line, &tg->col);
    bool triple = start + 2 < p->len && text[start + 2] == '{';
    const char *close = find(text, p->len, start + 2, triple ? "}}}" : "}}");
    if (!close)
        return error_set_at(p->err, p->name, tg->line, tg->col, "unclosed tag: '%s' without '%s'",
                            triple ? "{{{" : "{{", triple ? "}}}" : "}}");
    tg->start = start;
    tg->end = (size_t)(close - text) + (triple ? 3 : 2);
    const char *inner = text + start + (triple ? 3 : 2);
    size_t n = (size_t)(close - inner);
    tg->sigil = triple ? '&' : (n ? inner[0] : '\0');
    if (!triple && tg->sigil && strchr("#^/!&>=", tg->sigil)) {
        inner++;
        n--;
    } else if (!triple) {
        tg->sigil = '\0';
    }
    while (n && strchr(" \t\r\n", inner[0])) {
        inner++;
        n--;
    }
    while (n && strchr(" \t\r\n", inner[n - 1]))
        n--;
    tg->name = inner;
    tg->name_len = n;
    return 0;
}

/* A block tag alone on its line takes the line (indentation and newline) along: the text
 * before it ends at *text_end, and the text after it starts at *next. */
static void standalone(const struct parser *p, size_t text_start, const struct tag *tg,
                       size_t *text_end, size_t *next)
{
    const char *text = p->s;
    *text_end = tg->start;
    *next = tg->end;
    if (!tg->sigil || !strchr("#^/!", tg->sigil))
        return;
    size_t ls = tg->start, e = tg->end;
    while (ls > text_start && (text[ls - 1] == ' ' || text[ls - 1] == '\t'))
        ls--;
    while (e < p->len && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r'))
        e++;
    if ((ls == 0 || text[ls - 1] == '\n') && (e == p->len || text[e] == '\n')) {
        *text_end = ls;
        *next = e < p->len ? e + 1 : e;
    }
}

/* The open sections, innermost last; v[0] is the root. */
struct open_sections {
    struct tpl_node **v;
    size_t depth, alloc;
};

/* A closing tag must close the innermost open section. */
static int close_section(struct parser *p, struct open_sections *s, const struct tag *tg)
{
    struct tpl_node *top = s->v[s->depth - 1];
    int n = (int)tg->name_len;
    if (s->depth == 1)
        return error_set_at(p->err, p->name, tg->line, tg->col,
                            "'{{/%.*s}}' closes no open section", n, tg->name);
    if (top->len != tg->name_len || memcmp(top->text, tg->name, tg->name_len))
        return error_set_at(p->err, p->name, tg->line, tg->col,
                            "'{{/%.*s}}' closes section '%s', opened at line %d, column %d", n,
                            tg->name, top->text, top->line, top->col);
    s->depth--;
    return 0;
}

/* What a tag does to the tree: nothing (a comment), an error, a closed section or a node. */
static int apply_tag(struct parser *p, struct open_sections *s, const struct tag *tg)
{
    if (tg->sigil == '!')
        return 0;
    if (tg->sigil == '>')
        return error_set_at(p->err, p->name, tg->line, tg->col,
                            "partials ({{>name}}) are not supported");
    if (tg->sigil == '=')
        return error_set_at(p->err, p->name, tg->line, tg->col,
                            "changing delimiters ({{=...=}}) is not supported");
    if (!valid_name(tg->name, tg->name_len))
        return error_set_at(p->err, p->name, tg->line, tg->col,
                            "invalid name '%.*s' (letters, digits, '_', '-', dotted, or '.')",
                            (int)tg->name_len, tg->name);
    if (tg->sigil == '/')
        return close_section(p, s, tg);
    enum node_kind kind = tg->sigil == '#'   ? NODE_SECTION
                          : tg->sigil == '^' ? NODE_INVERTED
                          : tg->sigil == '&' ? NODE_RAW
                                             : NODE_VAR;
    struct tpl_node *n = node_new(kind, tg->name, tg->name_len, tg->line, tg->col);
    node_add(s->v[s->depth - 1], n);
    if (kind == NODE_SECTION || kind == NODE_INVERTED) {
        ALLOC_GROW(s->v, s->depth + 1, s->alloc);
        s->v[s->depth++] = n;
    }
    return 0;
}

int template_parse(struct template *t, const char *name, const char *text, size_t len,
                   struct error *err)
{
    struct parser p = {name ? name : "template", text, len, err, 0, 1, 1};
    struct tpl_node *root = node_new(NODE_SECTION, NULL, 0, 1, 1);
    struct open_sections s = {xmalloc(sizeof(*s.v) * 8), 1, 8};
    size_t text_start = 0;
    int rc = -1;
    s.v[0] = root;
    for (;;) {
        const char *open = find(text, len, text_start, "{{");
        struct tag tg = {0};
        size_t text_end, next;
        if (!open) {
            add_text(s.v[s.depth - 1], text, text_start, len);
            break;
        }
        if (read_tag(&p, (size_t)(open - text), &tg) != 0)
            goto out;
        standalone(&p, text_start, &tg, &text_end, &next);
        add_text(s.v[s.depth - 1], text, text_start, text_end);
        text_start = next;
        if (apply_tag(&p, &s, &tg) != 0)
            goto out;
    }
    if (s.depth > 1) {
        struct tpl_node *top = s.v[s.depth - 1];
        error_set_at(err, p.name, top->line, top->col, "section '%s' is never closed", top->text);
        goto out;
    }
    template_release(t);
    t->name = xstrdup(p.name);
    t->root = root;
    root = NULL;
    rc = 0;
out:
    node_free(root);
    free(s.v);
    return rc;
}

int template_load(struct template *t, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    if (read_file(path, &sb, err) != 0) {
        strbuf_release(&sb);
        return -1;
    }
    int rc = template_parse(t, path, strbuf_str(&sb), sb.len, err);
    strbuf_release(&sb);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Rendering                                                                */

struct frame {
    const struct tpl_value *v;
    bool in_list;
    size_t index, count;
};

struct renderer {
    const struct template *t;
    const struct tpl_render_opts *o;
    tpl_escape_fn block; /* for tpl_block() values; NULL: o->escape */
    struct strbuf *out;
    struct error *err;
    struct frame *stack;
    size_t depth, alloc;
    struct tpl_value special; /* the value of @index, @first or @last */
};

static const struct tpl_value *lookup(struct renderer *r, const char *name)
{
    if (!strcmp(name, "."))
        return r->depth ? r->stack[r->depth - 1].v : NULL;
    if (name[0] == '@') {
        for (size_t i = r->depth; i-- > 0;) {
            const struct frame *f = &r->stack[i];
            if (!f->in_list)
                continue;
            memset(&r->special, 0, sizeof(r->special));
            if (!strcmp(name, "@index")) {
                r->special.type = TPL_NUMBER;
                r->special.num = (double)(f->index + 1);
            } else if (!strcmp(name, "@first") || !strcmp(name, "@last")) {
                r->special.type = TPL_BOOL;
                r->special.b = name[1] == 'f' ? f->index == 0 : f->index + 1 == f->count;
            } else {
                return NULL;
            }
            return &r->special;
        }
        return NULL;
    }
    const char *dot = strchr(name, '.');
    size_t first_len = dot ? (size_t)(dot - name) : strlen(name);
    for (size_t i = r->depth; i-- > 0;) {
        const struct tpl_value *v = map_find(r->stack[i].v, name, first_len);
        if (v)
            return dot ? tpl_get(v, dot + 1) : v;
    }
    return NULL;
}

static bool truthy(const struct tpl_value *v)
{
    if (!v)
        return false;
    switch (v->type) {
    case TPL_STRING:
        return v->str[0] != '\0';
    case TPL_NUMBER:
        return v->num != 0 && !isnan(v->num);
    case TPL_BOOL:
        return v->b;
    case TPL_LIST:
        return v->n > 0;
    case TPL_MAP:
        return true;
    }
    return false;
}

static void push(struct renderer *r, const struct tpl_value *v, bool in_list, size_t index,
                 size_t count)
{
    ALLOC_GROW(r->stack, r->depth + 1, r->alloc);
    r->stack[r->depth++] = (struct frame){v, in_list, index, count};
}

static void format_number(struct strbuf *out, double x)
{
    if (x == 0)
        strbuf_addch(out, '0');
    else if (isfinite(x) && x == floor(x) && fabs(x) < 1e15)
        strbuf_addf(out, "%.0f", x);
    else
        strbuf_addf(out, "%.6g", x);
}

static int render_nodes(struct renderer *r, const struct tpl_node *parent);

static int render_node(struct renderer *r, const struct tpl_node *n)
{
    if (n->kind == NODE_TEXT) {
        strbuf_add(r->out, n->text, n->len);
        return 0;
    }
    const struct tpl_value *v = lookup(r, n->text);
    if (!v && r->o && r->o->strict && n->kind != NODE_INVERTED)
        return error_set_at(r->err, r->t->name, n->line, n->col, "unknown name '%s'", n->text);
    switch (n->kind) {
    case NODE_VAR:
    case NODE_RAW:
        if (!v)
            return 0;
        if (v->type == TPL_LIST || v->type == TPL_MAP)
            return error_set_at(r->err, r->t->name, n->line, n->col,
                                "'%s' is a %s: use {{#%s}}...{{/%s}}", n->text,
                                v->type == TPL_LIST ? "list" : "map", n->text, n->text);
        if (v->type == TPL_NUMBER)
            format_number(r->out, v->num);
        else if (v->type == TPL_BOOL)
            strbuf_addstr(r->out, v->b ? "true" : "false");
        else if (n->kind == NODE_VAR && v->block && r->block)
            r->block(r->out, v->str);
        else if (n->kind == NODE_VAR && !v->markdown && r->o && r->o->escape)
            r->o->escape(r->out, v->str);
        else
            strbuf_addstr(r->out, v->str);
        return 0;
    case NODE_INVERTED:
        return truthy(v) ? 0 : render_nodes(r, n);
    case NODE_SECTION:
        if (!truthy(v))
            return 0;
        if (v->type == TPL_LIST) {
            for (size_t i = 0; i < v->n; i++) {
                push(r, v->items[i], true, i, v->n);
                int rc = render_nodes(r, n);
                r->depth--;
                if (rc != 0)
                    return rc;
            }
            return 0;
        }
        if (v->type == TPL_MAP || v->type == TPL_STRING) {
            push(r, v, false, 0, 0);
            int rc = render_nodes(r, n);
            r->depth--;
            return rc;
        }
        return render_nodes(r, n);
    case NODE_TEXT:
        break;
    }
    return 0;
}

static int render_nodes(struct renderer *r, const struct tpl_node *parent)
{
    for (size_t i = 0; i < parent->n_children; i++)
        if (render_node(r, parent->children[i]) != 0)
            return -1;
    return 0;
}

int template_render(const struct template *t, const struct tpl_value *ctx,
                    const struct tpl_render_opts *o, struct strbuf *out, struct error *err)
{
    return template_render_blocks(t, ctx, o, NULL, out, err);
}

int template_render_blocks(const struct template *t, const struct tpl_value *ctx,
                           const struct tpl_render_opts *o, tpl_escape_fn block, struct strbuf *out,
                           struct error *err)
{
    if (!t->root)
        return error_set(err, "template not parsed");
    struct renderer r;
    memset(&r, 0, sizeof(r));
    r.t = t;
    r.o = o;
    r.block = block;
    r.out = out;
    r.err = err;
    if (ctx)
        push(&r, ctx, false, 0, 0);
    int rc = render_nodes(&r, t->root);
    free(r.stack);
    return rc;
}

int template_render_text(const char *name, const char *text, const struct tpl_value *ctx,
                         const struct tpl_render_opts *o, struct strbuf *out, struct error *err)
{
    struct template t;
    template_init(&t);
    if (template_parse(&t, name, text, strlen(text), err) != 0)
        return -1;
    int rc = template_render(&t, ctx, o, out, err);
    template_release(&t);
    return rc;
}
