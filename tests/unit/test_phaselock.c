/*
 * The timing locks, phase by phase (run/phaselock.h). Each struct phaselock opens its own files,
 * and flock(2) locks of two open files conflict within one process as across processes, so one
 * process plays several runs. Nothing here waits: every call is one attempt.
 */
#include "run/phaselock.h"

#include "base/alloc.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-phaselock-XXXXXX";
static char *cpu_path, *gpu_path;
/* A lock held shared while idle and exclusively to time: the mechanism, and a timed CPU
 * variant's lock as run/runner.c gives it; a GPU variant's two (its GPU's, then the CPU's). */
static struct sb_lock cpu_run[1], gpu_run[2];

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    cpu_path = xstrfmt("%s/cpu.lock", dir);
    gpu_path = xstrfmt("%s/gpu.lock", dir);
    cpu_run[0] = (struct sb_lock){cpu_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, false};
    gpu_run[0] = (struct sb_lock){gpu_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, false};
    gpu_run[1] = (struct sb_lock){cpu_path, SB_LOCK_SHARED, SB_LOCK_SHARED, false};
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(cpu_path);
    free(gpu_path);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void open_run(struct phaselock *pl, const struct sb_lock *locks, size_t n)
{
    struct error err;
    error_init(&err);
    ck_assert_msg(phaselock_open(pl, locks, n, &err) == 0, "%s", err.msg);
}

/* Runs that are not timing overlap: any number hold their idle modes at once. */
START_TEST(test_idle_runs_overlap)
{
    struct phaselock a, b, c;
    open_run(&a, cpu_run, 1);
    open_run(&b, gpu_run, 2);
    open_run(&c, gpu_run, 2);
    ck_assert(phaselock_try_idle(&a) && phaselock_try_idle(&b) && phaselock_try_idle(&c));
    phaselock_release(&a);
    phaselock_release(&b);
    phaselock_release(&c);
}
END_TEST

/* A timed CPU series waits for every other run to leave, and nobody enters meanwhile (the
 * turnstile it holds): a stream of new runs cannot starve it. */
START_TEST(test_timed_waits_and_bars_new_runs)
{
    struct phaselock timer, other, newcomer;
    open_run(&timer, cpu_run, 1);
    open_run(&other, gpu_run, 2);
    open_run(&newcomer, cpu_run, 1);
    ck_assert(phaselock_try_idle(&timer) && phaselock_try_idle(&other));
    ck_assert(!phaselock_try_timed(&timer)); /* other holds the CPU lock shared */
    ck_assert(!phaselock_try_idle(&newcomer));
    ck_assert(!phaselock_try_timed(&timer));
    phaselock_release(&other);
    ck_assert(phaselock_try_timed(&timer));
    ck_assert(phaselock_is_timed(&timer));
    ck_assert(!phaselock_try_idle(&newcomer)); /* exclusive now */
    phaselock_back_to_idle(&timer);
    ck_assert(!phaselock_is_timed(&timer));
    ck_assert(phaselock_try_idle(&newcomer)); /* shared again, side by side */
    phaselock_release(&timer);
    phaselock_release(&newcomer);
}
END_TEST

/* Two runs that both hold their shared modes and both ask to time: each attempt lets go of
 * what the run held, so one of them gets through (no deadlock of two upgrades), and the other
 * after it. */
START_TEST(test_two_requests_no_deadlock)
{
    struct phaselock a, b;
    open_run(&a, cpu_run, 1);
    open_run(&b, cpu_run, 1);
    ck_assert(phaselock_try_idle(&a) && phaselock_try_idle(&b));
    bool got_a = phaselock_try_timed(&a); /* b still holds it shared */
    bool got_b = phaselock_try_timed(&b); /* a's turnstile bars it */
    ck_assert(!got_a && !got_b);
    got_a = phaselock_try_timed(&a); /* b let go on its attempt */
    ck_assert(got_a);
    ck_assert(!phaselock_try_timed(&b));
    phaselock_release(&a);
    ck_assert(phaselock_try_timed(&b));
    phaselock_release(&b);
}
END_TEST

