/*
 * collect: folders, Moodle and Canvas exports, rosters, and every way an
 * archive or a folder might try to write or point outside the unpack folder.
 * Archives are made here with libarchive's writer.
 */
#include "class/collect.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- fixtures ---- */

struct entry {
    const char *name;
    const char *data; /* file contents (NULL: empty) */
    char type;        /* 'f' file, 'd' folder, 'l' symlink, 'h' hard link, 'c' device */
    const char *link; /* symlink or hard link target */
    size_t len;       /* 0: strlen(data) */
};

static void make_archive(const char *path, bool zip, const struct entry *e, size_t n)
{
    struct archive *a = archive_write_new();
    ck_assert_ptr_nonnull(a);
    if (zip)
        ck_assert_int_eq(archive_write_set_format_zip(a), ARCHIVE_OK);
    else
        ck_assert_int_eq(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *ae = archive_entry_new();
        size_t len = e[i].len ? e[i].len : e[i].data ? strlen(e[i].data) : 0;
        archive_entry_set_pathname_utf8(ae, e[i].name);
        archive_entry_set_perm(ae, 0644);
        switch (e[i].type) {
        case 'd':
            archive_entry_set_filetype(ae, AE_IFDIR);
            archive_entry_set_perm(ae, 0755);
            len = 0;
            break;
        case 'l':
            archive_entry_set_filetype(ae, AE_IFLNK);
            archive_entry_set_symlink(ae, e[i].link);
            len = 0;
            break;
        case 'h':
            archive_entry_set_filetype(ae, AE_IFREG);
            archive_entry_set_hardlink(ae, e[i].link);
            len = 0;
            break;
        case 'c':
            archive_entry_set_filetype(ae, AE_IFCHR);
            archive_entry_set_rdev(ae, makedev(1, 3));
            len = 0;
            break;
        default:
            archive_entry_set_filetype(ae, AE_IFREG);
        }
        archive_entry_set_size(ae, (la_int64_t)len);
        ck_assert_int_eq(archive_write_header(a, ae), ARCHIVE_OK);
        if (len)
            ck_assert_int_eq(archive_write_data(a, e[i].data, len), (la_ssize_t)len);
        archive_entry_free(ae);
    }
    ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
}

/* One file of zeros, streamed through the compressor: a few hundred KB on disk. */
static void make_bomb(const char *path, long mib)
{
    static char zeros[1 << 20];
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
    struct archive_entry *ae = archive_entry_new();
    archive_entry_set_pathname(ae, "mallory/zeros.bin");
    archive_entry_set_filetype(ae, AE_IFREG);
    archive_entry_set_perm(ae, 0644);
    archive_entry_set_size(ae, (la_int64_t)mib << 20);
    ck_assert_int_eq(archive_write_header(a, ae), ARCHIVE_OK);
    for (long i = 0; i < mib; i++)
        ck_assert_int_eq(archive_write_data(a, zeros, sizeof(zeros)), (la_ssize_t)sizeof(zeros));
    archive_entry_free(ae);
    ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_lt(st.st_size, 4 << 20);
}

static void put(const char *dir, const char *rel, const char *text)
{
    char *path = path_join(dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    ck_assert_int_eq(mkdir_p(path, NULL), 0);
    *slash = '/';
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), NULL), 0);
    free(path);
}

