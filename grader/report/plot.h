/*
 * plot: figures for the reports, drawn by gnuplot into PNG files, and the
 * break-even arithmetic behind them.
 *
 * A struct plot_fig describes a figure (series of points, vertical markers,
 * axis labels, log scales); plot_render() writes <dir>/<name>.dat (the data),
 * <dir>/<name>.gp (the script) and runs gnuplot on them in a child process with
 * a time limit, stdin from /dev/null, to make <dir>/<name>.png (pngcairo when
 * this gnuplot has it, else png). A missing or failing gnuplot is never an
 * error: the figure is simply not made and the result says why, for the report
 * to print in its place.
 *
 * Every string in a figure is copied; plot_fig_release() frees them. Titles are
 * shown literally (gnuplot's enhanced text mode is off).
 */
#ifndef LG_PLOT_H
#define LG_PLOT_H

#include <stdbool.h>
#include <stddef.h>

/* Where curve a (e.g. a GPU with transfers) crosses curve b (the CPU baseline). */
enum break_even {
    BREAK_EVEN_NO_DATA,  /* fewer than two usable points */
    BREAK_EVEN_FOUND,    /* *size_out holds the crossing */
    BREAK_EVEN_A_FASTER, /* a is faster at every measured size */
    BREAK_EVEN_A_SLOWER, /* a is slower at every measured size */
};

/*
 * sizes[i], times_a[i], times_b[i]: one measurement per size, in any order; points
 * with a non-positive or non-finite value are ignored. The first crossing in
 * increasing size is found by linear interpolation of log(a/b) against log(size)
 * between the two measured sizes that bracket it; a size where a == b is itself
 * the crossing.
 */
enum break_even plot_break_even(const double *sizes, const double *times_a, const double *times_b,
                                size_t n, double *size_out);

enum plot_style {
    PLOT_LINES,  /* points joined by lines (sorted by x) */
    PLOT_POINTS, /* points only */
    PLOT_BOXES,  /* bars centred on x, width box_width */
};

struct plot_series {
    char *title; /* "" for no legend entry (no legend at all when none has one) */
    enum plot_style style;
    bool dashed;
    bool bold;
    int color;      /* index into a fixed palette; -1 black */
    int point_type; /* gnuplot's pt; <= 0: lines without points */
    double *x, *y;
    size_t n, alloc;
};

struct plot_marker {
    double x;
    char *label;
};

struct plot_tic {
    double x;
    char *label;
};

struct plot_fig {
    char *xlabel, *ylabel;
    bool logx, logy;
    double box_width;        /* PLOT_BOXES */
    double xmin, xmax;       /* both 0: automatic */
    bool ymin_zero;          /* start the y axis at 0 */
    bool y_integer;          /* y tics at whole numbers (counts) */
    int width_px, height_px; /* 0: 900 x 500 */
    struct plot_series *series;
    size_t n_series, alloc_series;
    struct plot_marker *markers; /* vertical dotted lines with a label */
    size_t n_markers, alloc_markers;
    struct plot_tic *xtics; /* named x positions (categories) instead of numbers */
    size_t n_xtics, alloc_xtics;
};

void plot_fig_init(struct plot_fig *f);
void plot_fig_release(struct plot_fig *f);
/* The new series is owned by the figure; the pointer is valid until the next add. */
struct plot_series *plot_fig_add_series(struct plot_fig *f, const char *title,
                                        enum plot_style style);
void plot_series_add(struct plot_series *s, double x, double y);
void plot_fig_add_marker(struct plot_fig *f, double x, const char *label);
void plot_fig_add_xtic(struct plot_fig *f, double x, const char *label);

/* Why a plot was not made, so that a report can say it in its own language. */
enum plot_failure {
    PLOT_FAIL_NONE,       /* made */
    PLOT_FAIL_NAME,       /* the file name is not a plain name */
    PLOT_FAIL_NO_DATA,    /* no series has a point */
    PLOT_FAIL_NO_GNUPLOT, /* gnuplot is not installed */
    PLOT_FAIL_FILES,      /* its folder or script could not be written */
    PLOT_FAIL_START,      /* gnuplot could not be started */
    PLOT_FAIL_GNUPLOT,    /* gnuplot failed (exit status, signal, time limit) */
    PLOT_FAIL_NO_IMAGE,   /* gnuplot succeeded but left no image */
};

struct plot_result {
    bool made;
    bool no_gnuplot;     /* gnuplot is not installed (or not in PATH) */
    char png_path[1024]; /* when made */
    char note[512];      /* why not, when !made: an English sentence, for logs */
    enum plot_failure failure;
    char detail[512]; /* the technical part of note (system error, gnuplot's message), or "" */
};

/* "name", "no_data", "no_gnuplot", "files", "start", "gnuplot", "no_image"; "" when made. */
const char *plot_failure_key(enum plot_failure f);

/* Seconds gnuplot may take for one figure. */
#define PLOT_TIMEOUT_S 30.0

/*
 * Make <dir>/<name>.png. name must be a plain file name ([A-Za-z0-9_.-]).
 * Returns 0 when the PNG was made, -1 otherwise (res->note says why).
 */
int plot_render(const struct plot_fig *f, const char *dir, const char *name,
                struct plot_result *res);

/* name made safe for plot_render: other characters become '_'. Caller frees. */
char *plot_safe_name(const char *name);

#endif
