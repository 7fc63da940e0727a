/* stamp: what a student's stamp certifies, and whether its results are there intact
 * (batch_internal.h). */
#include "class/batch_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "grade/score.h"
#include "base/sha256.h"
#include "grade/results.h"

#include <stdio.h>
#include <string.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

char *stamp_text(const struct lab *lab, const char *digest, const struct grade_opts *g,
                 const char *ref_digest)
{
    struct strbuf spec = STRBUF_INIT;
    struct sha256 h;
    char hex[65];
    sha256_init(&h);
    if (read_file(lab->path, &spec, NULL) == 0)
        sha256_update(&h, spec.buf, spec.len);
    strbuf_release(&spec);
    sha256_final_hex(&h, hex);
    /* Everything that changes a grade: the files, the spec, the references, the grader
     * and the options that select or time cases; and what the results hold beside it (the
     * compute-sanitizer pass, named only when an option changed it, so that stamps of
     * classes graded without the option stay valid). */
    return xstrfmt("submission %s\nspec %s\nreferences %s\ngrader %s\nfull %d hidden %d timing %d "
                   "only %s timeout %g\n%s",
                   digest, hex, ref_digest, LG_VERSION, g->full, g->hidden, !g->no_timing,
                   g->only ? g->only : "-", g->timeout_s,
                   g->sanitize == SANITIZE_ALL    ? "sanitize all\n"
                   : g->sanitize == SANITIZE_NONE ? "sanitize none\n"
                                                  : "");
}

char *stamp_certifying(const char *stamp, const char *json, size_t len)
{
    struct sha256 h;
    char hex[65];
    sha256_init(&h);
    sha256_update(&h, json, len);
    sha256_final_hex(&h, hex);
    return xstrfmt("%sresults %s\n", stamp, hex);
}

/* The stamp names the files and options graded and the checksum of results.json, which must
 * also pass results_read's checks. */
enum graded_state stamp_graded_state(const char *dir, const char *stamp, char *why, size_t why_size)
{
    struct strbuf old = STRBUF_INIT, json = STRBUF_INIT;
    char *p = path_join(dir, ".graded"), *jp = path_join(dir, "results.json");
    enum graded_state st = NOT_GRADED;
    struct results tmp;
    struct error err;
    size_t len = strlen(stamp);
    results_init(&tmp);
    error_init(&err);
    if (read_file(p, &old, NULL) != 0 || strncmp(strbuf_str(&old), stamp, len) != 0 ||
        strncmp(strbuf_str(&old) + len, "results ", 8) != 0)
        goto out; /* an older grader's stamp has no checksum: graded again */
    st = GRADED_DAMAGED;
    if (read_file(jp, &json, &err) != 0) {
        snprintf(why, why_size, "results.json: %s", err.msg);
        goto out;
    }
    char *want = stamp_certifying(stamp, json.buf, json.len);
    bool same = !strcmp(want, strbuf_str(&old));
    free(want);
    if (!same) {
        snprintf(why, why_size,
                 "results.json changed since it was graded (its checksum is not "
                 "the one in .graded)");
        goto out;
    }
    if (results_from_json(&tmp, json.buf, json.len, jp, &err) != 0) {
        error_format(&err, why, why_size);
        goto out;
    }
    st = grade_gap_of(&tmp, NULL) == GAP_NONE ? GRADED : NOT_GRADED;
out:
    results_release(&tmp);
    strbuf_release(&old);
    strbuf_release(&json);
    free(p);
    free(jp);
    return st;
}
