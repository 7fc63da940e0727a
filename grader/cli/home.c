/*
 * home: where labgrader's data is (the harness objects, harness.h, the templates), and the
 * source tree the binary was built from (cli.h). LABGRADER_HOME wins; then a build tree
 * around the binary; then the installed data under LG_DATADIR.
 */
#include "cli/cli.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#ifndef LG_DATADIR
#define LG_DATADIR "/usr/local/share/labgrader"
#endif

void home_release(struct home *h)
{
    free(h->harness_dir);
    free(h->include_dir);
    free(h->templates_dir);
    memset(h, 0, sizeof(*h));
}

static char *self_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *dir = xstrdup(exe);
    *strrchr(dir, '/') = '\0';
    return dir;
}

/* A build tree: <root>/build[/asan]/grader with its harness beside it. */
static bool find_build_tree(struct home *h, const char *dir)
{
    char *root = xstrdup(dir);
    for (int up = 0; up < 3; up++) {
        char *probe = xstrfmt("%s/grader/harness/harness.h", root);
        bool found = file_exists(probe);
        free(probe);
        if (found) {
            h->harness_dir = path_join(dir, "harness");
            h->include_dir = xstrfmt("%s/grader/harness", root);
            h->templates_dir = xstrfmt("%s/templates", root);
            free(root);
            return true;
        }
        char *slash = strrchr(root, '/');
        if (!slash || slash == root)
            break;
        *slash = '\0';
    }
    free(root);
    return false;
}

int home_find(struct home *h, struct error *err)
{
    const char *env = getenv("LABGRADER_HOME");
    memset(h, 0, sizeof(*h));
    if (env && *env) {
        h->harness_dir = path_join(env, "harness");
        h->include_dir = path_join(env, "include");
        h->templates_dir = path_join(env, "templates");
        return 0;
    }
    char *dir = self_dir();
    bool found = dir && find_build_tree(h, dir);
    free(dir);
    if (found)
        return 0;
    h->harness_dir = xstrdup(LG_DATADIR "/harness");
    h->include_dir = xstrdup(LG_DATADIR "/include");
    h->templates_dir = xstrdup(LG_DATADIR "/templates");
    if (!dir_exists(h->harness_dir))
        return error_set(err,
                         "cannot find labgrader's data (looked next to the program and in "
                         "%s): set LABGRADER_HOME",
                         LG_DATADIR);
    return 0;
}

char *home_repo_root(void)
{
    char *root = self_dir();
    if (root) {
        for (int up = 0; up < 4; up++) {
            char *probe = xstrfmt("%s/grader/deps.sh", root);
            bool found = file_exists(probe);
            free(probe);
            if (found)
                return root;
            char *slash = strrchr(root, '/');
            if (!slash || slash == root)
                break;
            *slash = '\0';
        }
        free(root);
    }
    return xstrdup(".");
}
