/*
 * ncu: reading Nsight Compute's CSV (tests/fixtures/ncu/, written from its documentation: see
 * the README there) into kernels, units, values that are not numbers, the harness's kernels left
 * out, the stall reasons ranked, why a run gave nothing, the command lines and the folders.
 */
#include "run/ncu.h"
#include "grade/profile.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/ncu"

static void read_fixture(const char *name, struct strbuf *sb)
{
    char *path = xstrfmt("%s/%s", FIXTURES, name);
    struct error err;
    ck_assert_msg(read_file(path, sb, &err) == 0, "%s", err.msg);
    free(path);
}

static void parse_fixture(const char *name, struct ncu_profile *p)
{
    struct strbuf sb = STRBUF_INIT;
    read_fixture(name, &sb);
    ncu_profile_init(p);
    ck_assert_int_eq(ncu_parse_csv(sb.buf, sb.len, p), 0);
    strbuf_release(&sb);
}

START_TEST(raw_page_read)
{
    struct ncu_profile p;
    parse_fixture("uncoalesced_student.csv", &p);
    ck_assert_int_eq(p.rows, 2);
    ck_assert_int_eq(p.skipped, 1); /* lg_draw_kernel */
    ck_assert_int_eq(p.n_kernels, 1);
    const struct ncu_kernel *k = &p.kernels[0];
    ck_assert_str_eq(k->name, "transpose_naive(const float *, float *, int)");
    ck_assert_int_eq(k->launches, 1);
    ck_assert_double_eq_tol(k->m[NCU_DURATION_NS], 1734112, 1e-6);
    ck_assert_double_eq_tol(k->total_ns, 1734112, 1e-6);
    ck_assert_double_eq_tol(k->m[NCU_DRAM_PCT], 14.8, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_OCC_ACHIEVED], 92.3, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_REGISTERS], 18, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_GRID], 65536, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_LD_SECTORS], 16777216, 1e-6);
    ck_assert_double_eq_tol(k->m[NCU_LD_REQUESTS], 524288, 1e-6);
    ncu_profile_release(&p);
}
END_TEST

START_TEST(stalls_ranked)
{
    struct ncu_profile p;
    parse_fixture("uncoalesced_student.csv", &p);
    const struct ncu_kernel *k = &p.kernels[0];
    /* "selected" (1.0) and "not_selected" are not stalls; the rest, largest first. */
    ck_assert_int_eq(k->n_stalls, 3);
    ck_assert_str_eq(k->stalls[0].reason, "long_scoreboard");
    ck_assert_double_eq_tol(k->stalls[0].cycles, 96.4, 1e-9);
    ck_assert_str_eq(k->stalls[1].reason, "lg_throttle");
    ck_assert_str_eq(k->stalls[2].reason, "wait");
    ncu_profile_release(&p);
}
END_TEST

START_TEST(launches_merged)
{
    struct ncu_profile p;
    parse_fixture("occupancy_student.csv", &p);
    ck_assert_int_eq(p.n_kernels, 1);
    const struct ncu_kernel *k = &p.kernels[0];
    ck_assert_int_eq(k->launches, 2);
    ck_assert_double_eq_tol(k->total_ns, 1010000, 1e-6);
    ck_assert_double_eq_tol(k->m[NCU_DURATION_NS], 512000, 1e-6); /* the longest */
    ck_assert_double_eq_tol(k->m[NCU_SMEM_STATIC], 49152, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_LIMIT_SMEM], 4, 1e-9);
    ncu_profile_release(&p);
}
END_TEST

/* Captured on the H100 (test_profile_gpu, 2026-11-25): ncu 2025.3 prints every device
 * attribute as a column (320 in all), and its units as it names them. */
START_TEST(h100_capture_read)
{
    struct ncu_profile p;
    parse_fixture("h100_starved_student.csv", &p);
    ck_assert_int_eq(p.n_kernels, 1);
    const struct ncu_kernel *k = &p.kernels[0];
    ck_assert_str_eq(k->name, "scale_starved(const float *, float *, int)");
    ck_assert_double_eq_tol(k->m[NCU_DURATION_NS], 347168, 1e-6);
    ck_assert_double_eq_tol(k->m[NCU_DRAM_PCT], 11.81, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_OCC_ACHIEVED], 10.27, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_OCC_THEORETICAL], 12.5, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_SMEM_STATIC], 49152, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_LIMIT_SMEM], 4, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_BLOCK], 64, 1e-9);
    ck_assert_double_eq_tol(k->m[NCU_GRID], 262144, 1e-9);
    ncu_profile_release(&p);
    parse_fixture("h100_starved_reference.csv", &p);
    ck_assert_int_eq(p.n_kernels, 1);
    ck_assert_double_eq_tol(p.kernels[0].m[NCU_DURATION_NS], 58848, 1e-6);
    ck_assert_double_eq_tol(p.kernels[0].m[NCU_OCC_THEORETICAL], 100, 1e-9);
    ncu_profile_release(&p);
}
END_TEST

