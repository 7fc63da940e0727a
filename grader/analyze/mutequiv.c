/* mutequiv: documented equivalent mutants. See mutequiv.h. */
#include "analyze/mutequiv.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

/* The record at file:line:col made by op; NULL when none. */
static struct mut_record *find(struct mutate_result *r, const char *file, unsigned line,
                               unsigned col, int op)
{
    for (size_t i = 0; i < r->n_recs; i++) {
        struct mut_record *rec = &r->recs[i];
        if ((int)rec->m.op == op && rec->m.line == line && rec->m.col == col &&
            !strcmp(r->files[rec->file], file))
            return rec;
    }
    return NULL;
}

static int apply_line(struct mutate_result *r, const char *path, int lineno, char *s,
                      struct error *err)
{
    char file[256], opname[64];
    unsigned line, col;
    int used = 0;
    if (sscanf(s, " %255[^:]:%u:%u %63s %n", file, &line, &col, opname, &used) < 4)
        return error_set_at(err, path, lineno, 1,
                            "expected FILE:LINE:COLUMN OPERATOR REASON (e.g. convert_cpu.c:67:20 "
                            "rel_bound why it cannot be killed)");
    int op = mut_op_parse(opname);
    if (op < 0)
        return error_set_at(err, path, lineno, 1, "unknown operator '%s'", opname);
    struct mut_record *rec = find(r, file, line, col, op);
    char *why = s + used;
    size_t wl = strlen(why);
    while (wl > 0 && (why[wl - 1] == ' ' || why[wl - 1] == '\r' || why[wl - 1] == '\t'))
        why[--wl] = '\0';
    bool mutated = false;
    for (size_t f = 0; f < r->n_files && !mutated; f++)
        mutated = !strcmp(r->files[f], file);
    if (!rec) {
        if (mutated)
            mutate_warn(r, xstrfmt("%s:%d: no mutant %s:%u:%u %s any more (the solution "
                                   "changed?)",
                                   path, lineno, file, line, col, opname));
    } else if (rec->status == MUT_SURVIVED) {
        rec->status = MUT_EQUIVALENT;
        free(rec->note);
        rec->note = xstrdup(*why ? why : "equivalent");
    } else if (rec->status == MUT_KILLED || rec->status == MUT_KILLED_CE) {
        mutate_warn(r,
                    xstrfmt("%s:%d: %s:%u:%u %s is listed as equivalent but was killed "
                            "(%s %s/%s %s)",
                            path, lineno, file, line, col, opname, verdict_code(rec->kill_verdict),
                            rec->kill_exercise, rec->kill_variant, rec->kill_case));
    }
    return 0;
}

int mutequiv_apply(struct mutate_result *r, const char *lab_dir, struct error *err)
{
    char *path = xstrfmt("%s/solution/%s", lab_dir, MUTEQUIV_FILE);
    struct strbuf sb = STRBUF_INIT;
    int rc = 0, lineno = 0;
    if (!file_exists(path) || read_file(path, &sb, err) != 0) {
        rc = file_exists(path) ? -1 : 0;
        free(path);
        return rc;
    }
    for (char *s = sb.buf, *nl; rc == 0 && s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        size_t k = strspn(s, " \t\r");
        if (s[k] && s[k] != '#')
            rc = apply_line(r, path, lineno, s, err);
    }
    strbuf_release(&sb);
    free(path);
    return rc;
}
