/*
 * objcache: compiled objects of student sources, reused across builds (ccache's idea, kept
 * small), so that a check after an edit to one source compiles that source alone, and two
 * variants built from one source compile it once.
 *
 * An entry is keyed by the compile command (with the build folder's own path written as a
 * placeholder, so that identical starter files of different students share it), the
 * compilers' versions and the source's content. It records every file the compiler read
 * (its dependency output): those inside the build folder with their digest, the others
 * (system and CUDA headers) with their size and modification time; the compiler's output,
 * with the build folder's path as a placeholder again; and the object with its digest. A
 * lookup hits only when every recorded file is as recorded: an edit to a header recompiles
 * every source that includes it. Only successful compiles are kept. Entries live in
 * <cache>/objects/, each written whole in a temporary folder renamed into place; a damaged
 * entry is a miss, never an error.
 *
 * Strings returned are the caller's to free.
 */
#ifndef LG_RUN_OBJCACHE_H
#define LG_RUN_OBJCACHE_H

#include "base/error.h"

#include <stdbool.h>

struct objcache_entry {
    char *dir;       /* <cache>/objects/xx/yyyy... */
    char *build_dir; /* the build folder the command runs in (absolute) */
};

/*
 * The entry for one compile: argv the full command (NULL-terminated) run in build_dir,
 * writing object (its name is no part of the key: two variants compiling one source share
 * the entry), source the source's path relative to build_dir, versions the compilers'
 * version strings. Returns -1 (err set) only when the source cannot be read.
 */
int objcache_entry_init(struct objcache_entry *e, const char *cache_dir, const char *build_dir,
                        const char *const *argv, const char *object, const char *source,
                        const char *versions, struct error *err);
void objcache_entry_release(struct objcache_entry *e);

/* On a hit, copy the object to object_path (relative to the build folder) and return true
 * with the compiler's output in *log. */
bool objcache_load(const struct objcache_entry *e, const char *object_path, char **log);

/* Keep a successful compile: its object and dependency file (relative to the build folder)
 * and its output. Best effort: a cache that cannot be written costs only the next compile. */
void objcache_store(const struct objcache_entry *e, const char *object_path, const char *dep_path,
                    const char *log);

#endif
