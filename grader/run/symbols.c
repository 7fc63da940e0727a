#include "run/symbols.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void symbol_set_init(struct symbol_set *s)
{
    memset(s, 0, sizeof(*s));
}

void symbol_set_release(struct symbol_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->entries[i].name);
    free(s->entries);
    symbol_set_init(s);
}

void symbol_set_add(struct symbol_set *s, const char *name, const char *origin)
{
    ALLOC_GROW(s->entries, s->n + 1, s->alloc);
    s->entries[s->n].name = xstrdup(name);
    s->entries[s->n].origin = origin;
    s->n++;
    s->sorted = false;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct symbol_entry *)a)->name, ((const struct symbol_entry *)b)->name);
}

const char *symbol_set_find(struct symbol_set *s, const char *name)
{
    if (!s->sorted && s->n) {
        qsort(s->entries, s->n, sizeof(*s->entries), cmp_entry);
        s->sorted = true;
    }
    struct symbol_entry key = {(char *)name, NULL};
    const struct symbol_entry *e =
        s->n ? bsearch(&key, s->entries, s->n, sizeof(*s->entries), cmp_entry) : NULL;
    return e ? e->origin : NULL;
}

/* ---- ELF, read defensively ---- */

struct elf_view {
    const unsigned char *data;
    size_t size;
    const Elf64_Shdr *sections;
    size_t n_sections;
};

static bool in_file(const struct elf_view *v, uint64_t off, uint64_t len)
{
    return off <= v->size && len <= v->size - off;
}

static int elf_open(struct elf_view *v, const unsigned char *data, size_t size, const char *path,
                    struct error *err)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    v->data = data;
    v->size = size;
    if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return error_set_at(err, path, 0, 0, "not a 64-bit little-endian ELF file");
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % 8 != 0 ||
        !in_file(v, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return error_set_at(err, path, 0, 0, "malformed ELF section table");
    v->sections = (const Elf64_Shdr *)(data + eh->e_shoff);
    v->n_sections = eh->e_shnum;
    return 0;
}

