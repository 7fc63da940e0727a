/*
 * slurm: grade a class on a Slurm cluster. `grader slurm` writes two batch
 * scripts under OUT/<lab>/slurm/ and submits them:
 *
 *   grade.sbatch  a job array, one task per shard: task K runs
 *                 `grader grade LAB --shard K/N --no-merge ...`, with
 *                 --gres=gpu:G when the lab needs GPUs;
 *   merge.sbatch  `grader merge LAB ...`, submitted with
 *                 --dependency=afterany:<array job>, so a failed shard never
 *                 keeps the others' grades out of the gradebook.
 *
 * Every path in the scripts is absolute (the nodes see the same shared file
 * system as the login node) and quoted for the shell. Each task gets a work
 * folder of its own through LABGRADER_WORK (concurrent shards must not share
 * build and run folders): OUT/.work/slurm-<job>-<task> on the shared file
 * system, or a folder in the node's $TMPDIR with node_local_scratch. Results
 * are written to OUT either way (atomically, by the grader).
 *
 * The caller owns every string in slurm_opts; nothing here keeps them. `grader slurm`'s
 * options are parsed in cli/ (cmd_slurm.c), from the same option table as grade's: that
 * table says which grade options may be passed through (extra_args).
 */
#ifndef LG_SLURM_H
#define LG_SLURM_H

#include "base/error.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stdio.h>

struct slurm_opts {
    const char *grader;                           /* absolute path of the grader binary */
    const char *lab;                              /* absolute lab folder */
    const char *lab_id;                           /* "lab6" */
    const char *submissions, *roster, *out;       /* absolute; roster may be NULL */
    int shards;                                   /* array tasks, 1..SLURM_MAX_SHARDS */
    int gpus_per_task;                            /* 0: CPU only (no --gres, GPUs hidden) */
    int cpus_per_task;                            /* 0: the partition's default; else also --jobs */
    const char *partition, *time, *mem, *account; /* NULL: the cluster's defaults */
    bool node_local_scratch, dry_run;
    const char *const *extra_args; /* passed through to `grader grade` (NULL-terminated) */
    const char *canvas_assignment; /* passed to `grader merge`, or NULL */
    const char *sbatch;            /* the sbatch program; NULL: "sbatch" from PATH */
};

#define SLURM_MAX_SHARDS 1000 /* Slurm's default MaxArraySize is 1001 */

void slurm_opts_init(struct slurm_opts *o);

/* The text of both scripts (appended to the strbufs). -1 with err set when an
 * option cannot be written safely (a newline in a path, a malformed --mem, ...). */
int slurm_write_scripts(const struct slurm_opts *o, struct strbuf *grade_script,
                        struct strbuf *merge_script, struct error *err);

/* Write the scripts under out/<lab_id>/slurm/, submit (unless dry_run), print ids and hints to
 * `log`. */
int slurm_submit(const struct slurm_opts *o, FILE *log, struct error *err);

/* s quoted for a POSIX shell: 'it'\''s' (appended to sb). */
void slurm_shell_quote(struct strbuf *sb, const char *s);

#endif
