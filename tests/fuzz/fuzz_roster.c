/* The roster (a CSV an instructor exports from the LMS: any separator, a BOM, quotes, names
 * with accents) matched against a small class by collect_submissions. Refused with a
 * message, or every submission ends up with a non-empty id and name, and no two share an
 * id. */
#include "fuzz.h"

#include "class/collect.h"

static void make_class(const char *dir)
{
    static const char *const students[] = {"alice", "Bob Smith_4242_assignsubmission_file_",
                                           "nunezmaria"};
    for (size_t i = 0; i < sizeof(students) / sizeof(students[0]); i++) {
        char *sub = xstrfmt("%s/%s", dir, students[i]);
        char *file = path_join(sub, "saxpy.c");
        if (mkdir_p(sub, NULL) != 0 || write_file_atomic(file, "int x;\n", 7, NULL) != 0)
            abort();
        free(sub);
        free(file);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *klass, *unpack;
    if (!klass) {
        klass = path_join(fuzz_dir(), "class");
        unpack = path_join(fuzz_dir(), "unpacked");
        make_class(klass);
    }
    char *roster = fuzz_file("roster.csv", data, size);
    struct submission_set set;
    struct error err;
    submission_set_init(&set);
    error_init(&err);
    if (collect_submissions(klass, unpack, roster, NULL, &set, &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
    } else {
        FUZZ_ASSERT(set.n == 3);
        for (size_t i = 0; i < set.n; i++) {
            FUZZ_ASSERT(set.items[i].id && set.items[i].id[0]);
            FUZZ_ASSERT(set.items[i].name && set.items[i].name[0]);
            for (size_t j = 0; j < i; j++)
                FUZZ_ASSERT(strcmp(set.items[i].id, set.items[j].id) != 0);
        }
    }
    submission_set_release(&set);
    free(roster);
    return 0;
}
