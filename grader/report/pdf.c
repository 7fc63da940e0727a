#include "report/pdf.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "report/phrases.h"
#include "run/presence.h"
#include "run/sandbox.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PDF_PACKAGES                                                                               \
    "texlive-xetex texlive-latex-recommended texlive-fonts-recommended fonts-dejavu-core"

/* LaTeX is run again only where its log asks for it (a long table's columns measured on the
 * run before, say), and at most this many times in all. */
#define PDF_LATEX_MAX_RUNS 3

/* One PDF: pandoc making the LaTeX, then xelatex; their programs, files and arguments, all
 * owned but argv's pointers. */
struct pandoc_call {
    char *pandoc, *xelatex;
    char *md_abs;  /* the Markdown, absolute: pandoc runs in tmp */
    char *md_dir;  /* its folder ("/" for one at the root) */
    char *tmp;     /* a folder of its own, removed afterwards */
    char *out_tex; /* tmp/report.tex */
    char *out_pdf; /* tmp/report.pdf, xelatex's */
    char *owned[8];
    size_t n_owned;
    const char *argv[16];
    size_t argc;
    double deadline; /* of both stages together, REPORT_PDF_TIMEOUT_S from the start */
};

static void pandoc_call_release(struct pandoc_call *c)
{
    if (c->tmp)
        remove_tree(c->tmp, NULL);
    free(c->pandoc);
    free(c->xelatex);
    free(c->md_abs);
    free(c->md_dir);
    free(c->tmp);
    free(c->out_tex);
    free(c->out_pdf);
    for (size_t i = 0; i < c->n_owned; i++)
        free(c->owned[i]);
}

/* Adds an argument the call owns. */
static void add_owned_arg(struct pandoc_call *c, char *arg)
{
    c->owned[c->n_owned++] = arg;
    c->argv[c->argc++] = arg;
}

/* Copy at most size-1 bytes, cutting at a character boundary. */
static void copy_note(char *dst, size_t size, const char *src)
{
    char *clip = esc_clip(src, size / 4);
    size_t n = strlen(clip);
    if (n >= size)
        n = size - 1;
    memcpy(dst, clip, n);
    dst[n] = '\0';
    free(clip);
}

/* The line of pandoc's or LaTeX's output that says what went wrong. */
static char *pdf_failure_line(const char *output)
{
    const char *best = NULL;
    for (const char *p = output; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool latex_error = len > 1 && p[0] == '!';
        bool error_word = memmem(p, len, "rror", 4) != NULL;
        if (latex_error || (error_word && !best))
            best = p;
        if (latex_error)
            break;
        p = nl ? nl + 1 : NULL;
    }
    if (!best) {
        /* the last non-empty line */
        for (const char *p = output; p && *p;) {
            const char *nl = strchr(p, '\n');
            if (p[strspn(p, " \t\r\n")] != '\0' && (!nl || nl > p))
                best = p;
            p = nl ? nl + 1 : NULL;
        }
    }
    return esc_first_line(best ? best : "", 400);
}

/* pandoc and xelatex found in PATH, and a temporary folder to run in; else why not. */
static int pandoc_prepare(struct pandoc_call *c, const char *md_path, char *note, size_t note_size)
{
    struct error err;
    error_init(&err);
    c->pandoc = find_program("pandoc");
    if (!c->pandoc) {
        copy_note(note, note_size,
                  "pandoc not found: install it with 'sudo apt-get install pandoc " PDF_PACKAGES
                  "'");
        return -1;
    }
    c->xelatex = find_program("xelatex");
    if (!c->xelatex) {
        copy_note(note, note_size,
                  "xelatex not found: install it with 'sudo apt-get install " PDF_PACKAGES "'");
        return -1;
    }
    c->md_abs = path_abs(md_path, &err);
    if (!c->md_abs) {
        copy_note(note, note_size, err.msg);
        return -1;
    }
    c->md_dir = xstrdup(c->md_abs);
    char *slash = strrchr(c->md_dir, '/');
    if (slash && slash != c->md_dir)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
    const char *tmpdir = getenv("TMPDIR");
    c->tmp = xstrfmt("%s/lg-pdf-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(c->tmp)) {
        char msg[512];
        snprintf(msg, sizeof(msg), "cannot make a temporary folder: %s", strerror(errno));
        copy_note(note, note_size, msg);
        free(c->tmp);
        c->tmp = NULL;
        return -1;
    }
    c->out_tex = path_join(c->tmp, "report.tex");
    c->out_pdf = path_join(c->tmp, "report.pdf");
    return 0;
}

