#include "fence.h"

#include "result.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* The host ranges fenced now, each with the line its fault writes, formatted beforehand: the
 * handler only compares addresses and writes. */
struct fault_range {
    const struct lg_buf *buf;
    char line[192];
    size_t len;
};
static struct fault_range ranges[LG_MAX_ARGS];
static volatile sig_atomic_t n_ranges;

/* Whether the faulting access was a write: the page fault's error code on x86-64 (bit 1);
 * elsewhere unknown, and taken for a read. */
static bool fault_was_write(const void *ctx)
{
#if defined(__x86_64__)
    const ucontext_t *uc = ctx;
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)ctx;
    return false;
#endif
}

static void on_fault(int sig, siginfo_t *info, void *ctx)
{
    int fd = lg_result_fd();
    for (sig_atomic_t i = 0; i < n_ranges; i++)
        if (fd >= 0 && lg_buf_holds(ranges[i].buf, info->si_addr)) {
            const char *how = fault_was_write(ctx) ? " write\n" : " read\n";
            ssize_t w = write(fd, ranges[i].line, ranges[i].len);
            w = write(fd, how, strlen(how));
            (void)w;
            break;
        }
    /* The default action on return: the access faults again and ends the process, as it
     * would have without the harness. */
    signal(sig, SIG_DFL);
}

void lg_fence_init(void)
{
    static bool installed;
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    installed = sigaction(SIGSEGV, &sa, NULL) == 0;
}

/* The buffer an argument's side writes, or NULL (inputs are shared, scalars are values). */
static struct lg_buf *side_buffer(struct lg_arg_state *st, bool student)
{
    if (st->spec->kind != LG_ARG_OUT && st->spec->kind != LG_ARG_INOUT)
        return NULL;
    struct lg_buf *b = student ? &st->data : &st->ref;
    return b->p ? b : NULL;
}

static void note_range(const struct lg_buf *b, const char *series, int pair, const char *arg,
                       bool student)
{
    if (n_ranges >= LG_MAX_ARGS || b->space != LG_SPACE_HOST)
        return;
    struct fault_range *r = &ranges[n_ranges];
    int len = snprintf(r->line, sizeof(r->line), "timed_fault %s %d %s %s", series, pair, arg,
                       student ? "function" : "reference");
    r->buf = b;
    r->len = len > 0 && (size_t)len < sizeof(r->line) ? (size_t)len : 0;
    n_ranges = n_ranges + 1;
}

int lg_fence_side(struct lg_case_state *s, bool student, bool on, const char *series, int pair)
{
    int fenced = 0;
    if (!on)
        n_ranges = 0;
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        struct lg_buf *b = side_buffer(st, student);
        if (!b)
            continue;
        /* Noted before the fence goes up, so that no fault finds it missing. */
        if (on)
            note_range(b, series, pair, st->spec->name, student);
        int rc = lg_buf_fence(b, on);
        if (rc < 0)
            lg_fail(b->space == LG_SPACE_DEVICE ? LG_EXIT_CUDA : LG_EXIT_SETUP,
                    b->space == LG_SPACE_DEVICE ? "cuda" : "setup", "cannot %s the %s's '%s'",
                    on ? "fence" : "unfence", student ? "function" : "reference", st->spec->name);
        fenced += on && rc == 0;
    }
    return fenced;
}
