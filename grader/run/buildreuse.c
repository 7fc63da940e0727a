/*
 * buildreuse: a student build's compile and link steps taken from the object cache
 * (run/objcache.h) where every input is as it was, run and kept otherwise.
 *
 * A compile's inputs are what its dependency output lists. A link's are the files named on
 * its command line: objects and the driver (in the build folder, by digest, and part of the
 * key, so that each set of objects keeps a runner of its own), the harness's
 * archive and object (by size and modification time, as for system headers); libraries found
 * through -l are identified by the compilers' versions only, as the build cache does
 * (grade/buildcache.c). So a check after an edit to one source compiles and links only the
 * variants built from it; the others' runners, byte for byte what their link would write, come
 * from the cache, and so do the generated drivers of every build after the first.
 */
#include "run/build_internal.h"
#include "run/objcache.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What else decides an object besides its command and sources: the compilers and the
 * environment they search (objcache.h). */
static char *compile_versions(const struct toolchain *tc)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s\n%s\n%s\n%s\n", tc->cc ? tc->cc : "-",
                tc->cc_version ? tc->cc_version : "-", tc->nvcc ? tc->nvcc : "-",
                tc->nvcc_version ? tc->nvcc_version : "-");
    for (size_t i = 0; tc->env && tc->env[i]; i++)
        strbuf_addf(&sb, "%s\n", tc->env[i]);
    return strbuf_detach(&sb);
}

/* The cache entry for a step writing output (relative to the build folder), keyed by its
 * command and the content of key_input; false where this build keeps no cache. */
static bool entry_for(struct build_ctx *b, const struct argv_list *cmd, const char *output,
                      const char *key_input, const char *more_key, struct objcache_entry *e)
{
    if (b->reference || !b->cache_dir)
        return false;
    /* An input the cache cannot read is left to the compiler to complain about. */
    struct error ignored;
    error_init(&ignored);
    char *versions = compile_versions(b->tc);
    if (more_key) {
        char *both = xstrfmt("%s%s", versions, more_key);
        free(versions);
        versions = both;
    }
    bool use = objcache_entry_init(e, b->cache_dir, b->dir, (const char *const *)cmd->v, output,
                                   key_input, versions, &ignored) == 0;
    free(versions);
    return use;
}

int build_compile_cached(struct build_ctx *b, struct argv_list *cmd, const char *src_path,
                         const char *object, struct strbuf *log, bool *ok, struct error *err)
{
    struct objcache_entry e;
    char *cached = NULL, *dep = NULL;
    bool use = entry_for(b, cmd, object, src_path, NULL, &e);
    if (use && objcache_load(&e, object, &cached)) {
        strbuf_addstr(log, cached);
        free(cached);
        objcache_entry_release(&e);
        *ok = true;
        return 0;
    }
    if (use) {
        dep = xstrfmt("%s.d", object);
        argv_list_push(cmd, "-MD");
        argv_list_push(cmd, "-MF");
        argv_list_push(cmd, dep);
    }
    int rc = build_tool_run(b, cmd, log, ok, err);
    if (use && rc == 0 && *ok)
        objcache_store(&e, object, dep, strbuf_str(log));
    if (use)
        objcache_entry_release(&e);
    free(dep);
    return rc;
}

/* A path in make's dependency syntax (objcache.c's next_dep undoes it). */
static void add_dep_name(struct strbuf *sb, const char *path)
{
    strbuf_addch(sb, ' ');
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == '\\')
            strbuf_addch(sb, '\\');
        else if (*p == '$')
            strbuf_addch(sb, '$');
        strbuf_addch(sb, *p);
    }
}

/* The absolute path of cmd's argument a when it is one of the link's input files (not a flag,
 * not the output, a regular file in the build folder or elsewhere); NULL otherwise. */
static char *link_input(const struct build_ctx *b, const char *a, const char *output)
{
    if (a[0] == '-' || !strcmp(a, output))
        return NULL;
    char *abs = a[0] == '/' ? xstrdup(a) : path_join(b->dir, a);
    struct stat st;
    if (stat(abs, &st) == 0 && S_ISREG(st.st_mode))
        return abs;
    free(abs);
    return NULL;
}

/* A dependency file listing the link's inputs. false when it cannot be written (the link is
 * then not kept). */
static bool write_link_deps(const struct build_ctx *b, const struct argv_list *cmd,
                            const char *output, const char *dep)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s:", output);
    for (size_t i = 1; i < cmd->n; i++) {
        char *abs = link_input(b, cmd->v[i], output);
        if (abs)
            add_dep_name(&sb, cmd->v[i]);
        free(abs);
    }
    strbuf_addch(&sb, '\n');
    char *path = path_join(b->dir, dep);
    bool ok = write_file_atomic(path, sb.buf, sb.len, NULL) == 0;
    free(path);
    strbuf_release(&sb);
    return ok;
}

/* The digests of the link's inputs in the build folder, a line each: part of its key, so that
 * two versions of a source a student goes back and forth between keep a runner each. */
static char *input_digests(const struct build_ctx *b, const struct argv_list *cmd,
                           const char *output)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 1; i < cmd->n; i++) {
        char *abs = cmd->v[i][0] == '/' ? NULL : link_input(b, cmd->v[i], output), hex[65];
        struct sha256 h;
        sha256_init(&h);
        if (abs && sha256_file(&h, abs, NULL) == 0) {
            sha256_final_hex(&h, hex);
            strbuf_addf(&sb, "%s %s\n", hex, cmd->v[i]);
        }
        free(abs);
    }
    return strbuf_detach(&sb);
}

int build_link_cached(struct build_ctx *b, struct argv_list *cmd, const char *output,
                      const char *key_input, struct strbuf *log, bool *ok, struct error *err)
{
    struct objcache_entry e;
    char *cached = NULL,
         *inputs = b->reference || !b->cache_dir ? NULL : input_digests(b, cmd, output);
    bool use = entry_for(b, cmd, output, key_input, inputs, &e);
    free(inputs);
    if (use && objcache_load(&e, output, &cached)) {
        strbuf_addstr(log, cached);
        free(cached);
        objcache_entry_release(&e);
        *ok = true;
        return 0;
    }
    int rc = build_tool_run(b, cmd, log, ok, err);
    if (use && rc == 0 && *ok) {
        char *dep = xstrfmt("%s.d", output);
        if (write_link_deps(b, cmd, output, dep))
            objcache_store(&e, output, dep, strbuf_str(log));
        free(dep);
    }
    if (use)
        objcache_entry_release(&e);
    return rc;
}
