/*
 * kitpack: the parts of the student kit (kit.h) shared by its files, for them alone:
 * kit_spec.c edits the lab.yaml text, kit_readme.c writes the students' README from
 * templates/<lang>/kit.md, kit_tar.c writes the tarball, kit.c stages the tree.
 */
#ifndef LG_KITPACK_H
#define LG_KITPACK_H

#include "base/error.h"
#include "base/strbuf.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The kit's lab.yaml, appended to out: yaml_path's text with its hidden cases withheld (an
 * exercise of hidden cases alone is cut whole, with a line in warnings, which may be NULL) and,
 * with objects,
 * each reference source followed by ".o" (the kit ships it compiled). dropped (may be NULL)
 * receives the ids of the exercises cut whole: free them with kit_free_ids().
 */
int kit_spec_text(const char *yaml_path, bool objects, struct strbuf *out, struct strbuf *warnings,
                  char ***dropped, size_t *n_dropped, struct error *err);
void kit_free_ids(char **ids, size_t n);

/* The students' README.md of the kit whose own spec (no hidden cases) is kit_lab, from
 * templates_dir/<lab's lang>/kit.md; full: the instructor's spec, whose hidden cases it
 * counts per exercise (never names). */
int kit_readme(const struct lab *kit_lab, const struct lab *full, const char *templates_dir,
               struct strbuf *out, struct error *err);

/* Names in dir, sorted, without . and ..; NULL with err set. Free with kit_free_names(). */
char **kit_list_dir(const char *dir, size_t *n_out, struct error *err);
void kit_free_names(char **names, size_t n);

/* stage/ (a folder) written to out as a .tar.gz whose entries start with top/, through a
 * temporary file renamed into place. */
int kit_write_tarball(const char *stage, const char *top, const char *out, struct error *err);

#endif
