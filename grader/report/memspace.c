#include "report/memspace.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <stdlib.h>

#include <string.h>

/* The space of argument `arg`: its own entry, else the entry for every argument (an older
 * file's); -1 when neither is there. */
static int space_of(const struct variant_result *vr, const char *arg)
{
    int every = -1;
    for (size_t i = 0; i < vr->n_arg_memory; i++) {
        const struct arg_memory *m = &vr->arg_memory[i];
        if (!strcmp(m->arg, arg))
            return (int)m->space;
        if (!*m->arg)
            every = (int)m->space;
    }
    return every;
}

bool variant_all_device(const struct variant_result *vr)
{
    for (size_t i = 0; i < vr->n_arg_memory; i++)
        if (vr->arg_memory[i].space != MEM_DEVICE)
            return false;
    return vr->n_arg_memory > 0;
}

bool variant_is_transfer(const struct variant_result *vr)
{
    bool dev = false, host = false;
    for (size_t i = 0; i < vr->n_arg_memory; i++) {
        dev |= vr->arg_memory[i].space == MEM_DEVICE;
        host |= vr->arg_memory[i].space != MEM_DEVICE;
    }
    return dev && host;
}

/* How a's arguments differ from b's: *a_pageable where a has host and b pinned, *b_pageable
 * the other way round; false on any other difference. */
static bool compare_spaces(const struct variant_result *a, const struct variant_result *b,
                           bool *a_pageable, bool *b_pageable)
{
    for (size_t i = 0; i < a->n_arg_memory; i++) {
        int ka = (int)a->arg_memory[i].space, kb = space_of(b, a->arg_memory[i].arg);
        if (ka == kb)
            continue;
        if (ka == MEM_HOST && kb == MEM_PINNED)
            *a_pageable = true;
        else if (ka == MEM_PINNED && kb == MEM_HOST)
            *b_pageable = true;
        else
            return false;
    }
    return true;
}

int pageable_pinned_pair(const struct variant_result *a, const struct variant_result *b)
{
    bool a_pageable = false, b_pageable = false;
    /* Every argument of either, looked up in the other. */
    if (!compare_spaces(a, b, &a_pageable, &b_pageable) ||
        !compare_spaces(b, a, &b_pageable, &a_pageable))
        return 0;
    if (a_pageable == b_pageable)
        return 0;
    return a_pageable ? 1 : -1;
}

/* A memory space as the report's language names it (strings.txt's mem.host, mem.pinned,
 * mem.device); the spec's name where the language has none. */
static char *space_words(const struct strings *s, enum mem_space space)
{
    char *key = xstrfmt("mem.%s", mem_space_name(space));
    char *words =
        strings_find(s, key) ? phrase(s, false, key, NULL) : xstrdup(mem_space_name(space));
    free(key);
    return words;
}

void set_variant_memory(const struct strings *s, struct tpl_value *m,
                        const struct variant_result *vr)
{
    bool same = true;
    for (size_t i = 1; i < vr->n_arg_memory; i++)
        same &= vr->arg_memory[i].space == vr->arg_memory[0].space;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < vr->n_arg_memory && (i == 0 || !same); i++) {
        char *words = space_words(s, vr->arg_memory[i].space);
        if (same)
            strbuf_addstr(&sb, words);
        else
            strbuf_addf(&sb, "%s%s %s", i ? ", " : "", vr->arg_memory[i].arg, words);
        free(words);
    }
    tpl_set_str(m, "memory", strbuf_str(&sb));
    strbuf_release(&sb);
}