START_TEST(details_page_read)
{
    struct ncu_profile p;
    parse_fixture("details_long.csv", &p);
    ck_assert_int_eq(p.rows, 2);
    ck_assert_int_eq(p.n_kernels, 1);
    const struct ncu_kernel *k = &p.kernels[0];
    ck_assert_int_eq(k->launches, 2);
    ck_assert_double_eq_tol(k->m[NCU_DURATION_NS], 12380, 1e-6); /* usecond to ns */
    ck_assert_double_eq_tol(k->total_ns, 24400, 1e-6);
    ck_assert_double_eq_tol(k->m[NCU_SMEM_STATIC], 1020, 1e-9); /* Kbyte to bytes */
    ck_assert(isnan(k->m[NCU_SM_PCT]));                         /* "n/a" */
    ck_assert(isnan(k->m[NCU_OCC_ACHIEVED]));                   /* not printed */
    ck_assert_int_eq(k->n_stalls, 1);
    ncu_profile_release(&p);
}
END_TEST

START_TEST(values_and_units)
{
    ck_assert_double_eq_tol(ncu_value("1,234.5", "nsecond"), 1234.5, 1e-9);
    ck_assert_double_eq_tol(ncu_value("2", "msecond"), 2e6, 1e-6);
    ck_assert_double_eq_tol(ncu_value("48", "Kbyte"), 48000, 1e-9);
    ck_assert_double_eq_tol(ncu_value("75", "%"), 75, 1e-9);
    ck_assert_double_eq_tol(ncu_value("32", "register/thread"), 32, 1e-9);
    ck_assert(isnan(ncu_value("n/a", "%")));
    ck_assert(isnan(ncu_value("", "%")));
    ck_assert(isnan(ncu_value("12abc", "")));
    ck_assert(isnan(ncu_value("3", "fortnight-second"))); /* unknown time unit */
    ck_assert(isnan(ncu_value("3", "Pbyte")));
    ck_assert(isnan(ncu_value(NULL, "%")));
}
END_TEST

START_TEST(garbage_is_no_header)
{
    struct ncu_profile p;
    const char *texts[] = {"", "hello\nworld\n", "==PROF== Disconnected\n",
                           "\"ID\",\"Process ID\"\n\"0\",\"1\"\n"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ncu_profile_init(&p);
        ck_assert_int_eq(ncu_parse_csv(texts[i], strlen(texts[i]), &p), -1);
        ck_assert_int_eq(p.n_kernels, 0);
        ncu_profile_release(&p);
    }
    /* A header, then rows of the wrong width (a program's own output) and an unterminated
     * quote: nothing read, nothing crashed. */
    const char *odd = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"nsecond\"\n"
                      "\"0\",\"k\"\n\"1\",\"k2(int)\",\"5\",\"extra\"\n\"2\",\"k3\",\"7";
    ncu_profile_init(&p);
    ck_assert_int_eq(ncu_parse_csv(odd, strlen(odd), &p), 0);
    ck_assert_int_eq(p.n_kernels, 1); /* the last row, cut short, still has three fields */
    ck_assert_str_eq(p.kernels[0].name, "k3");
    ck_assert_double_eq_tol(p.kernels[0].m[NCU_DURATION_NS], 7, 1e-9);
    ncu_profile_release(&p);
}
END_TEST

