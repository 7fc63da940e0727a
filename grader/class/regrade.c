#include "class/regrade.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/isotime.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEADER                                                                                     \
    "date,student_id,previous_score,new_score,previous_submission,new_submission,"                 \
    "previous_grader,new_grader,reason\r\n"

static void csv_cell(struct strbuf *out, const char *v)
{
    v = v ? v : "";
    /* A leading formula character is quoted, as in the gradebooks (OWASP). */
    bool formula = v[0] && strchr("=+-@\t\r", v[0]);
    if (!formula && !strpbrk(v, ",\"\r\n")) {
        strbuf_addstr(out, v);
        return;
    }
    strbuf_addch(out, '"');
    if (formula)
        strbuf_addch(out, '\'');
    for (const char *p = v; *p; p++) {
        if (*p == '"')
            strbuf_addch(out, '"');
        strbuf_addch(out, *p);
    }
    strbuf_addch(out, '"');
}

static void score_cell(struct strbuf *out, double v)
{
    if (isfinite(v))
        strbuf_addf(out, "%.2f", v);
}

static const char *why(const struct results *old, const struct results *r, const char *reason,
                       bool forced)
{
    if (reason && *reason)
        return reason;
    if (forced)
        return "forced re-grade (--force)";
    if (!old->submission_hash || !r->submission_hash ||
        strcmp(old->submission_hash, r->submission_hash))
        return "submission changed";
    return "grader, lab or options changed";
}

static int append_row(const char *path, const struct strbuf *row, struct error *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return error_set_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    struct strbuf all = STRBUF_INIT;
    if (fstat(fd, &st) == 0 && st.st_size == 0)
        strbuf_addstr(&all, HEADER);
    strbuf_add(&all, row->buf, row->len);
    ssize_t w = write(fd, all.buf, all.len);
    int rc = w == (ssize_t)all.len ? 0
                                   : error_set_at(err, path, 0, 0, "cannot write: %s",
                                                  w < 0 ? strerror(errno) : "short write");
    if (close(fd) != 0 && rc == 0)
        rc = error_set_at(err, path, 0, 0, "cannot write: %s", strerror(errno));
    strbuf_release(&all);
    return rc;
}

int regrade_audit(const char *lab_out, const char *json_path, const struct results *r,
                  const char *reason, bool forced, struct error *err)
{
    struct results old;
    struct strbuf row = STRBUF_INIT;
    char date[40];
    int rc = 0;
    if (!file_exists(json_path))
        return 0;
    results_init(&old);
    /* Unreadable old results are not a grade to audit against. */
    if (results_read(&old, json_path, NULL) == 0) {
        iso_time_format((long long)time(NULL), date, sizeof(date));
        strbuf_addf(&row, "%s,", date);
        csv_cell(&row, r->student_id);
        strbuf_addch(&row, ',');
        score_cell(&row, results_final_score(&old));
        strbuf_addch(&row, ',');
        score_cell(&row, results_final_score(r));
        strbuf_addch(&row, ',');
        csv_cell(&row, old.submission_hash);
        strbuf_addch(&row, ',');
        csv_cell(&row, r->submission_hash);
        strbuf_addch(&row, ',');
        csv_cell(&row, old.grader_version);
        strbuf_addch(&row, ',');
        csv_cell(&row, r->grader_version);
        strbuf_addch(&row, ',');
        csv_cell(&row, why(&old, r, reason, forced));
        strbuf_addstr(&row, "\r\n");
        char *path = path_join(lab_out, "regrades.csv");
        rc = append_row(path, &row, err);
        free(path);
    }
    results_release(&old);
    strbuf_release(&row);
    return rc;
}
