/* Credentials inside allow-listed environment values (topo/redact.h): URL user-info, the
 * argument of -p/--password, secret key=value pairs; everything else kept as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fingerprint.h"
#include "kv.h"
#include "redact.h"

static void expect(const char *in, const char *want)
{
    char out[256];

    sp_redact_value(in, out, sizeof(out));
    if (strcmp(out, want) != 0) {
        print_error("'%s' -> '%s', want '%s'\n", in, out, want);
        fail();
    }
}

static void test_urls(void **state)
{
    (void)state;
    expect("https://user:pass@proxy.example.com:8080/x", "https://<redacted>@proxy.example.com:8080/x");
    expect("http://tok@h/a@b", "http://<redacted>@h/a@b");
    expect("https://example.com/a?b=c@d", "https://example.com/a?b=c@d");
    expect("a=https://u:p@h1,https://v:q@h2", "a=https://<redacted>@h1,https://<redacted>@h2");
}

static void test_args(void **state)
{
    (void)state;
    expect("sshpass -p hunter2 ssh -x", "sshpass -p <redacted> ssh -x");
    expect("tool --password s3cret --verbose", "tool --password <redacted> --verbose");
    expect("tool --password=s3cret", "tool --password=<redacted>");
    expect("ssh -x -q", "ssh -x -q");
}

static void test_pairs(void **state)
{
    (void)state;
    expect("nightly run, password=hunter2 please", "nightly run, password=<redacted> please");
    expect("db: PWD=abc;user=me", "db: PWD=<redacted>;user=me");
    expect("token=xyz&mode=fast", "token=<redacted>&mode=fast");
    expect("DB_PASSWORD='q w' next", "DB_PASSWORD=<redacted> next");
    expect("mlx5_0:1,mlx5_1:1", "mlx5_0:1,mlx5_1:1");
    expect("WARN", "WARN");
    expect("", "");
}

/* the capture applies it to allow-listed names; secret names stay wholly redacted */
static void test_capture(void **state)
{
    char *env[] = {"NCCL_NET_PLUGIN_URL=https://user:pass@mirror/x",
                   "OMPI_MCA_plm_rsh_agent=sshpass -p hunter2 ssh",
                   "SLURM_JOB_COMMENT=retry password=hunter2",
                   "NCCL_DEBUG=WARN",
                   "UCX_PASSWORD=anything",
                   NULL};
    sp_kv_t kv[8];
    int n = sp_env_capture(env, kv, 8);

    (void)state;
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++) {
        assert_null(strstr(kv[i].value, "hunter2"));
        assert_null(strstr(kv[i].value, "user:pass"));
        if (strcmp(kv[i].key, "NCCL_DEBUG") == 0) {
            assert_string_equal(kv[i].value, "WARN");
        }
        if (strcmp(kv[i].key, "UCX_PASSWORD") == 0) {
            assert_string_equal(kv[i].value, "<redacted>");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_args),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
