/* buildsyms: what a student's objects may define and use (run/symbols.h, build_internal.h). */
#include "run/build_internal.h"

#include "run/symbols.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct symbol_set reserved;
static bool reserved_ready;

static void allowed_names(const struct lab *lab, struct symbol_set *allowed)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++)
            symbol_set_add(allowed, lab->exercises[e].variants[v].student.function, "lab");
    for (size_t i = 0; i < lab->n_allow_symbols; i++)
        symbol_set_add(allowed, lab->allow_symbols[i], "lab");
}

static char *refusal(const struct messages *msgs, const char *source, const char *name,
                     enum symbol_verdict why, bool defines, const char *origin)
{
    if (!defines)
        return why == SYMBOL_LOADER
                   ? xstrfmt(messages_get(msgs, "%s uses %s: the dynamic loader is not allowed in "
                                                "a submission (it could reach the grader's own "
                                                "code)"),
                             source, name)
                   : xstrfmt(messages_get(msgs, "%s uses %s, a name of the grader's harness"),
                             source, name);
    switch (why) {
    case SYMBOL_TIMES_YOU:
        return xstrfmt(messages_get(msgs, "%s defines %s, which the grader uses to time you: "
                                          "rename it"),
                       source, name);
    case SYMBOL_HARNESS:
        return xstrfmt(messages_get(msgs, "%s defines %s, a name of the grader's harness: rename "
                                          "it"),
                       source, name);
    case SYMBOL_LOADER:
        return xstrfmt(messages_get(msgs, "%s defines %s, the dynamic loader's: rename it"), source,
                       name);
    default:
        return xstrfmt(messages_get(msgs, "%s defines %s, which %s provides and the grader "
                                          "links: rename yours"),
                       source, name, origin ? origin : "a library");
    }
}

/* The first refused symbol of one object, or NULL. Caller frees. */
static char *object_refusal(const struct build_ctx *b, const struct build_obj *o,
                            struct symbol_set *allowed)
{
    struct symbol_set def, use;
    struct error err;
    char *path = path_join(b->dir, o->object), *why = NULL;
    symbol_set_init(&def);
    symbol_set_init(&use);
    error_init(&err);
    if (symbols_read_object(path, &def, &use, &err) != 0)
        why = xstrfmt(messages_get(b->messages, "%s: the compiler's output cannot be read: %s"),
                      o->source, err.msg);
    for (size_t i = 0; !why && i < def.n; i++) {
        const char *origin;
        enum symbol_verdict v =
            symbols_check_definition(def.entries[i].name, &reserved, allowed, &origin);
        if (v != SYMBOL_OK)
            why = refusal(b->messages, o->source, def.entries[i].name, v, true, origin);
    }
    for (size_t i = 0; !why && i < use.n; i++) {
        enum symbol_verdict v = symbols_check_use(use.entries[i].name);
        if (v != SYMBOL_OK)
            why = refusal(b->messages, o->source, use.entries[i].name, v, false, NULL);
    }
    symbol_set_release(&def);
    symbol_set_release(&use);
    free(path);
    return why;
}

/* ---- the submission's sources the lab does not compile ---- */

/* Bounds of the look through the submission: a handful of files is what a student adds. */
#define EXTRA_MAX_FILES 64
#define EXTRA_MAX_DEPTH 4
#define EXTRA_MAX_BYTES ((size_t)1 << 20)

static bool is_source(const char *name)
{
    static const char *const ext[] = {".c", ".cu", ".cpp", ".cc", ".cxx", NULL};
    size_t n = strlen(name);
    for (size_t i = 0; ext[i]; i++) {
        size_t k = strlen(ext[i]);
        if (n > k && !strcmp(name + n - k, ext[i]))
            return true;
    }
    return false;
}

static bool lab_compiles(const struct lab *lab, const char *rel)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct impl_spec *im = &lab->exercises[e].variants[v].student;
            for (size_t i = 0; i < im->n_sources; i++)
                if (!strcmp(im->sources[i], rel))
                    return true;
        }
    return false;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether text has `name(...) {`: a definition of the function name (what a reader of the file
 * would take for one; a comment that looks like one counts too). */
