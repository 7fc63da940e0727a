#include "report/memspace.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/*
 * variant_result.memory is one kind for every array argument ("host", "pinned",
 * "device") or, per argument, "name=kind" items separated by commas
 * ("dst=device, src=pinned"): the names spec.h's enum mem_space prints as.
 */
enum mem_kind { MK_HOST, MK_PINNED, MK_DEVICE };

struct mem_arg {
    char *name;
    enum mem_kind kind;
};

struct mem_desc {
    enum mem_kind dflt; /* arguments not named */
    struct mem_arg *args;
    size_t n, alloc;
};

static void mem_desc_release(struct mem_desc *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->args[i].name);
    free(d->args);
    memset(d, 0, sizeof(*d));
}

static bool mem_kind_parse(const char *s, size_t len, enum mem_kind *k)
{
    static const char *const names[] = {"host", "pinned", "device"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], s, len)) {
            *k = (enum mem_kind)i;
            return true;
        }
    return false;
}

/* false (and nothing to release) when the text is neither form. */
static bool mem_desc_parse(const char *text, struct mem_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->dflt = MK_HOST;
    if (!text)
        return false;
    const char *p = text + strspn(text, " ");
    if (!strchr(p, '=')) {
        size_t len = strcspn(p, " ");
        return p[len + strspn(p + len, " ")] == '\0' && mem_kind_parse(p, len, &d->dflt);
    }
    while (*p) {
        p += strspn(p, " ,");
        if (!*p)
            break;
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *ke = eq, *vs = eq ? eq + 1 : NULL, *ve = end;
        while (ke && ke > p && ke[-1] == ' ')
            ke--;
        while (vs && vs < ve && *vs == ' ')
            vs++;
        while (vs && ve > vs && ve[-1] == ' ')
            ve--;
        enum mem_kind k;
        if (!eq || ke == p || !mem_kind_parse(vs, (size_t)(ve - vs), &k)) {
            mem_desc_release(d);
            return false;
        }
        ALLOC_GROW(d->args, d->n + 1, d->alloc);
        d->args[d->n].name = xstrndup(p, (size_t)(ke - p));
        d->args[d->n].kind = k;
        d->n++;
        p = end;
    }
    return d->n > 0;
}

static enum mem_kind mem_desc_kind(const struct mem_desc *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->args[i].name, name))
            return d->args[i].kind;
    return d->dflt;
}

bool variant_all_device(const struct variant_result *vr)
{
    struct mem_desc d;
    if (!mem_desc_parse(vr->memory, &d))
        return false;
    bool all = d.n == 0 ? d.dflt == MK_DEVICE : true;
    for (size_t i = 0; i < d.n; i++)
        all &= d.args[i].kind == MK_DEVICE;
    mem_desc_release(&d);
    return all;
}

bool variant_is_transfer(const struct variant_result *vr)
{
    struct mem_desc d;
    if (!mem_desc_parse(vr->memory, &d))
        return false;
    bool dev = false, host = false;
    for (size_t i = 0; i < d.n; i++) {
        dev |= d.args[i].kind == MK_DEVICE;
        host |= d.args[i].kind != MK_DEVICE;
    }
    mem_desc_release(&d);
    return dev && host;
}

int pageable_pinned_pair(const struct variant_result *a, const struct variant_result *b)
{
    struct mem_desc da, db;
    if (!mem_desc_parse(a->memory, &da))
        return 0;
    if (!mem_desc_parse(b->memory, &db)) {
        mem_desc_release(&da);
        return 0;
    }
    int a_pageable = 0, b_pageable = 0;
    bool other = false;
    /* Every named argument of either, then the kind of the unnamed ones. */
    for (size_t side = 0; side < 3; side++) {
        const struct mem_desc *src = side == 0 ? &da : &db;
        size_t count = side < 2 ? src->n : 1;
        for (size_t i = 0; i < count; i++) {
            enum mem_kind ka = side < 2 ? mem_desc_kind(&da, src->args[i].name) : da.dflt;
            enum mem_kind kb = side < 2 ? mem_desc_kind(&db, src->args[i].name) : db.dflt;
            if (ka == kb)
                continue;
            if (ka == MK_HOST && kb == MK_PINNED)
                a_pageable = 1;
            else if (ka == MK_PINNED && kb == MK_HOST)
                b_pageable = 1;
            else
                other = true;
        }
    }
    mem_desc_release(&da);
    mem_desc_release(&db);
    if (other || a_pageable == b_pageable)
        return 0;
    return a_pageable ? 1 : -1;
}
