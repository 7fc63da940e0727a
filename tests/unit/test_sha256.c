#include "base/sha256.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* FIPS 180-4 / NIST example vectors, hashed in pieces of every awkward size, through the
 * hardware path where the CPU has one and through the portable one. */
static void digest_in_pieces(const char *msg, size_t len, size_t piece, char hex[65])
{
    struct sha256 s;
    sha256_init(&s);
    for (size_t i = 0; i < len; i += piece)
        sha256_update(&s, msg + i, len - i < piece ? len - i : piece);
    sha256_final_hex(&s, hex);
}

static void check_vectors(void)
{
    static const struct {
        const char *msg, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
         "lmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    static const size_t pieces[] = {1, 3, 63, 64, 65, 1000};
    char hex[65];
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
            digest_in_pieces(v[i].msg, strlen(v[i].msg), pieces[k], hex);
            ck_assert_str_eq(hex, v[i].hex);
        }
    size_t n = 1000000;
    char *a = malloc(n);
    ck_assert_ptr_nonnull(a);
    memset(a, 'a', n);
    for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
        digest_in_pieces(a, n, pieces[k] * 997, hex);
        ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    free(a);
}

START_TEST(test_vectors_default)
{
    check_vectors();
}
END_TEST

/* Each test runs in its own process (CK_FORK), so the choice of code is made afresh. */
START_TEST(test_vectors_portable)
{
    setenv("LABGRADER_SHA256_PORTABLE", "1", 1);
    check_vectors();
}
END_TEST

static Suite *sha256_suite(void)
{
    Suite *s = suite_create("sha256");
    TCase *tc = tcase_create("vectors");
    tcase_add_test(tc, test_vectors_default);
    tcase_add_test(tc, test_vectors_portable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sha256_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