static bool defines(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if ((p > text && ident_char(p[-1])) || ident_char(p[len]))
            continue;
        const char *q = p + len;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        int depth = 0;
        for (; *q && (depth > 0 || *q == '('); q++)
            depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '{')
            return true;
    }
    return false;
}

/* The lab's variant being built (b->variant is "exercise-variant"; an exercise id has no '-'). */
static const struct variant_spec *building(const struct build_ctx *b)
{
    const char *dash = b->variant ? strchr(b->variant, '-') : NULL;
    for (size_t e = 0; dash && e < b->lab->n_exercises; e++) {
        const struct exercise_spec *ex = &b->lab->exercises[e];
        if (strlen(ex->id) == (size_t)(dash - b->variant) &&
            !strncmp(ex->id, b->variant, (size_t)(dash - b->variant)))
            return exercise_variant(ex, dash + 1);
    }
    return NULL;
}

struct extra_look {
    const struct build_ctx *b;
    const struct variant_spec *v;
    struct build_result *r;
    int files;
};

/* One source the lab does not compile: said in the variant's log, a warning when it defines
 * the variant's function too (a student who wrote it there expects it graded). */
static void note_extra(struct extra_look *x, const char *path, const char *rel)
{
    struct strbuf text = STRBUF_INIT;
    const struct messages *msgs = x->b->messages;
    const char *fn = x->v->student.function;
    if (read_file(path, &text, NULL) == 0 && text.len <= EXTRA_MAX_BYTES &&
        defines(strbuf_str(&text), fn)) {
        strbuf_addf(&x->r->log,
                    messages_get(msgs, "warning: %s defines %s too, but the lab "
                                       "compiles only %s for it: that file's %s is "
                                       "the one graded, and %s is not compiled\n"),
                    rel, fn, x->v->student.sources[0], fn, rel);
        x->r->n_warnings++;
    } else {
        strbuf_addf(&x->r->log,
                    messages_get(msgs, "note: %s is not compiled: the lab compiles only the "
                                       "files it names (here %s)\n"),
                    rel, x->v->student.sources[0]);
    }
    strbuf_release(&text);
}

static void look_in(struct extra_look *x, const char *dir, const char *rel, int depth)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        char *path = path_join(dir, name), *sub = rel ? path_join(rel, name) : xstrdup(name);
        if (name[0] != '.' && x->files < EXTRA_MAX_FILES) {
            if (dir_exists(path) && depth < EXTRA_MAX_DEPTH)
                look_in(x, path, sub, depth + 1);
            else if (is_source(name) && !lab_compiles(x->b->lab, sub) && x->files++ >= 0)
                note_extra(x, path, sub);
        }
        free(path);
        free(sub);
        free(list[i]);
    }
    free(list);
}

/* Every source file of the submission that no variant of the lab compiles (a main.c of the
 * student's own, a second copy of a function), said in the variant's build log. */
static void note_extra_sources(const struct build_ctx *b, struct build_result *r)
{
    const struct variant_spec *v = building(b);
    if (!v || !v->student.n_sources)
        return;
    struct extra_look x = {b, v, r, 0};
    char *src = path_join(b->dir, "src");
    look_in(&x, src, NULL, 0);
    free(src);
}

/* A student variant's objects before they are linked: CE naming the first refused symbol. */
bool build_symbols_refused(struct build_ctx *b, const struct argv_list *objs,
                           struct build_result *r)
{
    struct symbol_set allowed;
    char *why = NULL;
    if (b->reference)
        return false;
    note_extra_sources(b, r);
    if (!reserved_ready) {
        symbols_reserved(b->tc->cuda_home, &reserved);
        reserved_ready = true;
    }
    symbol_set_init(&allowed);
    allowed_names(b->lab, &allowed);
    for (size_t k = 0; k < b->n_objs && !why; k++)
        for (size_t i = 0; i < objs->n && !why; i++)
            if (!strcmp(objs->v[i], b->objs[k].object))
                why = object_refusal(b, &b->objs[k], &allowed);
    symbol_set_release(&allowed);
    if (!why)
        return false;
    r->status = BUILD_COMPILE_ERROR;
    free(r->message);
    r->message = why;
    strbuf_addf(&r->log, "$ check symbols\n%s\n", why);
    return true;
}
