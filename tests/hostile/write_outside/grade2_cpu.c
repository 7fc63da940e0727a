/* Hostile submission "write_outside": grade2_cpu tries to create, change, rename and delete
 * files outside its working directory: in the test's canary folder, in the repository (new
 * files only: labs/, tests/fixtures/, the root), in the grader's output folder and its shared
 * cache, in the real home folder, /root, /etc, /tmp, /var/tmp and /dev/shm. Then it computes
 * the right values.
 * Expected under bubblewrap: grade2/cpu OK, and none of those places changed (the test
 * checks). The supervisor alone does not protect files (the test skips there).
 *
 * The test writes hostile_paths.h with the real paths of its run; without it (the
 * submission graded by hand) the defaults below are used.
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
#ifndef LG_HOSTILE_HOME
#define LG_HOSTILE_HOME "/root"
#endif

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK "lg-hostile-was-here"

static void create_in(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, MARK);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        if (write(fd, "pwned\n", 6) < 0) {
        }
        close(fd);
    }
    snprintf(path, sizeof(path), "%s/%s.d", dir, MARK);
    mkdir(path, 0755);
}

/* Everything one can do to an existing file: only ever aimed at the test's canary. */
static void damage(const char *file)
{
    char moved[4096];
    int fd = open(file, O_WRONLY | O_APPEND);
    if (fd >= 0) {
        if (write(fd, "pwned\n", 6) < 0) {
        }
        close(fd);
    }
    chmod(file, 0777);
    snprintf(moved, sizeof(moved), "%s.moved", file);
    rename(file, moved);
    unlink(moved);
    truncate(file, 0);
    unlink(file);
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static const char *const dirs[] = {
        LG_HOSTILE_CANARY,
        LG_HOSTILE_CANARY "/sub",
        LG_HOSTILE_REPO,
        LG_HOSTILE_REPO "/labs",
        LG_HOSTILE_REPO "/labs/lab6",
        LG_HOSTILE_REPO "/labs/lab6/solution",
        LG_HOSTILE_REPO "/tests/fixtures",
        LG_HOSTILE_REPO "/tests/fixtures/lab6/correct",
        LG_HOSTILE_OUT,
        LG_HOSTILE_OUT "/.cache",
        LG_HOSTILE_OUT "/.cache/expected",
        LG_HOSTILE_HOME,
        "/root",
        "/etc",
        "/tmp",
        "/var/tmp",
        "/dev/shm",
        "../..",
        "../../../..",
    };
    static const char *const canary_files[] = {
        LG_HOSTILE_CANARY "/secret.txt",
        LG_HOSTILE_CANARY "/data.bin",
        LG_HOSTILE_CANARY "/sub/nested.txt",
    };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        create_in(dirs[i]);
    for (size_t i = 0; i < sizeof(canary_files) / sizeof(canary_files[0]); i++)
        damage(canary_files[i]);
    rmdir(LG_HOSTILE_CANARY "/sub");
    chmod(LG_HOSTILE_CANARY, 0777);
    symlink("/etc/passwd", LG_HOSTILE_CANARY "/" MARK ".lnk");

    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