static char *slurp(const char *dir, const char *rel)
{
    char *path = path_join(dir, rel);
    struct strbuf sb = STRBUF_INIT;
    int rc = read_file(path, &sb, NULL);
    free(path);
    if (rc != 0) {
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

static bool has(const char *dir, const char *rel)
{
    char *path = path_join(dir, rel);
    struct stat st;
    bool r = lstat(path, &st) == 0;
    free(path);
    return r;
}

/* Every path below dir (sorted, with sizes), leaving out the subtree named skip. */
static void listing(const char *dir, const char *rel, const char *skip, struct strbuf *out)
{
    char *path = rel[0] ? path_join(dir, rel) : xstrdup(dir);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    ck_assert_int_ge(n, 0);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char *child = rel[0] ? xstrfmt("%s/%s", rel, name) : xstrdup(name);
        if (strcmp(name, ".") && strcmp(name, "..") && strcmp(child, skip)) {
            char *full = path_join(dir, child);
            struct stat st;
            ck_assert_int_eq(lstat(full, &st), 0);
            strbuf_addf(out, "%s %lld\n", child, S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size);
            if (S_ISDIR(st.st_mode))
                listing(dir, child, skip, out);
            free(full);
        }
        free(child);
        free(names[i]);
    }
    free(names);
    free(path);
}

struct sandbox {
    char *base, *in, *unpack, *students;
    struct strbuf before;
    struct submission_set set;
    struct error err;
};

static void sandbox_open(struct sandbox *t)
{
    char tmpl[] = "/tmp/lg-collect-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    t->base = path_abs(tmpl, NULL);
    t->in = path_join(t->base, "in");
    t->unpack = path_join(t->base, "unpack");
    t->students = path_join(t->unpack, "students");
    ck_assert_int_eq(mkdir_p(t->in, NULL), 0);
    strbuf_init(&t->before);
    submission_set_init(&t->set);
    error_init(&t->err);
}

/* Snapshot of everything outside the unpack folder, taken once the inputs exist. */
static void sandbox_snapshot(struct sandbox *t)
{
    strbuf_reset(&t->before);
    listing(t->base, "", "unpack", &t->before);
}

static void sandbox_close(struct sandbox *t)
{
    struct strbuf after = STRBUF_INIT;
    listing(t->base, "", "unpack", &after);
    ck_assert_str_eq(strbuf_str(&after), strbuf_str(&t->before));
    strbuf_release(&after);
    strbuf_release(&t->before);
    submission_set_release(&t->set);
    ck_assert_int_eq(remove_tree(t->base, NULL), 0);
    free(t->base);
    free(t->in);
    free(t->unpack);
    free(t->students);
}

static int run(struct sandbox *t, const char *src, const char *roster,
               const struct collect_limits *lim)
{
    submission_set_release(&t->set);
    submission_set_init(&t->set);
    error_init(&t->err);
    return collect_submissions(src, t->unpack, roster, lim, &t->set, &t->err);
}

static bool warned(const struct submission_set *s, const char *needle)
{
    for (size_t i = 0; i < s->n_warnings; i++)
        if (strstr(s->warnings[i], needle))
            return true;
    return false;
}

static void assert_error(const struct error *err, const char *a, const char *b)
{
    char msg[4096];
    error_format(err, msg, sizeof(msg));
    if (!strstr(msg, a) || (b && !strstr(msg, b)))
        ck_abort_msg("error \"%s\" should mention \"%s\" and \"%s\"", msg, a, b ? b : "");
}

static void assert_sub(const struct sandbox *t, size_t i, const char *id, const char *name)
{
    ck_assert_uint_lt(i, t->set.n);
    ck_assert_str_eq(t->set.items[i].id, id);
    ck_assert_str_eq(t->set.items[i].name, name);
    char *dir = path_join(t->students, id);
    ck_assert_str_eq(t->set.items[i].dir, dir);
    free(dir);
}

/* ---- folders ---- */

START_TEST(test_plain_folders)
{
    struct sandbox t;
    sandbox_open(&t);
    put(t.in, "alice/main.c", "int main(void){return 0;}\n");
    put(t.in, "alice/sub/x.h", "#define X 1\n");
    put(t.in, "bob/lab6/main.c", "/* bob */\n"); /* one folder inside: lifted up */
    put(t.in, "bob/.DS_Store", "junk");
    put(t.in, "Carl \xC3\x96!/k.cu", "__global__ void k(){}\n");
    put(t.in, ".hidden/x.c", "not a student\n");
    put(t.in, "README.txt", "instructions\n");
    char *dave = path_join(t.in, "dave.zip");
    struct entry dz[] = {{"dave-lab6/", NULL, 'd', NULL, 0},
                         {"dave-lab6/k.cu", "/* dave */\n", 'f', NULL, 0},
                         {"__MACOSX/dave-lab6/._k.cu", "mac", 'f', NULL, 0}};
    make_archive(dave, true, dz, 3);
    put(t.in, "erin/lab.zip", "not really a zip\n");
    sandbox_snapshot(&t);

    ck_assert_int_eq(run(&t, t.in, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 5);
    assert_sub(&t, 0, "alice", "alice");
    assert_sub(&t, 1, "bob", "bob");
    /* A name's readable letters make its id: accents folded, the rest one '-'. */
    assert_sub(&t, 2, "carl-o", "Carl \xC3\x96!");
    assert_sub(&t, 3, "dave", "dave");
    char *s = slurp(t.set.items[0].dir, "sub/x.h");
    ck_assert_str_eq(s, "#define X 1\n");
    free(s);
    ck_assert(has(t.set.items[1].dir, "main.c"));
    ck_assert(!has(t.set.items[1].dir, "lab6"));
    s = slurp(t.set.items[3].dir, "k.cu");
    ck_assert_str_eq(s, "/* dave */\n");
    free(s);
    ck_assert(!has(t.set.items[3].dir, "dave.zip"));
    ck_assert(!has(t.set.items[3].dir, "__MACOSX"));
    ck_assert(warned(&t.set, "README.txt: ignored"));
    /* A damaged archive stays as handed in: that student's problem, not the class's. */
    assert_sub(&t, 4, "erin", "erin");
    ck_assert(has(t.set.items[4].dir, "lab.zip"));
    ck_assert(warned(&t.set, "not unpacked"));

    /* Again into the same folder: the old unpack is ours, emptied and redone. */
    ck_assert_int_eq(run(&t, t.in, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 5);
    free(dave);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_folder_symlinks_skipped)
{
    struct sandbox t;
    sandbox_open(&t);
    put(t.in, "alice/main.c", "x\n");
    char *link = path_join(t.in, "alice/passwd"), *dlink = path_join(t.in, "alice/up");
    char *top = path_join(t.in, "mallory");
    ck_assert_int_eq(symlink("/etc/passwd", link), 0);
    ck_assert_int_eq(symlink("..", dlink), 0);
    ck_assert_int_eq(symlink("/etc", top), 0);
    char *fifo = path_join(t.in, "alice/pipe");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    sandbox_snapshot(&t);

    ck_assert_int_eq(run(&t, t.in, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 1);
    assert_sub(&t, 0, "alice", "alice");
    ck_assert(has(t.set.items[0].dir, "main.c"));
    ck_assert(!has(t.set.items[0].dir, "passwd"));
    ck_assert(!has(t.set.items[0].dir, "up"));
    ck_assert(!has(t.set.items[0].dir, "pipe"));
    ck_assert(warned(&t.set, "alice/passwd: symbolic link skipped"));
    ck_assert(warned(&t.set, "alice/up: symbolic link skipped"));
    ck_assert(warned(&t.set, "mallory: symbolic link skipped"));
    ck_assert(warned(&t.set, "alice/pipe: skipped"));
    free(link);
    free(dlink);
    free(top);
    free(fifo);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_duplicate_ids)
{
    struct sandbox t;
    sandbox_open(&t);
    put(t.in, "A B/x.c", "x\n");
    put(t.in, "a-b/y.c", "y\n");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, NULL, NULL), -1);
    assert_error(&t.err, "student id 'a-b'", "A B'");
    assert_error(&t.err, "a-b'", NULL);
    ck_assert_uint_eq(t.set.n, 0);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_unpack_dir_must_be_ours)
{
    struct sandbox t;
    sandbox_open(&t);
    put(t.in, "alice/main.c", "x\n");
    put(t.unpack, "precious.txt", "keep me\n");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, NULL, NULL), -1);
    assert_error(&t.err, "not empty", NULL);
    char *s = slurp(t.unpack, "precious.txt");
    ck_assert_str_eq(s, "keep me\n");
    free(s);
    /* The submissions inside the unpack folder: refused before anything is emptied. */
    ck_assert_int_eq(collect_submissions(t.unpack, t.base, NULL, NULL, &t.set, &t.err), -1);
    assert_error(&t.err, "inside the unpack folder", NULL);
    sandbox_close(&t);
}
END_TEST

