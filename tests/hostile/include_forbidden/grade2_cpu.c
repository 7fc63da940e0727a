/* Hostile submission "include_forbidden": grade2_cpu.c includes the lab's solution by its
 * absolute path in the repository (the compiler runs in the sandbox too, where the
 * repository does not exist). grade2_gpu.cu includes /etc/shadow.
 * Expected under bubblewrap: grade2/cpu CE with "No such file or directory" for the
 * solution's path; grade2/gpu and grade2/gpu_dev CE the same way for /etc/shadow.
 * The supervisor alone hides no file (the test skips there).
 */
#include "lab6.h"

#if __has_include("hostile_paths.h")
#include "hostile_paths.h"
#endif
#ifndef LG_HOSTILE_SOLUTION_C
#define LG_HOSTILE_SOLUTION_C "/work/main/labs/lab6/solution/grade2_cpu.c"
#endif

#include LG_HOSTILE_SOLUTION_C
