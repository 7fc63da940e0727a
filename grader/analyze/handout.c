/* handout: the lab's handed-out code and the instructor's own. See handout.h. */
#include "analyze/handout.h"

#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

void lab_code_init(struct lab_code *c)
{
    memset(c, 0, sizeof(*c));
    norm_stream_init(&c->handout);
    norm_stream_init(&c->code);
}

void lab_code_release(struct lab_code *c)
{
    for (size_t i = 0; i < c->n_files; i++) {
        free(c->names[i]);
        free(c->sources[i]);
    }
    for (size_t i = 0; i < c->n_notes; i++)
        free(c->notes[i]);
    free(c->names);
    free(c->sources);
    free(c->notes);
    norm_stream_release(&c->handout);
    norm_stream_release(&c->code);
    lab_code_init(c);
}

static void note(struct lab_code *c, char *msg)
{
    c->notes = xrealloc(c->notes, (c->n_notes + 1) * sizeof(*c->notes));
    c->notes[c->n_notes++] = msg;
}

int handout_lex_file(struct norm_stream *s, const char *path, uint16_t file, char **text,
                     struct error *err)
{
    struct token_list l;
    token_list_init(&l);
    int rc = tokens_lex_file(path, &l, err);
    if (rc == 0) {
        norm_append(s, &l, file);
        if (text)
            *text = xstrndup(l.source, l.source_len);
    }
    token_list_release(&l);
    return rc;
}

static bool c_like(const char *name)
{
    static const char *const exts[] = {".c", ".h", ".cu", ".cuh", ".cc", ".cpp", ".hpp", NULL};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && exts[i]; i++)
        if (!strcmp(dot, exts[i]))
            return true;
    return false;
}

/*
 * The code in l's comments: the source with everything outside comments blanked and the
 * comment markers (// /\* *\/ and a block comment's leading *) turned into spaces, lexed as
 * code. Prose lexes too, into runs of names that match no code; a commented-out statement or
 * a hint's kernel becomes the code a student who types it in writes.
 */
static void comment_code(struct lab_code *c, const struct token_list *l, enum src_lang lang,
                         const char *name)
{
    char *buf = xcalloc(l->source_len + 1, 1);
    for (size_t i = 0; i < l->source_len; i++)
        buf[i] = l->source[i] == '\n' ? '\n' : ' ';
    for (size_t t = 0; t < l->n; t++) {
        const struct token *tk = &l->items[t];
        if (tk->kind != TOK_COMMENT || tk->len < 2)
            continue;
        char *p = buf + tk->offset;
        memcpy(p, l->source + tk->offset, tk->len);
        p[0] = p[1] = ' ';
        if (tk->text[1] == '*' && tk->len >= 4 && !strcmp(tk->text + tk->len - 2, "*/"))
            p[tk->len - 1] = p[tk->len - 2] = ' ';
        for (size_t i = 0; i + 1 < tk->len; i++) {
            if (p[i] != '\n')
                continue;
            size_t j = i + 1;
            while (j < tk->len && (p[j] == ' ' || p[j] == '\t'))
                j++;
            if (j < tk->len && p[j] == '*')
                p[j] = ' ';
        }
    }
    struct token_list cl;
    struct error e;
    token_list_init(&cl);
    if (tokens_lex(name, buf, l->source_len, lang, &cl, &e) == 0)
        norm_append(&c->handout, &cl, (uint16_t)c->n_handout++);
    token_list_release(&cl);
    free(buf);
}

/* One handed-out source file: its code and the code in its comments. */
static void handout_source(struct lab_code *c, const char *path)
{
    struct token_list l;
    struct error e;
    token_list_init(&l);
    if (tokens_lex_file(path, &l, &e) == 0) {
        norm_append(&c->handout, &l, (uint16_t)c->n_handout++);
        comment_code(c, &l, src_lang_of(path), path);
    } else {
        note(c, xstrfmt("%s: left out of the handed-out code: %s", path, e.msg));
    }
    token_list_release(&l);
}

