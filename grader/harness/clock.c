#include "clock.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>

typedef int (*vdso_gettime_fn)(clockid_t, struct timespec *);
static vdso_gettime_fn vdso_gettime;

/* The vDSO's dynamic section: where its symbol table and strings are. */
static const Elf64_Dyn *vdso_dynamic(uintptr_t base, uintptr_t *load_offset)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    const Elf64_Dyn *dyn = NULL;
    int have_load = 0;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
        return NULL;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !have_load) {
            *load_offset = base + ph[i].p_offset - ph[i].p_vaddr;
            have_load = 1;
        }
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
    }
    return have_load ? dyn : NULL;
}

void lg_clock_init(void)
{
    uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR), off = 0;
    const Elf64_Dyn *dyn = base ? vdso_dynamic(base, &off) : NULL;
    const char *strtab = NULL;
    const Elf64_Sym *symtab = NULL;
    const uint32_t *hash = NULL;
    for (const Elf64_Dyn *d = dyn; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)(off + d->d_un.d_ptr);
        else if (d->d_tag == DT_SYMTAB)
            symtab = (const Elf64_Sym *)(off + d->d_un.d_ptr);
        else if (d->d_tag == DT_HASH)
            hash = (const uint32_t *)(off + d->d_un.d_ptr);
    }
    /* Without DT_HASH the symbol count is not at hand: the system call will do. */
    if (!strtab || !symtab || !hash)
        return;
    for (uint32_t i = 0; i < hash[1]; i++) {
        const char *name = strtab + symtab[i].st_name;
        if (ELF64_ST_TYPE(symtab[i].st_info) == STT_FUNC && symtab[i].st_value &&
            (!strcmp(name, "__vdso_clock_gettime") || !strcmp(name, "__kernel_clock_gettime"))) {
            vdso_gettime = (vdso_gettime_fn)(off + symtab[i].st_value);
            return;
        }
    }
}

static int raw_clock_gettime(clockid_t id, struct timespec *ts)
{
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_clock_gettime), "D"((long)id), "S"(ts)
                     : "rcx", "r11", "memory");
    return (int)ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_clock_gettime;
    register long x0 __asm__("x0") = (long)id;
    register long x1 __asm__("x1") = (long)ts;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
    return (int)x0;
#else
    return clock_gettime(id, ts);
#endif
}

double lg_now_ms(void)
{
    struct timespec ts;
    if (!vdso_gettime || vdso_gettime(CLOCK_MONOTONIC, &ts) != 0)
        raw_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *lg_clock_source(void)
{
    return vdso_gettime ? "vdso" : "syscall";
}
