/* throttle (grader/harness/throttle.h): which GPU samples the harness drops as taken while the
 * GPU was throttling (nvbench's rule: an SM clock under 75% of the maximum), and that a machine
 * throttling throughout cannot starve the timing. */
#include "harness/throttle.h"

#include <check.h>
#include <stdlib.h>

START_TEST(test_slow_samples_dropped)
{
    struct lg_throttle t;
    lg_throttle_init(&t, 1980);
    ck_assert(lg_throttle_keep(&t, 1980));
    ck_assert(lg_throttle_keep(&t, 1755)); /* a power-capped heavy kernel: still counts */
    ck_assert(lg_throttle_keep(&t, 1485)); /* 75% exactly */
    ck_assert(!lg_throttle_keep(&t, 1484));
    ck_assert(!lg_throttle_keep(&t, 345)); /* idle clocks */
    ck_assert(lg_throttle_keep(&t, 1980));
    ck_assert_int_eq(t.kept, 4);
    ck_assert_int_eq(t.dropped, 2);
    ck_assert(!t.gave_up);
}
END_TEST

START_TEST(test_unknown_clocks_keep_everything)
{
    struct lg_throttle t;
    lg_throttle_init(&t, 0); /* no NVML, or a CPU variant */
    for (int i = 0; i < 20; i++)
        ck_assert(lg_throttle_keep(&t, 300));
    lg_throttle_init(&t, 1980);
    ck_assert(lg_throttle_keep(&t, 0)); /* this reading failed */
    ck_assert_int_eq(t.dropped, 0);
    lg_throttle_init(&t, -5);
    ck_assert_int_eq(t.max_mhz, 0);
}
END_TEST

START_TEST(test_throttled_throughout_gives_up)
{
    struct lg_throttle t;
    lg_throttle_init(&t, 1980);
    int kept = 0;
    for (int i = 0; i < 40; i++)
        kept += lg_throttle_keep(&t, 900);
    /* The first LG_THROTTLE_MIN_DROPS are dropped, then everything counts, and it says so. */
    ck_assert_int_eq(t.dropped, LG_THROTTLE_MIN_DROPS);
    ck_assert_int_eq(kept, 40 - LG_THROTTLE_MIN_DROPS);
    ck_assert(t.gave_up);
    ck_assert(lg_throttle_keep(&t, 900));
}
END_TEST

START_TEST(test_drops_bounded_by_kept)
{
    /* Throttled every other sample: never more dropped than kept (after the first few),
     * so a loop that stops on its kept samples always ends. */
    struct lg_throttle t;
    lg_throttle_init(&t, 1980);
    for (int i = 0; i < 200; i++) {
        lg_throttle_keep(&t, i % 2 ? 900 : 1900);
        ck_assert_int_le(t.dropped,
                         t.kept > LG_THROTTLE_MIN_DROPS ? t.kept : LG_THROTTLE_MIN_DROPS);
    }
    ck_assert(!t.gave_up);
    ck_assert_int_eq(t.dropped, 100);
    /* Mostly throttled: gives up once the drops catch up with the kept samples. */
    lg_throttle_init(&t, 1980);
    for (int i = 0; i < 30; i++)
        lg_throttle_keep(&t, i % 4 == 0 ? 1900 : 900);
    ck_assert(t.gave_up);
    ck_assert_int_eq(t.kept + t.dropped, 30);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("throttle");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_slow_samples_dropped);
    tcase_add_test(tc, test_unknown_clocks_keep_everything);
    tcase_add_test(tc, test_throttled_throughout_gives_up);
    tcase_add_test(tc, test_drops_bounded_by_kept);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
