/* compute-sanitizer: finding it, its command line, reading its output (sanitizer.h). */
#include "run/sanitizer.h"
#include "run/cudatool.h"

#include "base/messages.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest text kept of one field: the tool's own lines are short; forged ones need not be. */
#define FIELD_MAX 300
/* Longest line looked at: longer ones are the program's, or cut to this. */
#define LINE_MAX_BYTES 4096

static void report_release(struct sanitizer_report *r)
{
    free(r->kind);
    free(r->location);
    free(r->thread);
    free(r->block);
    free(r->access);
    memset(r, 0, sizeof(*r));
}

void sanitizer_output_init(struct sanitizer_output *o)
{
    memset(o, 0, sizeof(*o));
}

void sanitizer_output_release(struct sanitizer_output *o)
{
    for (size_t i = 0; i < o->n_reports; i++)
        report_release(&o->reports[i]);
    free(o->reports);
    free(o->tool_error);
    sanitizer_output_init(o);
}

static const char *const status_names[] = {"ran", "skipped", "failed"};

const char *sanitizer_status_name(enum sanitizer_status s)
{
    return (unsigned)s < 3 ? status_names[s] : "failed";
}

int sanitizer_status_parse(const char *name)
{
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(status_names[i], name))
            return i;
    return -1;
}

void sanitizer_run_init(struct sanitizer_run *r)
{
    memset(r, 0, sizeof(*r));
    sanitizer_output_init(&r->out);
}

void sanitizer_run_release(struct sanitizer_run *r)
{
    free(r->tool);
    free(r->case_id);
    free(r->reason);
    sanitizer_output_release(&r->out);
    sanitizer_run_init(r);
}

/* ------------------------------------------------------------------------ */
/* Reading the output                                                       */

/*
 * Why reading the tool's lines out of a stream the student's program also writes to is
 * safe: compute-sanitizer is another process, writing into the same pipe; the program can
 * add lines but never remove or rewrite the tool's. So a forged report only adds a finding
 * against its own author, and the counts taken are the largest any SUMMARY line gave: a
 * forged "0 errors" cannot lower the real one. What forgery can do is make a run whose tool
 * died look finished, which only hides the grader-side "did not complete" note (and a tool
 * killed by a signal is caught from its exit status, not from its lines).
 */

/* Where the tool's "=========" prefix starts in a line, or NULL. It may follow the
 * program's own unterminated output ("sync: no error========= ERROR SUMMARY"), but a
 * longer run of '=' (a program's "=========== Results ===") is not it. */
