/*
 * cli/options: the option table's invariants, the one parser (values where the table says,
 * bad values and unknown options refused with exit 2, slurm's pass-through), help that lists
 * exactly what the parser takes, and a Spanish translation of every sentence the command line
 * prints (help texts included). Run from the repository root.
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "grade/grade.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_table_invariants)
{
    size_t n = 0;
    for (const struct cli_option *o = cli_option_table; o->name; o++, n++) {
        ck_assert_msg(!strncmp(o->name, "--", 2) && o->name[2], "%s: not a long option", o->name);
        ck_assert_msg(o->help && *o->help, "%s: no help", o->name);
        ck_assert_msg(o->commands, "%s: no command takes it", o->name);
        ck_assert_msg(!cli_option_takes_value(o) == !o->metavar, "%s: metavar", o->name);
        ck_assert_msg(o->kind != OPT_INT || o->value <= o->max, "%s: bounds", o->name);
        ck_assert_msg(o->kind != OPT_CHOICE || (o->choices && o->choices[0]), "%s", o->name);
        ck_assert_msg(o->slurm == SLURM_NO || (o->commands & CMD_BIT(CMD_GRADE)),
                      "%s: what slurm does with it, but grade does not take it", o->name);
        /* One meaning per command: two definitions of a name never share one. */
        for (const struct cli_option *p = o + 1; p->name; p++)
            ck_assert_msg(strcmp(o->name, p->name) || !(o->commands & p->commands),
                          "%s: defined twice for one command", o->name);
    }
    ck_assert_uint_gt(n, 30);
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++) {
        ck_assert(cli_takes_option(cmd->id, "--help") && cli_takes_option(cmd->id, "-h"));
        ck_assert_ptr_eq(cli_command_find(cmd->name), cmd);
    }
}
END_TEST

/* Parse argv (argv[0]: the command's name) for cmd into c; the status. */
static int parse(struct cli *c, enum cli_command_id cmd, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_init(c, &cli_commands[cmd]);
    ck_assert_int_eq(cli_commands[cmd].id, cmd);
    return cli_parse(c, argc, (char **)argv);
}

START_TEST(test_values_go_where_the_table_says)
{
    struct cli c;
    const char *argv[] = {"check",       "labs/lab6",      "--timeout",  "2.5",      "--only",
                          "matmul",      "--case",         "n256,n1024", "--no-pdf", "--sanitize",
                          "--full",      "--memory-limit", "4G",         "--lang",   "en",
                          "--isolation", "supervisor",     NULL};
    ck_assert_int_eq(parse(&c, CMD_CHECK, argv), 0);
    ck_assert_uint_eq(c.a.n_pos, 1);
    ck_assert_str_eq(c.a.pos[0], "labs/lab6");
    ck_assert(c.a.timeout_s == 2.5 && c.a.full && !c.a.hidden && !c.a.help);
    ck_assert_str_eq(c.a.only, "matmul");
    ck_assert_str_eq(c.a.cases, "n256,n1024");
    ck_assert_int_eq(c.a.pdf_mode, -1);
    ck_assert_int_eq(c.a.sanitize, SANITIZE_ALL);
    ck_assert(c.a.memory_limit == 4LL << 30);
    ck_assert_str_eq(c.a.lang, "en");
    ck_assert_int_eq(cli_isolation(c.a.isolation), ISOLATION_SUPERVISOR);
    cli_release(&c);

    const char *grade[] = {"grade",  "L", "--submissions", "class",         "--shard", "2/3",
                           "--jobs", "7", "--no-slow",     "--no-sanitize", NULL};
    ck_assert_int_eq(parse(&c, CMD_GRADE, grade), 0);
    ck_assert(c.a.shard[0] == 2 && c.a.shard[1] == 3 && c.a.jobs == 7 && c.a.no_slow);
    ck_assert_int_eq(c.a.sanitize, SANITIZE_NONE);
    ck_assert_ptr_null(c.a.pass);
    cli_release(&c);

    /* Slurm keeps the words of the grade options it passes, in order. */
    const char *slurm[] = {"slurm",    "L", "--submissions", "class", "--only", "dot", "--force",
                           "--shards", "9", "--lang",        "es",    NULL};
    ck_assert_int_eq(parse(&c, CMD_SLURM, slurm), 0);
    ck_assert_int_eq(c.a.shards, 9);
    ck_assert_uint_eq(c.a.n_pass, 5);
    const char *want[] = {"--only", "dot", "--force", "--lang", "es"};
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(c.a.pass[i], want[i]);
    ck_assert_ptr_null(c.a.pass[5]);
    cli_release(&c);

    /* The LMS options of merge (grade takes the same), and the Gradescope commands'. */
    const char *merge[] = {"merge",           "L",   "--deadline", "2026-03-02T23:59:00+01:00",
                           "--late-cap",      "50",  "--reason",   "regraded",
                           "--canvas-points", "8.5", NULL};
    ck_assert_int_eq(parse(&c, CMD_MERGE, merge), 0);
    ck_assert_str_eq(c.a.deadline, "2026-03-02T23:59:00+01:00");
    ck_assert_str_eq(c.a.late_cap, "50");
    ck_assert_str_eq(c.a.reason, "regraded");
    ck_assert(c.a.canvas_points == 8.5);
    cli_release(&c);
    const char *gs[] = {"gradescope",   "L",      "--out",       "a.zip",
                        "--gpu-policy", "remote", "--no-timing", NULL};
    ck_assert_int_eq(parse(&c, CMD_GRADESCOPE, gs), 0);
    ck_assert_str_eq(c.a.out, "a.zip");
    ck_assert_str_eq(c.a.gpu_policy, "remote");
    ck_assert(c.a.no_timing && !c.a.no_slow);
    cli_release(&c);
    const char *ag[] = {"autograde", "L", "--root", "/tmp/r", "--setup", "--stdin-tar", NULL};
    ck_assert_int_eq(parse(&c, CMD_AUTOGRADE, ag), 0);
    ck_assert_str_eq(c.a.root, "/tmp/r");
    ck_assert(c.a.setup && c.a.stdin_tar);
    cli_release(&c);
}
END_TEST

