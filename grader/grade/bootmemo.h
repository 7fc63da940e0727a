/*
 * bootmemo: what a probe of this machine said, remembered for the rest of the boot. Each
 * check used to start two helper programs before grading anything: the GPU probe (a CUDA
 * context, about 0.35 s on an H100) and the BLAS core query (OpenBLAS and cuBLAS loaded).
 * Their answers change only with the machine: the key covers the boot (boot_id), the
 * program's identity (device, inode, size, modification time) and whatever else the caller
 * names (the driver's version, CUDA_VISIBLE_DEVICES). An entry is sealed like the rest of the
 * cache (cache.h) and trusted for BOOTMEMO_MAX_AGE_S at most, so that a GPU taken by another
 * user or a changed setting is seen again within the hour. Only answers worth keeping are
 * stored (the caller decides: a GPU that answered, a core that parsed).
 */
#ifndef LG_BOOTMEMO_H
#define LG_BOOTMEMO_H

#include "base/error.h"

#include <stddef.h>

#define BOOTMEMO_MAX_AGE_S 3600

/* <cache_dir>/machine/<name>-<key>.txt, or NULL when the program cannot be identified (no
 * memo then). extra: n strings (NULL allowed) the answer also depends on. Caller frees. */
char *bootmemo_path(const char *cache_dir, const char *name, const char *program,
                    const char *const *extra, size_t n_extra);
/* The remembered text (caller frees), or NULL: none, damaged (discarded), or too old. */
char *bootmemo_read(const char *path);
/* Forget what path remembers (the GPU it names failed a run): the next process probes again. */
void bootmemo_forget(const char *path);
/* Remember text at path (atomically, sealed). */
int bootmemo_write(const char *path, const char *text, struct error *err);

#endif