/* A GPU series excludes the other runs on its GPU but not a CPU run's untimed work, and holds
 * the CPU lock shared, so a timed CPU series waits for it. */
START_TEST(test_gpu_series_and_cpu_runs)
{
    struct phaselock gpu, gpu2, cpu;
    open_run(&gpu, gpu_run, 2);
    open_run(&gpu2, gpu_run, 2);
    open_run(&cpu, cpu_run, 1);
    ck_assert(phaselock_try_idle(&gpu) && phaselock_try_idle(&cpu));
    ck_assert(phaselock_try_timed(&gpu));
    ck_assert(!phaselock_try_idle(&gpu2)); /* the GPU is timing */
    ck_assert(phaselock_try_idle(&cpu));   /* the CPU lock is only shared */
    ck_assert(!phaselock_try_timed(&cpu));
    phaselock_back_to_idle(&gpu);
    ck_assert(!phaselock_try_timed(&cpu)); /* the GPU run still holds the CPU lock shared */
    phaselock_release(&gpu);
    ck_assert(phaselock_try_timed(&cpu));
    ck_assert(!phaselock_try_idle(&gpu2)); /* the CPU series excludes every run */
    phaselock_release(&cpu);
    ck_assert(phaselock_try_idle(&gpu2));
    phaselock_release(&gpu2);
}
END_TEST

/* As run/runner.c gives them (run/turns.h): a CPU run's cores, preemptible, exclusive while its
 * series run; a GPU run's GPU (never preempted, exclusive while its series run) and its cores
 * (preemptible, shared throughout). Untimed work gives its cores up to a series that waits for
 * them; a GPU run waiting for its GPU holds no core, so a CPU series never waits for it. */
static struct sb_lock lane_cpu[2], lane_gpu[3];

static void lane_locks(void)
{
    char *c2 = xstrfmt("%s/cpu2.lock", dir);
    lane_cpu[0] = (struct sb_lock){cpu_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, true};
    lane_cpu[1] = (struct sb_lock){c2, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, true};
    lane_gpu[0] = (struct sb_lock){gpu_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, false};
    lane_gpu[1] = (struct sb_lock){cpu_path, SB_LOCK_SHARED, SB_LOCK_SHARED, true};
    lane_gpu[2] = (struct sb_lock){c2, SB_LOCK_SHARED, SB_LOCK_SHARED, true};
}

START_TEST(test_untimed_work_gives_cores_up)
{
    struct phaselock cpu, gpu;
    lane_locks();
    open_run(&cpu, lane_cpu, 2);
    open_run(&gpu, lane_gpu, 3);
    ck_assert(phaselock_try_idle(&cpu) && phaselock_try_idle(&gpu));
    ck_assert(!phaselock_contested(&gpu));
    ck_assert(!phaselock_try_timed(&cpu)); /* the GPU run's untimed work holds the cores */
    ck_assert(phaselock_contested(&gpu));  /* ... and sees the series waiting */
    phaselock_yield(&gpu);                 /* frozen, its cores given up, its GPU kept */
    ck_assert(phaselock_try_timed(&cpu));
    ck_assert(!phaselock_try_idle(&gpu)); /* back only after the series */
    phaselock_back_to_idle(&cpu);
    ck_assert(phaselock_try_idle(&gpu));
    ck_assert(!phaselock_contested(&gpu));
    /* A GPU series is never preempted: the CPU series waits for it. */
    ck_assert(phaselock_try_timed(&gpu));
    ck_assert(!phaselock_try_timed(&cpu));
    ck_assert(!phaselock_contested(&gpu));
    phaselock_back_to_idle(&gpu);
    phaselock_yield(&gpu);
    ck_assert(phaselock_try_timed(&cpu));
    phaselock_release(&cpu);
    phaselock_release(&gpu);
    free((char *)lane_cpu[1].path);
}
END_TEST