/* ---- LMS exports ---- */

START_TEST(test_moodle_zip)
{
    struct sandbox t;
    sandbox_open(&t);
    char *inner = path_join(t.base, "work.zip"), *zip = path_join(t.base, "moodle.zip");
    struct entry in[] = {{"work/main.c", "/* bob */\n", 'f', NULL, 0},
                         {"work/util.h", "/* util */\n", 'f', NULL, 0}};
    make_archive(inner, true, in, 2);
    char *inner_bytes = slurp(t.base, "work.zip");
    struct stat st;
    ck_assert_int_eq(stat(inner, &st), 0);
    struct entry e[] = {
        {"Mar\xC3\xAD"
         "a N\xC3\xBA\xC3\xB1"
         "ez_12345_assignsubmission_file_/matmul.c",
         "/* m */\n", 'f', NULL, 0},
        {"Mar\xC3\xAD"
         "a N\xC3\xBA\xC3\xB1"
         "ez_12345_assignsubmission_onlinetext_/onlinetext.html",
         "<p>hi</p>", 'f', NULL, 0},
        {"Bob Stone_23456_assignsubmission_file_/work.zip", inner_bytes, 'f', NULL,
         (size_t)st.st_size},
        {"Carla D\xC3\xAD"
         "az_34567_assignsubmission_file_reduce.c",
         "/* c */\n", 'f', NULL, 0},
        /* Some Moodle versions leave out the folder name's last '_'. */
        {"Dan Lee_45678_assignsubmission_file/d.c", "/* d */\n", 'f', NULL, 0},
    };
    make_archive(zip, true, e, 5);
    sandbox_snapshot(&t);

    ck_assert_int_eq(run(&t, zip, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 4);
    assert_sub(&t, 0, "12345",
               "Mar\xC3\xAD"
               "a N\xC3\xBA\xC3\xB1"
               "ez");
    assert_sub(&t, 1, "23456", "Bob Stone");
    assert_sub(&t, 2, "34567",
               "Carla D\xC3\xAD"
               "az");
    ck_assert(has(t.set.items[0].dir, "matmul.c"));
    ck_assert(has(t.set.items[0].dir, "onlinetext.html"));
    char *s = slurp(t.set.items[1].dir, "main.c");
    ck_assert_str_eq(s, "/* bob */\n");
    free(s);
    ck_assert(has(t.set.items[1].dir, "util.h"));
    ck_assert(!has(t.set.items[1].dir, "work.zip"));
    s = slurp(t.set.items[2].dir, "reduce.c");
    ck_assert_str_eq(s, "/* c */\n");
    free(s);
    assert_sub(&t, 3, "45678", "Dan Lee");
    ck_assert(has(t.set.items[3].dir, "d.c"));
    /* The staging copy is gone: only the students' folders remain. */
    ck_assert(!has(t.unpack, "staging"));
    free(inner_bytes);
    free(inner);
    free(zip);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_canvas_zip_and_wrapper)
{
    struct sandbox t;
    sandbox_open(&t);
    char *zip = path_join(t.base, "canvas.zip");
    struct entry e[] = {
        {"nunezmaria_12345_678900_matmul_cpu.c", "old\n", 'f', NULL, 0},
        {"nunezmaria_12345_678901_matmul_cpu-1.c", "new\n", 'f', NULL, 0},
        {"nunezmaria_12345_678902_reduce.c", "reduce\n", 'f', NULL, 0},
        {"stonebob_LATE_23456_700001_matmul_cpu.c", "bob\n", 'f', NULL, 0},
    };
    make_archive(zip, true, e, 4);
    char *wrapped = path_join(t.base, "wrapped.zip");
    struct entry w[] = {{"class/", NULL, 'd', NULL, 0},
                        {"class/alice/a.c", "a\n", 'f', NULL, 0},
                        {"class/bob/b.c", "b\n", 'f', NULL, 0}};
    make_archive(wrapped, true, w, 3);
    sandbox_snapshot(&t);

    ck_assert_int_eq(run(&t, zip, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 2);
    assert_sub(&t, 0, "12345", "nunezmaria");
    assert_sub(&t, 1, "23456", "stonebob");
    char *s = slurp(t.set.items[0].dir, "matmul_cpu.c");
    ck_assert_str_eq(s, "new\n");
    free(s);
    ck_assert(has(t.set.items[0].dir, "reduce.c"));
    ck_assert(!has(t.set.items[0].dir, "matmul_cpu-1.c"));
    ck_assert(warned(&t.set, "newer upload of matmul_cpu.c"));
    s = slurp(t.set.items[1].dir, "matmul_cpu.c");
    ck_assert_str_eq(s, "bob\n");
    free(s);

    /* Someone zipped the folder of submissions: the lone top folder is looked into. */
    ck_assert_int_eq(run(&t, wrapped, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 2);
    assert_sub(&t, 0, "alice", "alice");
    assert_sub(&t, 1, "bob", "bob");
    ck_assert(has(t.set.items[1].dir, "b.c"));
    free(zip);
    free(wrapped);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_roster_mapping)
{
    struct sandbox t;
    sandbox_open(&t);
    char *zip = path_join(t.base, "canvas.zip"), *roster = path_join(t.base, "roster.csv");
    struct entry e[] = {
        {"nunezmaria_12345_678901_matmul_cpu.c", "m\n", 'f', NULL, 0},
        {"stonebob_23456_700001_matmul_cpu.c", "b\n", 'f', NULL, 0},
        {"ghost_99999_700002_matmul_cpu.c", "g\n", 'f', NULL, 0},
    };
    make_archive(zip, true, e, 3);
    /* Moodle's participants export: first name and surname apart, an ID number. */
    put(t.base, "roster.csv",
        "First name,Surname,ID number,Email address\r\n"
        "Mar\xC3\xAD"
        "a,N\xC3\xBA\xC3\xB1"
        "ez,s2024001,maria@uni.example\r\n"
        "Bob,Stone,s2024002,bob@uni.example\r\n"
        "Eve,Absent,s2024003,eve@uni.example\r\n");
    put(t.in, "s001/x.c", "x\n");
    put(t.in, "Jane Doe/y.c", "y\n");
    put(t.base, "roster2.csv",
        "\xEF\xBB\xBFstudent_id;name\r\ns001;\"Smith; John\"\r\ns002;Jane Doe\r\n");
    char *roster2 = path_join(t.base, "roster2.csv");
    sandbox_snapshot(&t);

    ck_assert_int_eq(run(&t, zip, roster, NULL), 0);
    ck_assert_uint_eq(t.set.n, 3);
    assert_sub(&t, 0, "99999", "ghost");
    assert_sub(&t, 1, "s2024001",
               "Mar\xC3\xAD"
               "a N\xC3\xBA\xC3\xB1"
               "ez");
    assert_sub(&t, 2, "s2024002", "Bob Stone");
    ck_assert(has(t.set.items[1].dir, "matmul_cpu.c"));
    ck_assert(warned(&t.set, "not in the roster; kept as id '99999'"));

    /* Semicolons, a BOM, quotes; matched by id and by name. */
    ck_assert_int_eq(run(&t, t.in, roster2, NULL), 0);
    ck_assert_uint_eq(t.set.n, 2);
    assert_sub(&t, 0, "s001", "Smith; John");
    assert_sub(&t, 1, "s002", "Jane Doe");
    /* A student_id is the institution's number: Moodle's ID number too (issue 47). */
    ck_assert_pstr_eq(t.set.items[0].ids.idnumber, "s001");
    ck_assert_pstr_eq(t.set.items[1].ids.idnumber, "s002");

    /* A roster without an id column says which columns it looked for. */
    put(t.base, "bad.csv", "who,what\nx,y\n");
    char *bad = path_join(t.base, "bad.csv");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, bad, NULL), -1);
    assert_error(&t.err, "no id column", "SIS User ID");
    free(bad);
    free(zip);
    free(roster);
    free(roster2);
    sandbox_close(&t);
}
END_TEST

/* ---- hostile archives ---- */

/* An entry that names no student (an absolute path, ".." first): the class archive is
 * refused with a message naming it and the entry, and nothing lands outside. */
static void assert_refused(const struct entry *e, size_t n, bool zip, const char *entry_shown,
                           const char *why)
{
    struct sandbox t;
    sandbox_open(&t);
    char *path = path_join(t.base, zip ? "class.zip" : "class.tar");
    make_archive(path, zip, e, n);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, path, NULL, NULL), -1);
    char *quoted = xstrfmt("entry '%s' refused", entry_shown);
    assert_error(&t.err, path, quoted);
    assert_error(&t.err, why, NULL);
    ck_assert_uint_eq(t.set.n, 0);
    ck_assert(!has(t.base, "evil.c"));
    ck_assert(!has(t.unpack, "evil.c"));
    free(quoted);
    free(path);
    sandbox_close(&t);
}

