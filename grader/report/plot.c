#include "report/plot.h"
#include "base/escape.h"
#include "run/presence.h"
#include "run/sandbox.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct be_point {
    double x, a, b;
};

static int be_point_cmp(const void *pa, const void *pb)
{
    const struct be_point *a = pa, *b = pb;
    return (a->x > b->x) - (a->x < b->x);
}

static bool usable(double v)
{
    return isfinite(v) && v > 0;
}

enum break_even plot_break_even(const double *sizes, const double *times_a, const double *times_b,
                                size_t n, double *size_out)
{
    struct be_point *p = xcalloc(n ? n : 1, sizeof(*p));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (usable(sizes[i]) && usable(times_a[i]) && usable(times_b[i]))
            p[m++] = (struct be_point){sizes[i], times_a[i], times_b[i]};
    if (m < 2) {
        free(p);
        return BREAK_EVEN_NO_DATA;
    }
    qsort(p, m, sizeof(*p), be_point_cmp);
    enum break_even kind = BREAK_EVEN_NO_DATA;
    bool any_slower = false, any_faster = false;
    for (size_t i = 0; i < m && kind == BREAK_EVEN_NO_DATA; i++) {
        double d = log(p[i].a) - log(p[i].b);
        if (d == 0) {
            *size_out = p[i].x;
            kind = BREAK_EVEN_FOUND;
            break;
        }
        any_slower |= d > 0;
        any_faster |= d < 0;
        if (i + 1 == m || p[i + 1].x <= p[i].x)
            continue;
        double d1 = log(p[i + 1].a) - log(p[i + 1].b);
        if ((d > 0 && d1 < 0) || (d < 0 && d1 > 0)) {
            double t = d / (d - d1);
            double lx = log(p[i].x) + t * (log(p[i + 1].x) - log(p[i].x));
            *size_out = exp(lx);
            kind = BREAK_EVEN_FOUND;
        }
    }
    free(p);
    if (kind == BREAK_EVEN_FOUND)
        return kind;
    /* No crossing between distinct sizes. Two sizes that tie can hide a sign change;
     * then a is not faster everywhere, and "slower" is the cautious answer. */
    if (any_faster && !any_slower)
        return BREAK_EVEN_A_FASTER;
    return BREAK_EVEN_A_SLOWER;
}

void plot_fig_init(struct plot_fig *f)
{
    memset(f, 0, sizeof(*f));
}

void plot_fig_release(struct plot_fig *f)
{
    free(f->xlabel);
    free(f->ylabel);
    for (size_t i = 0; i < f->n_series; i++) {
        free(f->series[i].title);
        free(f->series[i].x);
        free(f->series[i].y);
    }
    free(f->series);
    for (size_t i = 0; i < f->n_markers; i++)
        free(f->markers[i].label);
    free(f->markers);
    for (size_t i = 0; i < f->n_xtics; i++)
        free(f->xtics[i].label);
    free(f->xtics);
    memset(f, 0, sizeof(*f));
}

struct plot_series *plot_fig_add_series(struct plot_fig *f, const char *title,
                                        enum plot_style style)
{
    ALLOC_GROW(f->series, f->n_series + 1, f->alloc_series);
    struct plot_series *s = &f->series[f->n_series];
    memset(s, 0, sizeof(*s));
    s->title = xstrdup(title ? title : "");
    s->style = style;
    s->color = (int)f->n_series;
    s->point_type = 7;
    f->n_series++;
    return s;
}

