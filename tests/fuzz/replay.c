/* The fuzz harnesses without libFuzzer: each file named (or each file of each folder named)
 * given once to LLVMFuzzerTestOneInput. `make test` replays every harness's seed corpus this
 * way under AddressSanitizer and UndefinedBehaviorSanitizer (built with gcc, in seconds), so
 * that every finding kept there stays fixed; fuzzing itself is `make fuzz`. A harness's
 * property that fails aborts, and a sanitizer's report ends the run: either is a failure. */
#include "fuzz.h"

#include "base/strbuf.h"

#include <dirent.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    if (read_file(path, &sb, &err) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, err.msg);
        return -1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)sb.buf, sb.len);
    strbuf_release(&sb);
    return 0;
}

static int replay(const char *path, int *n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: no such file or folder\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*n;
        return replay_file(path);
    }
    struct dirent **list = NULL;
    int m = scandir(path, &list, NULL, alphasort), rc = m < 0 ? -1 : 0;
    for (int i = 0; i < m; i++) {
        if (rc == 0 && list[i]->d_name[0] != '.') {
            char *p = path_join(path, list[i]->d_name);
            rc = replay(p, n);
            free(p);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++)
        if (replay(argv[i], &n) != 0)
            return 1;
    printf("%s: %d inputs replayed\n", argc > 0 ? argv[0] : "replay", n);
    return 0;
}
