/* Unit tests of the nccl backend's host-side logic (topo/gpu_util.h): device selection, version
 * strings, CUDA/NCCL error classes; and of the GPU options of `scaleprobe coll`. No GPU needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "coll_options.h"
#include "gpu_util.h"

#define ERRLEN 256
#define UNTOUCHED (-42)

/* ---- device selection ---- */

/* Select with the given node shape; the device is UNTOUCHED unless selection succeeded. */
static sp_status_t select_device(int local_rank, int local_size, int ndev, int override,
                                 int *device_p, char *err)
{
    memset(err, 0, ERRLEN);
    *device_p = UNTOUCHED;
    return sp_gpu_select_device(local_rank, local_size, ndev, override, device_p, err, ERRLEN);
}

static void expect_message(const char *err, const char *part)
{
    if (strstr(err, part) == NULL) {
        print_error("message '%s' should contain '%s'\n", err, part);
        fail();
    }
}

static void test_select_override_in_range(void **state)
{
    char err[ERRLEN];
    int dev;

    (void)state;
    assert_int_equal(select_device(0, 1, 4, 3, &dev, err), SP_OK);
    assert_int_equal(dev, 3);
    assert_int_equal(select_device(2, 4, 4, 0, &dev, err), SP_OK);
    assert_int_equal(dev, 0);
    /* the override is the user's choice: it may put several ranks on one GPU of a smaller node */
    assert_int_equal(select_device(5, 8, 2, 1, &dev, err), SP_OK);
    assert_int_equal(dev, 1);
}

static void test_select_override_out_of_range(void **state)
{
    char err[ERRLEN];
    int dev;

    (void)state;
    assert_int_equal(select_device(0, 1, 4, 4, &dev, err), SP_ERR_INVALID);
    assert_int_equal(dev, UNTOUCHED);
    expect_message(err, "--device 4");
    expect_message(err, "4 GPU");
    assert_int_equal(select_device(0, 1, 2, 7, &dev, err), SP_ERR_INVALID);
    assert_int_equal(dev, UNTOUCHED);
    expect_message(err, "--device 7");
    expect_message(err, "2 GPU");
}

static void test_select_local_rank(void **state)
{
    char err[ERRLEN];
    int dev;

    (void)state;
    for (int r = 0; r < 8; r++) {
        assert_int_equal(select_device(r, 8, 8, -1, &dev, err), SP_OK);
        assert_int_equal(dev, r);
    }
    /* fewer ranks than GPUs: the first ones are used */
    assert_int_equal(select_device(1, 2, 8, -1, &dev, err), SP_OK);
    assert_int_equal(dev, 1);
}

static void test_select_more_ranks_than_gpus(void **state)
{
    char err[ERRLEN];
    int dev;

    (void)state;
    /* per-task binding: each of 8 ranks sees one device, its own, as device 0 */
    for (int r = 0; r < 8; r++) {
        assert_int_equal(select_device(r, 8, 1, -1, &dev, err), SP_OK);
        assert_int_equal(dev, 0);
    }
    /* 5 ranks, 3 visible: round robin; whether that shares a device the bus ids decide */
    assert_int_equal(select_device(4, 5, 3, -1, &dev, err), SP_OK);
    assert_int_equal(dev, 1);
    assert_int_equal(select_device(2, 5, 3, -1, &dev, err), SP_OK);
    assert_int_equal(dev, 2);
}

static void test_select_no_device(void **state)
{
    char err[ERRLEN];
    int dev;

    (void)state;
    assert_int_equal(select_device(0, 1, 0, -1, &dev, err), SP_ERR_INVALID);
    assert_int_equal(dev, UNTOUCHED);
    assert_true(strlen(err) > 0);
    assert_int_equal(select_device(0, 1, 0, 0, &dev, err), SP_ERR_INVALID);
    assert_int_equal(dev, UNTOUCHED);
    assert_true(strlen(err) > 0);
}

/* ---- version strings ---- */

static void test_cuda_version_str(void **state)
{
    static const struct {
        int code;
        const char *text;
    } rows[] = {{13000, "13.0"}, {12040, "12.4"}, {11080, "11.8"}, {12090, "12.9"}};
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        sp_gpu_cuda_version_str(rows[i].code, buf, sizeof(buf));
        assert_string_equal(buf, rows[i].text);
    }
    /* a short buffer is truncated and terminated */
    memset(buf, 'x', sizeof(buf));
    sp_gpu_cuda_version_str(13000, buf, 3);
    assert_string_equal(buf, "13");
}

static void test_nccl_version_str(void **state)
{
    static const struct {
        int code;
        const char *text;
    } rows[] = {
        {22809, "2.28.9"}, {21803, "2.18.3"}, {2708, "2.7.8"}, {20900, "2.9.0"}, {2804, "2.8.4"},
    };
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        sp_gpu_nccl_version_str(rows[i].code, buf, sizeof(buf));
        assert_string_equal(buf, rows[i].text);
    }
}

/* ---- error classes ---- */