void plot_series_add(struct plot_series *s, double x, double y)
{
    if (s->n + 1 > s->alloc) {
        size_t alloc = s->alloc ? s->alloc * 2 : 8;
        s->x = xrealloc(s->x, alloc * sizeof(double));
        s->y = xrealloc(s->y, alloc * sizeof(double));
        s->alloc = alloc;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
}

void plot_fig_add_marker(struct plot_fig *f, double x, const char *label)
{
    ALLOC_GROW(f->markers, f->n_markers + 1, f->alloc_markers);
    f->markers[f->n_markers].x = x;
    f->markers[f->n_markers].label = xstrdup(label ? label : "");
    f->n_markers++;
}

void plot_fig_add_xtic(struct plot_fig *f, double x, const char *label)
{
    ALLOC_GROW(f->xtics, f->n_xtics + 1, f->alloc_xtics);
    f->xtics[f->n_xtics].x = x;
    f->xtics[f->n_xtics].label = xstrdup(label ? label : "");
    f->n_xtics++;
}

char *plot_safe_name(const char *name)
{
    char *s = xstrdup(name && *name ? name : "plot");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            *p = '_';
    return s;
}

/* snprintf that may cut its output on purpose: notes are one line for a report. */
const char *plot_failure_key(enum plot_failure f)
{
    switch (f) {
    case PLOT_FAIL_NONE:
        return "";
    case PLOT_FAIL_NAME:
        return "name";
    case PLOT_FAIL_NO_DATA:
        return "no_data";
    case PLOT_FAIL_NO_GNUPLOT:
        return "no_gnuplot";
    case PLOT_FAIL_FILES:
        return "files";
    case PLOT_FAIL_START:
        return "start";
    case PLOT_FAIL_GNUPLOT:
        return "gnuplot";
    case PLOT_FAIL_NO_IMAGE:
        return "no_image";
    }
    return "";
}

/* The failure, its technical detail, and the English note made of both. */
static void note_set(struct plot_result *res, enum plot_failure f, const char *detail,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note_set(struct plot_result *res, enum plot_failure f, const char *detail,
                     const char *fmt, ...)
{
    res->failure = f;
    snprintf(res->detail, sizeof(res->detail), "%s", detail ? detail : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->note, sizeof(res->note), fmt, ap);
    va_end(ap);
}

static bool name_is_safe(const char *name)
{
    if (!name || !*name || name[0] == '.')
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return false;
    return true;
}

/* A gnuplot single-quoted string: '' is a quote, nothing else is special; one line. */
static void gp_quote(struct strbuf *out, const char *s)
{
    struct strbuf clean = STRBUF_INIT;
    esc_sanitize(&clean, s);
    strbuf_addch(out, '\'');
    for (const char *p = strbuf_str(&clean); *p; p++) {
        if (*p == '\'')
            strbuf_addstr(out, "''");
        else if (*p == '\n' || *p == '\t')
            strbuf_addch(out, ' ');
        else
            strbuf_addch(out, *p);
    }
    strbuf_addch(out, '\'');
    strbuf_release(&clean);
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};

static const char *series_color(int c)
{
    if (c < 0)
        return "#000000";
    return palette[(size_t)c % (sizeof(palette) / sizeof(palette[0]))];
}

static int double_cmp(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

static void write_data(const struct plot_fig *f, struct strbuf *dat)
{
    for (size_t i = 0; i < f->n_series; i++) {
        const struct plot_series *s = &f->series[i];
        if (!s->n)
            continue;
        /* Lines join the points in file order: sort pairs by x. */
        double *xy = xmalloc(s->n * 2 * sizeof(double));
        for (size_t k = 0; k < s->n; k++) {
            xy[2 * k] = s->x[k];
            xy[2 * k + 1] = s->y[k];
        }
        if (s->style == PLOT_LINES)
            qsort(xy, s->n, 2 * sizeof(double), double_cmp);
        strbuf_addf(dat, "# %zu\n", i);
        for (size_t k = 0; k < s->n; k++)
            strbuf_addf(dat, "%.17g %.17g\n", xy[2 * k], xy[2 * k + 1]);
        strbuf_addstr(dat, "\n\n");
        free(xy);
    }
}

static bool marker_in_right_half(const struct plot_fig *f, double x)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < f->n_series; i++)
        for (size_t k = 0; k < f->series[i].n; k++) {
            lo = fmin(lo, f->series[i].x[k]);
            hi = fmax(hi, f->series[i].x[k]);
        }
    if (f->xmin != 0 || f->xmax != 0) {
        lo = f->xmin;
        hi = f->xmax;
    }
    if (!(hi > lo))
        return false;
    if (f->logx && lo > 0 && x > 0)
        return log(x) > (log(lo) + log(hi)) / 2;
    return x > (lo + hi) / 2;
}

/* The terminal, the output, the key and the axes' labels. */
static void script_frame(const struct plot_fig *f, const char *name, struct strbuf *gp)
{
    int w = f->width_px > 0 ? f->width_px : 900, h = f->height_px > 0 ? f->height_px : 500;
    strbuf_addstr(gp, "# written by labgrader; run: gnuplot ");
    strbuf_addf(gp, "%s.gp\n", name);
    strbuf_addstr(gp, "set encoding utf8\n");
    strbuf_addf(gp,
                "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "    set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced\n"
                "} else {\n"
                "    set terminal png size %d,%d noenhanced\n"
                "}\n",
                w, h, w, h);
    strbuf_addf(gp, "set output '%s.png.tmp'\n", name);
    bool any_title = false;
    for (size_t i = 0; i < f->n_series; i++)
        any_title |= f->series[i].n && f->series[i].title[0];
    strbuf_addstr(gp, "set grid lc rgb '#dddddd'\n");
    if (any_title)
        strbuf_addstr(gp, "set key top left opaque box lc rgb '#bbbbbb'\n");
    else
        strbuf_addstr(gp, "unset key\n");
    strbuf_addstr(gp, "set border lc rgb '#444444'\n");
    if (f->xlabel) {
        strbuf_addstr(gp, "set xlabel ");
        gp_quote(gp, f->xlabel);
        strbuf_addch(gp, '\n');
    }
    if (f->ylabel) {
        strbuf_addstr(gp, "set ylabel ");
        gp_quote(gp, f->ylabel);
        strbuf_addch(gp, '\n');
    }
}

/* Scales, ranges, tics, bars and markers. */
static void script_axes(const struct plot_fig *f, struct strbuf *gp)
{
    if (f->logx)
        strbuf_addstr(gp, "set logscale x\n");
    if (f->logy)
        strbuf_addstr(gp, "set logscale y\n");
    if (f->xmin != 0 || f->xmax != 0)
        strbuf_addf(gp, "set xrange [%.17g:%.17g]\n", f->xmin, f->xmax);
    if (f->y_integer)
        strbuf_addstr(gp, "set ytics 1\nset mytics 1\n");
    if (f->ymin_zero) {
        /* Headroom above the tallest bar, so it does not touch the frame. */
        double top = 0;
        for (size_t i = 0; i < f->n_series; i++)
            for (size_t k = 0; k < f->series[i].n; k++)
                top = fmax(top, f->series[i].y[k]);
        top = top > 0 ? top * 1.15 : 1;
        strbuf_addf(gp, "set yrange [0:%.17g]\n", f->y_integer ? ceil(top) : top);
    }
    if (f->n_xtics) {
        strbuf_addstr(gp, "set xtics (");
        for (size_t i = 0; i < f->n_xtics; i++) {
            if (i)
                strbuf_addstr(gp, ", ");
            gp_quote(gp, f->xtics[i].label);
            strbuf_addf(gp, " %.17g", f->xtics[i].x);
        }
        strbuf_addstr(gp, ")\n");
        if (f->n_xtics > 4)
            strbuf_addstr(gp, "set xtics rotate by -30\n");
    }
    if (f->box_width > 0)
        strbuf_addf(gp, "set boxwidth %.17g absolute\nset style fill solid 0.6 border -1\n",
                    f->box_width);
    for (size_t i = 0; i < f->n_markers; i++) {
        strbuf_addf(gp,
                    "set arrow from first %.17g, graph 0 to first %.17g, graph 1 nohead dt 3 lw "
                    "2 lc rgb '#555555'\n",
                    f->markers[i].x, f->markers[i].x);
        /* Labels of markers in the right half of the data go to the line's left. */
        bool right_half = marker_in_right_half(f, f->markers[i].x);
        strbuf_addstr(gp, "set label ");
        gp_quote(gp, f->markers[i].label);
        strbuf_addf(gp, " at first %.17g, graph %.3f %s tc rgb '#333333'\n", f->markers[i].x,
                    0.06 + 0.06 * (double)i,
                    right_half ? "right offset -0.5,0" : "left offset 0.5,0");
    }
}

/* One plot command, a data block per series that has points. */
static void script_plot(const struct plot_fig *f, const char *name, struct strbuf *gp)
{
    strbuf_addstr(gp, "plot ");
    size_t block = 0;
    bool first = true;
    for (size_t i = 0; i < f->n_series; i++) {
        const struct plot_series *s = &f->series[i];
        if (!s->n)
            continue;
        if (!first)
            strbuf_addstr(gp, ", \\\n     ");
        first = false;
        strbuf_addf(gp, "'%s.dat' index %zu using 1:2 with ", name, block++);
        switch (s->style) {
        case PLOT_LINES:
            if (s->point_type > 0)
                strbuf_addf(gp, "linespoints pt %d ps 1.2", s->point_type);
            else
                strbuf_addstr(gp, "lines");
            break;
        case PLOT_POINTS:
            strbuf_addf(gp, "points pt %d ps 1.2", s->point_type);
            break;
        case PLOT_BOXES:
            strbuf_addstr(gp, "boxes");
            break;
        }
        strbuf_addf(gp, " lw %s lc rgb '%s' dt %d ", s->bold ? "3" : "2", series_color(s->color),
                    s->dashed ? 2 : 1);
        if (s->title[0]) {
            strbuf_addstr(gp, "title ");
            gp_quote(gp, s->title);
        } else {
            strbuf_addstr(gp, "notitle");
        }
    }
    strbuf_addstr(gp, "\nset output\n");
}

static void write_script(const struct plot_fig *f, const char *name, struct strbuf *gp)
{
    script_frame(f, name, gp);
    script_axes(f, gp);
    script_plot(f, name, gp);
}

static bool fig_has_data(const struct plot_fig *f)
{
    for (size_t i = 0; i < f->n_series; i++)
        if (f->series[i].n)
            return true;
    return false;
}

/* The last non-empty line of gnuplot's output, for the note. */
static void last_line(const char *out, size_t len, char *buf, size_t size)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_add(&sb, out ? out : "", out ? len : 0);
    strbuf_rtrim(&sb);
    const char *s = strbuf_str(&sb);
    const char *nl = strrchr(s, '\n');
    char *line = esc_first_line(nl ? nl + 1 : s, 200);
    snprintf(buf, size, "%s", line);
    free(line);
    strbuf_release(&sb);
}

