#include "run/cudatool.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *executable(const char *dir, const char *name)
{
    struct stat st;
    if (!dir || !*dir)
        return NULL;
    char *p = path_join(dir, name);
    char *real = NULL;
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
        real = realpath(p, NULL);
    free(p);
    return real;
}

static char *in_bin(const char *home, const char *name)
{
    if (!home || !*home)
        return NULL;
    char *bin = path_join(home, "bin");
    char *found = executable(bin, name);
    free(bin);
    return found;
}

char *cudatool_find(const char *name, const char *cuda_home, const char *path_env,
                    const char *nvcc_home)
{
    char *found = in_bin(cuda_home, name);
    if (!found)
        found = in_bin("/usr/local/cuda", name);
    for (const char *p = path_env; p && *p && !found;) {
        size_t n = strcspn(p, ":");
        char *dir = xstrndup(p, n);
        found = executable(dir, name);
        free(dir);
        p += n + (p[n] == ':');
    }
    if (!found)
        found = in_bin(nvcc_home, name);
    return found;
}