static const struct submission *find_sub(const struct sandbox *t, const char *id)
{
    for (size_t i = 0; i < t->set.n; i++)
        if (!strcmp(t->set.items[i].id, id))
            return &t->set.items[i];
    ck_abort_msg("no submission '%s'", id);
    return NULL;
}

static bool dir_empty(const char *dir)
{
    struct strbuf sb = STRBUF_INIT;
    listing(dir, "", "", &sb);
    bool empty = sb.len == 0;
    strbuf_release(&sb);
    return empty;
}

/* One student's hostile entry costs only that student: refused with the problem (and
 * its limit), an empty folder, a warning naming the entry; zed, beside, is graded. */
static void assert_student_refused(const struct entry *e, size_t n, bool zip, const char *who,
                                   enum submission_problem problem, long long limit,
                                   const char *why, const struct collect_limits *lim)
{
    struct sandbox t;
    sandbox_open(&t);
    char *path = path_join(t.base, zip ? "class.zip" : "class.tar");
    struct entry *all = xcalloc(n + 1, sizeof(*all));
    memcpy(all, e, n * sizeof(*e));
    all[n] = (struct entry){"zed/z.c", "/* zed */\n", 'f', NULL, 0};
    make_archive(path, zip, all, n + 1);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, path, NULL, lim), 0);
    const struct submission *bad = find_sub(&t, who), *zed = find_sub(&t, "zed");
    ck_assert_int_eq(bad->problem, problem);
    ck_assert_int_eq(bad->problem_limit, limit);
    ck_assert(dir_empty(bad->dir));
    ck_assert(warned(&t.set, why));
    ck_assert_int_eq(zed->problem, SUBMISSION_OK);
    ck_assert(has(zed->dir, "z.c"));
    ck_assert(!has(t.base, "evil.c"));
    free(all);
    free(path);
    sandbox_close(&t);
}