/* gnuplot on the script in dir, under the supervisor with a time limit; 0 when it made png
 * (through tmp_png, so that a half-written image never has the final name). */
static int run_gnuplot(const char *gnuplot, const char *gp_name, const char *dir,
                       const char *tmp_png, const char *png, struct plot_result *res)
{
    struct error err;
    error_init(&err);
    int rc = -1;
    unlink(tmp_png);
    const char *argv[] = {gnuplot, gp_name, NULL};
    const char *home = getenv("HOME");
    char *home_env = home ? xstrfmt("HOME=%s", home) : NULL;
    const char *env[] = {home_env, NULL};
    struct sandbox_opts so;
    struct sandbox_result sr;
    sandbox_opts_init(&so);
    sandbox_result_init(&sr);
    so.argv = argv;
    so.workdir = dir;
    so.env = env;
    so.wall_limit_s = PLOT_TIMEOUT_S;
    so.isolation = ISOLATION_SUPERVISOR;
    so.output_cap = 16 * 1024;
    so.background = presence_others(); /* beside other graders' series (run/presence.h) */
    if (sandbox_run(&so, &sr, &err) != 0) {
        note_set(res, PLOT_FAIL_START, err.msg, "gnuplot could not be started: %s", err.msg);
    } else if (sr.status != SB_EXITED || sr.exit_code != 0) {
        char desc[256], line[256];
        sandbox_describe(&sr, desc, sizeof(desc));
        last_line(sr.output, sr.output_len, line, sizeof(line));
        char *detail = xstrfmt("%s%s%s", desc, *line ? ": " : "", line);
        note_set(res, PLOT_FAIL_GNUPLOT, detail, "gnuplot failed (%s)", detail);
        free(detail);
    } else if (!file_exists(tmp_png) || rename(tmp_png, png) != 0) {
        note_set(res, PLOT_FAIL_NO_IMAGE, png, "gnuplot made no image %s", png);
    } else {
        res->made = true;
        snprintf(res->png_path, sizeof(res->png_path), "%s", png);
        rc = 0;
    }
    sandbox_result_release(&sr);
    free(home_env);
    return rc;
}

