/* Environment capture: allow-list only, secret-looking names redacted, sorted; versions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fingerprint.h"

static void test_allow_list(void **state)
{
    (void)state;
    assert_true(sp_env_allowed("NCCL_DEBUG"));
    assert_true(sp_env_allowed("UCX_NET_DEVICES"));
    assert_true(sp_env_allowed("SLURM_JOB_ID"));
    assert_true(sp_env_allowed("CUDA_VISIBLE_DEVICES"));
    assert_false(sp_env_allowed("HOME"));
    assert_false(sp_env_allowed("AWS_SECRET_ACCESS_KEY"));
    assert_false(sp_env_allowed("NCCL")); /* the prefix needs its underscore */
    assert_false(sp_env_allowed("MY_NCCL_X"));
}

static void test_secret_names(void **state)
{
    (void)state;
    assert_true(sp_env_secret("NCCL_IB_SECRET"));
    assert_true(sp_env_secret("SLURM_JOB_TOKEN"));
    assert_true(sp_env_secret("ucx_password"));
    assert_true(sp_env_secret("OMPI_MCA_orte_precondition_transports"));
    assert_true(sp_env_secret("CUDA_API_KEY"));
    assert_true(sp_env_secret("OMPI_CREDENTIALS_FILE"));
    assert_false(sp_env_secret("NCCL_DEBUG"));
    assert_false(sp_env_secret("SLURM_NODELIST"));
}

static void test_capture(void **state)
{
    char *env[] = {"HOME=/root",       "NCCL_DEBUG=INFO", "NCCL_IB_SECRET_KEY=hunter2",
                   "AWS_SECRET=x",     "SLURM_JOB_ID=42", "BROKEN",
                   "=novalue",         "CUDA_VISIBLE_DEVICES=0,1", NULL};
    sp_kv_t out[8];
    int n;

    (void)state;
    n = sp_env_capture(env, out, 8);
    assert_int_equal(n, 4);
    /* sorted by name */
    assert_string_equal(out[0].key, "CUDA_VISIBLE_DEVICES");
    assert_string_equal(out[0].value, "0,1");
    assert_string_equal(out[1].key, "NCCL_DEBUG");
    assert_string_equal(out[1].value, "INFO");
    assert_string_equal(out[2].key, "NCCL_IB_SECRET_KEY");
    assert_string_equal(out[2].value, "<redacted>");
    assert_string_equal(out[3].key, "SLURM_JOB_ID");
    for (int i = 0; i < n; i++) {
        assert_null(strstr(out[i].value, "hunter2"));
    }
    /* the output limit is respected */
    assert_int_equal(sp_env_capture(env, out, 2), 2);
}

static void test_versions(void **state)
{
    sp_kv_t out[8];
    int n;
    int have_hdf5 = 0;

    (void)state;
    n = sp_fingerprint_versions(out, 8);
    assert_true(n >= 2);
    for (int i = 0; i < n; i++) {
        if (strcmp(out[i].key, "hdf5_library") == 0) {
            have_hdf5 = 1;
            assert_non_null(strchr(out[i].value, '.'));
        }
    }
    assert_true(have_hdf5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allow_list),
        cmocka_unit_test(test_secret_names),
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
