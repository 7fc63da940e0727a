/*
 * safedir: file work on untrusted submission trees. Everything is relative to
 * directory file descriptors and never follows a symbolic link; what is
 * written is charged to a budget as it is written (never taken from sizes a
 * file or an archive claims), against the limits of one submission.
 *
 * Every function that fails sets err, naming the file (label: the path as the
 * user knows it) and why, and returns -1.
 */
#ifndef LG_SAFEDIR_H
#define LG_SAFEDIR_H

#include "base/error.h"
#include "class/names.h"

/* What one submission may hold once written to disk. */
struct collect_limits {
    long long max_total_bytes;
    long long max_file_bytes;
    long max_files; /* folders count as files */
};

void collect_limits_init(struct collect_limits *l); /* 200 MiB total, 20 MiB/file, 2000 files */

/* Why a submission was refused: the student's doing, never the grader's (collect.h). */
enum submission_problem {
    SUBMISSION_OK,
    SUBMISSION_TOO_MANY_FILES, /* more files and folders than max_files */
    SUBMISSION_TOO_LARGE,      /* more bytes than max_total_bytes */
    SUBMISSION_FILE_TOO_LARGE, /* one file over max_file_bytes (a zip bomb, a sparse file) */
    SUBMISSION_TOO_DEEP,       /* folders nested deeper than an archive may hold */
    SUBMISSION_BAD_ENTRY,      /* a link, device, absolute or ".." path, or a control
                                  character in a name */
    SUBMISSION_ONLINE_TEXT,    /* handed in as the LMS's online text, no files */
    SUBMISSION_URL,            /* handed in as a URL, no files */
    SUBMISSION_AMBIGUOUS,      /* two files of a name the lab asks for, in different folders */
};

/* Status of the functions below that refuse something of the submission's: the refusal is
 * recorded in the budget and err, and grading goes on for everyone else. */
#define SAFE_REFUSED (-2)

/* What has been written so far against a set of limits, and the first refusal. */
struct budget {
    long long bytes;
    long files;
    enum submission_problem problem; /* SUBMISSION_OK until something is refused */
    long long limit;                 /* the limit exceeded, when one was */
    char what[512];                  /* the file or entry refused, printable */
    char why[512];                   /* why, in English, for the console */
};

/* err set to "<where>: entry '<entry>' refused: <why>" (entry may be NULL); returns -1. */
int refuse(struct error *err, const char *where, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same, and the first refusal recorded in b (problem, limit, what: entry or where);
 * returns SAFE_REFUSED. */
int budget_refuse(struct budget *b, enum submission_problem problem, long long limit,
                  struct error *err, const char *where, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* One more file (or folder) in b; scope ("the submission") names what overflows.
 * Over a limit: SAFE_REFUSED (budget_refuse). */
int charge_file(struct budget *b, const struct collect_limits *lim, const char *where,
                const char *entry, const char *scope, struct error *err);
/* add more bytes of a file that has file_bytes so far. */
int charge_bytes(struct budget *b, const struct collect_limits *lim, long long file_bytes,
                 long long add, const char *where, const char *entry, const char *scope,
                 struct error *err);

/* The folder name inside dirfd, opened without following a link; -1 with errno. */
int open_dir_at(int dirfd, const char *name);
/* mkdir if needed, then open it; refuses a symlink or a file in the way (-1, errno). */
int make_dir_at(int dirfd, const char *name);
/* The names in dirfd, sorted, without "." and "..", appended to out. */
int list_dir(int dirfd, const char *label, struct name_list *out, struct error *err);
/* Bytes of the regular files below dirfd, and its files and folders, added to b. */
int measure_tree(int dirfd, const char *label, struct budget *b, struct error *err);
/* Copy one regular file (never a link or a FIFO), charging it to b, with its
 * modification time; nothing is left behind on failure. */
int copy_limited(int src_dirfd, const char *src_name, int dst_dirfd, const char *dst_name,
                 const char *label, const struct collect_limits *lim, struct budget *b,
                 struct error *err);

#endif