static const char *find_prefix(const char *line)
{
    for (const char *p = strstr(line, "========="); p; p = strstr(p + 1, "=========")) {
        if (p > line && p[-1] == '=')
            continue;
        if (p[9] == ' ' || p[9] == '\0')
            return p;
    }
    return NULL;
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static char *dup_field(const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return xstrndup(s, n > FIELD_MAX ? FIELD_MAX : n);
}

/* "oob(float *, int)+0x90 in san.cu:3" -> "oob(float *, int) in san.cu:3": the offset into
 * the machine code says nothing to a student, and differs between builds. */
static char *location_text(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    const char *off = strstr(s, "+0x");
    if (off) {
        const char *end = off + 3;
        end += strspn(end, "0123456789abcdefABCDEF");
        strbuf_add(&sb, s, (size_t)(off - s));
        strbuf_addstr(&sb, end);
    } else {
        strbuf_addstr(&sb, s);
    }
    char *out = dup_field(sb.buf, sb.len);
    strbuf_release(&sb);
    return out;
}

/* A token up to the next space: "(232,0,0)". */
static char *token(const char *s, const char **end)
{
    size_t n = strcspn(s, " ");
    *end = s + n;
    return n ? dup_field(s, n) : NULL;
}

/* "and is 1 bytes after the nearest allocation at 0x7f89de800000 of size 4,000 bytes" ->
 * "1 byte after an allocation of 4,000 bytes" (the addresses change from run to run). */
static char *nearest_text(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    const char *p = end, *q;
    if (end == s || n < 0)
        return NULL;
    if (starts_with(p, " bytes "))
        p += 7;
    else if (starts_with(p, " byte "))
        p += 6;
    else
        return NULL;
    char *where = token(p, &q);
    if (!where)
        return NULL;
    char *text = NULL;
    if (starts_with(q, " the nearest allocation at ")) {
        q = strchr(q + strlen(" the nearest allocation at "), ' ');
        if (q && starts_with(q, " of size ")) {
            q += strlen(" of size ");
            size_t len = strspn(q, "0123456789,");
            if (len > 0 && len < 32)
                text = xstrfmt("%ld byte%s %s an allocation of %.*s bytes", n, n == 1 ? "" : "s",
                               where, (int)len, q);
        }
    }
    free(where);
    return text;
}

struct parse_state {
    struct sanitizer_output *out;
    struct sanitizer_report cur;
    bool open;        /* cur holds a report being read */
    bool weak_access; /* cur's access came from an "... is misaligned" line */
};

/* Reports merge on kind and location. One whose location was not printed (its lines cut
 * off) counts with the first report of its kind, if there is one. */
static void commit(struct parse_state *st)
{
    struct sanitizer_output *out = st->out;
    struct sanitizer_report *r = &st->cur;
    if (!st->open)
        return;
    st->open = false;
    for (size_t i = 0; i < out->n_reports; i++) {
        struct sanitizer_report *o = &out->reports[i];
        bool same_place = !r->location || (o->location && !strcmp(o->location, r->location));
        if (!strcmp(o->kind, r->kind) && same_place) {
            o->count++;
            report_release(r);
            return;
        }
    }
    if (out->n_reports >= SANITIZER_MAX_REPORTS) {
        out->other_reports++;
        report_release(r);
        return;
    }
    out->reports = xrealloc(out->reports, (out->n_reports + 1) * sizeof(*out->reports));
    r->count = 1;
    out->reports[out->n_reports++] = *r;
    memset(r, 0, sizeof(*r));
}

static void add_access(struct parse_state *st, char *text, bool weak)
{
    struct sanitizer_report *r = &st->cur;
    if (!text)
        return;
    if (r->access && !(st->weak_access && !weak)) {
        free(text);
        return;
    }
    free(r->access);
    r->access = text;
    st->weak_access = weak;
}

/* An indented line: a detail of the report being read. */
static void detail_line(struct parse_state *st, const char *s)
{
    struct sanitizer_report *r = &st->cur;
    const char *end;
    if (!st->open)
        return;
    if (starts_with(s, "at ") && !r->location) {
        r->location = location_text(s + 3);
    } else if (starts_with(s, "by thread ") && !r->thread) {
        r->thread = token(s + strlen("by thread "), &end);
        if (starts_with(end, " in block "))
            r->block = token(end + strlen(" in block "), &end);
    } else if (starts_with(s, "and is ")) {
        char *text = nearest_text(s + strlen("and is "));
        add_access(st, text ? text : dup_field(s + 7, strlen(s + 7)), false);
    } else if (starts_with(s, "and ") && strstr(s, " access at ")) {
        /* racecheck: the other side of the race, as many lines as there are. */
        char *part = location_text(s);
        if (!r->access) {
            r->access = part;
        } else if (strlen(r->access) < FIELD_MAX) {
            char *joined = xstrfmt("%s, %s", r->access, part);
            free(r->access);
            r->access = dup_field(joined, strlen(joined));
            free(joined);
            free(part);
        } else {
            free(part);
        }
    } else if (starts_with(s, "Address ") || starts_with(s, "Access to ")) {
        const char *is = strstr(s, " is ");
        if (is)
            add_access(st, dup_field(is + 4, strlen(is + 4)), true);
    }
}

/* The number after `key` in a SUMMARY line ("(1 error, 0 warnings)"); -1 when absent. */
static long count_before(const char *s, const char *word)
{
    const char *w = strstr(s, word);
    if (!w)
        return -1;
    const char *p = w;
    while (p > s && p[-1] == ' ')
        p--;
    const char *q = p;
    while (q > s && q[-1] >= '0' && q[-1] <= '9')
        q--;
    if (q == p)
        return -1;
    long v = 0;
    for (; q < p && v < 1000000000L; q++)
        v = v * 10 + (*q - '0');
    return v;
}

static void raise_to(long *v, long x)
{
    if (x > *v)
        *v = x;
}

/* A line at the tool's top level: a summary, a note of its own, or a new report. */
static void top_line(struct parse_state *st, const char *s)
{
    struct sanitizer_output *out = st->out;
    commit(st);
    if (starts_with(s, "ERROR SUMMARY:")) {
        long n = count_before(s, " error");
        if (n >= 0 && strstr(s, "not printed"))
            raise_to(&out->not_printed, n);
        else if (n >= 0) {
            raise_to(&out->errors, n);
            out->summary = true;
        }
        return;
    }
    if (starts_with(s, "RACECHECK SUMMARY:")) {
        const char *paren = strchr(s, '(');
        long e = paren ? count_before(paren, " error") : -1;
        long w = paren ? count_before(paren, " warning") : -1;
        if (e >= 0) {
            raise_to(&out->errors, e);
            raise_to(&out->warnings, w);
            out->summary = true;
        }
        return;
    }
    static const char *const notes[] = {"COMPUTE-SANITIZER",
                                        "Target application returned an error",
                                        "Default timeout",
                                        "LEAK SUMMARY",
                                        "Note:",
                                        "The application may have hit an error",
                                        NULL};
    for (size_t i = 0; notes[i]; i++)
        if (starts_with(s, notes[i]))
            return;
    bool race = false;
    if (starts_with(s, "Error: Race reported") || starts_with(s, "Warning: Race reported")) {
        s = strchr(s, ' ') + 1;
        race = true;
    } else if (starts_with(s, "Error") || starts_with(s, "Internal Sanitizer Error")) {
        if (!out->tool_error)
            out->tool_error = dup_field(s, strlen(s));
        return;
    } else if (starts_with(s, "Warning:")) {
        return;
    }
    memset(&st->cur, 0, sizeof(st->cur));
    st->open = true;
    st->weak_access = false;
    const char *at = race ? strstr(s, " at ") : NULL;
    if (at) {
        st->cur.kind = dup_field(s, (size_t)(at - s));
        st->cur.location = location_text(at + 4);
    } else {
        st->cur.kind = dup_field(s, strlen(s));
    }
}

void sanitizer_parse(const char *text, size_t len, struct sanitizer_output *out)
{
    struct parse_state st;
    memset(&st, 0, sizeof(st));
    st.out = out;
    for (size_t pos = 0; text && pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        char *line = xstrndup(text + pos, n > LINE_MAX_BYTES ? LINE_MAX_BYTES : n);
        pos += n + (nl != NULL);
        line[strcspn(line, "\r")] = '\0';
        const char *p = find_prefix(line);
        if (p) {
            const char *rest = p[9] ? p + 10 : p + 9;
            if (rest[strspn(rest, " \t")] == '\0')
                commit(&st); /* a blank tool line ends a report */
            else if (*rest == ' ' || *rest == '\t')
                detail_line(&st, rest + strspn(rest, " \t"));
            else
                top_line(&st, rest);
        }
        free(line);
    }
    commit(&st);
}

/* ------------------------------------------------------------------------ */
/* Finding the tool and running it                                          */

char *sanitizer_find(const char *cuda_home, const char *path_env, const char *nvcc_home)
{
    return cudatool_find("compute-sanitizer", cuda_home, path_env, nvcc_home);
}

size_t sanitizer_argv(const char *program, const char *tool, const char **argv)
{
    const char *v[] = {program,
                       tool ? "--tool" : NULL,
                       tool,
                       "--print-limit",
                       SANITIZER_PRINT_LIMIT,
                       "--show-backtrace",
                       "no",
                       "--error-exitcode",
                       SANITIZER_ERROR_EXIT};
    size_t n = 0;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]) && n + 1 < SANITIZER_ARGV_MAX; i++)
        if (v[i])
            argv[n++] = v[i];
    argv[n] = NULL;
    return n;
}

