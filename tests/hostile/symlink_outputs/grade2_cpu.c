/* Hostile submission "symlink_outputs": grade2_cpu computes nothing useful (zeros), and an
 * exit handler replaces the outputs the harness wrote (c0_z_0.bin, c0_z_1.bin) with
 * symbolic links to the grader's cached expected outputs. The grader reads the outputs
 * outside the sandbox: if it follows the links, it compares the expected values with
 * themselves. The cache's folder name is a hash of public inputs (compiler versions, the
 * harness objects, the reference sources, the job), which a determined student can compute;
 * the test saves the effort and writes the real path into hostile_paths.h.
 * Expected: grade2/cpu CH (outputs replaced by links) or WA; never OK.
 */
#include "lab6.h"

#if __has_include("hostile_paths.h")
#include "hostile_paths.h"
#endif
#ifndef LG_HOSTILE_EXPECTED
#define LG_HOSTILE_EXPECTED "/tmp/lg-hostile-out/.cache/expected/unknown"
#endif

#include <stdlib.h>
#include <unistd.h>

static void link_outputs(void)
{
    unlink("c0_z_0.bin");
    unlink("c0_z_1.bin");
    if (symlink(LG_HOSTILE_EXPECTED "/out_z_0.bin", "c0_z_0.bin") != 0 ||
        symlink(LG_HOSTILE_EXPECTED "/out_z_1.bin", "c0_z_1.bin") != 0) {
    }
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    (void)x, (void)y, (void)a, (void)b, (void)c;
    if (calls++ == 0)
        atexit(link_outputs);
    for (int32_t i = 0; i < n; i++)
        z[i] = 0;
}