START_TEST(failures_told_apart)
{
    struct strbuf sb = STRBUF_INIT;
    char *detail = NULL;
    read_fixture("no_permission.txt", &sb);
    ck_assert_int_eq(ncu_diagnose(sb.buf, sb.len, 1, &detail), NCU_NO_PERMISSION);
    ck_assert_ptr_nonnull(detail);
    ck_assert(!strncmp(detail, "ERR_NVGPUCTRPERM", 16));
    free(detail);
    strbuf_reset(&sb);
    read_fixture("no_kernel.txt", &sb);
    ck_assert_int_eq(ncu_diagnose(sb.buf, sb.len, 0, &detail), NCU_NO_KERNEL);
    ck_assert_ptr_null(detail);
    ck_assert_int_eq(ncu_diagnose("all fine\n", 9, 0, NULL), NCU_OK);
    ck_assert_int_eq(ncu_diagnose("all fine\n", 9, 2, NULL), NCU_TOOL_FAILED);
    ck_assert_int_eq(ncu_diagnose("==ERROR== boom\n", 15, 0, &detail), NCU_TOOL_FAILED);
    ck_assert_str_eq(detail, "boom");
    free(detail);
    for (int f = NCU_OK; f <= NCU_TOOL_FAILED; f++)
        ck_assert_int_eq(ncu_failure_parse(ncu_failure_name((enum ncu_failure)f)), f);
    ck_assert_int_eq(ncu_failure_parse("nonsense"), -1);
    strbuf_release(&sb);
}
END_TEST

/* A profile holding kernels of these names (the raw page's minimal form), for the source page. */
static void profile_of(struct ncu_profile *p, const char *const *names, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, "\"ID\",\"Kernel Name\"\n\"\",\"\"\n");
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, "\"%zu\",\"%s\"\n", i, names[i]);
    ncu_profile_init(p);
    ck_assert_int_eq(ncu_parse_csv(sb.buf, sb.len, p), 0);
    ck_assert_int_eq(p->n_kernels, n);
    strbuf_release(&sb);
}

static int parse_source(const char *text, struct ncu_profile *p)
{
    return ncu_parse_source(text, strlen(text), p);
}

/* Captured on the H100 (ncu 2025.3.1, CUDA 13: tests/fixtures/ncu/README.md): the uncoalesced
 * fixture's kernel, whose line 12 moves 29360128 excess sectors of its 33554432. */
START_TEST(h100_source_lines)
{
    static const char *const names[] = {"scale_strided(const float *, float *, int)"};
    struct ncu_profile p;
    struct strbuf sb = STRBUF_INIT;
    profile_of(&p, names, 1);
    read_fixture("h100_uncoalesced_source.csv", &sb);
    ck_assert_int_eq(ncu_parse_source(sb.buf, sb.len, &p), 1);
    const struct ncu_line *x = &p.kernels[0].excess_line, *h = &p.kernels[0].hot_line;
    ck_assert_str_eq(x->file, "scale_gpu.cu");
    ck_assert_int_eq(x->line, 12);
    ck_assert_str_eq(x->source, "out[i] = 2.0f * x[i];");
    ck_assert_double_eq_tol(x->count, 29360128, 1e-6);
    ck_assert_double_eq_tol(x->share, 1.0, 1e-9); /* every excess sector is this line's */
    ck_assert_double_eq_tol(x->wasted, 0.875, 1e-9);
    /* Stall samples: 29865 of the lines' 34815 (line 8, the index's arithmetic, has 4661). */
    ck_assert_str_eq(h->file, "scale_gpu.cu");
    ck_assert_int_eq(h->line, 12);
    ck_assert_double_eq_tol(h->count, 29865, 1e-6);
    ck_assert_double_eq_tol(h->share, 29865.0 / 34815.0, 1e-9);
    ck_assert(isnan(h->wasted));
    ncu_profile_release(&p);
    strbuf_release(&sb);
}
END_TEST

/* --print-source cuda alone: the text of the file, no metric, no function: nothing measured. */
START_TEST(source_without_metrics)
{
    static const char *const names[] = {"scale_strided(const float *, float *, int)"};
    struct ncu_profile p;
    struct strbuf sb = STRBUF_INIT;
    profile_of(&p, names, 1);
    read_fixture("h100_uncoalesced_source_only.csv", &sb);
    ck_assert_int_eq(ncu_parse_source(sb.buf, sb.len, &p), 0);
    ck_assert_ptr_null(p.kernels[0].excess_line.file);
    ck_assert_ptr_null(p.kernels[0].hot_line.file);
    ck_assert_int_eq(parse_source("garbage\n,,\n", &p), -1);
    ncu_profile_release(&p);
    strbuf_release(&sb);
}
END_TEST

#define SRC_HEADER                                                                                 \
    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\","         \
    "\"L2 Theoretical Sectors Global Excessive\",\"L2 Theoretical Sectors Global\"\n"