int plot_render(const struct plot_fig *f, const char *dir, const char *name,
                struct plot_result *res)
{
    memset(res, 0, sizeof(*res));
    if (!name_is_safe(name)) {
        note_set(res, PLOT_FAIL_NAME, NULL, "invalid plot name");
        return -1;
    }
    if (!fig_has_data(f)) {
        note_set(res, PLOT_FAIL_NO_DATA, NULL, "no data to plot");
        return -1;
    }
    struct error err;
    error_init(&err);
    if (mkdir_p(dir, &err) != 0) {
        note_set(res, PLOT_FAIL_FILES, err.msg, "%s", err.msg);
        return -1;
    }
    char *gnuplot = find_program("gnuplot");
    if (!gnuplot) {
        res->no_gnuplot = true;
        note_set(res, PLOT_FAIL_NO_GNUPLOT, NULL,
                 "gnuplot not found: install it with 'sudo apt-get install gnuplot-nox'");
        return -1;
    }
    struct strbuf dat = STRBUF_INIT, gp = STRBUF_INIT;
    write_data(f, &dat);
    write_script(f, name, &gp);
    char *dat_name = xstrfmt("%s.dat", name), *gp_name = xstrfmt("%s.gp", name);
    char *dat_path = path_join(dir, dat_name), *gp_path = path_join(dir, gp_name);
    char *tmp_png = xstrfmt("%s/%s.png.tmp", dir, name);
    char *png = xstrfmt("%s/%s.png", dir, name);
    int rc = -1;
    if (write_file_atomic(dat_path, dat.buf, dat.len, &err) != 0 ||
        write_file_atomic(gp_path, gp.buf, gp.len, &err) != 0) {
        note_set(res, PLOT_FAIL_FILES, err.msg, "%s", err.msg);
        goto out;
    }
    rc = run_gnuplot(gnuplot, gp_name, dir, tmp_png, png, res);
    if (!res->made)
        unlink(tmp_png);
out:
    strbuf_release(&dat);
    strbuf_release(&gp);
    free(dat_name);
    free(gp_name);
    free(dat_path);
    free(gp_path);
    free(tmp_png);
    free(png);
    free(gnuplot);
    return rc;
}