/* The fenced code blocks of a Markdown file, each lexed as CUDA (C and C++ lex alike). */
static void handout_readme(struct lab_code *c, const char *path)
{
    struct strbuf md = STRBUF_INIT, block = STRBUF_INIT;
    struct error e;
    bool in = false;
    if (read_file(path, &md, &e) != 0) {
        strbuf_release(&md);
        return;
    }
    for (const char *line = strbuf_str(&md); *line;) {
        size_t len = strcspn(line, "\n");
        const char *t = line + strspn(line, " ");
        bool fence = !strncmp(t, "```", 3) || !strncmp(t, "~~~", 3);
        if (fence && in) {
            struct token_list l;
            token_list_init(&l);
            if (tokens_lex(path, block.buf ? block.buf : "", block.len, SRC_CUDA, &l, &e) == 0)
                norm_append(&c->handout, &l, (uint16_t)c->n_handout++);
            token_list_release(&l);
            strbuf_reset(&block);
        } else if (in) {
            strbuf_add(&block, line, len);
            strbuf_addch(&block, '\n');
        }
        in ^= fence;
        line += len + (line[len] == '\n');
    }
    strbuf_release(&block);
    strbuf_release(&md);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every C/CUDA file of dir, in name order (the order changes no hash; it keeps notes stable). */
static void handout_dir(struct lab_code *c, const char *dir)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && c_like(e->d_name)) {
            names = xrealloc(names, (n + 1) * sizeof(*names));
            names[n++] = path_join(dir, e->d_name);
        }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (file_exists(names[i]))
            handout_source(c, names[i]);
        free(names[i]);
    }
    free(names);
}

/* Every reference source the lab's variants name, each once (absolute paths, not owned). */
static size_t reference_sources(const struct lab *lab, const char ***out)
{
    size_t n = 0;
    *out = NULL;
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct variant_spec *vs = &lab->exercises[e].variants[v];
            for (size_t s = 0; vs->has_reference && s < vs->reference.n_sources; s++) {
                const char *src = vs->reference.sources[s];
                bool seen = !c_like(src);
                for (size_t i = 0; i < n && !seen; i++)
                    seen = !strcmp((*out)[i], src);
                if (seen)
                    continue;
                *out = xrealloc(*out, (n + 1) * sizeof(**out));
                (*out)[n++] = src;
            }
        }
    return n;
}

/* A reference's name as the report shows it: relative to labgrader's root when under it. */
static char *reference_name(const struct lab *lab, const char *path)
{
    size_t n = lab->root ? strlen(lab->root) : 0;
    if (n && !strncmp(path, lab->root, n) && path[n] == '/')
        return xstrdup(path + n + 1);
    return xstrdup(path);
}

/* One file of the instructor's code (name as shown, path to read). */
static void add_code(struct lab_code *c, char *name, const char *path)
{
    struct error e;
    char *text = NULL;
    if (handout_lex_file(&c->code, path, (uint16_t)c->n_files, &text, &e) != 0) {
        note(c, xstrfmt("%s: left out of the instructor's code: %s", name, e.msg));
        free(name);
        return;
    }
    c->names = xrealloc(c->names, (c->n_files + 1) * sizeof(*c->names));
    c->sources = xrealloc(c->sources, (c->n_files + 1) * sizeof(*c->sources));
    c->names[c->n_files] = name;
    c->sources[c->n_files++] = text;
}

int lab_code_load(struct lab_code *c, const struct lab *lab, char *const *lab_files,
                  size_t n_lab_files, struct error *err)
{
    char why[512];
    const char **refs;
    if (!tokens_available(why, sizeof(why)))
        return error_set(err, "%s", why);
    lab_code_release(c);
    c->published = lab->solution_published;
    char *skel = path_join(lab->dir, "skeleton"), *readme = path_join(lab->dir, "README.md");
    char *skel_readme = path_join(skel, "README.md");
    handout_dir(c, skel);
    handout_readme(c, readme);
    handout_readme(c, skel_readme);
    for (size_t i = 0; i < n_lab_files; i++) {
        char *name = xstrfmt("solution/%s", lab_files[i]);
        char *path = path_join(lab->dir, name);
        if (file_exists(path) && c->published)
            handout_source(c, path);
        else if (file_exists(path))
            add_code(c, xstrdup(name), path);
        free(name);
        free(path);
    }
    /* The references: handed out with the kit's sources; with a public solution, neither
     * handed out nor matched (the students have its objects only). */
    size_t n_refs = reference_sources(lab, &refs);
    for (size_t i = 0; i < n_refs; i++) {
        if (lab->kit_reference_sources)
            handout_source(c, refs[i]);
        else if (!c->published)
            add_code(c, reference_name(lab, refs[i]), refs[i]);
    }
    free(refs);
    free(skel);
    free(readme);
    free(skel_readme);
    return 0;
}
