/*
 * Shared helpers of the libFuzzer harnesses (tests/fuzz/README.md): the loaders under test
 * read files, so each input is written to a file in this process's scratch folder (on
 * /dev/shm when there is one) and loaded from there.
 */
#ifndef LG_FUZZ_H
#define LG_FUZZ_H

#include "base/alloc.h"
#include "base/fs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* This process's scratch folder, made on first use and kept. */
static inline const char *fuzz_dir(void)
{
    static char *dir;
    if (!dir) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        dir = xstrfmt("%s/lg-fuzz-%ld-XXXXXX", base, (long)getpid());
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
    }
    return dir;
}

/* dir/name holding exactly data; the path (caller frees). Aborts when it cannot be written:
 * a harness that cannot write its input tests nothing. */
static inline char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    char *path = path_join(fuzz_dir(), name);
    if (write_file_atomic(path, data, size, NULL) != 0) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        abort();
    }
    return path;
}

/* A property the code under test must keep: a failure is a finding, like a crash. */
#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__, __LINE__, #cond);                       \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