/* A compile (run/turns.h's TURNS_UNTIMED: every core shared in both modes, preemptible) gives
 * its cores up to a CPU series that waits for them, though its idle and timed modes are the
 * same. */
START_TEST(test_compile_gives_cores_up)
{
    struct phaselock cpu, cc;
    struct sb_lock compile[2];
    lane_locks();
    compile[0] = (struct sb_lock){lane_cpu[0].path, SB_LOCK_SHARED, SB_LOCK_SHARED, true};
    compile[1] = (struct sb_lock){lane_cpu[1].path, SB_LOCK_SHARED, SB_LOCK_SHARED, true};
    open_run(&cpu, lane_cpu, 2);
    open_run(&cc, compile, 2);
    ck_assert(phaselock_try_idle(&cc) && phaselock_try_idle(&cpu));
    ck_assert(!phaselock_is_timed(&cc)); /* holding its idle modes is not a series */
    ck_assert(!phaselock_contested(&cc));
    ck_assert(!phaselock_try_timed(&cpu));
    ck_assert(phaselock_contested(&cc));
    phaselock_yield(&cc);
    ck_assert(phaselock_try_timed(&cpu));
    ck_assert(!phaselock_try_idle(&cc));
    phaselock_back_to_idle(&cpu);
    ck_assert(phaselock_try_idle(&cc));
    phaselock_release(&cc);
    phaselock_release(&cpu);
    free((char *)lane_cpu[1].path);
}
END_TEST

START_TEST(test_gpu_wait_holds_no_core)
{
    struct phaselock cpu, gpu, gpu2;
    lane_locks();
    open_run(&cpu, lane_cpu, 2);
    open_run(&gpu, lane_gpu, 3);
    open_run(&gpu2, lane_gpu, 3);
    ck_assert(phaselock_try_idle(&gpu) && phaselock_try_idle(&gpu2) && phaselock_try_idle(&cpu));
    ck_assert(!phaselock_try_timed(&gpu)); /* gpu2's untimed work is on the GPU */
    /* gpu waits (its cores let go); the CPU series needs only gpu2's cores, which it gives up */
    ck_assert(!phaselock_try_timed(&cpu));
    ck_assert(phaselock_contested(&gpu2));
    phaselock_yield(&gpu2);
    ck_assert(phaselock_try_timed(&cpu));
    phaselock_back_to_idle(&cpu);
    ck_assert(phaselock_try_idle(&gpu2));
    phaselock_release(&gpu2); /* its run ends: the GPU is free */
    ck_assert(phaselock_try_timed(&gpu));
    phaselock_release(&gpu);
    phaselock_release(&cpu);
    free((char *)lane_cpu[1].path);
}
END_TEST

/* Whatever a run holds is gone once it is released (the process that held it ended). */
START_TEST(test_release_lets_go)
{
    struct phaselock a;
    open_run(&a, cpu_run, 1);
    ck_assert(phaselock_try_timed(&a));
    phaselock_release(&a);
    int fd = open(cpu_path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);
}
END_TEST

/* A lock file that cannot be opened is the grader's fault, said with its path. */
START_TEST(test_unopenable_lock)
{
    struct phaselock pl;
    struct error err;
    struct sb_lock bad[1] = {{"/nonexistent-dir/x.lock", SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, false}};
    error_init(&err);
    ck_assert_int_eq(phaselock_open(&pl, bad, 1, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir/x.lock"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("phaselock");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_idle_runs_overlap);
    tcase_add_test(tc, test_timed_waits_and_bars_new_runs);
    tcase_add_test(tc, test_two_requests_no_deadlock);
    tcase_add_test(tc, test_gpu_series_and_cpu_runs);
    tcase_add_test(tc, test_untimed_work_gives_cores_up);
    tcase_add_test(tc, test_compile_gives_cores_up);
    tcase_add_test(tc, test_gpu_wait_holds_no_core);
    tcase_add_test(tc, test_release_lets_go);
    tcase_add_test(tc, test_unopenable_lock);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
