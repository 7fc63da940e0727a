/* svg: a figure as inline SVG (report/svg.h). */
#include "report/svg.h"

#include "base/alloc.h"
#include "base/escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plot area inside a 720-unit-wide view box; the legend goes under it. */
#define W 720.0
#define PLOT_L 78.0
#define PLOT_R 704.0
#define PLOT_T 34.0
#define PLOT_B 282.0
#define LEGEND_ROW 20.0
#define CHAR_W 6.6 /* a 12-unit character's width, about, for laying the legend out */
#define MAX_TICKS 24

/* Okabe and Ito's palette: told apart with every common colour blindness, and on paper. */
static const char *const palette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                      "#e69f00", "#56b4e9", "#b8860b", "#000000"};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))

static const char *color_of(int c)
{
    return c < 0 ? "currentColor" : palette[(size_t)c % N_PALETTE];
}

void svg_fig_init(struct svg_fig *f)
{
    memset(f, 0, sizeof(*f));
    f->hline = NAN;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void svg_fig_release(struct svg_fig *f)
{
    free(f->title);
    free(f->desc);
    free(f->xlabel);
    free(f->ylabel);
    free(f->hline_label);
    for (size_t i = 0; i < f->n_cats; i++)
        free(f->cats[i]);
    free(f->cats);
    for (size_t i = 0; i < f->n_series; i++) {
        for (size_t k = 0; k < f->series[i].n; k++)
            free(f->series[i].pts[k].label);
        free(f->series[i].pts);
        free(f->series[i].name);
    }
    free(f->series);
    for (size_t i = 0; i < f->n_markers; i++)
        free(f->markers[i].label);
    free(f->markers);
    svg_fig_init(f);
}

void svg_fig_set_text(struct svg_fig *f, const char *title, const char *xlabel, const char *ylabel)
{
    free(f->title);
    free(f->xlabel);
    free(f->ylabel);
    f->title = dup_or_null(title);
    f->xlabel = dup_or_null(xlabel);
    f->ylabel = dup_or_null(ylabel);
}

struct svg_series *svg_add_series(struct svg_fig *f, const char *name, enum svg_style style,
                                  int color)
{
    ALLOC_GROW(f->series, f->n_series + 1, f->alloc_series);
    struct svg_series *s = &f->series[f->n_series++];
    memset(s, 0, sizeof(*s));
    s->name = xstrdup(name ? name : "");
    s->style = style;
    s->color = color;
    return s;
}

void svg_add_point(struct svg_series *s, double x, double y, double lo, double hi,
                   const char *label)
{
    ALLOC_GROW(s->pts, s->n + 1, s->alloc);
    s->pts[s->n++] = (struct svg_point){x, y, lo, hi, dup_or_null(label)};
}

void svg_add_marker(struct svg_fig *f, double x, const char *label)
{
    ALLOC_GROW(f->markers, f->n_markers + 1, f->alloc_markers);
    f->markers[f->n_markers++] = (struct svg_marker){x, xstrdup(label ? label : "")};
}

void svg_add_cat(struct svg_fig *f, const char *name)
{
    f->cats = xrealloc(f->cats, (f->n_cats + 1) * sizeof(*f->cats));
    f->cats[f->n_cats++] = xstrdup(name ? name : "");
}

/* ---- scales ---- */

static bool drawable(double v, bool log_axis)
{
    return isfinite(v) && (!log_axis || v > 0);
}

static bool point_drawable(const struct svg_fig *f, const struct svg_point *p)
{
    return drawable(p->x, f->logx) && drawable(p->y, f->logy);
}

size_t svg_fig_points(const struct svg_fig *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n_series; i++)
        for (size_t k = 0; k < f->series[i].n; k++)
            n += point_drawable(f, &f->series[i].pts[k]);
    return n;
}

struct axis {
    double lo, hi; /* data range, in log10 on a log axis */
    bool log;
};

static double axis_value(const struct axis *a, double v)
{
    return a->log ? log10(v) : v;
}

static void widen(struct axis *a, double v)
{
    if (!drawable(v, a->log))
        return;
    double t = axis_value(a, v);
    a->lo = fmin(a->lo, t);
    a->hi = fmax(a->hi, t);
}

/* The ranges: every point, interval, marker and the reference line. */
static void data_ranges(const struct svg_fig *f, struct axis *x, struct axis *y)
{
    *x = (struct axis){INFINITY, -INFINITY, f->logx};
    *y = (struct axis){INFINITY, -INFINITY, f->logy};
    for (size_t i = 0; i < f->n_series; i++)
        for (size_t k = 0; k < f->series[i].n; k++) {
            const struct svg_point *p = &f->series[i].pts[k];
            if (!point_drawable(f, p))
                continue;
            widen(x, p->x);
            widen(y, p->y);
            widen(y, p->lo);
            widen(y, p->hi);
        }
    for (size_t i = 0; i < f->n_markers; i++)
        widen(x, f->markers[i].x);
    widen(y, f->hline);
    if (f->xmin != 0 || f->xmax != 0) {
        x->lo = axis_value(x, f->xmin);
        x->hi = axis_value(x, f->xmax);
    }
}