START_TEST(test_refused)
{
    static const char *const bad[][6] = {
        {"check", "L", "--timeout", "0"},
        {"check", "L", "--timeout", "nan"},
        {"check", "L", "--timeout"},
        {"check", "L", "--memory-limit", "4X"},
        {"check", "L", "--memory-limit", "-1"},
        {"check", "L", "--lang", "fr"},
        {"check", "L", "--isolation", "none"},
        {"check", "L", "--frobnicate"},
        {"check", "L", "--jobs", "2"},
        {"check", "L", "M"},
        {"check"},
        {"check", "L", "-x"},
    };
    struct cli c;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(parse(&c, CMD_CHECK, bad[i]) == EXIT_USAGE, "case %zu accepted", i);
        cli_release(&c);
    }
    static const char *const grade_bad[][6] = {
        {"grade", "L", "--shard", "3/2"}, {"grade", "L", "--shard", "0/2"},
        {"grade", "L", "--jobs", "0"},    {"grade", "L", "--gpus", "1025"},
        {"grade", "L", "--jobs", "2x"},   {"grade", "L", "--case", "n1"},
    };
    for (size_t i = 0; i < sizeof(grade_bad) / sizeof(grade_bad[0]); i++) {
        ck_assert_msg(parse(&c, CMD_GRADE, grade_bad[i]) == EXIT_USAGE, "grade case %zu", i);
        cli_release(&c);
    }
    static const char *const lms_bad[][6] = {
        {"merge", "L", "--canvas-points", "0"},       {"merge", "L", "--canvas-points", "many"},
        {"gradescope", "L", "--gpu-policy", "maybe"}, {"gradescope", "L", "--setup"},
        {"autograde", "L", "--remote-host", "h"},     {"autograde"},
    };
    for (size_t i = 0; i < sizeof(lms_bad) / sizeof(lms_bad[0]); i++) {
        const struct cli_command *cmd = cli_command_find(lms_bad[i][0]);
        ck_assert_msg(parse(&c, cmd->id, lms_bad[i]) == EXIT_USAGE, "lms case %zu", i);
        cli_release(&c);
    }
    const char *version[] = {"version", "--bogus", NULL};
    ck_assert_int_eq(parse(&c, CMD_VERSION, version), EXIT_USAGE);
    cli_release(&c);
    const char *slurm[] = {"slurm", "L", "--no-merge", NULL};
    ck_assert_int_eq(parse(&c, CMD_SLURM, slurm), EXIT_USAGE);
    cli_release(&c);
    /* -h stops parsing: what follows is not looked at. */
    const char *help[] = {"check", "-h", "--frobnicate", NULL};
    ck_assert_int_eq(parse(&c, CMD_CHECK, help), 0);
    ck_assert(c.a.help);
    cli_release(&c);
}
END_TEST

/* A value each kind of option takes. */
static const char *sample(const struct cli_option *o)
{
    static char low[32];
    switch (o->kind) {
    case OPT_INT:
        snprintf(low, sizeof(low), "%ld", o->value > 1 ? o->value : 1);
        return low;
    case OPT_SECONDS:
    case OPT_NUMBER:
        return "1";
    case OPT_CHOICE:
        return o->choices[0];
    case OPT_SHARD:
        return "1/2";
    case OPT_SIZE:
        return "1G";
    case OPT_STRING:
        return "x";
    default:
        return NULL;
    }
}

