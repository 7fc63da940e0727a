/* Hostile submission "network": grade2_cpu tries to reach the network: a TCP connection to
 * the port the test listens on at 127.0.0.1, a TCP connection to 1.1.1.1:53 and a routed UDP
 * "connection" to it (which succeeds wherever a route exists, without sending anything), and
 * the test's abstract Unix socket (those live in the network namespace too). Each attempt
 * waits at most one second. If ANY succeeds, it computes deliberately wrong values.
 * Expected under bubblewrap (empty network namespace): grade2/cpu OK, and the test's
 * listeners saw no connection. The supervisor alone keeps the network (the test skips).
 */
#include "lab6.h"

#if __has_include("hostile_paths.h")
#include "hostile_paths.h"
#endif
#ifndef LG_HOSTILE_PORT
#define LG_HOSTILE_PORT 47613
#endif
#ifndef LG_HOSTILE_UNIX
#define LG_HOSTILE_UNIX "lg-hostile-47613"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* 1 when a connection was established within a second. */
static int reach(int family, int type, const struct sockaddr *addr, socklen_t len)
{
    int fd = socket(family, type | SOCK_NONBLOCK, 0);
    int ok = 0;
    if (fd < 0)
        return 0;
    if (connect(fd, addr, len) == 0) {
        ok = 1;
    } else if (errno == EINPROGRESS) {
        struct pollfd p = {fd, POLLOUT, 0};
        int err = 0;
        socklen_t el = sizeof(err);
        if (poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
            err == 0)
            ok = 1;
    }
    close(fd);
    return ok;
}

static int online(void)
{
    struct sockaddr_in local = {0}, remote = {0};
    struct sockaddr_un un = {0};
    local.sin_family = AF_INET;
    local.sin_port = htons(LG_HOSTILE_PORT);
    local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    remote.sin_family = AF_INET;
    remote.sin_port = htons(53);
    inet_pton(AF_INET, "1.1.1.1", &remote.sin_addr);
    un.sun_family = AF_UNIX;
    /* Abstract name: a leading NUL byte. */
    memcpy(un.sun_path + 1, LG_HOSTILE_UNIX, strlen(LG_HOSTILE_UNIX));
    socklen_t unlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                  strlen(LG_HOSTILE_UNIX));
    int hits = 0;
    hits += reach(AF_INET, SOCK_STREAM, (struct sockaddr *)&local, sizeof(local));
    hits += reach(AF_INET, SOCK_STREAM, (struct sockaddr *)&remote, sizeof(remote));
    hits += reach(AF_INET, SOCK_DGRAM, (struct sockaddr *)&remote, sizeof(remote));
    hits += reach(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&un, unlen);
    return hits > 0;
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int wrong = -1;
    if (wrong < 0)
        wrong = online();
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c + wrong;
}
