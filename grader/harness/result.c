#include "result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *result_file;
static int control = -2; /* the control pipe's fd; -2 not looked for yet, -1 absent */

int lg_result_open(void)
{
    result_file = fopen("result.txt", "w");
    if (!result_file) {
        fprintf(stderr, "labgrader harness: cannot create result.txt: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

void lg_result_close(void)
{
    if (result_file)
        fclose(result_file);
    result_file = NULL;
}

void lg_result(const char *fmt, ...)
{
    va_list ap;
    if (!result_file)
        return;
    va_start(ap, fmt);
    vfprintf(result_file, fmt, ap);
    va_end(ap);
    fputc('\n', result_file);
    fflush(result_file);
}

void lg_fail(int code, const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    lg_result("error %s %s", kind, msg);
    fprintf(stderr, "labgrader harness: %s\n", msg);
    exit(code);
}

void lg_control(const char *fmt, ...)
{
    char line[256];
    struct stat st;
    if (control == -2) {
        /* The sandbox says where it put the pipe (grader/run/control.h). */
        const char *fd_text = getenv("LG_CONTROL_FD");
        char *end;
        long fd = fd_text ? strtol(fd_text, &end, 10) : -1;
        control =
            fd >= 3 && fd < 64 && *end == '\0' && fstat((int)fd, &st) == 0 && S_ISFIFO(st.st_mode)
                ? (int)fd
                : -1;
    }
    if (control < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* One write: lines from one writer under PIPE_BUF stay whole. */
    while (write(control, line, (size_t)n) < 0 && errno == EINTR)
        ;
}
