/*
 * mutreport: a mutation run for the instructor: <out>/<lab>/mutate/report.md (and report.pdf
 * through report/'s pandoc path) in the lab's language, from templates/<lang>/mutate.md and
 * the operators' names in messages.po; mutants.json beside it, the same as data for tools
 * (counts, and per mutant: id, operator, file, line, col, status, reaches, killed_by, extra,
 * note, diff); and the console summary, whose last line is the figure ("lab3: 47 of 49
 * mutants killed (95.9%)").
 */
#ifndef LG_MUTREPORT_H
#define LG_MUTREPORT_H

#include "analyze/mutresult.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "spec/spec.h"

#include <stdio.h>

struct mutreport_opts {
    const char *templates_dir;
    const char *lang; /* NULL: the lab's */
    int pdf_mode;     /* -1 none, 0 try, 1 required */
};

/* mutants.json's text. */
void mutreport_json(const struct mutate_result *r, const struct lab *lab, struct strbuf *out);

/* "m0012" */
void mutreport_id(char *buf, size_t size, size_t index);

/* Write the Markdown (and PDF) into dir; *md_path and *pdf_note (why no PDF, or NULL) are the
 * caller's to free. */
int mutreport_write(const struct mutate_result *r, const struct lab *lab, const char *dir,
                    const struct mutreport_opts *o, char **md_path, char **pdf_note,
                    struct error *err);

/* The console summary, the figure last. */
void mutreport_print(FILE *f, const struct mutate_result *r, const struct lab *lab);

#endif
