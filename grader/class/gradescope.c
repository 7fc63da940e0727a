/*
 * gradescope: `grader gradescope`, the autograder zip (gradescope.h). Written
 * with libarchive straight from the source tree, entries sorted, so the same
 * tree gives the same zip.
 */
#include "class/gradescope.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "spec/spec.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { GS_OK = 0, GS_USAGE = 2, GS_GRADER = 3 };

struct zip {
    struct archive *a;
    const char *path;
    struct error *err;
};

static int zip_fail(struct zip *z)
{
    const char *msg = archive_error_string(z->a);
    return error_set_at(z->err, z->path, 0, 0, "cannot write the zip: %s",
                        msg ? msg : "libarchive error");
}

static int zip_header(struct zip *z, const char *name, mode_t type, mode_t perm, size_t size)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, perm);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_mtime(e, 0, 0); /* the same tree, the same zip */
    int rc = archive_write_header(z->a, e) == ARCHIVE_OK ? 0 : zip_fail(z);
    archive_entry_free(e);
    return rc;
}

static int zip_text(struct zip *z, const char *name, const char *text, mode_t perm)
{
    size_t n = strlen(text);
    if (zip_header(z, name, AE_IFREG, perm, n) != 0)
        return -1;
    return archive_write_data(z->a, text, n) == (la_ssize_t)n ? 0 : zip_fail(z);
}

static int zip_file(struct zip *z, const char *disk, const char *name)
{
    struct strbuf data = STRBUF_INIT;
    struct stat st;
    int rc = stat(disk, &st) != 0
                 ? error_set_at(z->err, disk, 0, 0, "cannot read: %s", strerror(errno))
                 : read_file(disk, &data, z->err);
    if (rc == 0 && zip_header(z, name, AE_IFREG, st.st_mode & 0111 ? 0755 : 0644, data.len) != 0)
        rc = -1;
    if (rc == 0 && data.len && archive_write_data(z->a, data.buf, data.len) != (la_ssize_t)data.len)
        rc = zip_fail(z);
    strbuf_release(&data);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Which entries of a tree go in: rel is relative to the tree's top. */
typedef bool (*zip_keep)(const char *rel, const char *name, bool is_dir);

/* The tree at disk under archive name prefix, sorted, regular files and folders only
 * (links are not followed: a loop would never end). */
static int zip_tree(struct zip *z, const char *disk, const char *prefix, const char *rel,
                    zip_keep keep)
{
    DIR *d = opendir(disk);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    int rc = 0;
    if (!d)
        return error_set_at(z->err, disk, 0, 0, "cannot open: %s", strerror(errno));
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            ALLOC_GROW(names, n + 1, alloc);
            names[n++] = xstrdup(de->d_name);
        }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_names);
    for (size_t i = 0; i < n; i++) {
        char *path = path_join(disk, names[i]);
        char *name = xstrfmt("%s/%s", prefix, names[i]);
        char *sub = *rel ? xstrfmt("%s/%s", rel, names[i]) : xstrdup(names[i]);
        struct stat st;
        if (rc == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && keep(sub, names[i], true))
            rc = zip_header(z, name, AE_IFDIR, 0755, 0) || zip_tree(z, path, name, sub, keep);
        else if (rc == 0 && S_ISREG(st.st_mode) && keep(sub, names[i], false))
            rc = zip_file(z, path, name);
        free(sub);
        free(name);
        free(path);
        free(names[i]);
    }
    free(names);
    return rc ? -1 : 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static bool keep_grader(const char *rel, const char *name, bool is_dir)
{
    if (name[0] == '.')
        return false;
    if (is_dir)
        return strchr(rel, '/') == NULL; /* one folder per stage */
    return ends_with(name, ".c") || ends_with(name, ".h") || ends_with(name, ".cu") ||
           ends_with(name, ".cuh") || ends_with(name, ".sh");
}

static bool keep_any(const char *rel, const char *name, bool is_dir)
{
    (void)rel;
    (void)is_dir;
    return name[0] != '.';
}

/* The lab folder with its hidden cases (the autograder grades them), never solution/. */
static bool keep_lab(const char *rel, const char *name, bool is_dir)
{
    (void)is_dir;
    return name[0] != '.' && strcmp(rel, "solution") != 0;
}

/* ---- the scripts ---- */

/* The options of `grader autograde` the instructor chose, for the scripts. */
static void autograde_args(const struct gradescope_args *c, const char *policy, struct strbuf *out)
{
    strbuf_addf(out, " --gpu-policy %s", policy);
    if (c->no_slow)
        strbuf_addstr(out, " --no-slow");
    if (c->no_timing)
        strbuf_addstr(out, " --no-timing");
    if (c->lang)
        strbuf_addf(out, " --lang %s", c->lang);
    if (c->time_limit_s > 0)
        strbuf_addf(out, " --time-limit %g", c->time_limit_s);
}

