/*
 * A class as LMSs hand it over, graded with `grader grade` on the CPU test lab (labcpu):
 *   - a Moodle download with a hostile student in it (2500 files, a sparse gigabyte, a file
 *     name with a newline, a zip bomb: issue 21 item 4): `grade` goes on, the hostile
 *     students get their verdict with the limit named, everyone else is graded; Moodle's
 *     offline grading worksheet is keyed on the download's participant numbers;
 *   - the Canvas gradebook gets a Points Possible row and no id in ID that is not Canvas's;
 *   - a deadline makes a late student's penalty show in gradebook.csv, and a forced re-grade
 *     leaves a row in regrades.csv with the reason.
 * Only verdicts and files are asserted, never how long anything took.
 */
#include "e2e.h"

#include "base/fs.h"
#include "base/strbuf.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/time.h>

static char *tmp_root;

struct zentry {
    const char *name;
    const char *data; /* NULL: the fixture file of the same base name */
    size_t len;       /* of zeros when data is NULL and len > 0 */
    long mtime;
};

static void add_entry(struct archive *a, const struct zentry *z)
{
    struct strbuf sb = STRBUF_INIT;
    if (z->data) {
        strbuf_addstr(&sb, z->data);
    } else if (z->len) {
        strbuf_grow(&sb, z->len);
        memset(sb.buf, 0, z->len);
        strbuf_setlen(&sb, z->len);
    } else {
        const char *base = strrchr(z->name, '/') ? strrchr(z->name, '/') + 1 : z->name;
        char *path = xstrfmt("tests/fixtures/class/s01/%s", base);
        ck_assert_int_eq(read_file(path, &sb, NULL), 0);
        free(path);
    }
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, z->name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)sb.len);
    archive_entry_set_mtime(e, z->mtime, 0);
    ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
    if (sb.len)
        ck_assert_int_eq(archive_write_data(a, sb.buf, sb.len), (la_ssize_t)sb.len);
    archive_entry_free(e);
    strbuf_release(&sb);
}

static char *moodle_zip(void)
{
    /* 2026-03-01 and 2026-03-05, 12:00 UTC: on time and three days late for a deadline of
     * 2026-03-02T23:59Z. */
    const long early = 1772366400, late = 1772712000;
    char *bomb_zip = path_join(tmp_root, "bomb.zip");
    struct archive *b = archive_write_new();
    archive_write_set_format_zip(b);
    ck_assert_int_eq(archive_write_open_filename(b, bomb_zip), ARCHIVE_OK);
    struct zentry zeros = {"zeros.bin", NULL, 64u << 20, early}; /* deflates to ~64 KiB */
    add_entry(b, &zeros);
    archive_write_close(b);
    archive_write_free(b);
    struct strbuf bomb = STRBUF_INIT;
    ck_assert_int_eq(read_file(bomb_zip, &bomb, NULL), 0);

    char *zip = path_join(tmp_root, "moodle.zip");
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    ck_assert_int_eq(archive_write_open_filename(a, zip), ARCHIVE_OK);
    struct zentry good[] = {
        {"Ana Ruiz_1001_assignsubmission_file_/saxpy.c", NULL, 0, early},
        {"Ana Ruiz_1001_assignsubmission_file_/dot.c", NULL, 0, early},
        {"Ana Ruiz_1001_assignsubmission_file_/labcpu.h", NULL, 0, early},
        {"Bob Stone_1002_assignsubmission_file_/src/saxpy.c", NULL, 0, late},
        {"Bob Stone_1002_assignsubmission_file_/src/dot.c", NULL, 0, late},
        {"Bob Stone_1002_assignsubmission_file_/src/labcpu.h", NULL, 0, late},
        {"Carla Diaz_1003_assignsubmission_onlinetext_/onlinetext.html", "<p>int main</p>", 0,
         early},
        {"Dan Lee_1004_assignsubmission_file_/evil\nname.c", "x\n", 0, early},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
        add_entry(a, &good[i]);
    for (int i = 0; i < 2500; i++) {
        char name[96];
        snprintf(name, sizeof(name), "Eve Many_1005_assignsubmission_file_/f%04d.c", i);
        struct zentry f = {name, "x\n", 0, early};
        add_entry(a, &f);
    }
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "Finn Bomb_1006_assignsubmission_file_/work.zip");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)bomb.len);
    ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
    archive_write_data(a, bomb.buf, bomb.len);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    strbuf_release(&bomb);
    free(bomb_zip);
    return zip;
}

static char *read_text(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return strbuf_detach(&sb);
}

/* The gradebook row of id: its text up to the line end. */
static char *row_of(const char *csv, const char *id)
{
    char *key = xstrfmt("\r\n%s,", id);
    const char *p = strstr(csv, key);
    free(key);
    ck_assert_msg(p != NULL, "no row for %s in:\n%s", id, csv);
    p += 2;
    return xstrndup(p, strcspn(p, "\r"));
}