START_TEST(test_refuse_dotdot)
{
    struct entry e[] = {{"alice/a.c", "a\n", 'f', NULL, 0}, {"../../evil.c", "x\n", 'f', NULL, 0}};
    assert_refused(e, 2, true, "../../evil.c", "'..'");
    /* libarchive already reads a zip's backslashes as separators; refused either way. */
    struct entry g[] = {{"..\\..\\evil.c", "x\n", 'f', NULL, 0}};
    assert_refused(g, 1, true, "../../evil.c", "'..'");
    assert_refused(g, 1, false, "..\\..\\evil.c", "'..'");
    /* Below a student's folder: that student's doing. */
    struct entry f[] = {{"alice/a.c", "a\n", 'f', NULL, 0},
                        {"alice/../../evil.c", "x\n", 'f', NULL, 0}};
    assert_student_refused(f, 2, true, "alice", SUBMISSION_BAD_ENTRY, 0, "'..'", NULL);
}
END_TEST

START_TEST(test_refuse_absolute)
{
    char tmpl[] = "/tmp/lg-collect-abs-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    char *target = path_join(tmpl, "evil.c");
    struct entry e[] = {{target, "x\n", 'f', NULL, 0}};
    assert_refused(e, 1, true, target, "absolute path");
    ck_assert(!file_exists(target));
    struct entry f[] = {{"C:/evil.c", "x\n", 'f', NULL, 0}};
    assert_refused(f, 1, true, "C:/evil.c", "drive letter");
    ck_assert_int_eq(remove_tree(tmpl, NULL), 0);
    free(target);
}
END_TEST

START_TEST(test_refuse_links_and_devices)
{
    struct entry e[] = {{"alice/a.c", "a\n", 'f', NULL, 0},
                        {"alice/passwd", NULL, 'l', "/etc/passwd", 0}};
    assert_student_refused(e, 2, true, "alice", SUBMISSION_BAD_ENTRY, 0, "symbolic link", NULL);
    struct entry h[] = {{"alice/a.c", "a\n", 'f', NULL, 0},
                        {"alice/b.c", NULL, 'h', "/etc/passwd", 0}};
    assert_student_refused(h, 2, false, "alice", SUBMISSION_BAD_ENTRY, 0, "hard link", NULL);
    struct entry d[] = {{"alice/null", NULL, 'c', NULL, 0}};
    assert_student_refused(d, 1, false, "alice", SUBMISSION_BAD_ENTRY, 0, "device", NULL);
    struct strbuf deep = STRBUF_INIT;
    for (int i = 0; i < 70; i++)
        strbuf_addstr(&deep, "d/");
    strbuf_addstr(&deep, "x.c");
    struct entry p[] = {{deep.buf, "x\n", 'f', NULL, 0}};
    assert_student_refused(p, 1, true, "d", SUBMISSION_TOO_DEEP, 64, "more than 64 folders deep",
                           NULL);
    strbuf_release(&deep);
    struct entry c[] = {{"alice/bad\x1b[2Jname.c", "x\n", 'f', NULL, 0}};
    assert_student_refused(c, 1, true, "alice", SUBMISSION_BAD_ENTRY, 0, "bad\\x1b[2Jname.c", NULL);
}
END_TEST