/* Room around the data: a tenth of the range (half a decade on a log axis), and a range
 * for a single value. */
static void pad(struct axis *a, bool from_zero, bool bars)
{
    if (from_zero && !a->log)
        a->lo = fmin(a->lo, 0);
    double span = a->hi - a->lo;
    if (span <= 0)
        span = a->log ? 1 : (fabs(a->hi) > 0 ? fabs(a->hi) : 1);
    double m = a->log ? fmax(0.15, span * 0.06) : span * 0.06;
    if (!(from_zero && !a->log && a->lo == 0))
        a->lo -= m;
    a->hi += bars ? 0 : m;
    if (bars)
        a->hi += span * 0.08;
}

static double nice_step(double span, int target)
{
    double raw = span / target, p = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * p >= raw * 0.999)
            return steps[i] * p;
    return 10 * p;
}

static size_t linear_ticks(double lo, double hi, bool integer, double *t, size_t max);

static size_t log_ticks(double lo, double hi, double *t, size_t max)
{
    /* Within about a decade, round values spaced evenly read better than one power of 10. */
    if (hi - lo < 1.2)
        return linear_ticks(pow(10, lo), pow(10, hi), false, t, max);
    size_t n = 0;
    int d0 = (int)floor(lo), d1 = (int)ceil(hi);
    /* Over few decades, 2 and 5 between the powers of ten. */
    static const double few[] = {1, 2, 5};
    size_t per = d1 - d0 <= 2 ? 3 : 1;
    for (int d = d0; d <= d1; d++)
        for (size_t k = 0; k < per && n < max; k++) {
            double v = log10(few[k]) + d;
            if (v >= lo - 1e-9 && v <= hi + 1e-9)
                t[n++] = pow(10, v);
        }
    return n;
}

static size_t linear_ticks(double lo, double hi, bool integer, double *t, size_t max)
{
    double step = nice_step(hi - lo, 5);
    if (integer && step < 1)
        step = 1;
    size_t n = 0;
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

size_t svg_ticks(double lo, double hi, bool log_axis, bool integer, double *t, size_t max)
{
    if (!(hi > lo) || max == 0)
        return 0;
    return log_axis ? log_ticks(lo, hi, t, max) : linear_ticks(lo, hi, integer, t, max);
}

/* ---- drawing ---- */

struct frame {
    struct axis x, y;
    double bottom; /* the plot area's bottom edge */
};

static double px(const struct frame *fr, double v)
{
    double t = axis_value(&fr->x, v);
    return PLOT_L + (t - fr->x.lo) / (fr->x.hi - fr->x.lo) * (PLOT_R - PLOT_L);
}

static double py(const struct frame *fr, double v)
{
    double t = axis_value(&fr->y, v);
    return fr->bottom - (t - fr->y.lo) / (fr->y.hi - fr->y.lo) * (fr->bottom - PLOT_T);
}

static void text_at(struct strbuf *out, double x, double y, const char *anchor, const char *cls,
                    const char *text)
{
    strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y, anchor,
                cls);
    esc_html(out, text);
    strbuf_addstr(out, "</text>\n");
}

static void tick_label(char *buf, size_t size, double v)
{
    if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, size, "%.0e", v);
    else
        snprintf(buf, size, "%g", v);
}

static void draw_y_axis(const struct svg_fig *f, const struct frame *fr, struct strbuf *out)
{
    double t[MAX_TICKS];
    size_t n = svg_ticks(fr->y.lo, fr->y.hi, fr->y.log, f->y_integer, t, MAX_TICKS);
    for (size_t i = 0; i < n; i++) {
        char label[32];
        double y = py(fr, t[i]);
        tick_label(label, sizeof(label), t[i]);
        strbuf_addf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    PLOT_L, y, PLOT_R, y);
        text_at(out, PLOT_L - 6, y + 4, "end", "tick", label);
    }
    if (f->ylabel) /* over the axis, level: a long title reads whole */
        text_at(out, 8, 16, "start", "axis-title", f->ylabel);
}

/* Category names under the axis, slanted when they would not fit side by side. */
static void draw_cats(const struct svg_fig *f, const struct frame *fr, bool slant,
                      struct strbuf *out)
{
    for (size_t i = 0; i < f->n_cats; i++) {
        double x = px(fr, (double)(i + 1));
        if (!slant) {
            text_at(out, x, fr->bottom + 16, "middle", "tick", f->cats[i]);
            continue;
        }
        strbuf_addf(out,
                    "<text transform=\"translate(%.1f %.1f) rotate(-35)\" text-anchor=\"end\" "
                    "class=\"tick\">",
                    x + 4, fr->bottom + 14);
        esc_html(out, f->cats[i]);
        strbuf_addstr(out, "</text>\n");
    }
}

