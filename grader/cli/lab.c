/*
 * lab: the lab a subcommand names, loaded; and --only and --case checked against it before
 * anything is built, so that a typo is a usage error (exit 2) naming what exists, never a
 * grader error or a run with every case skipped (cli.h).
 */
#include "cli/cli.h"

#include "cli/options.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <string.h>

static char *lab_yaml_path(const char *arg)
{
    if (dir_exists(arg))
        return path_join(arg, "lab.yaml");
    return xstrdup(arg);
}

int cli_load_lab(struct cli *c, struct lab *lab, const char *arg)
{
    struct error err;
    char *path = lab_yaml_path(arg);
    error_init(&err);
    lab_init(lab);
    int rc = spec_load(lab, path, NULL, &err);
    free(path);
    if (rc != 0) {
        error_print(&err, stderr);
        return EXIT_USAGE;
    }
    /* From here on, a subcommand with --lang speaks the lab's language unless told. */
    if (cli_takes_option(c->cmd->id, "--lang"))
        cli_set_lang(c, c->a.lang ? c->a.lang : lab->lang);
    return 0;
}

static const struct case_spec *find_case(const struct exercise_spec *ex, const char *id, size_t len)
{
    for (size_t i = 0; i < ex->n_cases; i++)
        if (strlen(ex->cases[i].id) == len && !strncmp(ex->cases[i].id, id, len))
            return &ex->cases[i];
    return NULL;
}

/* "matmul: n256, n1024, n7000 (slow); grade2: ..." */
static void list_cases(const struct cli *c, const struct lab *lab, const struct exercise_spec *only,
                       struct strbuf *sb)
{
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (only && ex != only)
            continue;
        strbuf_addf(sb, "%s%s:", sb->len ? "; " : "", ex->id);
        for (size_t i = 0; i < ex->n_cases; i++) {
            const struct case_spec *k = &ex->cases[i];
            strbuf_addf(sb, "%s %s", i ? "," : "", k->id);
            if (k->hidden)
                strbuf_addf(sb, " (%s)", cli_tr(c, "hidden"));
            else if (k->slow)
                strbuf_addf(sb, " (%s)", cli_tr(c, "slow"));
        }
    }
}

static int no_exercise(struct cli *c, const struct lab *lab, const char *only)
{
    struct strbuf names = STRBUF_INIT;
    for (size_t e = 0; e < lab->n_exercises; e++)
        strbuf_addf(&names, "%s%s", e ? ", " : "", lab->exercises[e].id);
    cli_error(c, cli_tr(c, "--only: no exercise '%s' in %s (its exercises: %s)"), only, lab->path,
              strbuf_str(&names));
    strbuf_release(&names);
    return EXIT_USAGE;
}

/* Each id of the list once: known ones that would run, known ones that would not. */
struct picked {
    struct strbuf unknown, blocked;
    bool any_runs;
};

static void pick(const struct cli *c, const struct lab *lab, const struct exercise_spec *only,
                 const char *id, size_t len, bool hidden, bool full, struct picked *p)
{
    bool known = false;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        const struct case_spec *k = (only && ex != only) ? NULL : find_case(ex, id, len);
        if (!k)
            continue;
        known = true;
        if ((k->hidden && !hidden) || (k->slow && !full)) {
            strbuf_addstr(&p->blocked, p->blocked.len ? "; " : "");
            strbuf_addf(&p->blocked,
                        k->hidden && !hidden ? cli_tr(c, "%s is hidden (add --hidden)")
                                             : cli_tr(c, "%s is slow (add --full)"),
                        k->id);
        } else {
            p->any_runs = true;
        }
    }
    if (!known)
        strbuf_addf(&p->unknown, "%s%.*s", p->unknown.len ? ", " : "", (int)len, id);
}

static int check_cases(struct cli *c, const struct lab *lab, const struct exercise_spec *only,
                       const char *cases, bool hidden, bool full)
{
    struct picked p = {STRBUF_INIT, STRBUF_INIT, false};
    int status = 0;
    for (const char *s = cases;;) {
        size_t len = strcspn(s, ",");
        if (len == 0) {
            cli_error(c, cli_tr(c, "--case: an empty case id in '%s'"), cases);
            status = EXIT_USAGE;
            break;
        }
        pick(c, lab, only, s, len, hidden, full, &p);
        if (!s[len])
            break;
        s += len + 1;
    }
    if (!status && p.unknown.len) {
        struct strbuf known = STRBUF_INIT;
        list_cases(c, lab, only, &known);
        cli_error(c, cli_tr(c, "--case: no case %s in %s (its cases: %s)"), strbuf_str(&p.unknown),
                  only ? only->id : lab->path, strbuf_str(&known));
        strbuf_release(&known);
        status = EXIT_USAGE;
    } else if (!status && !p.any_runs) {
        cli_error(c, cli_tr(c, "--case: nothing to grade: %s"), strbuf_str(&p.blocked));
        status = EXIT_USAGE;
    }
    strbuf_release(&p.unknown);
    strbuf_release(&p.blocked);
    return status;
}

int cli_check_selection(struct cli *c, const struct lab *lab, const char *only, const char *cases,
                        bool hidden, bool full)
{
    const struct exercise_spec *ex = NULL;
    if (only && !(ex = lab_exercise(lab, only)))
        return no_exercise(c, lab, only);
    if (cases)
        return check_cases(c, lab, ex, cases, hidden, full);
    return 0;
}