START_TEST(test_refuse_zip_bomb)
{
    struct sandbox t;
    sandbox_open(&t);
    char *bomb = path_join(t.base, "bomb.zip");
    make_bomb(bomb, 300);
    sandbox_snapshot(&t);

    /* The defaults: the 20 MiB per-file limit stops it first; only mallory pays. */
    ck_assert_int_eq(run(&t, bomb, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 1);
    ck_assert_int_eq(t.set.items[0].problem, SUBMISSION_FILE_TOO_LARGE);
    ck_assert_int_eq(t.set.items[0].problem_limit, 20971520);
    ck_assert_str_eq(t.set.items[0].problem_what, "mallory/zeros.bin");
    ck_assert(warned(&t.set, "20971520 bytes per file"));
    ck_assert(dir_empty(t.set.items[0].dir));

    /* With no per-file limit to speak of, the 200 MiB total stops it. */
    struct collect_limits lim;
    collect_limits_init(&lim);
    lim.max_file_bytes = 1LL << 40;
    ck_assert_int_eq(run(&t, bomb, NULL, &lim), 0);
    ck_assert_int_eq(t.set.items[0].problem, SUBMISSION_TOO_LARGE);
    ck_assert_int_eq(t.set.items[0].problem_limit, 209715200);
    ck_assert(dir_empty(t.set.items[0].dir));
    free(bomb);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_refuse_too_many_files)
{
    struct sandbox t;
    sandbox_open(&t);
    struct entry e[12];
    char names[12][32];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof(names[i]), "alice/f%02d.c", i);
        e[i] = (struct entry){names[i], "x\n", 'f', NULL, 0};
    }
    struct collect_limits lim;
    collect_limits_init(&lim);
    lim.max_files = 10;
    assert_student_refused(e, 12, true, "alice", SUBMISSION_TOO_MANY_FILES, 10,
                           "more than 10 files", &lim);
    /* A student's own zip, nested, counts against that student too. */
    put(t.in, "bob/x.c", "x\n");
    char *carol = path_join(t.in, "carol"), *nested = path_join(t.in, "carol/work.zip");
    ck_assert_int_eq(mkdir_p(carol, NULL), 0);
    make_archive(nested, true, e, 12);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, NULL, &lim), 0);
    ck_assert_int_eq(find_sub(&t, "carol")->problem, SUBMISSION_TOO_MANY_FILES);
    ck_assert_int_eq(find_sub(&t, "bob")->problem, SUBMISSION_OK);
    ck_assert(warned(&t.set, "carol/work.zip"));

    /* Total bytes over several files, each under the per-file limit. */
    static char big[300 << 10];
    memset(big, 'a', sizeof(big));
    struct entry b[] = {{"alice/1", big, 'f', NULL, sizeof(big)},
                        {"alice/2", big, 'f', NULL, sizeof(big)},
                        {"alice/3", big, 'f', NULL, sizeof(big)},
                        {"alice/4", big, 'f', NULL, sizeof(big)}};
    collect_limits_init(&lim);
    lim.max_total_bytes = 1 << 20;
    assert_student_refused(b, 4, true, "alice", SUBMISSION_TOO_LARGE, 1 << 20,
                           "1048576 bytes in total", &lim);
    /* The same bytes spread over students are fine: limits are per submission. */
    struct entry s[] = {{"alice/1", big, 'f', NULL, sizeof(big)},
                        {"bob/2", big, 'f', NULL, sizeof(big)},
                        {"carol/3", big, 'f', NULL, sizeof(big)},
                        {"dave/4", big, 'f', NULL, sizeof(big)}};
    char *bigzip = path_join(t.base, "big.zip");
    make_archive(bigzip, true, s, 4);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, bigzip, NULL, &lim), 0);
    ck_assert_uint_eq(t.set.n, 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert_int_eq(t.set.items[i].problem, SUBMISSION_OK);
    free(bigzip);
    free(nested);
    free(carol);
    sandbox_close(&t);
}
END_TEST

/* ---- LMS layouts in full ---- */

static int run_sources(struct sandbox *t, const char *src, const char *roster,
                       const char *const *sources)
{
    struct collect_opts o = {roster, NULL, sources, false};
    submission_set_release(&t->set);
    submission_set_init(&t->set);
    error_init(&t->err);
    return collect_submissions_opts(src, t->unpack, &o, &t->set, &t->err);
}

