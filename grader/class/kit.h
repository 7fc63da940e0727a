/*
 * kit: the student kit of a lab, a .tar.gz that a student unpacks on a fresh
 * Debian/Ubuntu machine to run `make check LAB=N` on their own code.
 *
 * Everything sits under a top folder `labN-kit/`:
 *   Makefile, VERSION, grader/ (sources, deps.sh, harness/), templates/,
 *   the kernels/ files the lab's references use (and the headers they include),
 *   labs/labN/ without solution/ (the skeleton stays, for the student to edit),
 *   with lab.yaml stripped of its hidden cases, and a README.md for students in
 *   the lab's language.
 * No tests/, no .git, no reports/, no links, no absolute paths; file modes kept.
 *
 * The kit is assembled in a temporary folder first and its lab.yaml loaded with
 * spec_load() against that folder, so a kit whose spec does not resolve inside
 * the kit (a reference missing, a broken cut) is never written.
 */
#ifndef LG_KIT_H
#define LG_KIT_H

#include "base/error.h"
#include "spec/spec.h"
#include "base/strbuf.h"

struct kit_opts {
    const char *repo_root; /* where Makefile, grader/, templates/ and kernels/ are */
    const char *out_path;  /* the .tar.gz to write; its folder is created */
};

/*
 * Build the kit for lab (already loaded with spec_load). An exercise whose cases
 * are all hidden is left out of the kit; each such exercise appends one line to
 * warnings (may be NULL). The tarball is written next to out_path and renamed
 * into place, so a failed build leaves no half-written kit. Returns 0 or -1.
 */
int kit_build(const struct lab *lab, const struct kit_opts *o, struct strbuf *warnings,
              struct error *err);

/*
 * The text of yaml_path without its hidden cases (exposed for tests). The cut is
 * made on the original text (each hidden case's item, from its "- " to the end of
 * its last line), so comments and formatting survive. An exercise left with no
 * case is cut whole. The result is checked to still parse as YAML.
 */
int kit_strip_hidden(const char *yaml_path, struct strbuf *out, struct error *err);

#endif
