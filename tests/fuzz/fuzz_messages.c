/* The message catalog loader (messages.po, which instructors edit) on any bytes: refused
 * with file:line, or loaded with every translation carrying exactly its msgid's printf
 * conversions, so that no catalog can make the grader read an argument it was not given. */
#include "fuzz.h"

#include "base/messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_file("messages.po", data, size);
    struct messages m;
    struct error err;
    messages_init(&m);
    error_init(&err);
    if (messages_load(&m, path, &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
    } else {
        for (size_t i = 0; i < m.n; i++) {
            FUZZ_ASSERT(messages_same_conversions(m.entries[i].id, m.entries[i].text));
            FUZZ_ASSERT(messages_get(&m, m.entries[i].id) != NULL);
        }
    }
    messages_release(&m);
    free(path);
    return 0;
}
