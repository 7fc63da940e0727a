/*
 * gradescope: a lab as a Gradescope programming assignment's autograder.
 *
 * `grader gradescope LAB --out autograder.zip` writes the zip Gradescope takes
 * (gradescope/autograder_samples docs/specs.md): setup.sh and run_autograder at
 * its root, and labgrader/ beside them: the grader's sources, templates, the
 * kernels/ references, and the lab with its hidden cases (never solution/).
 * setup.sh (once, when Gradescope builds the image) installs the Debian packages,
 * builds the grader, and builds the references and computes every expected output
 * (`grader autograde LAB --setup`), so that a submission only builds and runs the
 * student's code. run_autograder (per submission) runs `grader autograde`, which
 * reads /autograder/submission and /autograder/submission_metadata.json and writes
 * /autograder/results/results.json (report/gradescope.h) and exits 0.
 *
 * GPU policy (--gpu-policy), for runners without a GPU (Gradescope's have none):
 *   informational  GPU variants run where a GPU exists; otherwise they (and every case
 *                  not run) count nothing: max_score 0 with the reason, and the score
 *                  of what ran is scaled to the lab's points. The default.
 *   remote         run_autograder sends the submission to the course's GPU machine
 *                  over ssh (--remote-host, --remote-dir, --remote-key,
 *                  --known-hosts; the ssh program from $LABGRADER_SSH, default ssh),
 *                  where `grader autograde --stdin-tar` grades it and returns
 *                  results.json; no answer: no results (an autograder failure).
 *   fail           no GPU: no results.json and exit 1, so that Gradescope shows an
 *                  autograder failure the instructor re-runs on a GPU runner.
 * Never a silently lowered score. The root /autograder is $LABGRADER_AUTOGRADER_ROOT
 * when set (tests use a folder laid out like Gradescope's).
 *
 * Exit statuses as the rest of the grader: 0, 1 (fail policy without a GPU), 2 usage
 * or spec error, 3 the grader failed (then no results.json: Gradescope shows an
 * autograder failure rather than a grade the student did not earn).
 */
#ifndef LG_GRADESCOPE_H
#define LG_GRADESCOPE_H

#include <stdbool.h>

/* Where the running grader finds its parts (cli/ knows). */
struct grader_paths {
    const char *harness_dir, *include_dir, *templates_dir;
    const char *repo_root; /* the source tree (Makefile, grader/, templates/, kernels/) */
};

/* grader gradescope's options; cli/optable.c declares them, and its parser fills this
 * (choices such as --gpu-policy and --lang already checked there). */
struct gradescope_args {
    const char *lab_arg, *out;
    const char *policy; /* informational, remote or fail; NULL: informational */
    const char *lang;
    const char *remote_host, *remote_dir, *remote_key, *known_hosts;
    bool no_slow, no_timing;
    double time_limit_s; /* the assignment's autograder timeout; 0: Gradescope's default */
};

/* grader autograde's options, filled the same way. */
struct autograde_args {
    const char *lab_arg, *root, *lang;
    const char *policy; /* informational, remote or fail; NULL: informational */
    bool setup, stdin_tar, no_slow, no_timing;
    double timing_wait_s; /* 0: the default, bound by the time limit (autograde.c) */
    double time_limit_s;  /* Gradescope's autograder timeout; 0: its default, 600 s */
};

/* grader gradescope LAB --out FILE [--gpu-policy ...] [--no-slow] [--no-timing] ...:
 * the exit status. */
int gradescope_make(const struct gradescope_args *a, const struct grader_paths *p);
/* grader autograde LAB [--root DIR] [--setup] [--stdin-tar] [--gpu-policy ...] ...: the
 * exit status. */
int autograde_run(const struct autograde_args *a, const struct grader_paths *p);

#endif
