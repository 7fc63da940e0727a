/*
 * svg: figures for the HTML pages, drawn as inline SVG from the numbers the report layer
 * hands it (no gnuplot, no script, no network): lines, points and bars on linear or
 * logarithmic axes, each point with an optional interval (whiskers), vertical markers with
 * a label (a break-even), one horizontal reference line (parity), named categories on the
 * x axis, and a legend.
 *
 * Every text of a figure (labels, series names, categories) is escaped for HTML as it is
 * written, so a figure may carry anything that came from a submission. The figure has
 * role="img" with its title and description for screen readers, and each point a <title>
 * with its values (a tooltip).
 *
 * struct svg_fig owns its series, markers and every string (copied on the way in);
 * svg_fig_release() frees them.
 */
#ifndef LG_REPORT_SVG_H
#define LG_REPORT_SVG_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum svg_style {
    SVG_LINES,  /* points joined in increasing x, each marked */
    SVG_POINTS, /* points only */
    SVG_BARS,   /* bars from the axis (or 0) up to y, bar_width wide in x units */
};

struct svg_point {
    double x, y;
    double lo, hi; /* an interval around y (whiskers); NAN: none */
    char *label;   /* the tooltip's text; NULL: the values */
};

struct svg_series {
    char *name; /* legend entry; "" for none */
    enum svg_style style;
    int color; /* palette index (colour-blind safe); -1: the text colour */
    bool dashed;
    struct svg_point *pts;
    size_t n, alloc;
};

struct svg_marker {
    double x;
    char *label;
};

struct svg_fig {
    char *title, *desc;    /* for screen readers (the figure's <title>, <desc>) */
    char *xlabel, *ylabel; /* axis titles */
    bool logx, logy;
    bool ymin_zero;    /* the y axis starts at 0 (linear only) */
    bool y_integer;    /* y ticks at whole numbers (counts) */
    double xmin, xmax; /* both 0: from the data */
    double bar_width;  /* SVG_BARS, in x units */
    double hline;      /* a dashed horizontal line at this y (1x: parity); NAN: none */
    char *hline_label;
    char **cats; /* categorical x: cats[i] is at x = i + 1 */
    size_t n_cats;
    struct svg_series *series;
    size_t n_series, alloc_series;
    struct svg_marker *markers;
    size_t n_markers, alloc_markers;
};

void svg_fig_init(struct svg_fig *f);
void svg_fig_release(struct svg_fig *f);
/* Copies of the strings are kept (NULL stays NULL). */
void svg_fig_set_text(struct svg_fig *f, const char *title, const char *xlabel, const char *ylabel);
/* The new series is the figure's; the pointer is valid until the next series is added. */
struct svg_series *svg_add_series(struct svg_fig *f, const char *name, enum svg_style style,
                                  int color);
/* A point; lo and hi NAN for none; label NULL for the values as the tooltip. */
void svg_add_point(struct svg_series *s, double x, double y, double lo, double hi,
                   const char *label);
void svg_add_marker(struct svg_fig *f, double x, const char *label);
void svg_add_cat(struct svg_fig *f, const char *name);
/* Points the figure would draw (positive ones on a log axis). */
size_t svg_fig_points(const struct svg_fig *f);

/* The figure as an <svg> element, appended to out. A figure without a point to draw
 * appends nothing. */
void svg_render(const struct svg_fig *f, struct strbuf *out);

/* Ticks of an axis from lo to hi (on a log axis, their base-10 logarithms; the ticks are values):
 * "nice" steps on a linear axis (1, 2, 2.5, 5 times a power of ten; whole numbers only when
 * integer), powers of ten (with 2 and 5 between when there are few) on a log one. Fills at most max
 * values into t; returns how many. */
size_t svg_ticks(double lo, double hi, bool log_axis, bool integer, double *t, size_t max);

#endif