/* Visible in every sandbox already, or too close to the root to be a toolkit's own. */
static bool system_or_shallow(const char *dir)
{
    static const char *const sys[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                      "/lib64", "/lib32", "/libx32"};
    int depth = 0;
    for (const char *p = dir; *p; p++)
        depth += *p == '/' && p[1] && p[1] != '/';
    if (depth < 2)
        return true;
    for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
        size_t n = strlen(sys[i]);
        if (!strncmp(dir, sys[i], n) && (dir[n] == '/' || dir[n] == '\0'))
            return true;
    }
    return false;
}

char **sanitizer_ro_paths(const char *program)
{
    char **paths = xcalloc(3, sizeof(char *));
    size_t n = 0;
    const char *slash = program ? strrchr(program, '/') : NULL;
    if (!slash || slash == program)
        return paths;
    char *dir = xstrndup(program, (size_t)(slash - program));
    /* Only a toolkit's layout: <toolkit>/bin holding the wrapper of <toolkit>/compute-sanitizer,
     * or that folder itself. Never a folder that merely holds a copy (a home's bin/). */
    const char *base = path_base(dir);
    char *tool_dir = NULL;
    if (!strcmp(base, "bin")) {
        char *parent = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));
        tool_dir = path_join(parent, "compute-sanitizer");
        free(parent);
        if (!dir_exists(tool_dir)) {
            free(tool_dir);
            tool_dir = NULL;
        }
    }
    if (tool_dir || !strcmp(base, "compute-sanitizer")) {
        if (!system_or_shallow(dir))
            paths[n++] = xstrdup(dir);
        if (tool_dir && !system_or_shallow(tool_dir))
            paths[n++] = xstrdup(tool_dir);
    }
    free(tool_dir);
    free(dir);
    return paths;
}

void sanitizer_paths_free(char **paths)
{
    for (size_t i = 0; paths && paths[i]; i++)
        free(paths[i]);
    free(paths);
}

double sanitizer_wall_limit(double case_timeout_s)
{
    double t = case_timeout_s > 0 ? case_timeout_s : 30;
    double w = 10 * t;
    if (w > SANITIZER_MAX_WALL_S)
        w = SANITIZER_MAX_WALL_S;
    if (w < SANITIZER_MIN_WALL_S)
        w = SANITIZER_MIN_WALL_S;
    return w < t ? t : w;
}

