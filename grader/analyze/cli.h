/*
 * The analyze commands as cli/ runs them (cli/cmd_analyze.c): their options are parsed by
 * the one option table (cli/optable.c) and handed here as the stage's own structs; the lab is
 * loaded by the caller. What they print and what they return:
 *
 *   grader similarity LAB --submissions DIR   (and grade --similarity, after grading)
 *   grader mutate LAB
 *
 * Exit statuses as main's: 0 done (whatever was found, whatever survived), 2 usage error (no
 * such submissions), 3 the grader failed (a missing libclang included: the message says how
 * to install it; for mutate also a solution that fails its own lab).
 */
#ifndef LG_ANALYZE_CLI_H
#define LG_ANALYZE_CLI_H

#include "analyze/mutresult.h"
#include "analyze/similarity.h"
#include "spec/spec.h"

#include <stdbool.h>

struct analyze_similarity {
    struct sim_opts o; /* work_dir and progress set by analyze_similarity */
    const char *out;   /* reports folder: OUT/<lab>/similarity.* */
    const char *work;  /* scratch folder (cli_work_folder) */
    const char *lang;  /* NULL: the lab's */
    bool quiet;
};

struct analyze_mutate {
    struct mutate_opts o; /* progress set by analyze_mutate */
    const char *lang;     /* NULL: the lab's */
    int pdf_mode;         /* -1 none, 0 try, 1 required */
    bool quiet;
};

int analyze_similarity(const struct lab *lab, struct analyze_similarity *a,
                       const char *templates_dir);
int analyze_mutate(const struct lab *lab, struct analyze_mutate *a, const char *templates_dir);

#endif