static void draw_x_axis(const struct svg_fig *f, const struct frame *fr, bool slant,
                        struct strbuf *out)
{
    strbuf_addf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                PLOT_L, fr->bottom, PLOT_R, fr->bottom);
    if (f->n_cats) {
        draw_cats(f, fr, slant, out);
    } else {
        double t[MAX_TICKS];
        size_t n = svg_ticks(fr->x.lo, fr->x.hi, fr->x.log, false, t, MAX_TICKS);
        for (size_t i = 0; i < n; i++) {
            char label[32];
            tick_label(label, sizeof(label), t[i]);
            double x = px(fr, t[i]);
            strbuf_addf(out,
                        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                        x, fr->bottom, x, fr->bottom + 4);
            text_at(out, x, fr->bottom + 17, "middle", "tick", label);
        }
    }
    if (f->xlabel)
        text_at(out, (PLOT_L + PLOT_R) / 2, fr->bottom + (slant ? 74 : 36), "middle", "axis-title",
                f->xlabel);
}

static void point_title(struct strbuf *out, const struct svg_series *s, const struct svg_point *p)
{
    strbuf_addstr(out, "<title>");
    if (p->label) {
        esc_html(out, p->label);
    } else {
        if (*s->name) {
            esc_html(out, s->name);
            strbuf_addstr(out, ": ");
        }
        /* Rounded as the pages' tables round: a tooltip is read, not computed with. */
        strbuf_addf(out, "%.4g, %.4g", p->x, p->y);
        if (isfinite(p->lo) && isfinite(p->hi))
            strbuf_addf(out, " [%.4g, %.4g]", p->lo, p->hi);
    }
    strbuf_addstr(out, "</title>");
}

static void draw_whisker(const struct frame *fr, const struct svg_fig *f, const struct svg_point *p,
                         struct strbuf *out)
{
    if (!drawable(p->lo, f->logy) || !drawable(p->hi, f->logy))
        return;
    double x = px(fr, p->x), y0 = py(fr, p->lo), y1 = py(fr, p->hi);
    strbuf_addf(out,
                "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>", x,
                y0, y1, x - 4, y0, x + 4, x - 4, y1, x + 4);
}

static int by_x(const void *a, const void *b)
{
    const struct svg_point *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

static void draw_line(const struct frame *fr, const struct svg_fig *f, const struct svg_series *s,
                      struct strbuf *out)
{
    struct svg_point *sorted = xcalloc(s->n ? s->n : 1, sizeof(*sorted));
    size_t m = 0;
    for (size_t k = 0; k < s->n; k++)
        if (point_drawable(f, &s->pts[k]))
            sorted[m++] = s->pts[k];
    qsort(sorted, m, sizeof(*sorted), by_x);
    if (m > 1) {
        strbuf_addstr(out, "<polyline fill=\"none\" points=\"");
        for (size_t k = 0; k < m; k++)
            strbuf_addf(out, "%s%.1f,%.1f", k ? " " : "", px(fr, sorted[k].x), py(fr, sorted[k].y));
        strbuf_addf(out, "\"%s/>\n", s->dashed ? " stroke-dasharray=\"6 4\"" : "");
    }
    free(sorted);
}

static void draw_bar(const struct frame *fr, const struct svg_fig *f, const struct svg_series *s,
                     const struct svg_point *p, struct strbuf *out)
{
    double half = (f->bar_width > 0 ? f->bar_width : 1) / 2;
    double x0 = px(fr, p->x - half), x1 = px(fr, p->x + half);
    double base = fr->y.log ? fr->bottom : py(fr, fmax(0, fr->y.lo));
    double y = py(fr, p->y);
    strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", x0 + 1,
                fmin(y, base), fmax(x1 - x0 - 2, 1), fabs(base - y));
    point_title(out, s, p);
    strbuf_addstr(out, "</rect>\n");
}

static void draw_series(const struct frame *fr, const struct svg_fig *f, const struct svg_series *s,
                        struct strbuf *out)
{
    const char *c = color_of(s->color);
    strbuf_addf(out, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">\n", c, c);
    if (s->style == SVG_LINES)
        draw_line(fr, f, s, out);
    for (size_t k = 0; k < s->n; k++) {
        const struct svg_point *p = &s->pts[k];
        if (!point_drawable(f, p))
            continue;
        if (s->style == SVG_BARS) {
            draw_bar(fr, f, s, p, out);
            continue;
        }
        draw_whisker(fr, f, p, out);
        strbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"%s>", px(fr, p->x), py(fr, p->y),
                    s->style == SVG_LINES ? "3.5" : "4", s->dashed ? " fill=\"none\"" : "");
        point_title(out, s, p);
        strbuf_addstr(out, "</circle>\n");
    }
    strbuf_addstr(out, "</g>\n");
}

