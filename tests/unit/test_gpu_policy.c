/* Unit tests of the nccl backend's host-side decisions (topo/gpu_policy.h): shared devices,
 * when to abort, the non-blocking init's deadline, the lanes' hardware queues. No GPU needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "gpu_policy.h"
#include "gpu_util.h"

#define BUS 16

static void test_shared_device_none(void **state)
{
    /* srun --gpus-per-task=1: every rank sees device 0, but each its own GPU */
    char ids[4][BUS] = {"0000:18:00.0", "0000:2A:00.0", "0000:3A:00.0", "0000:5D:00.0"};
    int a = -1, b = -1;

    (void)state;
    assert_int_equal(sp_gpu_find_shared_device(&ids[0][0], BUS, 4, &a, &b), 0);
    assert_int_equal(a, -1);
    assert_int_equal(b, -1);
    assert_int_equal(sp_gpu_find_shared_device(&ids[0][0], BUS, 1, &a, &b), 0);
}

static void test_shared_device_found(void **state)
{
    /* 4 ranks, 2 GPUs visible to all: ranks 0 and 2 land on the same one */
    char ids[4][BUS] = {"0000:18:00.0", "0000:2A:00.0", "0000:18:00.0", "0000:2A:00.0"};
    int a = -1, b = -1;

    (void)state;
    assert_int_equal(sp_gpu_find_shared_device(&ids[0][0], BUS, 4, &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 2);
    /* only the last pair shares */
    strcpy(ids[2], "0000:3A:00.0");
    assert_int_equal(sp_gpu_find_shared_device(&ids[0][0], BUS, 4, &a, &b), 1);
    assert_int_equal(a, 1);
    assert_int_equal(b, 3);
}

static void test_must_abort(void **state)
{
    (void)state;
    assert_int_equal(sp_gpu_must_abort(0, 0), 0);
    /* still running, or a non-blocking communicator still busy: keep waiting */
    assert_int_equal(sp_gpu_must_abort(SP_CUDA_ERROR_NOT_READY, 0), 0);
    assert_int_equal(sp_gpu_must_abort(0, SP_NCCL_IN_PROGRESS), 0);
    /* an NCCL async error (ncclSystemError 2, ncclRemoteError 6) */
    assert_int_equal(sp_gpu_must_abort(0, 2), 1);
    assert_int_equal(sp_gpu_must_abort(SP_CUDA_ERROR_NOT_READY, 6), 1);
    /* a sticky CUDA error: cudaErrorIllegalAddress 700, cudaErrorLaunchFailure 719 */
    assert_int_equal(sp_gpu_must_abort(700, 0), 1);
    assert_int_equal(sp_gpu_must_abort(719, SP_NCCL_IN_PROGRESS), 1);
}

static void test_init_progress(void **state)
{
    (void)state;
    assert_int_equal(sp_gpu_init_progress(0, 10, 5), SP_GPU_INIT_DONE);
    assert_int_equal(sp_gpu_init_progress(SP_NCCL_IN_PROGRESS, 4, 5), SP_GPU_INIT_WAIT);
    assert_int_equal(sp_gpu_init_progress(SP_NCCL_IN_PROGRESS, 5, 5), SP_GPU_INIT_EXPIRED);
    assert_int_equal(sp_gpu_init_progress(SP_NCCL_IN_PROGRESS, 6, 5), SP_GPU_INIT_EXPIRED);
    /* an error ends the wait at once, before the deadline too */
    assert_int_equal(sp_gpu_init_progress(2, 1, 5), SP_GPU_INIT_FAILED);
    assert_int_equal(sp_gpu_init_progress(SP_NCCL_INVALID_USAGE, 1, 5), SP_GPU_INIT_FAILED);
}

static void test_max_connections(void **state)
{
    (void)state;
    /* CUDA's default 8 queues are enough for 7 lanes and the backend's own stream */
    assert_int_equal(sp_gpu_max_connections(3, NULL), 0);
    assert_int_equal(sp_gpu_max_connections(7, NULL), 0);
    assert_int_equal(sp_gpu_max_connections(8, NULL), 9);
    assert_int_equal(sp_gpu_max_connections(12, ""), 13);
    assert_int_equal(sp_gpu_max_connections(40, NULL), 32);
    /* the user's setting stands */
    assert_int_equal(sp_gpu_max_connections(12, "1"), 0);
}

static void test_group_deadline(void **state)
{
    sp_gpu_deadline_t d = {0};

    (void)state;
    /* 12 lanes waited on one after another share the first wait's deadline */
    assert_int_equal(sp_gpu_group_deadline(&d, 1000, 500), 1500);
    for (int lane = 1; lane < 12; lane++) {
        assert_int_equal(sp_gpu_group_deadline(&d, 1000 + 100 * (uint64_t)lane, 500), 1500);
    }
    /* the next step's enqueues open a new group */
    sp_gpu_group_reset(&d);
    assert_int_equal(sp_gpu_group_deadline(&d, 5000, 500), 5500);
    assert_int_equal(sp_gpu_group_deadline(&d, 5400, 500), 5500);
}

static void test_throttle_str(void **state)
{
    char buf[96];

    (void)state;
    sp_gpu_throttle_str(0, buf, sizeof(buf));
    assert_string_equal(buf, "none");
    sp_gpu_throttle_str(0x1, buf, sizeof(buf));
    assert_string_equal(buf, "gpu_idle");
    /* a power-capped, thermally slowed GPU */
    sp_gpu_throttle_str(0x4 | 0x40, buf, sizeof(buf));
    assert_string_equal(buf, "sw_power_cap,hw_thermal");
    sp_gpu_throttle_str(0x8 | 0x1000, buf, sizeof(buf));
    assert_string_equal(buf, "hw_slowdown,0x1000");
    /* a short buffer is cut, never overrun */
    sp_gpu_throttle_str(0x1ff, buf, 10);
    assert_int_equal(strlen(buf), 9);
}

static void test_avg_tolerance(void **state)
{
    (void)state;
    /* exact: integer types, and any floating type with a power-of-two rank count */
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_INT32, 3) == 0.0);
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_UINT8, 6) == 0.0);
    for (int n = 1; n <= 4096; n *= 2) {
        assert_true(sp_gpu_avg_tolerance(SP_DTYPE_BFLOAT16, n) == 0.0);
        assert_true(sp_gpu_avg_tolerance(SP_DTYPE_HALF, n) == 0.0);
        assert_true(sp_gpu_avg_tolerance(SP_DTYPE_FLOAT, n) == 0.0);
    }
    /* otherwise (n + 2) unit roundoffs: bfloat16 at 6 ranks 8 x 2^-8, half at 96 ranks 98 x 2^-11 */
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_BFLOAT16, 6) == 8.0 / 256.0);
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_HALF, 96) == 98.0 / 2048.0);
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_DOUBLE, 3) == 5.0 * 0x1p-53);
    /* never more than the old (n + 2) epsilons */
    assert_true(sp_gpu_avg_tolerance(SP_DTYPE_BFLOAT16, 127) < 129 * 7.81e-3);
}

static void test_block_impl(void **state)
{
    (void)state;
    assert_string_equal(sp_gpu_block_impl(1), "nccl");
    assert_string_equal(sp_gpu_block_impl(0), "grouped_p2p");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_device_none), cmocka_unit_test(test_shared_device_found),
        cmocka_unit_test(test_must_abort),         cmocka_unit_test(test_init_progress),
        cmocka_unit_test(test_max_connections),    cmocka_unit_test(test_block_impl),
        cmocka_unit_test(test_group_deadline),     cmocka_unit_test(test_throttle_str),
        cmocka_unit_test(test_avg_tolerance),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
