#include "seal.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

uint64_t lg_seal_samples(uint64_t h, const double *x, size_t n)
{
    char text[64];
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(text, sizeof(text), " " LG_SEAL_SAMPLE_FORMAT, x[i]);
        if (len > 0 && (size_t)len < sizeof(text))
            h = fnv(h, (const unsigned char *)text, (size_t)len);
    }
    return h;
}

/* The vDSO's loaded segment is its code and read-only data; the clock's data live in the
 * separate vvar mapping, so the digest is the same in every process of one kernel. */
uint64_t lg_seal_vdso(void)
{
    uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!base)
        return 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
        return 0;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD)
            return fnv(LG_SEAL_START, (const unsigned char *)(base + ph[i].p_offset),
                       ph[i].p_filesz);
    return 0;
}
