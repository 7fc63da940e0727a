/* grader report: render reports (and a graded class's summary) again from results.json. */
#include "cli/cli.h"

#include "class/batch.h"
#include "report/report.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <dirent.h>
#include <string.h>

int cli_render_report(struct cli *c, const struct results *r, const char *dir, bool student_view,
                      bool quiet)
{
    struct report_opts ro;
    struct report_outcome out;
    struct error err;
    int pdf_mode = c->a.pdf_mode;
    error_init(&err);
    report_opts_init(&ro);
    ro.lang = c->a.lang;
    ro.templates_dir = c->home.templates_dir;
    ro.pdf = pdf_mode >= 0;
    ro.pdf_required = pdf_mode > 0;
    ro.student_view = student_view;
    ro.html = !c->a.no_html;
    memset(&out, 0, sizeof(out));
    if (report_student(r, dir, &ro, &out, &err) != 0) {
        error_print(&err, stderr);
        if (out.md_written && !quiet)
            printf(cli_tr(c, "report: %s\n"), out.md_path);
        return -1;
    }
    if (!quiet) {
        if (out.md_written)
            printf(cli_tr(c, "report: %s\n"), out.md_path);
        if (out.html_written)
            printf(cli_tr(c, "html:   %s\n"), out.html_path);
        if (out.pdf_written)
            printf(cli_tr(c, "pdf:    %s\n"), out.pdf_path);
        else if (pdf_mode >= 0)
            printf(cli_tr(c, "pdf:    %s %s\n"), cli_tr(c, "not made:"), out.pdf_note);
    }
    return 0;
}

void cli_result_dirs(const char *labdir, char ***dirs, size_t *n, struct strbuf *names)
{
    struct dirent **list = NULL;
    int m = scandir(labdir, &list, NULL, alphasort);
    size_t alloc = 0;
    *dirs = NULL;
    *n = 0;
    for (int i = 0; i < m; i++) {
        if (list[i]->d_name[0] != '.') {
            char *d = path_join(labdir, list[i]->d_name);
            char *j = path_join(d, "results.json");
            if (file_exists(j)) {
                ALLOC_GROW(*dirs, *n + 1, alloc);
                (*dirs)[(*n)++] = d;
                if (names)
                    strbuf_addf(names, "%s%s", names->len ? ", " : "", list[i]->d_name);
            } else {
                free(d);
            }
            free(j);
        }
        free(list[i]);
    }
    free(list);
}

/* The folders to render: --student's (which must have been graded), or every graded one. */
static int pick_dirs(struct cli *c, const struct lab *lab, const char *labdir, char ***dirs,
                     size_t *n)
{
    struct strbuf names = STRBUF_INIT;
    cli_result_dirs(labdir, dirs, n, &names);
    int status = 0;
    if (c->a.student) {
        char *mine = xstrfmt("%s/%s", labdir, c->a.student);
        char *json = path_join(mine, "results.json");
        if (!strchr(c->a.student, '/') && file_exists(json)) {
            for (size_t i = 0; i < *n; i++)
                free((*dirs)[i]);
            (*dirs)[0] = mine;
            *n = 1;
            mine = NULL;
        } else if (*n) {
            cli_error(c, cli_tr(c, "no results of student '%s' under %s (graded there: %s)"),
                      c->a.student, labdir, strbuf_str(&names));
            status = EXIT_USAGE;
        }
        free(mine);
        free(json);
    }
    if (!status && *n == 0) {
        cli_error(c, cli_tr(c, "no results.json under %s: grade first (make check LAB=%ld)"),
                  labdir, lab->number);
        status = EXIT_USAGE;
    }
    strbuf_release(&names);
    return status;
}

/* A graded class (it has a gradebook): its summary and gradebooks too, as merge does. */
static int render_class(struct cli *c, const struct lab *lab, const char *out, const char *labdir)
{
    struct batch_opts bo;
    struct error err;
    int missing = 0, status = EXIT_PASS;
    char *gradebook = path_join(labdir, "gradebook.csv");
    if (!c->a.student && file_exists(gradebook)) {
        batch_opts_init(&bo);
        bo.out = out;
        bo.lang = c->a.lang;
        bo.templates_dir = c->home.templates_dir;
        bo.pdf_mode = c->a.pdf_mode;
        bo.no_html = c->a.no_html;
        error_init(&err);
        if (batch_merge(lab, &bo, &missing, NULL, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        }
    }
    free(gradebook);
    return status;
}

static int render_all(struct cli *c, const struct lab *lab, const char *out)
{
    char *labdir = xstrfmt("%s/%s", out, lab->id);
    char **dirs = NULL;
    size_t n = 0, found = 0;
    int status = pick_dirs(c, lab, labdir, &dirs, &n);
    bool picked = status == 0;
    for (size_t i = 0; i < n; i++) {
        struct results r;
        struct error err;
        char *json = path_join(dirs[i], "results.json");
        results_init(&r);
        error_init(&err);
        if (picked && results_read(&r, json, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        } else if (picked) {
            found++;
            /* What students read unless asked otherwise: a class's results hold hidden
             * cases, which an instructor's report (--instructor) shows in full. */
            if (cli_render_report(c, &r, dirs[i], !c->a.instructor, false) != 0)
                status = EXIT_GRADER;
        }
        results_release(&r);
        free(json);
        free(dirs[i]);
    }
    free(dirs);
    if (found && render_class(c, lab, out, labdir) != 0)
        status = EXIT_GRADER;
    free(labdir);
    return status;
}

int cmd_report(struct cli *c)
{
    struct lab lab;
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_home(c);
    if (status == 0)
        status = render_all(c, &lab, c->a.out ? c->a.out : "reports");
    lab_release(&lab);
    return status;
}
