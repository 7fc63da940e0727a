/*
 * batch's unit-testable parts: which GPU each worker of `grader grade --gpus N`
 * grades on (batch_worker_device), from the CUDA_VISIBLE_DEVICES Slurm sets, and how many
 * workers grade when --gpus does not say (batch_default_workers).
 */
#include "class/batch.h"

#include <check.h>
#include <stdlib.h>

static void expect_device(int w, const char *want)
{
    char *dev = batch_worker_device(w, 8);
    ck_assert_msg(!strcmp(dev, want), "worker %d: '%s', expected '%s'", w, dev, want);
    free(dev);
}

START_TEST(test_device_unset)
{
    unsetenv("CUDA_VISIBLE_DEVICES");
    expect_device(0, "0");
    expect_device(1, "1");
    expect_device(7, "7");
}
END_TEST

/* Slurm without device cgroups: the granted GPUs' own indices, in order. */
START_TEST(test_device_slurm_indices)
{
    setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
    expect_device(0, "2");
    expect_device(1, "3");
    /* More workers than granted GPUs: they share them, round-robin. */
    expect_device(2, "2");
    expect_device(3, "3");
    expect_device(4, "2");
    unsetenv("CUDA_VISIBLE_DEVICES");
}
END_TEST

START_TEST(test_device_uuids)
{
    setenv("CUDA_VISIBLE_DEVICES",
           "GPU-6d9a4b2e-1c3f-4e5a-9b7c-0a1b2c3d4e5f,GPU-0f1e2d3c-4b5a-6978-8a9b-cdef01234567", 1);
    expect_device(0, "GPU-6d9a4b2e-1c3f-4e5a-9b7c-0a1b2c3d4e5f");
    expect_device(1, "GPU-0f1e2d3c-4b5a-6978-8a9b-cdef01234567");
    setenv("CUDA_VISIBLE_DEVICES", "MIG-4f8e1a2b-0000-1111-2222-333344445555", 1);
    expect_device(0, "MIG-4f8e1a2b-0000-1111-2222-333344445555");
    unsetenv("CUDA_VISIBLE_DEVICES");
}
END_TEST

/* An empty CUDA_VISIBLE_DEVICES (no GPU granted) is not a device name. */
/* One GPU and four workers (`--gpus 4` on a one-GPU machine): all on it. */
START_TEST(test_device_shared)
{
    unsetenv("CUDA_VISIBLE_DEVICES");
    for (int w = 0; w < 4; w++) {
        char *dev = batch_worker_device(w, 1);
        ck_assert_str_eq(dev, "0");
        free(dev);
    }
}
END_TEST

START_TEST(test_device_empty)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    expect_device(0, "0");
    expect_device(9, "1"); /* 9 workers over 8 GPUs */
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    expect_device(0, "1");
    expect_device(1, "1");
    unsetenv("CUDA_VISIBLE_DEVICES");
}
END_TEST

static int default_workers(bool available, int count, long memory_mib, long cpus)
{
    struct gpu_probe g;
    gpu_probe_init(&g);
    g.available = available;
    g.count = count;
    g.memory_mib = memory_mib;
    return batch_default_workers(&g, cpus);
}

START_TEST(test_default_workers)
{
    /* No GPU: one worker, whatever the CPUs. */
    ck_assert_int_eq(default_workers(false, 0, 0, 64), 1);
    /* One H200 of 16 cores: two take turns on it. */
    ck_assert_int_eq(default_workers(true, 1, 143771, 16), 2);
    /* Two GPUs of 32 cores: two on each. */
    ck_assert_int_eq(default_workers(true, 2, 143771, 32), 4);
    /* Too few cores per GPU, or too little memory for two processes' buffers: one each. */
    ck_assert_int_eq(default_workers(true, 2, 143771, 14), 2);
    ck_assert_int_eq(default_workers(true, 1, 8192, 16), 1);
    /* A size the probe did not give is not taken for a small GPU. */
    ck_assert_int_eq(default_workers(true, 1, 0, 8), 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch_unit");
    TCase *tc = tcase_create("worker_device");
    tcase_add_test(tc, test_device_unset);
    tcase_add_test(tc, test_device_slurm_indices);
    tcase_add_test(tc, test_device_uuids);
    tcase_add_test(tc, test_device_empty);
    tcase_add_test(tc, test_device_shared);
    suite_add_tcase(s, tc);
    TCase *tw = tcase_create("default_workers");
    tcase_add_test(tw, test_default_workers);
    suite_add_tcase(s, tw);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
