/*
 * handout: the lab's own code as the similarity check sees it (issue 41), in two parts.
 *
 * Handed out: what every student was given, so that sharing it is no evidence of anything.
 * Every C/CUDA file of the lab's skeleton/, the code in the skeleton's comments (a hint such
 * as "lánzalo con (n + 255) / 256 bloques" or a commented cblas_sgemm call is typed in by
 * honest students), the fenced code blocks of the lab's README.md and skeleton/README.md, the
 * references' sources when the student kit carries them (kit: {references: sources}), and
 * the solution when lab.yaml says it is public (solution_published: true). Its k-grams are
 * subtracted from every submission (fingerprint.h's fp_mark_skeleton).
 *
 * Not handed out: the instructor's own code, the lab's solution/ (the files the lab's
 * variants name) and the references' sources (kernels/...). No submission should hold it
 * beyond what the handed-out code explains; similarity.h reports those that do. Nothing
 * when the solution is public.
 *
 * struct lab_code owns its streams, names and texts; lab_code_release() frees them.
 */
#ifndef LG_HANDOUT_H
#define LG_HANDOUT_H

#include "analyze/normalize.h"
#include "base/error.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>

struct lab_code {
    struct norm_stream handout; /* every handed-out source, one file index each */
    size_t n_handout;           /* sources in it */
    /* The instructor's code: one stream over these files, file index = position. */
    char **names;   /* "solution/grade2_gpu.cu", "kernels/grade2.cu" */
    char **sources; /* their texts */
    size_t n_files;
    struct norm_stream code;
    bool published; /* lab.yaml's solution_published: no instructor's code to match */
    char **notes;   /* files that could not be read or lexed (left out) */
    size_t n_notes;
};

void lab_code_init(struct lab_code *c);
void lab_code_release(struct lab_code *c);

/* Load both parts for lab; lab_files are the sources the lab's variants name (the solution's
 * files that count). -1 with err set only when libclang cannot be used; a file that cannot
 * be read or lexed is a note. */
int lab_code_load(struct lab_code *c, const struct lab *lab, char *const *lab_files,
                  size_t n_lab_files, struct error *err);

/* Append the normalized tokens of the file at path to s as file number `file`; its text into
 * *text when text is not NULL (caller frees). -1 with err set when it cannot be read or
 * lexed. */
int handout_lex_file(struct norm_stream *s, const char *path, uint16_t file, char **text,
                     struct error *err);

#endif