void sanitizer_judge(const struct sandbox_result *sb, double limit_s, const struct messages *msgs,
                     struct sanitizer_run *run)
{
    sanitizer_output_release(&run->out);
    free(run->reason);
    run->reason = NULL;
    run->wall_s = sb->wall_s;
    if (sb->status == SB_SETUP_FAILED) {
        run->status = SANITIZER_FAILED;
        run->reason =
            xstrfmt(messages_get(msgs, "the sandbox could not start compute-sanitizer: %s"),
                    sb->setup_error);
        return;
    }
    sanitizer_parse(sb->output, sb->output ? sb->output_len : 0, &run->out);
    if (sb->status == SB_EXITED && run->out.summary) {
        run->status = SANITIZER_RAN;
        return;
    }
    run->status = SANITIZER_FAILED;
    if (sb->status == SB_TIMEOUT) {
        run->reason = xstrfmt(messages_get(msgs, "compute-sanitizer did not complete: it ran "
                                                 "longer than its %.0f s limit"),
                              limit_s);
    } else if (sb->status != SB_EXITED) {
        /* How it ended is the sandbox's English, as for skip reasons; the frame is ours. */
        char how[256];
        sandbox_describe(sb, how, sizeof(how));
        run->reason = xstrfmt(messages_get(msgs, "compute-sanitizer did not complete: %s"), how);
    } else if (run->out.tool_error) {
        run->reason = xstrfmt(messages_get(msgs, "compute-sanitizer did not complete: %s"),
                              run->out.tool_error);
    } else if (sb->output_truncated) {
        run->reason = xstrdup(messages_get(msgs, "compute-sanitizer did not complete: the "
                                                 "program's output filled the capture before the "
                                                 "tool's summary"));
    } else {
        run->reason = xstrfmt(messages_get(msgs, "compute-sanitizer did not complete: it exited "
                                                 "with status %d without its summary"),
                              sb->exit_code);
    }
}

char *sanitizer_report_text(const struct sanitizer_report *r, const struct messages *msgs)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, r->kind ? r->kind : "?");
    if (r->location)
        strbuf_addf(&sb, messages_get(msgs, " at %s"), r->location);
    if (r->thread && r->block)
        strbuf_addf(&sb, messages_get(msgs, ", first by thread %s in block %s"), r->thread,
                    r->block);
    else if (r->thread)
        strbuf_addf(&sb, messages_get(msgs, ", first by thread %s"), r->thread);
    /* racecheck's other side reads on ("... and Read access at ..."); the rest is what the
     * access hit. */
    if (r->access)
        strbuf_addf(&sb, starts_with(r->access, "and ") ? " %s" : ": %s", r->access);
    return strbuf_detach(&sb);
}

long sanitizer_error_count(const struct sanitizer_output *o)
{
    long printed = o->other_reports;
    for (size_t i = 0; i < o->n_reports; i++)
        printed += o->reports[i].count;
    return printed > o->errors ? printed : o->errors;
}

char *sanitizer_run_summary(const struct sanitizer_run *r, const struct messages *msgs)
{
    const char *tool = r->tool ? r->tool : "?", *c = r->case_id ? r->case_id : "?";
    if (r->status == SANITIZER_SKIPPED)
        return xstrfmt(messages_get(msgs, "%s: not run: %s"), tool, r->reason ? r->reason : "");
    if (r->status != SANITIZER_RAN)
        return xstrfmt(messages_get(msgs, "%s on case %s: %s"), tool, c,
                       r->reason ? r->reason : "");
    long n = sanitizer_error_count(&r->out);
    if (n == 0 && r->out.warnings == 0)
        return xstrfmt(messages_get(msgs, "%s on case %s: no errors"), tool, c);
    struct strbuf sb = STRBUF_INIT;
    if (n == 1)
        strbuf_addf(&sb, messages_get(msgs, "%s on case %s: 1 error"), tool, c);
    else
        strbuf_addf(&sb, messages_get(msgs, "%s on case %s: %ld errors"), tool, c, n);
    if (r->out.warnings > 0)
        strbuf_addf(&sb, messages_get(msgs, ", %ld warnings"), r->out.warnings);
    if (r->out.n_reports > 0) {
        char *first = sanitizer_report_text(&r->out.reports[0], msgs);
        strbuf_addf(&sb, ": %s", first);
        free(first);
    }
    long others = r->out.other_reports;
    for (size_t i = 1; i < r->out.n_reports; i++)
        others += r->out.reports[i].count;
    if (others > 0)
        strbuf_addf(&sb, messages_get(msgs, " (and %ld more of other kinds)"), others);
    return strbuf_detach(&sb);
}
