/* Hostile submission "daemon_leftover": on its first call grade2_cpu double-forks a daemon
 * (setsid, so it leaves the process group) named "lgdaemon", which sleeps 300 s and then
 * writes into the test's canary folder; the function itself computes the right values and
 * returns.
 * Expected: grade2/cpu OK; after grading no "lgdaemon" process is left (the grader kills
 * every descendant, in or out of the group) and the canary is unchanged.
 */
#include "lab6.h"

#if __has_include("hostile_paths.h")
#include "hostile_paths.h"
#endif
#ifndef LG_HOSTILE_CANARY
#define LG_HOSTILE_CANARY "/tmp/lg-canary-hostile"
#endif

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void daemon_body(void)
{
    prctl(PR_SET_NAME, "lgdaemon", 0, 0, 0);
    for (int fd = 0; fd < 3; fd++)
        close(fd);
    sleep(300);
    int fd = open(LG_HOSTILE_CANARY "/lg-hostile-was-here", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        if (write(fd, "late\n", 5) < 0) {
        }
        close(fd);
    }
    _exit(0);
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int started;
    if (!started) {
        started = 1;
        pid_t first = fork();
        if (first == 0) {
            setsid();
            if (fork() == 0)
                daemon_body();
            _exit(0);
        }
        if (first > 0)
            waitpid(first, NULL, 0);
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
