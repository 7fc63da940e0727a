/* buildsyms: what a student's objects may define and use (run/symbols.h, build_internal.h). */
#include "run/build_internal.h"

#include "run/symbols.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"

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

/* A student variant's objects before they are linked: CE naming the first refused symbol. */
bool build_symbols_refused(struct build_ctx *b, const struct argv_list *objs,
                           struct build_result *r)
{
    struct symbol_set allowed;
    char *why = NULL;
    if (b->reference)
        return false;
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