START_TEST(test_canvas_names)
{
    struct sandbox t;
    sandbox_open(&t);
    char *zip = path_join(t.base, "canvas.zip");
    /* As Canvas's ContentZipper names them: [name, LATE, user id] joined by '_' and
     * stripped of non-word characters, then "_<file id>_<file name>". */
    struct entry e[] = {
        {"de_la_cruzjuan_12345_678901_matmul_cpu.c", "j\n", 'f', NULL, 0},
        {"n\xC3\xBA\xC3\xB1"
         "ezmar\xC3\xAD"
         "a_late_23456_700001_matmul_cpu.c",
         "m\n", 'f', NULL, 0},
        {"stonebob_34567_text.html", "<p>my code is int main</p>", 'f', NULL, 0},
        {"leeann_45678_link.html", "<a href=x>x</a>", 'f', NULL, 0},
        {"56789_700005_matmul_cpu.c", "anon\n", 'f', NULL, 0},
    };
    make_archive(zip, true, e, 5);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, zip, NULL, NULL), 0);
    ck_assert_uint_eq(t.set.n, 5);
    const struct submission *juan = find_sub(&t, "12345");
    ck_assert_str_eq(juan->name, "de_la_cruzjuan");
    ck_assert_str_eq(juan->ids.canvas_id, "12345");
    ck_assert(has(juan->dir, "matmul_cpu.c"));
    ck_assert(!juan->late_marked);
    const struct submission *maria = find_sub(&t, "23456");
    ck_assert(maria->late_marked);
    ck_assert(has(maria->dir, "matmul_cpu.c"));
    ck_assert_int_eq(find_sub(&t, "34567")->problem, SUBMISSION_ONLINE_TEXT);
    ck_assert_int_eq(find_sub(&t, "45678")->problem, SUBMISSION_URL);
    ck_assert(dir_empty(find_sub(&t, "45678")->dir));
    ck_assert(has(find_sub(&t, "56789")->dir, "matmul_cpu.c"));
    ck_assert_str_eq(find_sub(&t, "56789")->origin, "canvas");
    free(zip);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_moodle_online_text_and_teams)
{
    struct sandbox t;
    sandbox_open(&t);
    char *zip = path_join(t.base, "moodle.zip"), *roster = path_join(t.base, "roster.csv");
    struct entry e[] = {
        {"Ana Ruiz_111_assignsubmission_onlinetext_/onlinetext.html", "<p>code</p>", 'f', NULL, 0},
        {"Equipo 1-Bea Gil_222_assignsubmission_file_/matmul_cpu.c", "b\n", 'f', NULL, 0},
        {"Equipo 1-Carlos Paz_333_assignsubmission_file_/matmul_cpu.c", "b\n", 'f', NULL, 0},
    };
    make_archive(zip, true, e, 3);
    /* Moodle's participants list: ID number left empty by the institution. */
    put(t.base, "roster.csv",
        "First name,Surname,ID number,Email address,Group\r\n"
        "Ana,Ruiz,,ana@uni.example,\r\n"
        "Bea,Gil,,bea@uni.example,Equipo 1\r\n"
        "Carlos,Paz,,carlos@uni.example,Equipo 1\r\n");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, zip, roster, NULL), 0);
    ck_assert_uint_eq(t.set.n, 3);
    ck_assert(warned(&t.set, "column 'ID number' is empty in every row"));
    const struct submission *ana = find_sub(&t, "ana@uni.example");
    ck_assert_int_eq(ana->problem, SUBMISSION_ONLINE_TEXT);
    ck_assert_str_eq(ana->ids.moodle_participant, "111");
    ck_assert_str_eq(ana->ids.email, "ana@uni.example");
    /* The team prefix is stripped to match the roster; the group brings its members. */
    const struct submission *bea = find_sub(&t, "bea@uni.example");
    ck_assert_str_eq(bea->name, "Bea Gil");
    ck_assert_str_eq(bea->group, "Equipo 1");
    ck_assert_uint_eq(bea->n_members, 2);
    ck_assert_str_eq(bea->members[1].id, "carlos@uni.example");
    ck_assert(has(bea->dir, "matmul_cpu.c"));
    free(zip);
    free(roster);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_nested_archives_and_sources)
{
    struct sandbox t;
    sandbox_open(&t);
    char *code = path_join(t.in, "ana/code.zip");
    struct entry z[] = {{"proj/src/matmul_cpu.c", "/* ana */\n", 'f', NULL, 0},
                        {"proj/src/lab6.h", "#pragma once\n", 'f', NULL, 0}};
    put(t.in, "ana/report.pdf", "%PDF-1.4\n");
    make_archive(code, true, z, 2);
    put(t.in, "bea/src/matmul_cpu.c", "/* bea */\n");
    put(t.in, "cid/a/matmul_cpu.c", "/* 1 */\n");
    put(t.in, "cid/b/matmul_cpu.c", "/* 2 */\n");
    put(t.in, "dan/matmul_cpu.c", "/* top */\n");
    put(t.in, "dan/old/matmul_cpu.c", "/* old */\n");
    sandbox_snapshot(&t);
    static const char *const sources[] = {"matmul_cpu.c", NULL};
    ck_assert_int_eq(run_sources(&t, t.in, NULL, sources), 0);
    /* A zip next to a PDF is unpacked; the sources found three folders down. */
    const struct submission *ana = find_sub(&t, "ana");
    char *s = slurp(ana->dir, "matmul_cpu.c");
    ck_assert_str_eq(s, "/* ana */\n");
    free(s);
    ck_assert(has(ana->dir, "lab6.h"));
    ck_assert(has(ana->dir, "report.pdf"));
    ck_assert(has(find_sub(&t, "bea")->dir, "matmul_cpu.c"));
    /* Two files of the name in two folders: the student says which, with both named. */
    const struct submission *cid = find_sub(&t, "cid");
    ck_assert_int_eq(cid->problem, SUBMISSION_AMBIGUOUS);
    ck_assert_str_eq(cid->problem_what, "a/matmul_cpu.c, b/matmul_cpu.c");
    /* One at the top wins over any below. */
    s = slurp(find_sub(&t, "dan")->dir, "matmul_cpu.c");
    ck_assert_str_eq(s, "/* top */\n");
    free(s);
    free(code);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_github_classroom)
{
    struct sandbox t;
    sandbox_open(&t);
    char *clones = path_join(t.base, "hw1-submissions");
    put(clones, "hw1-ana-lopez/.git/HEAD", "ref: refs/heads/main\n");
    put(clones, "hw1-ana-lopez/src/matmul_cpu.c", "/* ana */\n");
    put(clones, "hw1-bob/.git/HEAD", "ref: refs/heads/main\n");
    put(clones, "hw1-bob/matmul_cpu.c", "/* bob */\n");
    put(t.base, "classroom_roster.csv",
        "\"identifier\",\"github_username\",\"github_id\",\"name\"\n"
        "\"s001\",\"ana-lopez\",\"101\",\"Ana L\xC3\xB3pez\"\n"
        "\"s002\",\"bob\",\"102\",\"Bob Stone\"\n");
    char *roster = path_join(t.base, "classroom_roster.csv");
    sandbox_snapshot(&t);
    static const char *const sources[] = {"matmul_cpu.c", NULL};
    ck_assert_int_eq(run_sources(&t, clones, NULL, sources), 0);
    ck_assert_uint_eq(t.set.n, 2);
    assert_sub(&t, 0, "ana-lopez", "ana-lopez");
    ck_assert_str_eq(t.set.items[0].ids.github, "ana-lopez");
    ck_assert(has(t.set.items[0].dir, "matmul_cpu.c"));
    ck_assert(!has(t.set.items[0].dir, ".git"));
    ck_assert_int_eq(run_sources(&t, clones, roster, sources), 0);
    assert_sub(&t, 0, "s001", "Ana L\xC3\xB3pez");
    assert_sub(&t, 1, "s002", "Bob Stone");
    ck_assert_str_eq(t.set.items[1].ids.github, "bob");
    /* Cloned without the "-submissions" folder: every folder a clone of one slug. */
    ck_assert_int_eq(run(&t, clones, NULL, NULL), 0);
    char *plain = path_join(t.base, "plain");
    ck_assert_int_eq(rename(clones, plain), 0);
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, plain, NULL, NULL), 0);
    assert_sub(&t, 0, "ana-lopez", "ana-lopez");
    assert_sub(&t, 1, "bob", "bob");
    free(plain);
    free(roster);
    free(clones);
    sandbox_close(&t);
}
END_TEST

