/*
 * clock: the harness's time, out of the student's reach.
 *
 * The student's code is linked into the same program, so a clock_gettime of theirs would
 * replace libc's (the grader also refuses such a submission at link time: run/symbols.c).
 * The harness never calls the clock through a symbol: lg_clock_init() finds the kernel's own
 * clock_gettime in the vDSO the kernel maps into every process (AT_SYSINFO_EHDR), and
 * lg_now_ms() calls it there, or makes the system call itself where no vDSO entry is found.
 */
#ifndef LG_HARNESS_CLOCK_H
#define LG_HARNESS_CLOCK_H

/* Before the first call into student code (constructors aside: see docs/threat-model.md). */
void lg_clock_init(void);
/* CLOCK_MONOTONIC in milliseconds. */
double lg_now_ms(void);
/* "vdso" or "syscall": which path lg_now_ms takes, for the result file. */
const char *lg_clock_source(void);

#endif