START_TEST(test_moodle_class_with_hostile_students)
{
    char *zip = moodle_zip(), *out = path_join(tmp_root, "out");
    char *roster = path_join(tmp_root, "roster.csv");
    const char *rtext = "First name,Surname,ID number,Email address\r\n"
                        "Ana,Ruiz,s01,ana@uni.example\r\nBob,Stone,s02,bob@uni.example\r\n"
                        "Carla,Diaz,s03,carla@uni.example\r\nDan,Lee,s04,dan@uni.example\r\n"
                        "Eve,Many,s05,eve@uni.example\r\nFinn,Bomb,s06,finn@uni.example\r\n";
    ck_assert_int_eq(write_file_atomic(roster, rtext, strlen(rtext), NULL), 0);
    char *log = path_join(tmp_root, "grade.log");
    const char *argv[] = {e2e_bin(),
                          "grade",
                          "tests/fixtures/labcpu",
                          "--submissions",
                          zip,
                          "--roster",
                          roster,
                          "--out",
                          out,
                          "--no-pdf",
                          "--no-timing",
                          "--deadline",
                          "2026-03-02T23:59:00Z",
                          "--late-per-day",
                          "10",
                          NULL};
    int rc = e2e_run(argv, log);
    ck_assert_msg(rc == 0, "grade exited %d (see %s)", rc, log);
    char *csv_path = xstrfmt("%s/lab99/gradebook.csv", out);
    char *csv = read_text(csv_path);
    /* Everyone has a row; the hostile ones carry their verdict. */
    char *ana = row_of(csv, "s01"), *bob = row_of(csv, "s02"), *carla = row_of(csv, "s03");
    char *dan = row_of(csv, "s04"), *eve = row_of(csv, "s05"), *finn = row_of(csv, "s06");
    ck_assert_msg(strstr(ana, ",10,10,ok,,,"), "%s", ana);
    /* Bob's files were in src/ and three days late: 30% of 10 off. */
    ck_assert_msg(strstr(bob, ",7,10,ok,3,3,"), "%s", bob);
    ck_assert_msg(strstr(carla, "not-graded") && strstr(carla, "online text"), "%s", carla);
    ck_assert_msg(strstr(dan, "not-graded") && strstr(dan, "control character"), "%s", dan);
    ck_assert_msg(strstr(eve, "not-graded") && strstr(eve, "more than 2000 files"), "%s", eve);
    ck_assert_msg(strstr(finn, "not-graded") && strstr(finn, "20971520 bytes per file"), "%s",
                  finn);
    /* The worksheet: Moodle's participant numbers; the CSV import: the roster's ids. */
    char *ws_path = xstrfmt("%s/lab99/moodle-worksheet.csv", out);
    char *ws = read_text(ws_path);
    ck_assert(strstr(ws, "\r\nParticipant 1001,Ana Ruiz,ana@uni.example,,10,10,Yes,"));
    char *md_path = xstrfmt("%s/lab99/gradebook-moodle.csv", out);
    char *md = read_text(md_path);
    ck_assert(strstr(md, "\r\ns01,ana@uni.example,,Ana Ruiz,10,"));
    /* Canvas: Points Possible, and no Moodle number in ID. */
    char *cv_path = xstrfmt("%s/lab99/gradebook-canvas.csv", out);
    char *cv = read_text(cv_path);
    ck_assert(strstr(cv, "\r\nPoints Possible,,,,,10,\r\n"));
    ck_assert_msg(strstr(cv, "\r\nAna Ruiz,,s01,ana@uni.example,,10,ok\r\n"), "%s", cv);

    /* Graded again with a reason: the audit keeps both scores. */
    const char *again[] = {e2e_bin(),
                           "grade",
                           "tests/fixtures/labcpu",
                           "--submissions",
                           zip,
                           "--roster",
                           roster,
                           "--out",
                           out,
                           "--no-pdf",
                           "--no-timing",
                           "--force",
                           "--reason",
                           "appeal: re-check",
                           NULL};
    ck_assert_msg(e2e_run(again, log) == 0, "re-grade failed (see %s)", log);
    char *rg_path = xstrfmt("%s/lab99/regrades.csv", out);
    char *rg = read_text(rg_path);
    ck_assert(!strncmp(rg, "date,student_id,previous_score,new_score,", 40));
    /* Without --deadline this time: Bob's penalty is gone, and the audit says so. */
    ck_assert_msg(strstr(rg, ",s02,7.00,10.00,") && strstr(rg, ",appeal: re-check\r\n"), "%s", rg);
    free(rg);
    free(rg_path);
    free(cv);
    free(cv_path);
    free(md);
    free(md_path);
    free(ws);
    free(ws_path);
    free(ana);
    free(bob);
    free(carla);
    free(dan);
    free(eve);
    free(finn);
    free(csv);
    free(csv_path);
    free(log);
    free(roster);
    free(out);
    free(zip);
}
END_TEST

int main(void)
{
    tmp_root = e2e_tmpdir("lms-class");
    if (!tmp_root)
        return 1;
    Suite *s = suite_create("lms class");
    TCase *tc = tcase_create("moodle");
    tcase_set_timeout(tc, 900); /* a hang's bound, never a speed claim */
    tcase_add_test(tc, test_moodle_class_with_hostile_students);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!getenv("LG_KEEP"))
        remove_tree(tmp_root, NULL);
    free(tmp_root);
    return failed ? 1 : 0;
}
