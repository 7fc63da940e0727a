/*
 * case: one case of the job: its arguments' buffers, and its checked calls.
 *
 * The function under test gets guarded buffers (buffers.h) in the spaces the spec asks for;
 * a paired reference (job key reference_lib) reads the same inputs and writes outputs of its
 * own. The checked calls draw their inputs from the case's seeds (draw.h), exactly as the
 * oracle did, poison every output element first, and write the outputs for the grader to
 * compare with the expected ones: the harness never sees an expected value. struct
 * lg_case_state owns every buffer (lg_case_release).
 */
#ifndef LG_HARNESS_CASE_H
#define LG_HARNESS_CASE_H

#include "buffers.h"
#include "harness.h"
#include "job.h"

#include <stdbool.h>
#include <stdint.h>

struct lg_arg_state {
    const struct lg_job_arg *spec;
    struct lg_buf data;           /* what the function under test gets (guarded) */
    struct lg_buf ref;            /* out and inout: the reference's own */
    struct lg_buf mirror;         /* device arguments: the host side of checked calls */
    struct lg_buf pristine;       /* in and inout: the last checked call's inputs */
    struct lg_buf ready;          /* out and inout: as they were when the function returned */
    struct lg_buf xfer, xfer_ref; /* the transfer path's host buffers, each side's own */
    union {
        double f64;
        float f32;
        int64_t i64;
        int32_t i32;
        int16_t i16;
        int8_t i8;
        uint8_t u8;
    } scalar;
};

struct lg_case_state {
    const struct lg_job *job;
    const struct lg_job_case *c;
    int index;
    struct lg_arg_state args[LG_MAX_ARGS];
    void *argv[LG_MAX_ARGS];     /* the function under test's */
    void *ref_argv[LG_MAX_ARGS]; /* the reference's */
    lg_invoke_fn ref;            /* the paired reference, or NULL */
    bool has_device;             /* some array lives in device memory */
    /* The longest checked call, by the host clock around it and its synchronize (ms): a call
     * this long is warm once checked, and its series needs no warm-up (timing.c). */
    double checked_ms;
    /* The series timed the function alone (timing.c), to be checked after the turn: which one
     * (NULL: none), and its inputs' digests as drawn. */
    const char *alone;
    bool alone_transfer;
    uint64_t alone_drawn[LG_MAX_ARGS];
};

/* Allocate and wire up everything (a failure exits through lg_fail: a setup error). */
void lg_case_setup(struct lg_case_state *s, const struct lg_job *job, int index, lg_invoke_fn ref);
void lg_case_release(struct lg_case_state *s);

/* Run the checked calls, writing c<index>_<arg>_<k>.bin and the result lines ("modified",
 * "unready": an output that changed after the function returned, "guard"). */
void lg_case_checks(struct lg_case_state *s);

/* After a call into GPU code: synchronize, or exit LG_EXIT_CUDA naming when. */
void lg_after_call(const struct lg_case_state *s, const char *when);
/* Check the guards of every buffer the function under test got; report each damaged one as
 * "<label> <arg> <bytes before> <bytes after> <first offset>" and return how many were. */
int lg_case_guards(struct lg_case_state *s, const char *label);

#endif
