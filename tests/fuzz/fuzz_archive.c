/* A class export archive (zip, tar, 7z, gzip/bzip2/xz: libarchive guesses the format from
 * the bytes) unpacked by collect_submissions, which trusts nothing in it. Whatever the
 * bytes, nothing may be written outside the unpack folder, and nothing in it may be a link
 * or anything but a folder or a regular file. Small limits keep a bomb cheap. */
#include "fuzz.h"

#include "class/collect.h"

#include <ftw.h>
#include <sys/stat.h>

static const char *unpack;

/* Everything under the scratch folder is the input or lies in the unpack folder, as a
 * folder or a regular file. */
static int check_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    size_t n = strlen(unpack);
    bool inside = !strncmp(path, unpack, n) && (path[n] == '\0' || path[n] == '/');
    bool input = !strcmp(path + strlen(fuzz_dir()), "/class.zip");
    FUZZ_ASSERT(!strcmp(path, fuzz_dir()) || inside || input);
    FUZZ_ASSERT(flag == FTW_F || flag == FTW_D || flag == FTW_DP);
    FUZZ_ASSERT(S_ISDIR(st->st_mode) || S_ISREG(st->st_mode));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *dir;
    if (!dir)
        dir = path_join(fuzz_dir(), "unpacked");
    unpack = dir;
    char *zip = fuzz_file("class.zip", data, size);
    struct collect_limits lim = {
        .max_total_bytes = 1 << 20, .max_file_bytes = 256 << 10, .max_files = 64};
    struct submission_set set;
    struct error err;
    submission_set_init(&set);
    error_init(&err);
    if (collect_submissions(zip, dir, NULL, &lim, &set, &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
    } else {
        for (size_t i = 0; i < set.n; i++) {
            FUZZ_ASSERT(set.items[i].id && set.items[i].id[0] && set.items[i].name);
            FUZZ_ASSERT(!strncmp(set.items[i].dir, dir, strlen(dir)));
        }
    }
    FUZZ_ASSERT(nftw(fuzz_dir(), check_entry, 16, FTW_PHYS | FTW_DEPTH) == 0);
    submission_set_release(&set);
    remove_tree(dir, NULL);
    free(zip);
    return 0;
}
