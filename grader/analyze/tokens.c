/* tokens: libclang's lexer over one file, loaded at run time. See tokens.h. */
#include "analyze/tokens.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void token_list_init(struct token_list *l)
{
    memset(l, 0, sizeof(*l));
}

void token_list_release(struct token_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].text);
    free(l->items);
    free(l->source);
    memset(l, 0, sizeof(*l));
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

enum src_lang src_lang_of(const char *path)
{
    static const char *const cxx[] = {".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", NULL};
    if (ends_with(path, ".cu") || ends_with(path, ".cuh"))
        return SRC_CUDA;
    for (size_t i = 0; cxx[i]; i++)
        if (ends_with(path, cxx[i]))
            return SRC_CXX;
    return SRC_C;
}

size_t tokens_skip_comments(const struct token_list *l, size_t i)
{
    while (i < l->n && l->items[i].kind == TOK_COMMENT)
        i++;
    return i;
}

bool tok_is(const struct token_list *l, size_t i, const char *s)
{
    return i < l->n && !strcmp(l->items[i].text, s);
}

/* Append a token of the source's bytes [off, off + len). */
static void push_token(struct token_list *l, enum tok_kind kind, size_t off, size_t len)
{
    ALLOC_GROW(l->items, l->n + 1, l->alloc);
    struct token *t = &l->items[l->n++];
    t->kind = kind;
    t->text = xstrndup(l->source + off, len);
    t->offset = (unsigned)off;
    t->len = (unsigned)len;
    t->line = t->col = 0;
}

/* Line and column of every token, from its offset. */
static void set_positions(struct token_list *l)
{
    unsigned line = 1, col = 1;
    size_t at = 0;
    for (size_t i = 0; i < l->n; i++) {
        for (; at < l->items[i].offset; at++) {
            if (l->source[at] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        l->items[i].line = line;
        l->items[i].col = col;
    }
}

/*
 * What clang is given: the source with every '#' (and the digraph "%:") turned into a
 * space, so that no directive is ever run. Without it, clang's parser (which has to run
 * for clang_tokenize to have a file) would expand a submission's macros: forty doubling
 * defines took minutes. Lengths and offsets are unchanged; spellings are taken from the
 * real source, and the '#' tokens are put back from the gaps between clang's tokens.
 */
static char *defused_copy(const char *text, size_t len)
{
    char *s = xmalloc(len + 1);
    memcpy(s, text, len);
    s[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '#')
            s[i] = ' ';
        else if (s[i] == '%' && i + 1 < len && s[i + 1] == ':')
            s[i] = s[i + 1] = ' ';
    }
    return s;
}

/* The '#', '##', '%:' tokens in the source's bytes [from, to), which hold no other token. */
static void push_hashes(struct token_list *l, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        const char *s = l->source;
        if (s[i] == '#') {
            size_t n = i + 1 < to && s[i + 1] == '#' ? 2 : 1;
            push_token(l, TOK_PUNCT, i, n);
            i += n - 1;
        } else if (s[i] == '%' && i + 1 < to && s[i + 1] == ':') {
            push_token(l, TOK_PUNCT, i, 2);
            i++;
        }
    }
}

/*
 * The part of libclang's C API used here, declared from clang-c/Index.h (LLVM 14) rather than
 * included: that API's ABI is kept stable across versions, and declaring it means the grader
 * builds without libclang's development headers and runs wherever the library itself is
 * (libclang1-N on Debian, installed with clang's tools).
 */
typedef void *CXIndex;
typedef struct CXTranslationUnitImpl *CXTranslationUnit;
typedef void *CXFile;
typedef struct {
    const void *ptr_data[2];
    unsigned int_data;
} CXSourceLocation;
typedef struct {
    const void *ptr_data[2];
    unsigned begin_int_data;
    unsigned end_int_data;
} CXSourceRange;
typedef struct {
    unsigned int_data[4];
    void *ptr_data;
} CXToken;
struct CXUnsavedFile {
    const char *Filename;
    const char *Contents;
    unsigned long Length;
};
enum {
    CX_TOKEN_PUNCTUATION,
    CX_TOKEN_KEYWORD,
    CX_TOKEN_IDENTIFIER,
    CX_TOKEN_LITERAL,
    CX_TOKEN_COMMENT
};
enum {
    CX_TU_INCOMPLETE = 0x02,
    CX_TU_SKIP_FUNCTION_BODIES = 0x40,
    CX_TU_SINGLE_FILE_PARSE = 0x400
};