static void test_classify_cuda(void **state)
{
    (void)state;
    assert_int_equal(sp_gpu_classify_cuda(0), SP_OK);
    assert_int_equal(sp_gpu_classify_cuda(35), SP_ERR_UNSUPPORTED);  /* insufficient driver */
    assert_int_equal(sp_gpu_classify_cuda(100), SP_ERR_UNSUPPORTED); /* no device */
    assert_int_equal(sp_gpu_classify_cuda(2), SP_ERR_DEVICE);        /* out of memory */
    assert_int_equal(sp_gpu_classify_cuda(700), SP_ERR_DEVICE);      /* illegal address */
    assert_int_equal(sp_gpu_classify_cuda(1), SP_ERR_DEVICE);
}

static void test_classify_nccl(void **state)
{
    (void)state;
    assert_int_equal(sp_gpu_classify_nccl(0), SP_OK);
    assert_int_equal(sp_gpu_classify_nccl(7), SP_OK); /* in progress */
    assert_int_equal(sp_gpu_classify_nccl(4), SP_ERR_INVALID);
    assert_int_equal(sp_gpu_classify_nccl(5), SP_ERR_INVALID);
    for (int rc = 1; rc <= 6; rc++) {
        if (rc != 4 && rc != 5) {
            if (sp_gpu_classify_nccl(rc) != SP_ERR_DEVICE) {
                print_error("ncclResult_t %d: expected SP_ERR_DEVICE, got %d\n", rc,
                            (int)sp_gpu_classify_nccl(rc));
                fail();
            }
        }
    }
}

/* ---- GPU options of `coll` ---- */

/* Parse a coll command line (words split on spaces); help must not be set on success. */
static sp_status_t parse(const char *line, sp_coll_opts_t *opts, char *err)
{
    char text[256];
    char *argv[16];
    int argc = 0;
    char *save = NULL;
    int help = -1;
    sp_status_t st;

    snprintf(text, sizeof(text), "coll %s", line);
    for (char *tok = strtok_r(text, " ", &save); tok != NULL && argc < 16;
         tok = strtok_r(NULL, " ", &save)) {
        argv[argc++] = tok;
    }
    memset(err, 0, ERRLEN);
    st = sp_coll_opts_parse(argc, argv, 1, opts, &help, err, ERRLEN);
    if (st == SP_OK) {
        assert_int_equal(help, 0);
    }
    return st;
}

static void test_opts_gpu_defaults(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse("", &o, err), SP_OK);
    assert_int_equal(o.run.backend, SP_BACKEND_AUTO);
    assert_int_equal(o.run.device, -1);
    assert_true(o.run.timeout == 300.0);
    assert_int_equal(o.cuda_graph, 0);
}

static void test_opts_backend(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse("--backend nccl", &o, err), SP_OK);
    assert_int_equal(o.run.backend, 2);
    assert_int_equal(o.run.backend, SP_BACKEND_NCCL);
    assert_int_equal(parse("--backend=host", &o, err), SP_OK);
    assert_int_equal(o.run.backend, SP_BACKEND_HOST);
    assert_int_equal(parse("--backend cuda", &o, err), SP_ERR_INVALID);
    expect_message(err, "--backend");
}

static void test_opts_device(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse("--device 3", &o, err), SP_OK);
    assert_int_equal(o.run.device, 3);
    assert_int_equal(parse("--device -1", &o, err), SP_OK);
    assert_int_equal(o.run.device, -1);
    assert_int_equal(parse("--device -2", &o, err), SP_ERR_INVALID);
    expect_message(err, "--device");
    assert_int_equal(parse("--device gpu0", &o, err), SP_ERR_INVALID);
    expect_message(err, "--device");
}

static void test_opts_timeout(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse("--timeout 30", &o, err), SP_OK);
    assert_true(o.run.timeout == 30.0);
    assert_int_equal(parse("--timeout 0.05", &o, err), SP_ERR_INVALID);
    expect_message(err, "--timeout");
    assert_int_equal(parse("--timeout 0", &o, err), SP_ERR_INVALID);
    expect_message(err, "--timeout");
}

static void test_opts_cuda_graph(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse("-G", &o, err), SP_OK);
    assert_int_equal(o.cuda_graph, 1);
    assert_int_equal(parse("--cuda-graph", &o, err), SP_OK);
    assert_int_equal(o.cuda_graph, 1);
    assert_int_equal(parse("--backend nccl -G --device 1", &o, err), SP_OK);
    assert_int_equal(o.cuda_graph, 1);
    assert_int_equal(o.run.backend, SP_BACKEND_NCCL);
    assert_int_equal(o.run.device, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_override_in_range),
        cmocka_unit_test(test_select_override_out_of_range),
        cmocka_unit_test(test_select_local_rank),
        cmocka_unit_test(test_select_more_ranks_than_gpus),
        cmocka_unit_test(test_select_no_device),
        cmocka_unit_test(test_cuda_version_str),
        cmocka_unit_test(test_nccl_version_str),
        cmocka_unit_test(test_classify_cuda),
        cmocka_unit_test(test_classify_nccl),
        cmocka_unit_test(test_opts_gpu_defaults),
        cmocka_unit_test(test_opts_backend),
        cmocka_unit_test(test_opts_device),
        cmocka_unit_test(test_opts_timeout),
        cmocka_unit_test(test_opts_cuda_graph),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