/* Two kernels, the harness's block between them, "-" values, a kernel spanning two files (an
 * inlined header: the same line number in each) and launched twice (its counts summed). */
START_TEST(source_blocks)
{
    static const char *const names[] = {"void a(float *)", "b(int)"};
    static const char text[] =
        "\"File Path\",\"/w/k.cu\"\n\"Function Name\",\"a(float *)\"\n" SRC_HEADER
        "\"3\",\"  x[i] = 1;\",\"-\",\"-\",\"10\",\"-\",\"-\"\n"
        "\"\",\"\",\"0x10\",\"STG [R2], R0\",\"10\",\"-\",\"-\"\n"
        "\"4\",\"y = x[j];\",\"-\",\"-\",\"30\",\"-\",\"-\"\n"
        "\"File Path\",\"/w/inl.h\"\n\"Function Name\",\"a(float *)\"\n" SRC_HEADER
        "\"3\",\"return v[k];\",\"-\",\"-\",\"25\",\"-\",\"-\"\n"
        "\"File Path\",\"/w/k.cu\"\n\"Function Name\",\"a(float *)\"\n" SRC_HEADER
        "\"3\",\"  x[i] = 1;\",\"-\",\"-\",\"25\",\"-\",\"-\"\n"
        "\"File Path\",\"/w/h.cu\"\n\"Function Name\",\"lg_draw_kernel(float *)\"\n" SRC_HEADER
        "\"9\",\"draw\",\"-\",\"-\",\"1000\",\"500\",\"600\"\n"
        "\"File Path\",\"/w/k.cu\"\n\"Function Name\",\"b(int)\"\n" SRC_HEADER
        "\"7\",\"z[8 * i] = 0;\",\"-\",\"-\",\"0\",\"60\",\"80\"\n"
        "\"8\",\"w[i] = 0;\",\"-\",\"-\",\"0\",\"20\",\"-\"\n";
    struct ncu_profile p;
    profile_of(&p, names, 2);
    ck_assert_int_eq(parse_source(text, &p), 2);
    const struct ncu_kernel *a = &p.kernels[0], *b = &p.kernels[1];
    /* a: k.cu:3 35, k.cu:4 30, inl.h:3 25 (not merged with k.cu:3). */
    ck_assert_str_eq(a->hot_line.file, "k.cu");
    ck_assert_int_eq(a->hot_line.line, 3);
    ck_assert_str_eq(a->hot_line.source, "x[i] = 1;");
    ck_assert_double_eq_tol(a->hot_line.count, 35, 1e-9);
    ck_assert_double_eq_tol(a->hot_line.share, 35.0 / 90.0, 1e-9);
    ck_assert_ptr_null(a->excess_line.file); /* "-": not measured, not 0 */
    /* b: no stall sample at all: no hot line; its excess, line 7's 60 of 80 in all. */
    ck_assert_ptr_null(b->hot_line.file);
    ck_assert_int_eq(b->excess_line.line, 7);
    ck_assert_double_eq_tol(b->excess_line.share, 0.75, 1e-9);
    ck_assert_double_eq_tol(b->excess_line.wasted, 0.75, 1e-9);
    ck_assert_int_eq(p.n_kernels, 2); /* the harness's block added no kernel */
    ncu_profile_release(&p);
}
END_TEST

/* A long line is cut at a character, not inside one; a name ncu gives no kernel for is skipped. */
START_TEST(source_text_capped)
{
    static const char *const names[] = {"k()"};
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, "\"File Path\",\"k.cu\"\n\"Function Name\",\"k()\"\n" SRC_HEADER "\"1\",\"");
    for (int i = 0; i < 60; i++)
        strbuf_addstr(&sb, "é");
    strbuf_addstr(&sb,
                  "\",\"-\",\"-\",\"5\",\"-\",\"-\"\n\"Function Name\",\"other()\"\n" SRC_HEADER
                  "\"2\",\"hot\",\"-\",\"-\",\"500\",\"-\",\"-\"\n");
    struct ncu_profile p;
    profile_of(&p, names, 1);
    ck_assert_int_eq(ncu_parse_source(sb.buf, sb.len, &p), 1);
    const char *src = p.kernels[0].hot_line.source;
    ck_assert_int_eq(p.kernels[0].hot_line.line, 1);
    ck_assert_int_eq(strlen(src), NCU_SOURCE_MAX + strlen("…"));
    ck_assert(!strncmp(src + NCU_SOURCE_MAX, "…", strlen("…")));
    ck_assert_double_eq_tol(p.kernels[0].hot_line.share, 1.0, 1e-9);
    ncu_profile_release(&p);
    strbuf_release(&sb);
}
END_TEST