/* Every option help lists is one the parser takes, and every one it takes is listed. */
START_TEST(test_help_lists_what_the_parser_takes)
{
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++) {
        struct cli c;
        char *text = NULL;
        size_t len = 0, listed = 0;
        FILE *f = open_memstream(&text, &len);
        cli_init(&c, cmd);
        cli_print_help(&c, cmd, f);
        fclose(f);
        for (char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            if (strncmp(line, "  -", 3))
                continue;
            char name[64];
            const char *p = line + 2;
            if (!strncmp(p, "-h, ", 4))
                p += 4;
            ck_assert(sscanf(p, "%63s", name) == 1);
            listed++;
            ck_assert_msg(cli_takes_option(cmd->id, name), "%s --help lists %s, which it refuses",
                          cmd->name, name);
            struct cli_option const **opts;
            size_t n = cli_options_of(cmd->id, &opts);
            const struct cli_option *o = NULL;
            for (size_t i = 0; i < n && !o; i++)
                o = strcmp(opts[i]->name, name) ? NULL : opts[i];
            free(opts);
            ck_assert_ptr_nonnull(o);
            if (o->kind == OPT_HELP)
                continue;
            const char *argv[5] = {cmd->name};
            int argc = 1;
            if (cmd->min_pos > 0)
                argv[argc++] = "L";
            argv[argc++] = name;
            if (cli_option_takes_value(o))
                argv[argc++] = sample(o);
            struct cli parsed;
            cli_init(&parsed, cmd);
            ck_assert_msg(cli_parse(&parsed, argc, (char **)argv) == 0, "%s %s: refused", cmd->name,
                          name);
            cli_release(&parsed);
        }
        const struct cli_option **opts;
        ck_assert_uint_eq(listed, cli_options_of(cmd->id, &opts));
        free(opts);
        free(text);
        cli_release(&c);
    }
}
END_TEST

/* The C string literals of src after each occurrence of call (joined like the compiler). */
static void literals_after(const char *src, const char *call, char ***ids, size_t *n)
{
    for (const char *p = src; (p = strstr(p, call));) {
        p += strlen(call);
        struct strbuf id = STRBUF_INIT;
        for (;;) {
            p += strspn(p, " \t\n");
            if (*p != '"')
                break;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                    strbuf_addch(&id, *p == 'n' ? '\n' : *p);
                } else {
                    strbuf_addch(&id, *p);
                }
            }
            if (*p == '"')
                p++;
        }
        if (id.len) {
            *ids = xrealloc(*ids, (*n + 1) * sizeof(char *));
            (*ids)[(*n)++] = strbuf_detach(&id);
        }
        strbuf_release(&id);
    }
}

START_TEST(test_spanish_covers_the_command_line)
{
    static const char *const sources[] = {
        "grader/cli/cli.c",       "grader/cli/cmd_check.c", "grader/cli/cmd_class.c",
        "grader/cli/cmd_info.c",  "grader/cli/cmd_kit.c",   "grader/cli/cmd_report.c",
        "grader/cli/cmd_slurm.c", "grader/cli/commands.c",  "grader/cli/help.c",
        "grader/cli/lab.c",       "grader/cli/options.c",   "grader/cli/cmd_analyze.c",
    };
    struct messages es;
    struct error err;
    char **ids = NULL;
    size_t n = 0;
    messages_init(&es);
    ck_assert_msg(messages_load(&es, "templates/es/messages.po", &err) == 0, "%s:%d: %s", err.file,
                  err.line, err.msg);
    for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++) {
        struct strbuf src = STRBUF_INIT;
        ck_assert_msg(read_file(sources[s], &src, &err) == 0, "%s", err.msg);
        literals_after(src.buf, "cli_tr(c,", &ids, &n);
        literals_after(src.buf, "cli_tr(&c,", &ids, &n);
        strbuf_release(&src);
    }
    ck_assert_uint_ge(n, 40);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(messages_get(&es, ids[i]) != ids[i],
                      "templates/es/messages.po has no msgstr for \"%s\"", ids[i]);
        free(ids[i]);
    }
    free(ids);
    for (const struct cli_option *o = cli_option_table; o->name; o++)
        ck_assert_msg(messages_get(&es, o->help) != o->help, "no Spanish for %s's help: \"%s\"",
                      o->name, o->help);
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++)
        ck_assert_msg(messages_get(&es, cmd->summary) != cmd->summary &&
                          messages_get(&es, cmd->description) != cmd->description,
                      "no Spanish for %s's summary or description", cmd->name);
    messages_release(&es);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_table_invariants);
    tcase_add_test(tc, test_values_go_where_the_table_says);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_help_lists_what_the_parser_takes);
    tcase_add_test(tc, test_spanish_covers_the_command_line);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
