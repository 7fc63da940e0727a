/*
 * report/pdf.c: a report's Markdown to PDF, pandoc to LaTeX, then xelatex once, and again
 * only where its log asks (docs/html.md, "The PDF beside the pages"). The runs are counted, not
 * timed: a report with nothing to measure twice takes one, a long table that crosses pages more;
 * the text is the Markdown's, dashes as typed, the plot embedded; a LaTeX error is named with the
 * program that failed. Skipped, saying why, without pandoc, xelatex or pdftotext.
 */
#include "unit.h"

#include "report/pdf.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define TEMPLATES "templates"

static bool tools_or_skip(const char *test)
{
    if (unit_have("pandoc") && unit_have("xelatex") && unit_have("pdftotext"))
        return true;
    fprintf(stderr,
            "test_pdf: SKIPPED %s: pandoc, xelatex or pdftotext is not installed (sudo apt-get "
            "install pandoc texlive-xetex fonts-dejavu-core poppler-utils)\n",
            test);
    return false;
}

static void put(const char *path, const char *text, size_t len)
{
    struct error err;
    error_init(&err);
    ck_assert_msg(write_file_atomic(path, text, len, &err) == 0, "%s", err.msg);
}

/* A 4x2 red PNG, written out byte by byte (zlib's stored block: no compressor needed). */
static const unsigned char tiny_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xf0, 0xca, 0xea,
    0x34, 0x00, 0x00, 0x00, 0x25, 0x49, 0x44, 0x41, 0x54, 0x78, 0x01, 0x01, 0x1a, 0x00, 0xe5, 0xff,
    0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0xff, 0x00,
    0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0xff, 0x00, 0x00, 0x6f, 0xaa, 0x07, 0xf9, 0x6c, 0xd0,
    0x43, 0xd5, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

START_TEST(test_one_latex_run)
{
    if (!tools_or_skip("test_one_latex_run"))
        return;
    char *dir = unit_tmpdir("pdf"), *plots = path_join(dir, "plots");
    char *md = path_join(dir, "report.md"), *pdf = path_join(dir, "report.pdf");
    char *png = path_join(plots, "saxpy.png");
    ck_assert_int_eq(mkdir(plots, 0755), 0);
    put(png, (const char *)tiny_png, sizeof(tiny_png));
    static const char text[] = "# Informe — laboratorio 6\n\n## Resumen de la nota\n\n"
                               "Nota: 12 / 12 – José Ñúñez `--full`\n\n"
                               /* A row past 72 columns: pandoc gives the table its widths
                                * (as a report's tables, whose rows are long), so that
                                * LaTeX has none to measure. */
                               "| caso | veredicto | mensaje |\n|---|---|---|\n| n1024 | correcto "
                               "| 1.00x el tiempo de la referencia, intervalo de 12 pares |\n\n"
                               "![tiempo frente a n](plots/saxpy.png)\n";
    put(md, text, sizeof(text) - 1);
    char note[1024];
    int runs = -1;
    ck_assert_msg(report_make_pdf(md, pdf, TEMPLATES, "es", note, sizeof(note), &runs) == 0,
                  "no PDF: %s", note);
    /* xelatex stops on a picture it cannot find (-halt-on-error): the plot was found. */
    ck_assert_int_eq(runs, 1);
    char *got = unit_pdf_text(pdf, dir);
    ck_assert_msg(strstr(got, "Informe — laboratorio 6") && strstr(got, "12 / 12 – José Ñúñez"),
                  "the dashes or accents changed:\n%s", got);
    ck_assert_msg(strstr(got, "--full"), "a literal -- changed:\n%s", got);
    ck_assert_msg(strstr(got, "tiempo frente a n"), "no caption:\n%s", got);
    free(got);
    remove_tree(dir, NULL);
    free(png);
    free(pdf);
    free(md);
    free(plots);
    free(dir);
}
END_TEST

/* A table of short cells over several pages: longtable measures its columns on one run and asks
 * for the next, without which the heading of every page stands apart from its columns. */
START_TEST(test_long_table_runs_again)
{
    if (!tools_or_skip("test_long_table_runs_again"))
        return;
    char *dir = unit_tmpdir("pdf");
    char *md = path_join(dir, "summary.md"), *pdf = path_join(dir, "summary.pdf");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, "# Clase\n\n| estudiante | nota |\n|---|---|\n");
    for (int i = 0; i < 200; i++)
        strbuf_addf(&sb, "| s%03d%.*s | %d |\n", i, i % 37, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                    i % 13);
    put(md, sb.buf, sb.len);
    char note[1024];
    int runs = -1;
    ck_assert_msg(report_make_pdf(md, pdf, TEMPLATES, "es", note, sizeof(note), &runs) == 0,
                  "no PDF: %s", note);
    ck_assert_msg(runs >= 2 && runs <= 3, "%d LaTeX runs", runs);
    char *got = unit_pdf_text(pdf, dir);
    ck_assert(strstr(got, "s199"));
    free(got);
    strbuf_release(&sb);
    remove_tree(dir, NULL);
    free(pdf);
    free(md);
    free(dir);
}
END_TEST

/* A header that LaTeX cannot read (a course's own templates): no PDF, and the note names
 * xelatex and LaTeX's own error line. */
START_TEST(test_latex_error_named)
{
    if (!tools_or_skip("test_latex_error_named"))
        return;
    char *dir = unit_tmpdir("pdf"), *tpl = path_join(dir, "tpl");
    char *pandoc_dir = path_join(tpl, "pandoc"), *header = path_join(pandoc_dir, "header.tex");
    char *md = path_join(dir, "report.md"), *pdf = path_join(dir, "report.pdf");
    ck_assert_int_eq(mkdir_p(pandoc_dir, NULL), 0);
    static const char bad[] = "\\undefinedlabgradermacro\n";
    put(header, bad, sizeof(bad) - 1);
    put(md, "# T\n\ntext\n", 10);
    char note[1024];
    int runs = -1;
    ck_assert_int_eq(report_make_pdf(md, pdf, tpl, "en", note, sizeof(note), &runs), -1);
    ck_assert_msg(strstr(note, "xelatex failed") && strstr(note, "Undefined control sequence"),
                  "note: %s", note);
    ck_assert(!file_exists(pdf));
    remove_tree(dir, NULL);
    free(pdf);
    free(md);
    free(header);
    free(pandoc_dir);
    free(tpl);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pdf");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_one_latex_run);
    tcase_add_test(tc, test_long_table_runs_again);
    tcase_add_test(tc, test_latex_error_named);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