/* templates_dir/pandoc/<name>, absolute, when it exists; NULL otherwise. */
static char *pandoc_file(const char *templates_dir, const char *name)
{
    if (!templates_dir)
        return NULL;
    char *rel = xstrfmt("%s/pandoc/%s", templates_dir, name);
    char *abs = file_exists(rel) ? path_abs(rel, NULL) : NULL;
    free(rel);
    return abs;
}

/* pandoc to LaTeX, in tmp; the plots keep the paths the Markdown gives them (plots/x.png),
 * found by xelatex through tmp/src (latex_argv). */
static void pandoc_argv(struct pandoc_call *c, const char *templates_dir, const char *lang)
{
    char *defaults = pandoc_file(templates_dir, "defaults.yaml");
    char *header = pandoc_file(templates_dir, "header.tex");
    c->argc = 0;
    c->argv[c->argc++] = c->pandoc;
    if (defaults)
        add_owned_arg(c, xstrfmt("--defaults=%s", defaults));
    /* After the defaults, so that no defaults file can turn raw TeX back on. */
    c->argv[c->argc++] = REPORT_PANDOC_FROM;
    /* -smart: dashes and quotes as the Markdown has them, as pandoc's own PDF writer leaves
     * them for xelatex (plain latex would make "—" into "---", printed as typed with the
     * ligatures off). */
    c->argv[c->argc++] = "--to=latex-smart";
    c->argv[c->argc++] = "--standalone";
    /* The folder of the Markdown, for the plots it links to: pandoc reads their sizes. */
    add_owned_arg(c, xstrfmt("--resource-path=%s", c->md_dir));
    if (header)
        add_owned_arg(c, xstrfmt("--include-in-header=%s", header));
    /* Page labels would ask for a second LaTeX run, and a report's pages are numbered 1..n. */
    c->argv[c->argc++] = "--variable=hyperrefoptions:pdfpagelabels=false";
    if (lang && report_lang_is_safe(lang))
        add_owned_arg(c, xstrfmt("--variable=lang:%s", lang));
    c->argv[c->argc++] = "--output";
    c->argv[c->argc++] = c->out_tex;
    c->argv[c->argc++] = c->md_abs;
    c->argv[c->argc] = NULL;
    free(defaults);
    free(header);
}

/* One xelatex run on tmp/report.tex: no shell escape, no stop for input. The Markdown's folder
 * is tmp/src, a link, searched after TeX's own folders (TEXINPUTS ":src/" in stage_run): no file
 * there can stand in for a package, and a folder's name needs no quoting for kpathsea. */
static void latex_argv(struct pandoc_call *c)
{
    c->argc = 0;
    c->argv[c->argc++] = c->xelatex;
    c->argv[c->argc++] = "-no-shell-escape";
    c->argv[c->argc++] = "-interaction=nonstopmode";
    c->argv[c->argc++] = "-halt-on-error";
    c->argv[c->argc++] = "report.tex";
    c->argv[c->argc] = NULL;
}

/* Runs c->argv (what: "pandoc", "xelatex") under the supervisor, in tmp, until the call's
 * deadline; 0 when it exited 0 and made want, else -1 with why in note. */