/* ncu could not read the file (the sandboxed build folder -lineinfo recorded; seen on the H200:
 * "matmul_gpu.cu:57: «<Unable to open source file>»"): the line is kept without its note, and
 * grade/profile.c reads its text from the file compiled, never through a link. */
START_TEST(source_unreadable_filled)
{
    static const char *const names[] = {"k()", "m()"};
    static const char text[] =
        "\"File Path\",\"/sandbox/build/k.cu\"\n\"Function Name\",\"k()\"\n" SRC_HEADER
        "\"3\",\"<Unable to open source file>\",\"-\",\"-\",\"10\",\"-\",\"-\"\n"
        "\"File Path\",\"/sandbox/build/l.cu\"\n\"Function Name\",\"m()\"\n" SRC_HEADER
        "\"2\",\"<Unable to open source file>\",\"-\",\"-\",\"10\",\"-\",\"-\"\n";
    struct ncu_profile p;
    profile_of(&p, names, 2);
    ck_assert_int_eq(parse_source(text, &p), 2);
    ck_assert_str_eq(p.kernels[0].hot_line.source, "");
    ck_assert(ncu_source_missing(p.kernels[0].hot_line.source));
    ck_assert(ncu_source_missing("  <Unable to open source file>"));
    ck_assert(ncu_source_missing(NULL));
    ck_assert(!ncu_source_missing("if (a < b) c = d > e;"));
    ck_assert(!ncu_source_missing("<float>"));

    char dir[] = "/tmp/lg-ncu-src-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *k = xstrfmt("%s/k.cu", dir), *secret = xstrfmt("%s/secret.txt", dir);
    char *l = xstrfmt("%s/l.cu", dir);
    const char *code = "#include <x>\r\n\n\tout[i] = 2.0f * x[i];  \r\nlast";
    ck_assert_int_eq(write_file_atomic(k, code, strlen(code), NULL), 0);
    ck_assert_int_eq(write_file_atomic(secret, "a\nSECRET\n", 9, NULL), 0);
    ck_assert_int_eq(symlink(secret, l), 0);
    const char *paths[] = {k, l};
    ck_assert_int_eq(profile_fill_sources(&p, paths, 2), 1);
    ck_assert_str_eq(p.kernels[0].hot_line.source, "out[i] = 2.0f * x[i];");
    ck_assert_str_eq(p.kernels[1].hot_line.source, ""); /* a link: never read */
    char *line = ncu_source_line(code, strlen(code), 4);
    ck_assert_str_eq(line, "last");
    free(line);
    ck_assert_ptr_null(ncu_source_line(code, strlen(code), 5));
    ck_assert_ptr_null(ncu_source_line(code, strlen(code), 0));
    unlink(l);
    unlink(k);
    unlink(secret);
    rmdir(dir);
    free(k);
    free(l);
    free(secret);
    ncu_profile_release(&p);
}
END_TEST

START_TEST(metric_keys_round_trip)
{
    for (int m = 0; m < NCU_METRIC_COUNT; m++) {
        ck_assert_int_eq(ncu_metric_from_key(ncu_metric_key((enum ncu_metric)m)), m);
        ck_assert(strchr(ncu_metric_name((enum ncu_metric)m), '_') != NULL);
    }
    ck_assert_int_eq(ncu_metric_from_key("nope"), -1);
    ck_assert_int_eq(ncu_metric_from_key(NULL), -1);
}
END_TEST