static void draw_guides(const struct frame *fr, const struct svg_fig *f, struct strbuf *out)
{
    if (drawable(f->hline, f->logy)) {
        double y = py(fr, f->hline);
        strbuf_addf(out,
                    "<line class=\"parity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    PLOT_L, y, PLOT_R, y);
    }
    for (size_t i = 0; i < f->n_markers; i++) {
        if (!drawable(f->markers[i].x, f->logx))
            continue;
        double x = px(fr, f->markers[i].x);
        strbuf_addf(out,
                    "<line class=\"marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x,
                    PLOT_T, x, fr->bottom);
        text_at(out, x + (x > (PLOT_L + PLOT_R) / 2 ? -4 : 4), PLOT_T + 12 + 14.0 * (double)i,
                x > (PLOT_L + PLOT_R) / 2 ? "end" : "start", "note", f->markers[i].label);
    }
}

/* One legend entry at (x, y): the series' line and mark, or the reference line's. */
static void legend_entry(const struct svg_series *s, const char *name, double x, double y,
                         struct strbuf *out)
{
    const char *c = s ? color_of(s->color) : "#555";
    bool dashed = !s || s->dashed;
    strbuf_addf(out, "<g class=\"legend\" stroke=\"%s\" fill=\"%s\">", c, c);
    strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>", x, y - 4, x + 20,
                y - 4, dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (s)
        strbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"%s/>", x + 10, y - 4,
                    s->dashed ? " fill=\"none\"" : "");
    strbuf_addstr(out, "</g>");
    text_at(out, x + 26, y, "start", "legend-text", name);
}

/* Legend entries laid out in rows under the plot (the series', then the reference line's);
 * returns the rows used. */
static int draw_legend(const struct svg_fig *f, double top, struct strbuf *out)
{
    double x = PLOT_L;
    int rows = 0;
    for (size_t i = 0; i <= f->n_series; i++) {
        const struct svg_series *s = i < f->n_series ? &f->series[i] : NULL;
        const char *name = s ? s->name : f->hline_label && isfinite(f->hline) ? f->hline_label : "";
        if (!*name)
            continue;
        double w = 28 + CHAR_W * (double)strlen(name) + 18;
        if (rows == 0 || x + w > W) {
            x = PLOT_L;
            rows++;
        }
        legend_entry(s, name, x, top + LEGEND_ROW * (rows - 1), out);
        x += w;
    }
    return rows;
}

static size_t longest_cat(const struct svg_fig *f)
{
    size_t m = 0;
    for (size_t i = 0; i < f->n_cats; i++)
        m = strlen(f->cats[i]) > m ? strlen(f->cats[i]) : m;
    return m;
}

static void open_svg(const struct svg_fig *f, double height, struct strbuf *out)
{
    strbuf_addf(out, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n<title>", W,
                height);
    esc_html(out, f->title ? f->title : "");
    strbuf_addstr(out, "</title>\n");
    if (f->desc) {
        strbuf_addstr(out, "<desc>");
        esc_html(out, f->desc);
        strbuf_addstr(out, "</desc>\n");
    }
}

void svg_render(const struct svg_fig *f, struct strbuf *out)
{
    if (svg_fig_points(f) == 0)
        return;
    struct frame fr;
    bool bars = f->n_series && f->series[0].style == SVG_BARS;
    data_ranges(f, &fr.x, &fr.y);
    if (f->n_cats) {
        fr.x.lo = 0.5;
        fr.x.hi = (double)f->n_cats + 0.5;
    } else if (f->xmin == 0 && f->xmax == 0) {
        pad(&fr.x, false, false);
    }
    pad(&fr.y, f->ymin_zero, bars);
    bool slant = f->n_cats > 0 &&
                 (double)longest_cat(f) * CHAR_W > (PLOT_R - PLOT_L) / (double)f->n_cats - 8;
    fr.bottom = PLOT_B;
    double legend_top = fr.bottom + (slant ? 96 : 58);
    struct strbuf body = STRBUF_INIT;
    draw_y_axis(f, &fr, &body);
    draw_x_axis(f, &fr, slant, &body);
    draw_guides(&fr, f, &body);
    for (size_t i = 0; i < f->n_series; i++)
        draw_series(&fr, f, &f->series[i], &body);
    int rows = draw_legend(f, legend_top, &body);
    double height = legend_top + (rows ? LEGEND_ROW * (rows - 1) + 8 : -20);
    open_svg(f, height, out);
    strbuf_add(out, body.buf ? body.buf : "", body.len);
    strbuf_addstr(out, "</svg>\n");
    strbuf_release(&body);
}