/* The hostile class: each of these cost only its owner, never the class. */
START_TEST(test_hostile_folders_cost_only_their_owner)
{
    struct sandbox t;
    sandbox_open(&t);
    for (int i = 0; i < 30; i++) {
        char *rel = xstrfmt("alice/f%02d.c", i);
        put(t.in, rel, "x\n");
        free(rel);
    }
    put(t.in, "bob/matmul_cpu.c", "x\n");
    char *sparse = path_join(t.in, "bob/huge.bin");
    int fd = open(sparse, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 1LL << 30), 0); /* 1 GiB, no blocks */
    close(fd);
    put(t.in, "carl/evil\nname.c", "x\n");
    put(t.in, "dave/matmul_cpu.c", "/* fine */\n");
    put(t.in, "eve\nmallory/x.c", "x\n");
    sandbox_snapshot(&t);
    struct collect_limits lim;
    collect_limits_init(&lim);
    lim.max_files = 20;
    ck_assert_int_eq(run(&t, t.in, NULL, &lim), 0);
    ck_assert_uint_eq(t.set.n, 5);
    ck_assert_int_eq(find_sub(&t, "alice")->problem, SUBMISSION_TOO_MANY_FILES);
    ck_assert_int_eq(find_sub(&t, "alice")->problem_limit, 20);
    ck_assert_int_eq(find_sub(&t, "bob")->problem, SUBMISSION_FILE_TOO_LARGE);
    ck_assert_int_eq(find_sub(&t, "carl")->problem, SUBMISSION_BAD_ENTRY);
    ck_assert_int_eq(find_sub(&t, "dave")->problem, SUBMISSION_OK);
    ck_assert(has(find_sub(&t, "dave")->dir, "matmul_cpu.c"));
    /* A student folder whose own name hides a newline: refused, shown escaped. */
    ck_assert_int_eq(find_sub(&t, "eve-x0amallory")->problem, SUBMISSION_BAD_ENTRY);
    free(sparse);
    sandbox_close(&t);
}
END_TEST

START_TEST(test_roster_matching_nobody)
{
    struct sandbox t;
    sandbox_open(&t);
    put(t.in, "12345/x.c", "x\n");
    put(t.in, "23456/x.c", "x\n");
    put(t.base, "roster.csv", "ID number,Full name\r\ns01,Ana Ruiz\r\ns02,Bob Stone\r\n");
    char *roster = path_join(t.base, "roster.csv");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, roster, NULL), 0);
    ck_assert(warned(&t.set, "the roster matched none of the 2 submissions"));
    /* By username and email, ignoring case. */
    put(t.base, "r2.csv", "Username,Email address,Full name\r\nana,ANA@X.ES,Ana Ruiz\r\n");
    put(t.in, "ana@x.es/y.c", "y\n");
    char *r2 = path_join(t.base, "r2.csv");
    sandbox_snapshot(&t);
    ck_assert_int_eq(run(&t, t.in, r2, NULL), 0);
    /* The row's id is its first id column in the roster's order of preference: the email
     * before the username. */
    ck_assert_str_eq(find_sub(&t, "ANA@X.ES")->name, "Ana Ruiz");
    ck_assert_str_eq(find_sub(&t, "ANA@X.ES")->ids.username, "ana");
    free(r2);
    free(roster);
    sandbox_close(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("collect");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_plain_folders);
    tcase_add_test(tc, test_folder_symlinks_skipped);
    tcase_add_test(tc, test_duplicate_ids);
    tcase_add_test(tc, test_unpack_dir_must_be_ours);
    tcase_add_test(tc, test_moodle_zip);
    tcase_add_test(tc, test_canvas_zip_and_wrapper);
    tcase_add_test(tc, test_roster_mapping);
    tcase_add_test(tc, test_refuse_dotdot);
    tcase_add_test(tc, test_refuse_absolute);
    tcase_add_test(tc, test_refuse_links_and_devices);
    tcase_add_test(tc, test_refuse_zip_bomb);
    tcase_add_test(tc, test_refuse_too_many_files);
    tcase_add_test(tc, test_canvas_names);
    tcase_add_test(tc, test_moodle_online_text_and_teams);
    tcase_add_test(tc, test_nested_archives_and_sources);
    tcase_add_test(tc, test_github_classroom);
    tcase_add_test(tc, test_hostile_folders_cost_only_their_owner);
    tcase_add_test(tc, test_roster_matching_nobody);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