/* The symbols of one symbol table section, sorted into defined and undefined globals. */
static int elf_symbols(const struct elf_view *v, const Elf64_Shdr *tab, const char *path,
                       const char *origin, struct symbol_set *defined, struct symbol_set *undefined,
                       struct error *err)
{
    if (tab->sh_link >= v->n_sections || tab->sh_entsize != sizeof(Elf64_Sym) ||
        tab->sh_offset % 8 != 0 || !in_file(v, tab->sh_offset, tab->sh_size))
        return error_set_at(err, path, 0, 0, "malformed ELF symbol table");
    const Elf64_Shdr *strs = &v->sections[tab->sh_link];
    if (!in_file(v, strs->sh_offset, strs->sh_size) || strs->sh_size == 0 ||
        v->data[strs->sh_offset + strs->sh_size - 1] != '\0')
        return error_set_at(err, path, 0, 0, "malformed ELF string table");
    const Elf64_Sym *syms = (const Elf64_Sym *)(v->data + tab->sh_offset);
    const char *names = (const char *)(v->data + strs->sh_offset);
    for (size_t i = 1; i < tab->sh_size / sizeof(Elf64_Sym); i++) {
        unsigned bind = ELF64_ST_BIND(syms[i].st_info), type = ELF64_ST_TYPE(syms[i].st_info);
        if ((bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
            type == STT_SECTION || type == STT_FILE || syms[i].st_name >= strs->sh_size)
            continue;
        const char *name = names + syms[i].st_name;
        if (!*name)
            continue;
        if (syms[i].st_shndx != SHN_UNDEF)
            symbol_set_add(defined, name, origin);
        else if (undefined)
            symbol_set_add(undefined, name, origin);
    }
    return 0;
}

static int elf_read(const unsigned char *data, size_t size, const char *path, unsigned want,
                    const char *origin, struct symbol_set *defined, struct symbol_set *undefined,
                    struct error *err)
{
    struct elf_view v = {0};
    if (elf_open(&v, data, size, path, err) != 0)
        return -1;
    for (size_t i = 0; i < v.n_sections; i++)
        if (v.sections[i].sh_type == want &&
            elf_symbols(&v, &v.sections[i], path, origin, defined, undefined, err) != 0)
            return -1;
    return 0;
}

int symbols_read_object_bytes(const unsigned char *data, size_t size, const char *path,
                              struct symbol_set *defined, struct symbol_set *undefined,
                              struct error *err)
{
    return elf_read(data, size, path, SHT_SYMTAB, NULL, defined, undefined, err);
}

int symbols_read_object(const char *path, struct symbol_set *defined, struct symbol_set *undefined,
                        struct error *err)
{
    struct strbuf data = STRBUF_INIT;
    int rc = read_file(path, &data, err);
    if (rc == 0)
        rc = symbols_read_object_bytes((const unsigned char *)data.buf, data.len, path, defined,
                                       undefined, err);
    strbuf_release(&data);
    return rc;
}

/* An ar archive: the global symbols every ELF member defines. */
static int read_archive(const unsigned char *p, size_t size, const char *path, const char *origin,
                        struct symbol_set *out, struct error *err)
{
    size_t off = 8; /* "!<arch>\n" */
    while (off + 60 <= size) {
        char len_text[11];
        memcpy(len_text, p + off + 48, 10);
        len_text[10] = '\0';
        char *end;
        unsigned long long len = strtoull(len_text, &end, 10);
        if (memcmp(p + off + 58, "`\n", 2) != 0 || len > size - off - 60)
            return error_set_at(err, path, 0, 0, "malformed archive member header");
        const unsigned char *member = p + off + 60;
        if (len >= SELFMAG && !memcmp(member, ELFMAG, SELFMAG)) {
            struct error ignored;
            error_init(&ignored);
            /* A member that is not a relocatable object we can read contributes nothing. */
            elf_read(member, (size_t)len, path, SHT_SYMTAB, origin, out, NULL, &ignored);
        }
        off += 60 + (size_t)len + (len & 1);
    }
    return 0;
}

static int parse_library(const unsigned char *p, size_t len, const char *path, const char *origin,
                         struct symbol_set *out, struct error *err)
{
    if (len >= 8 && !memcmp(p, "!<arch>\n", 8))
        return read_archive(p, len, path, origin, out, err);
    return elf_read(p, len, path, SHT_DYNSYM, origin, out, NULL, err);
}

/* The library is mapped, not read: cuBLASLt alone is over 500 MB, of which the dynamic symbols
 * are a few pages, and reading it whole took seconds of every student build. */
int symbols_read_library(const char *path, const char *origin, struct symbol_set *out,
                         struct error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (map != MAP_FAILED) {
            int rc = parse_library(map, (size_t)st.st_size, path, origin, out, err);
            munmap(map, (size_t)st.st_size);
            return rc;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    struct strbuf data = STRBUF_INIT;
    int rc = read_file(path, &data, err);
    if (rc == 0)
        rc = parse_library((const unsigned char *)data.buf, data.len, path, origin, out, err);
    strbuf_release(&data);
    return rc;
}

/* ---- what a student may define and use ---- */

static const struct {
    const char *file;
    const char *origin;
} libraries[] = {
    {"libc.so.6", "the C library"},
    {"libm.so.6", "the C math library"},
    {"libpthread.so.0", "the C library (threads)"},
    {"librt.so.1", "the C library (real-time)"},
    {"libdl.so.2", "the C library (dynamic loading)"},
    {"libcudart.so", "the CUDA runtime"},
    {"libcudart_static.a", "the CUDA runtime"},
    {"libcuda.so.1", "the CUDA driver"},
    {"libcublas.so", "cuBLAS"},
    {"libcublasLt.so", "cuBLAS"},
    {"libopenblas.so.0", "OpenBLAS"},
    {"libopenblas.so", "OpenBLAS"},
};

/* Where libraries live: this machine's usual folders, CUDA's, and LD_LIBRARY_PATH. */
static void library_dirs(const char *cuda_home, struct strbuf *dirs)
{
    static const char *const fixed[] = {"/lib/x86_64-linux-gnu",
                                        "/usr/lib/x86_64-linux-gnu",
                                        "/usr/lib/x86_64-linux-gnu/openblas-pthread",
                                        "/lib/aarch64-linux-gnu",
                                        "/usr/lib/aarch64-linux-gnu",
                                        "/lib64",
                                        "/usr/lib64",
                                        "/usr/local/nvidia/lib64",
                                        NULL};
    const char *ld = getenv("LD_LIBRARY_PATH");
    if (ld && *ld)
        strbuf_addf(dirs, "%s:", ld);
    if (cuda_home)
        strbuf_addf(dirs, "%s/lib64:%s/targets/x86_64-linux/lib:", cuda_home, cuda_home);
    for (size_t i = 0; fixed[i]; i++)
        strbuf_addf(dirs, "%s:", fixed[i]);
}

void symbols_reserved(const char *cuda_home, struct symbol_set *out)
{
    struct strbuf dirs = STRBUF_INIT;
    library_dirs(cuda_home, &dirs);
    for (size_t l = 0; l < sizeof(libraries) / sizeof(libraries[0]); l++) {
        char *copy = xstrdup(strbuf_str(&dirs)), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            char *path = path_join(d, libraries[l].file);
            struct error err;
            error_init(&err);
            bool found = file_exists(path) &&
                         symbols_read_library(path, libraries[l].origin, out, &err) == 0;
            free(path);
            if (found)
                break;
        }
        free(copy);
    }
    strbuf_release(&dirs);
}

/* What the harness reads the time or the GPU's progress with (grader/harness/). */
static bool times_you(const char *name)
{
    static const char *const clocks[] = {"clock_gettime",
                                         "gettimeofday",
                                         "time",
                                         "clock",
                                         "timespec_get",
                                         "clock_getres",
                                         "__clock_gettime",
                                         "__vdso_clock_gettime",
                                         "getauxval",
                                         "nanosleep",
                                         NULL};
    for (size_t i = 0; clocks[i]; i++)
        if (!strcmp(name, clocks[i]))
            return true;
    return !strncmp(name, "cudaEvent", 9) || !strncmp(name, "cudaDeviceSynchronize", 21) ||
           !strncmp(name, "cudaStreamSynchronize", 21) || !strncmp(name, "cuEvent", 7) ||
           !strncmp(name, "cuCtxSynchronize", 16) || !strncmp(name, "nvml", 4);
}

static bool is_loader(const char *name)
{
    static const char *const loader[] = {"dlopen", "dlmopen",         "dlsym", "dlvsym",
                                         "dlinfo", "dl_iterate_phdr", NULL};
    for (size_t i = 0; loader[i]; i++)
        if (!strcmp(name, loader[i]))
            return true;
    return false;
}

enum symbol_verdict symbols_check_definition(const char *name, struct symbol_set *reserved,
                                             struct symbol_set *allowed, const char **origin)
{
    *origin = NULL;
    if (allowed && symbol_set_find(allowed, name))
        return SYMBOL_OK;
    if (!strncmp(name, "lg_", 3) || !strcmp(name, "main"))
        return SYMBOL_HARNESS;
    if (times_you(name))
        return SYMBOL_TIMES_YOU;
    if (is_loader(name))
        return SYMBOL_LOADER;
    *origin = symbol_set_find(reserved, name);
    return *origin ? SYMBOL_LIBRARY : SYMBOL_OK;
}

enum symbol_verdict symbols_check_use(const char *name)
{
    if (!strncmp(name, "lg_", 3))
        return SYMBOL_HARNESS;
    return is_loader(name) ? SYMBOL_LOADER : SYMBOL_OK;
}
