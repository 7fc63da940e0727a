/* Hostile submission "read_secrets": grade2_cpu tries to read what a student must never see:
 * the lab's solution (absolute path, and relative paths climbing out of the working
 * directory), another student's submission (a fixture), other students' work folders and
 * reports under the grader's output folder, the expected-output cache, the test's canary,
 * /etc/shadow and /etc/passwd. If ANY of them can be opened, it computes
 * deliberately wrong values, so a leak shows as WA. (Folders on the way to the working
 * directory exist, empty, in the sandbox: only folders off that path are tried. So do the
 * folders on the way to what the run is given read-only: its runner, which an unchanged
 * submission runs from the build cache (.cache/builds/...), and the reference's shared
 * object for the timed pairs (.cache/build/<digest>/...). Those folders list only that path;
 * the expected outputs beside them are tried.)
 * Expected under bubblewrap: grade2/cpu OK. (The supervisor alone hides nothing: the test
 * skips there.)
 */
#include "lab6.h"

#if __has_include("hostile_paths.h")
#include "hostile_paths.h"
#endif
#ifndef LG_HOSTILE_CANARY
#define LG_HOSTILE_CANARY "/tmp/lg-canary-hostile"
#endif
#ifndef LG_HOSTILE_REPO
#define LG_HOSTILE_REPO "/work/main"
#endif
#ifndef LG_HOSTILE_OUT
#define LG_HOSTILE_OUT "/tmp/lg-hostile-out"
#endif

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int can_open(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    char buf[16];
    ssize_t got = read(fd, buf, sizeof(buf));
    close(fd);
    return got >= 0;
}

static int can_list(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    closedir(d);
    return 1;
}

static int leaked(void)
{
    static const char *const files[] = {
        LG_HOSTILE_REPO "/labs/lab6/solution/grade2_cpu.c",
        LG_HOSTILE_REPO "/labs/lab6/lab.yaml",
        LG_HOSTILE_REPO "/kernels/grade2.c",
        LG_HOSTILE_REPO "/tests/fixtures/lab6/correct/grade2_cpu.c",
        LG_HOSTILE_OUT "/lab6/preflight/results.json",
        LG_HOSTILE_CANARY "/secret.txt",
        "/etc/shadow",
        "/etc/passwd",
    };
    static const char *const dirs[] = {
        LG_HOSTILE_OUT "/.cache/expected",
        LG_HOSTILE_OUT "/lab6",
        LG_HOSTILE_REPO "/labs",
        LG_HOSTILE_REPO "/tests/fixtures/lab6",
        LG_HOSTILE_CANARY,
        "/root",
        "/home",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (can_open(files[i]))
            return 1;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        if (can_list(dirs[i]))
            return 1;
    /* Climb out of the working folder: <out>/.work/<student>/run/<run>/ and beyond. */
    char rel[64] = "";
    for (int up = 1; up <= 12; up++) {
        char path[4200];
        memcpy(rel + 3 * (up - 1), "../", 4);
        snprintf(path, sizeof(path), "%slabs/lab6/solution/grade2_cpu.c", rel);
        if (can_open(path))
            return 1;
        snprintf(path, sizeof(path), "%s.cache/expected", rel);
        if (can_list(path))
            return 1;
        snprintf(path, sizeof(path), "%slab6/preflight", rel);
        if (can_list(path))
            return 1;
    }
    return 0;
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    double wrong = leaked() ? 1.0 : 0.0;
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c + wrong;
}