static int stage_run(struct pandoc_call *c, const char *what, const char *want, char *note,
                     size_t note_size)
{
    struct error err;
    error_init(&err);
    const char *path = getenv("PATH");
    char *path_env = xstrfmt("PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    const char *env[] = {path_env, "TEXINPUTS=:src/", NULL};
    struct sandbox_opts so;
    sandbox_opts_init(&so);
    so.argv = c->argv;
    so.workdir = c->tmp;
    so.env = env;
    double left = c->deadline - now_seconds();
    so.wall_limit_s = left > 1 ? left : 1;
    so.isolation = ISOLATION_SUPERVISOR;
    so.output_cap = 256 * 1024;
    /* xelatex computes for seconds beside other graders' GPU series (run/presence.h). */
    so.background = presence_others();
    struct sandbox_result sr;
    sandbox_result_init(&sr);
    int rc = 0;
    if (sandbox_run(&so, &sr, &err) != 0) {
        char msg[2300];
        snprintf(msg, sizeof(msg), "%s could not be started: %s", what, err.msg);
        copy_note(note, note_size, msg);
        rc = -1;
    } else if (sr.status != SB_EXITED || sr.exit_code != 0 || !file_exists(want)) {
        char desc[256], msg[1024];
        sandbox_describe(&sr, desc, sizeof(desc));
        char *line = pdf_failure_line(sr.output);
        if (sr.status == SB_TIMEOUT)
            snprintf(msg, sizeof(msg), "%s timed out: the PDF took more than %.0f s", what,
                     REPORT_PDF_TIMEOUT_S);
        else
            snprintf(msg, sizeof(msg), "%s failed (%s)%s%s", what, desc, *line ? ": " : "", line);
        free(line);
        copy_note(note, note_size, msg);
        rc = -1;
    }
    sandbox_result_release(&sr);
    free(path_env);
    return rc;
}

/* Whether xelatex's log asks for another run: a label or a long table's column widths that
 * changed since the run before (LaTeX's, hyperref's and longtable's "Rerun" warnings). */
static bool latex_wants_rerun(const struct pandoc_call *c)
{
    char *log = path_join(c->tmp, "report.log");
    struct strbuf text = STRBUF_INIT;
    bool again = read_file(log, &text, NULL) == 0 &&
                 (strstr(text.buf, "Rerun to get") || strstr(text.buf, "Rerun LaTeX"));
    strbuf_release(&text);
    free(log);
    return again;
}

/* pandoc, then xelatex as many times as its log asks (one, for a report without long tables):
 * until 2026-11-29 pandoc ran LaTeX twice for every PDF, twice the time. */
static int pdf_stages(struct pandoc_call *c, const char *templates_dir, const char *lang,
                      char *note, size_t note_size, int *latex_runs)
{
    pandoc_argv(c, templates_dir, lang);
    if (stage_run(c, "pandoc", c->out_tex, note, note_size) != 0)
        return -1;
    char *src = path_join(c->tmp, "src");
    bool linked = symlink(c->md_dir, src) == 0;
    free(src);
    if (!linked) {
        char msg[512];
        snprintf(msg, sizeof(msg), "cannot link the report's folder for xelatex: %s",
                 strerror(errno));
        copy_note(note, note_size, msg);
        return -1;
    }
    latex_argv(c);
    int runs = 0;
    do {
        if (stage_run(c, "xelatex", c->out_pdf, note, note_size) != 0)
            return -1;
        runs++;
    } while (runs < PDF_LATEX_MAX_RUNS && latex_wants_rerun(c));
    if (latex_runs)
        *latex_runs = runs;
    return 0;
}

int report_make_pdf(const char *md_path, const char *pdf_path, const char *templates_dir,
                    const char *lang, char *note, size_t note_size, int *latex_runs)
{
    note[0] = '\0';
    if (latex_runs)
        *latex_runs = 0;
    struct pandoc_call c;
    memset(&c, 0, sizeof(c));
    c.deadline = now_seconds() + REPORT_PDF_TIMEOUT_S;
    int rc = pandoc_prepare(&c, md_path, note, note_size);
    if (rc == 0)
        rc = pdf_stages(&c, templates_dir, lang, note, note_size, latex_runs);
    if (rc == 0) {
        struct error err;
        error_init(&err);
        struct strbuf pdf = STRBUF_INIT;
        if (read_file(c.out_pdf, &pdf, &err) != 0 ||
            write_file_atomic(pdf_path, pdf.buf, pdf.len, &err) != 0) {
            copy_note(note, note_size, err.msg);
            rc = -1;
        }
        strbuf_release(&pdf);
    }
    pandoc_call_release(&c);
    return rc;
}
