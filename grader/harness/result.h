/*
 * result: what the harness tells the grader, and how it fails.
 *
 * result.txt in the working folder gets one line per event, flushed before every call into
 * student code, so that when the process dies the grader knows which case and phase it died
 * in. Where the grader passed a control pipe (its fd in LG_CONTROL_FD), lg_control() also sends the
 * case, stage and series boundaries there: the supervisor timestamps them with its own clock (the
 * student cannot slow it down), enforces each case's own time limit, and times each stage.
 */
#ifndef LG_HARNESS_RESULT_H
#define LG_HARNESS_RESULT_H

/* Open result.txt (0, or -1: nothing can be reported, exit LG_EXIT_SETUP). */
int lg_result_open(void);
void lg_result_close(void);
void lg_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* result.txt's descriptor, for a line written from a signal handler (fence.c): lg_result
 * flushes every line, so nothing of its own is pending there when student code runs. -1 when
 * closed. */
int lg_result_fd(void);
/* Report "error <kind> <message>" and exit with code (harness.h's LG_EXIT_*). */
void lg_fail(int code, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* One line to the supervisor over fd 3, when the grader opened it. */
void lg_control(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Case i is about to time: "W <i>" to the supervisor, then wait for its byte on the grant pipe
 * (LG_GRANT_FD): until no other grader's work on this machine can disturb the series
 * (grader/run/turns.h). 0: time now; 1: no turn came within the grader's wait (the machine was
 * busy: the case is not timed, and no "R" follows); -1 when the supervisor stopped answering.
 * Without a grant pipe (the program run by hand), 0 at once. "R <i>" (lg_control) gives the
 * locks back. */
int lg_timing_turn(int i);
/* After a series' "E" line: whether to measure it again (1: it shared its cores or its GPU with
 * another process), keep it (0), or -1 when the supervisor stopped answering. Without a grant
 * pipe, 0. */
int lg_series_verdict(void);

#endif
