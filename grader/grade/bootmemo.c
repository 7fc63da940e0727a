#include "grade/bootmemo.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "grade/cache.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void add(struct sha256 *h, const char *s)
{
    s = s ? s : "-";
    sha256_update(h, s, strlen(s) + 1);
}

char *bootmemo_path(const char *cache_dir, const char *name, const char *program,
                    const char *const *extra, size_t n_extra)
{
    struct stat st;
    char *boot = read_first_line("/proc/sys/kernel/random/boot_id");
    if (!boot || stat(program, &st) != 0) {
        free(boot);
        return NULL;
    }
    char id[160], hex[65];
    snprintf(id, sizeof(id), "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    struct sha256 h;
    sha256_init(&h);
    add(&h, "bootmemo-1");
    add(&h, boot);
    add(&h, program);
    add(&h, id);
    for (size_t i = 0; i < n_extra; i++)
        add(&h, extra[i]);
    sha256_final_hex(&h, hex);
    hex[16] = '\0';
    free(boot);
    return xstrfmt("%s/machine/%s-%s.txt", cache_dir, name, hex);
}

char *bootmemo_read(const char *path)
{
    char why[512];
    struct stat st;
    enum cache_check cc = cache_check_file(path, why, sizeof(why));
    if (cc == CACHE_BAD)
        cache_discard(path, why);
    if (cc != CACHE_OK || stat(path, &st) != 0)
        return NULL;
    double age = difftime(time(NULL), st.st_mtime);
    if (age < 0 || age > BOOTMEMO_MAX_AGE_S)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    if (read_file(path, &sb, NULL) != 0) {
        strbuf_release(&sb);
        return NULL;
    }
    char *text = xstrdup(strbuf_str(&sb));
    strbuf_release(&sb);
    return text;
}

void bootmemo_forget(const char *path)
{
    char *seal = xstrfmt("%s.sha256", path);
    unlink(path);
    unlink(seal);
    free(seal);
}

int bootmemo_write(const char *path, const char *text, struct error *err)
{
    char *dir = xstrdup(path), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int rc = mkdir_p(dir, err) != 0 || write_file_atomic(path, text, strlen(text), err) != 0 ||
                     cache_seal_file(path, err) != 0
                 ? -1
                 : 0;
    free(dir);
    return rc;
}
