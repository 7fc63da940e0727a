/*
 * kit: the student kit of a lab, a .tar.gz that a student unpacks on a fresh
 * Debian/Ubuntu machine to run `make check LAB=N` on their own code.
 *
 * A kit is made from an allow-list; nothing else of the lab folder ever goes in.
 * Everything sits under a top folder `labN-kit/`:
 *   Makefile, VERSION, LICENSE (when there is one), README.md for students (from
 *     templates/<lang>/kit.md, in the lab's language);
 *   grader/ (the sources, deps.sh, the harness), templates/;
 *   labs/labN/lab.yaml with its hidden cases withheld, labs/labN/README.md, labs/labN/skeleton/;
 *   the references: compiled objects (x.c.o, x.cu.o, beside where the source was: kernels/
 *     or the lab folder), built with the flags the grader uses, position-independent (they
 *     link into runners and into the references' shared objects) and, for CUDA, as machine
 *     code for every major GPU architecture in o->tc->gpu_codes, without PTX; the kit's
 *     lab.yaml names the objects, which the kit's grader links as they are (build.h). Where
 * lab.yaml says `kit: {references: sources}`, the sources go instead (and the local headers they
 * include). The instructor's solution/, test submissions, expected verdicts, reference sources
 * (unless asked) and anything else of the lab folder are refused and listed in the manifest, each
 * with why; no links, no absolute paths; file modes kept.
 *
 * The kit is assembled in a temporary folder first and its lab.yaml loaded with
 * spec_load() against that folder, so a kit whose spec does not resolve inside the kit
 * (a reference missing, a broken cut) is never written.
 *
 * struct kit_manifest owns its strings; kit_manifest_release() frees them.
 */
#ifndef LG_KIT_H
#define LG_KIT_H

#include "base/error.h"
#include "run/build.h"
#include "spec/spec.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct kit_opts {
    const char *repo_root; /* where Makefile, grader/, templates/ and kernels/ are */
    const char *out_path;  /* the .tar.gz to write; its folder is created */
    /* Compiles the references into objects; NULL is enough only for a lab whose kit
     * carries its reference sources (kit: {references: sources}). */
    const struct toolchain *tc;
    const char *templates_dir; /* kit.md's; NULL: repo_root/templates */
};

/* What a packed file is, for the listing `grader kit` prints. */
enum kit_group {
    KIT_TOP,         /* Makefile, VERSION, LICENSE, the kit's README.md */
    KIT_LAB,         /* labs/labN/: lab.yaml (hidden cases cut), README.md, skeleton/ */
    KIT_REF_OBJECTS, /* references compiled, without their sources */
    KIT_REF_SOURCES, /* references as sources (kit: {references: sources}) */
    KIT_GRADER,      /* grader/: the grader's and the harness's sources */
    KIT_TEMPLATES,   /* templates/ */
    KIT_GROUPS
};

/* Why something of the lab folder stayed out. */
enum kit_refusal {
    KIT_PRIVATE,     /* the instructor's: solution/, tests/, expected verdicts, references */
    KIT_NOT_LISTED,  /* not on the allow-list, though nothing says it is private */
    KIT_NOT_REGULAR, /* a link to a folder, a device, a FIFO */
};

struct kit_file {
    enum kit_group group;
    char *path; /* inside the kit's top folder: "labs/lab6/skeleton/lab6.h" */
};

struct kit_refused {
    enum kit_refusal why;
    char *path; /* relative to the lab folder ("solution", "tests/EXPECTED") */
};

struct kit_manifest {
    char *top; /* "lab6-kit" */
    struct kit_file *files;
    size_t n_files, alloc_files;
    struct kit_refused *refused;
    size_t n_refused, alloc_refused;
    bool reference_sources; /* the references went in as sources */
};

void kit_manifest_init(struct kit_manifest *m);
void kit_manifest_release(struct kit_manifest *m);

/*
 * Build the kit for lab (already loaded with spec_load) into o->out_path, listing what went
 * in and what stayed out in m (initialised by the caller). An exercise whose cases are all
 * hidden is left out of the kit, with a line in warnings (may be NULL); so is a lab without
 * skeleton/. The tarball is written next to out_path and renamed into place, so a failed
 * build leaves no half-written kit. Returns 0 or -1.
 */
int kit_build(const struct lab *lab, const struct kit_opts *o, struct kit_manifest *m,
              struct strbuf *warnings, struct error *err);

/*
 * The text of yaml_path with its hidden cases withheld and without its comments (exposed for
 * tests). The edit is made on the original text (each hidden case's item, from its "- " to
 * the end of its last line, replaced by a withheld case: spec.h), so the layout survives;
 * comments go because an instructor's talk about the hidden cases. An exercise of hidden
 * cases alone is cut whole. The result is checked to parse, to hold no hidden case that is
 * not withheld, and, comments removed, the same data.
 */
int kit_strip_hidden(const char *yaml_path, struct strbuf *out, struct error *err);

#endif