#ifndef LG_LIBCLANG_SO
#define LG_LIBCLANG_SO "libclang.so"
#endif

/* The few entry points used, looked up by name in the library. */
static struct {
    void *handle;
    bool tried;
    char why[512];
    CXIndex index;
    CXIndex (*createIndex)(int, int);
    int (*parse)(CXIndex, const char *, const char *const *, int, struct CXUnsavedFile *, unsigned,
                 unsigned, CXTranslationUnit *);
    void (*disposeTU)(CXTranslationUnit);
    CXFile (*getFile)(CXTranslationUnit, const char *);
    CXSourceLocation (*locationForOffset)(CXTranslationUnit, CXFile, unsigned);
    CXSourceRange (*getRange)(CXSourceLocation, CXSourceLocation);
    void (*tokenize)(CXTranslationUnit, CXSourceRange, CXToken **, unsigned *);
    void (*disposeTokens)(CXTranslationUnit, CXToken *, unsigned);
    int (*tokenKind)(CXToken);
    CXSourceRange (*tokenExtent)(CXTranslationUnit, CXToken);
    CXSourceLocation (*rangeStart)(CXSourceRange);
    CXSourceLocation (*rangeEnd)(CXSourceRange);
    void (*fileLocation)(CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *);
} lc;

static void *open_library(void)
{
    static const char *const names[] = {LG_LIBCLANG_SO, "libclang.so", "libclang.so.1", NULL};
    char versioned[64];
    for (size_t i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    /* Debian's runtime packages (libclang1-N), newest first, then LLVM's own folders. */
    for (int v = 30; v >= 11; v--) {
        snprintf(versioned, sizeof(versioned), "libclang-%d.so.1", v);
        void *h = dlopen(versioned, RTLD_NOW | RTLD_LOCAL);
        snprintf(versioned, sizeof(versioned), "/usr/lib/llvm-%d/lib/libclang.so.1", v);
        if (!h)
            h = dlopen(versioned, RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

#define LC_SYM(field, name)                                                                        \
    do {                                                                                           \
        *(void **)&lc.field = dlsym(lc.handle, name);                                              \
        if (!lc.field) {                                                                           \
            snprintf(lc.why, sizeof(lc.why), "libclang lacks %s: install a newer libclang-dev",    \
                     name);                                                                        \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static bool load_symbols(void)
{
    LC_SYM(createIndex, "clang_createIndex");
    LC_SYM(parse, "clang_parseTranslationUnit2");
    LC_SYM(disposeTU, "clang_disposeTranslationUnit");
    LC_SYM(getFile, "clang_getFile");
    LC_SYM(locationForOffset, "clang_getLocationForOffset");
    LC_SYM(getRange, "clang_getRange");
    LC_SYM(tokenize, "clang_tokenize");
    LC_SYM(disposeTokens, "clang_disposeTokens");
    LC_SYM(tokenKind, "clang_getTokenKind");
    LC_SYM(tokenExtent, "clang_getTokenExtent");
    LC_SYM(rangeStart, "clang_getRangeStart");
    LC_SYM(rangeEnd, "clang_getRangeEnd");
    LC_SYM(fileLocation, "clang_getFileLocation");
    return true;
}

static bool load(void)
{
    if (lc.tried)
        return lc.index != NULL;
    lc.tried = true;
    lc.handle = open_library();
    if (!lc.handle) {
        snprintf(lc.why, sizeof(lc.why),
                 "libclang is not installed (looked for %s, libclang-N.so.1 and "
                 "/usr/lib/llvm-N/lib): install it with 'sudo apt-get install libclang-dev' "
                 "(or: grader/deps.sh analyze)",
                 LG_LIBCLANG_SO);
        return false;
    }
    if (!load_symbols())
        return false;
    lc.index = lc.createIndex(0, 0);
    if (!lc.index)
        snprintf(lc.why, sizeof(lc.why), "libclang could not create an index");
    return lc.index != NULL;
}

bool tokens_available(char *why, size_t why_size)
{
    bool ok = load();
    if (!ok && why)
        snprintf(why, why_size, "%s", lc.why);
    return ok;
}

static enum tok_kind kind_of(int k)
{
    switch (k) {
    case CX_TOKEN_KEYWORD:
        return TOK_KEYWORD;
    case CX_TOKEN_IDENTIFIER:
        return TOK_IDENT;
    case CX_TOKEN_LITERAL:
        return TOK_LITERAL;
    case CX_TOKEN_COMMENT:
        return TOK_COMMENT;
    default:
        return TOK_PUNCT;
    }
}

/* The translation unit of the defused text: C, C++ or CUDA host code, no header read. */
static CXTranslationUnit parse_unit(const char *text, size_t len, enum src_lang lang,
                                    const char **vname)
{
    static const char *const c_args[] = {"-x", "c", "-w", "-nostdinc", "-ferror-limit=1"};
    static const char *const cxx_args[] = {"-x", "c++", "-w", "-nostdinc", "-ferror-limit=1"};
    /* Host-side CUDA, without the CUDA headers or libraries: clang needs no CUDA
     * installation (or one of a version it knows) for that. */
    static const char *const cuda_args[] = {"-x",         "cuda",       "--cuda-host-only",
                                            "-nocudainc", "-nocudalib", "--no-cuda-version-check",
                                            "-w",         "-nostdinc",  "-ferror-limit=1"};
    const char *const *args = lang == SRC_CUDA ? cuda_args : lang == SRC_CXX ? cxx_args : c_args;
    int nargs = lang == SRC_CUDA ? 9 : 5;
    *vname = lang == SRC_CUDA ? "lg-input.cu" : lang == SRC_CXX ? "lg-input.cpp" : "lg-input.c";
    struct CXUnsavedFile file = {*vname, text, (unsigned long)len};
    CXTranslationUnit tu = NULL;
    unsigned flags = CX_TU_SINGLE_FILE_PARSE | CX_TU_INCOMPLETE | CX_TU_SKIP_FUNCTION_BODIES;
    if (lc.parse(lc.index, *vname, args, nargs, &file, 1, flags, &tu) != 0)
        return NULL;
    return tu;
}

/* clang's tokens of the whole file, in order, with the '#' tokens put back. */
static void collect_tokens(CXTranslationUnit tu, CXFile file, struct token_list *out)
{
    CXSourceRange all = lc.getRange(lc.locationForOffset(tu, file, 0),
                                    lc.locationForOffset(tu, file, (unsigned)out->source_len));
    CXToken *toks = NULL;
    unsigned n = 0;
    size_t at = 0;
    lc.tokenize(tu, all, &toks, &n);
    for (unsigned i = 0; i < n; i++) {
        CXSourceRange r = lc.tokenExtent(tu, toks[i]);
        unsigned b = 0, e = 0;
        lc.fileLocation(lc.rangeStart(r), NULL, NULL, NULL, &b);
        lc.fileLocation(lc.rangeEnd(r), NULL, NULL, NULL, &e);
        if (e <= b || e > out->source_len || b < at)
            continue;
        push_hashes(out, at, b);
        push_token(out, kind_of(lc.tokenKind(toks[i])), b, e - b);
        at = e;
    }
    push_hashes(out, at, out->source_len);
    if (toks)
        lc.disposeTokens(tu, toks, n);
}

int tokens_lex(const char *name, const char *text, size_t len, enum src_lang lang,
               struct token_list *out, struct error *err)
{
    const char *vname;
    if (!load())
        return error_set(err, "%s: %s", name, lc.why);
    if (len >= 0x7fffffffu)
        return error_set(err, "%s: too large to compare (%zu bytes)", name, len);
    token_list_release(out);
    out->source = xstrndup(text, len);
    out->source_len = len;
    char *defused = defused_copy(text, len);
    CXTranslationUnit tu = parse_unit(defused, len, lang, &vname);
    if (!tu) {
        free(defused);
        return error_set(err, "%s: libclang could not read it", name);
    }
    CXFile file = lc.getFile(tu, vname);
    if (file)
        collect_tokens(tu, file, out);
    lc.disposeTU(tu);
    free(defused);
    if (!file)
        return error_set(err, "%s: libclang lost the file", name);
    set_positions(out);
    return 0;
}

int tokens_lex_file(const char *path, struct token_list *out, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    if (read_file(path, &sb, err) != 0)
        return -1;
    int rc = tokens_lex(path, strbuf_str(&sb), sb.len, src_lang_of(path), out, err);
    strbuf_release(&sb);
    return rc;
}
