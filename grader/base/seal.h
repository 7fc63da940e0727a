/*
 * seal: digests the harness sends on the supervised control pipe, so that what the grader
 * reads back from result.txt can be checked against what the harness measured.
 *
 * Student code runs in the harness's process and can rewrite result.txt once the harness has
 * written it, or patch the kernel's clock code mapped into the process (the vDSO) that the
 * harness reads time through. A control line, once sent, cannot be taken back: at the end of
 * every timed series the harness sends a seal of its samples and a digest of the vDSO, and
 * the grader recomputes both (the samples from result.txt, the vDSO from its own process:
 * the kernel maps the same image into every process). Compiled into the grader (base/) and
 * into the harness (Makefile), so both sides compute the same thing.
 * Named lg_ as the rest of the harness, so a submission may not define them (run/symbols.c).
 * Pure functions; nothing is allocated.
 */
#ifndef LG_BASE_SEAL_H
#define LG_BASE_SEAL_H

#include <stddef.h>
#include <stdint.h>

/* The digest of nothing; seals chain from it. */
#define LG_SEAL_START 0xcbf29ce484222325ull
/* How result.txt writes a sample: the seal covers this text, not the double. */
#define LG_SEAL_SAMPLE_FORMAT "%.6f"

/* h extended with n samples as result.txt writes them (LG_SEAL_SAMPLE_FORMAT). */
uint64_t lg_seal_samples(uint64_t h, const double *x, size_t n);
/* A digest of this process's vDSO text (0 where there is none). */
uint64_t lg_seal_vdso(void);

#endif