static void setup_sh(const struct lab *lab, const struct gradescope_args *c, struct strbuf *out)
{
    struct strbuf args = STRBUF_INIT;
    autograde_args(c, "informational", &args);
    strbuf_addf(
        out,
        "#!/usr/bin/env bash\n"
        "# labgrader's Gradescope autograder, made by `grader gradescope` "
        "(docs/exports.md).\n"
        "# Gradescope runs this once, as root, when it builds the autograder image.\n"
        "set -euo pipefail\n"
        "root=${LABGRADER_AUTOGRADER_ROOT:-/autograder}\n"
        "cd \"$root/source/labgrader\"\n"
        "if [ -z \"${LG_NO_INSTALL:-}\" ] && command -v apt-get >/dev/null; then\n"
        "    export DEBIAN_FRONTEND=noninteractive\n"
        "    apt-get update -qq\n"
        "    apt-get install -y -qq --no-install-recommends build-essential pkg-config \\\n"
        "        libyaml-dev libopenblas-dev libarchive-dev bubblewrap openssh-client\n"
        "fi\n"
        "# Scripts through their interpreter: a zip unpacked by a tool that drops file modes\n"
        "# leaves no exec bit.\n"
        "LG_NO_INSTALL=1 bash grader/deps.sh build\n"
        "make -j\"$(nproc)\" all\n"
        "# References built and every expected output computed now, once: a "
        "submission\n# then only builds and runs the student's code.\n"
        "build/grader autograde labs/%s --setup --root \"$root\"%s\n",
        path_base(lab->dir), args.buf ? args.buf : "");
    strbuf_release(&args);
}

static void run_local(const struct lab *lab, const struct gradescope_args *c, struct strbuf *out)
{
    struct strbuf args = STRBUF_INIT;
    autograde_args(c, c->policy, &args);
    strbuf_addf(out,
                "#!/bin/sh\n"
                "# labgrader's Gradescope autograder (grader gradescope): Gradescope runs this "
                "for\n# every submission; it writes $root/results/results.json.\n"
                "root=${LABGRADER_AUTOGRADER_ROOT:-/autograder}\n"
                "src=\"$root/source/labgrader\"\n"
                "exec \"$src/build/grader\" autograde \"$src/labs/%s\" --root \"$root\"%s\n",
                path_base(lab->dir), args.buf);
    strbuf_release(&args);
}

/* The remote policy: the submission goes to the course's GPU machine over ssh, whose
 * labgrader grades it (--stdin-tar) and answers with results.json. */
static void run_remote(const struct lab *lab, const struct gradescope_args *c, struct strbuf *out)
{
    struct strbuf args = STRBUF_INIT;
    autograde_args(c, "fail", &args);
    strbuf_addf(
        out,
        "#!/bin/sh\n"
        "# labgrader's Gradescope autograder (grader gradescope --gpu-policy remote): every\n"
        "# submission is graded on the course's GPU machine, %s, over ssh.\n"
        "set -u\n"
        "root=${LABGRADER_AUTOGRADER_ROOT:-/autograder}\n"
        "src=\"$root/source/labgrader\"\n"
        "ssh=${LABGRADER_SSH:-ssh}\n"
        "mkdir -p \"$root/results\"\n"
        "out=\"$root/results/results.json\"\n"
        "files=submission\n"
        "[ -e \"$root/submission_metadata.json\" ] && files=\"$files submission_metadata.json\"\n"
        "tar -C \"$root\" -czf - $files | \"$ssh\" -i \"$src/remote_key\" -o BatchMode=yes \\\n"
        "    -o StrictHostKeyChecking=yes -o UserKnownHostsFile=\"$src/known_hosts\" %s \\\n"
        "    \"cd '%s' && build/grader autograde labs/%s --stdin-tar%s\" >\"$out.part\"\n"
        "status=$?\n"
        "if [ $status -eq 0 ] && [ -s \"$out.part\" ]; then mv \"$out.part\" \"$out\"; exit 0; fi\n"
        "rm -f \"$out.part\"\n"
        "echo \"labgrader: the GPU machine did not grade this submission (status $status): no "
        "results, so Gradescope shows an autograder failure; re-run it when the machine is "
        "back\"\n"
        "exit 1\n",
        c->remote_host, c->remote_host, c->remote_dir, path_base(lab->dir), args.buf);
    strbuf_release(&args);
}

/* ---- the zip ---- */