START_TEST(command_lines)
{
    const char *argv[NCU_ARGV_MAX];
    char *metric_list = NULL;
    size_t n = ncu_profile_argv("/opt/cuda/bin/ncu", "/w/profile", false, &metric_list, argv);
    ck_assert_ptr_null(argv[n]);
    ck_assert_str_eq(argv[0], "/opt/cuda/bin/ncu");
    bool export = false, clocks = false, cache = false;
    for (size_t i = 1; i + 1 < n; i++) {
        export |= !strcmp(argv[i], "--export") && !strcmp(argv[i + 1], "/w/profile");
        clocks |= !strcmp(argv[i], "--clock-control") && !strcmp(argv[i + 1], "none");
        cache |= !strcmp(argv[i], "--cache-control") && !strcmp(argv[i + 1], "none");
    }
    bool section = false;
    for (size_t i = 1; i + 1 < n; i++)
        section |= !strcmp(argv[i], "--section") && !strcmp(argv[i + 1], "SourceCounters");
    ck_assert(export && clocks && cache && section);
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        ck_assert(strstr(metric_list, ncu_metric_name((enum ncu_metric)m)) != NULL);
    ck_assert(strstr(metric_list, "regex:^" NCU_STALL_PREFIX) != NULL);
    free(metric_list);
    n = ncu_profile_argv("ncu", "r", true, &metric_list, argv);
    for (size_t i = 1; i + 1 < n; i++)
        if (!strcmp(argv[i], "--cache-control"))
            ck_assert_str_eq(argv[i + 1], "all");
    free(metric_list);
    n = ncu_import_argv("ncu", "r.ncu-rep", argv);
    ck_assert_int_eq(n, 8);
    ck_assert_str_eq(argv[2], "r.ncu-rep");
    ck_assert_ptr_null(argv[n]);
    n = ncu_source_argv("ncu", "r.ncu-rep", argv);
    ck_assert_int_eq(n, 8);
    ck_assert_str_eq(argv[5], "source");
    ck_assert_str_eq(argv[7], "cuda,sass");
    ck_assert_ptr_null(argv[n]);
}
END_TEST

START_TEST(limits)
{
    ck_assert_double_eq(ncu_wall_limit(1), NCU_MIN_WALL_S);
    ck_assert_double_eq(ncu_wall_limit(10), 200);
    ck_assert_double_eq(ncu_wall_limit(1000), NCU_MAX_WALL_S);
    ck_assert_double_eq(ncu_wall_limit(0), NCU_MAX_WALL_S);
}
END_TEST

/* A toolkit's layout: <home>/bin/ncu beside <home>/nsight-compute-2025.3.1/. */
START_TEST(finding_the_tool)
{
    char tmpl[] = "/tmp/lg_ncu_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    char *bin = xstrfmt("%s/bin", tmpl), *tool = xstrfmt("%s/bin/ncu", tmpl);
    char *nc = xstrfmt("%s/nsight-compute-2025.3.1", tmpl);
    ck_assert_int_eq(mkdir(bin, 0755), 0);
    ck_assert_int_eq(mkdir(nc, 0755), 0);
    FILE *f = fopen(tool, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    ck_assert_ptr_null(ncu_find(tmpl, "/nonexistent", NULL)); /* not executable yet */
    ck_assert_int_eq(chmod(tool, 0755), 0);
    char *found = ncu_find("/nonexistent", bin, NULL);
    ck_assert_ptr_nonnull(found);
    ck_assert(strstr(found, "/bin/ncu") != NULL);
    char **ro = ncu_ro_paths(found);
    ck_assert_ptr_nonnull(ro[0]);
    ck_assert_ptr_nonnull(ro[1]);
    ck_assert_ptr_null(ro[2]);
    ck_assert(strstr(ro[0], "nsight-compute-2025.3.1") != NULL);
    ck_assert(strstr(ro[1], "/bin") != NULL);
    ncu_paths_free(ro);
    ro = ncu_ro_paths("/usr/bin/ncu"); /* a system folder is visible anyway */
    ck_assert_ptr_null(ro[0]);
    ncu_paths_free(ro);
    free(found);
    unlink(tool);
    rmdir(bin);
    rmdir(nc);
    rmdir(tmpl);
    free(bin);
    free(tool);
    free(nc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ncu");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, raw_page_read);
    tcase_add_test(tc, stalls_ranked);
    tcase_add_test(tc, launches_merged);
    tcase_add_test(tc, h100_capture_read);
    tcase_add_test(tc, details_page_read);
    tcase_add_test(tc, values_and_units);
    tcase_add_test(tc, garbage_is_no_header);
    tcase_add_test(tc, failures_told_apart);
    tcase_add_test(tc, h100_source_lines);
    tcase_add_test(tc, source_without_metrics);
    tcase_add_test(tc, source_blocks);
    tcase_add_test(tc, source_text_capped);
    tcase_add_test(tc, source_unreadable_filled);
    tcase_add_test(tc, metric_keys_round_trip);
    tcase_add_test(tc, command_lines);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, finding_the_tool);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
