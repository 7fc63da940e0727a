/*
 * sha256: digests for cache keys, stamps and checksums (FIPS 180-4).
 */
#ifndef LG_SHA256_H
#define LG_SHA256_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

/* SHA-256, as 64 lowercase hex characters plus NUL. */
struct sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final_hex(struct sha256 *s, char out[65]);
int sha256_file(struct sha256 *s, const char *path, struct error *err);

#endif