static int zip_sources(struct zip *z, const char *root, const struct lab *lab)
{
    static const char *const top[] = {"Makefile", "VERSION", "LICENSE", NULL};
    int rc = zip_header(z, "labgrader", AE_IFDIR, 0755, 0);
    for (size_t i = 0; rc == 0 && top[i]; i++) {
        char *p = path_join(root, top[i]), *name = xstrfmt("labgrader/%s", top[i]);
        if (file_exists(p))
            rc = zip_file(z, p, name);
        free(p);
        free(name);
    }
    static const char *const trees[][2] = {{"grader", "g"}, {"templates", "a"}, {"kernels", "a"}};
    for (size_t i = 0; rc == 0 && i < 3; i++) {
        char *p = path_join(root, trees[i][0]), *name = xstrfmt("labgrader/%s", trees[i][0]);
        if (dir_exists(p))
            rc = zip_header(z, name, AE_IFDIR, 0755, 0) ||
                 zip_tree(z, p, name, "", trees[i][1][0] == 'g' ? keep_grader : keep_any);
        free(p);
        free(name);
    }
    char *labs = xstrfmt("labgrader/labs/%s", path_base(lab->dir));
    if (rc == 0)
        rc = zip_header(z, "labgrader/labs", AE_IFDIR, 0755, 0) ||
             zip_header(z, labs, AE_IFDIR, 0755, 0) || zip_tree(z, lab->dir, labs, "", keep_lab);
    free(labs);
    return rc ? -1 : 0;
}

static int zip_scripts(struct zip *z, const struct lab *lab, const struct gradescope_args *c)
{
    struct strbuf setup = STRBUF_INIT, run = STRBUF_INIT;
    int rc;
    setup_sh(lab, c, &setup);
    if (!strcmp(c->policy, "remote"))
        run_remote(lab, c, &run);
    else
        run_local(lab, c, &run);
    rc = zip_text(z, "setup.sh", setup.buf, 0755) || zip_text(z, "run_autograder", run.buf, 0755);
    strbuf_release(&setup);
    strbuf_release(&run);
    return rc ? -1 : 0;
}

static int write_zip(const char *path, const char *root, const struct lab *lab,
                     const struct gradescope_args *c, struct error *err)
{
    char *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
    struct zip z = {archive_write_new(), path, err};
    int rc = archive_write_set_format_zip(z.a) != ARCHIVE_OK ||
                     archive_write_open_filename(z.a, tmp) != ARCHIVE_OK
                 ? zip_fail(&z)
                 : 0;
    if (rc == 0)
        rc = zip_scripts(&z, lab, c) || zip_sources(&z, root, lab);
    /* The remote policy's key and the GPU machine's pinned host key, beside the sources. */
    if (rc == 0 && c->remote_key)
        rc = zip_file(&z, c->remote_key, "labgrader/remote_key");
    if (rc == 0 && c->known_hosts)
        rc = zip_file(&z, c->known_hosts, "labgrader/known_hosts");
    if (archive_write_close(z.a) != ARCHIVE_OK && rc == 0)
        rc = zip_fail(&z);
    archive_write_free(z.a);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = error_set_at(err, path, 0, 0, "cannot rename into place: %s", strerror(errno));
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc ? -1 : 0;
}

/* ---- the command ---- */

/* What the option parser cannot tell: a remote policy needs its four options. */
static int check_args(const struct gradescope_args *c)
{
    if (!strcmp(c->policy, "remote") &&
        (!c->remote_host || !c->remote_dir || !c->remote_key || !c->known_hosts)) {
        fprintf(stderr, "grader gradescope: --gpu-policy remote needs --remote-host, "
                        "--remote-dir, --remote-key and --known-hosts (docs/exports.md)\n");
        return -1;
    }
    return 0;
}

static double lab_total(const struct lab *lab)
{
    double t = 0;
    for (size_t e = 0; e < lab->n_exercises; e++)
        t += lab->exercises[e].points +
             (lab->exercises[e].has_perf ? lab->exercises[e].perf.points : 0);
    return t;
}

int gradescope_make(const struct gradescope_args *a, const struct grader_paths *p)
{
    struct gradescope_args c = *a;
    struct lab lab;
    struct error err;
    if (!c.policy)
        c.policy = "informational";
    if (check_args(&c) != 0)
        return GS_USAGE;
    error_init(&err);
    lab_init(&lab);
    char *yaml = dir_exists(c.lab_arg) ? path_join(c.lab_arg, "lab.yaml") : xstrdup(c.lab_arg);
    int status = GS_USAGE;
    char *def = NULL;
    if (spec_load(&lab, yaml, NULL, &err) != 0)
        goto out;
    def = xstrfmt("reports/gradescope/%s-autograder.zip", lab.id);
    const char *out = c.out ? c.out : def;
    char *dir = xstrdup(out), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    status = GS_GRADER;
    if ((slash && mkdir_p(dir, &err) != 0) || write_zip(out, p->repo_root, &lab, &c, &err) != 0) {
        free(dir);
        goto out;
    }
    free(dir);
    printf("autograder: %s\n", out);
    printf("Gradescope: a Programming Assignment worth %g points (the lab's); upload this zip "
           "under Configure Autograder. GPU policy: %s.\n",
           lab_total(&lab), c.policy);
    status = GS_OK;
out:
    if (status != GS_OK)
        error_print(&err, stderr);
    free(def);
    free(yaml);
    lab_release(&lab);
    return status;
}
