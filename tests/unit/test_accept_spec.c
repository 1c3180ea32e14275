/* The spec of `scaleprobe accept`: a good spec's node types, checks and thresholds; every kind
 * of bad spec refused with a message that names its line; node type matching; Xid lines; and
 * check evaluation on made-up health records (a GPU check never passes without GPUs). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checks.h"
#include "health.h"
#include "spec.h"
#include "verdict.h"

static const char good[] = "{\n"
                           "  \"repeats\": 3,\n"
                           "  \"node_types\": {\n"
                           "    \"gpu\": {\n"
                           "      \"match\": {\"hosts\": \"gpu-*\", \"gpus\": 8},\n"
                           "      \"checks\": {\n"
                           "        \"gpu_count\": {\"expect\": 8},\n"
                           "        \"ecc_volatile_uncorrected\": {\"max\": 0},\n"
                           "        \"throttle_reasons\": {\"fail\": [\"hw_thermal\"]},\n"
                           "        \"xid\": {\"fail\": [79, 48], \"warn_unlisted\": false}\n"
                           "      }\n"
                           "    },\n"
                           "    \"cpu\": {\"checks\": {\"memory_gib\": {\"min\": 4, "
                           "\"severity\": \"warn\"}}}\n"
                           "  }\n"
                           "}\n";

static void test_good_spec(void **state)
{
    sp_spec_t *s = calloc(1, sizeof(*s));
    char err[512] = "";

    (void)state;
    assert_int_equal(sp_spec_parse(good, "good.json", s, err, sizeof(err)), SP_OK);
    assert_int_equal(s->repeats, 3);
    assert_int_equal(s->ntypes, 2);
    assert_string_equal(s->types[0].name, "gpu");
    assert_string_equal(s->types[0].hosts, "gpu-*");
    assert_int_equal(s->types[0].gpus, 8);
    assert_int_equal(s->types[0].nchecks, 4);
    assert_int_equal(s->types[0].checks[0].line, 7);
    assert_int_equal(s->types[0].checks[3].line, 10);
    assert_int_equal(s->types[0].checks[3].val[0].nlist, 2);
    assert_true(s->types[0].checks[3].val[1].set);
    assert_true(s->types[0].checks[3].val[1].num == 0);
    assert_int_equal(s->types[1].checks[0].severity, SP_SEV_WARN);
    assert_int_equal(s->types[1].checks[0].line, 13);
    /* matching: host pattern and GPU count, in spec order */
    assert_int_equal(sp_spec_match(s, "gpu-017", 8), 0);
    assert_int_equal(sp_spec_match(s, "gpu-017", 7), 1);
    assert_int_equal(sp_spec_match(s, "login1", -1), 1);
    free(s);
}

/* text with one defect; the message must start with "bad.json:LINE:" and contain what */
static void expect_bad(const char *text, int line, const char *what)
{
    sp_spec_t *s = calloc(1, sizeof(*s));
    char err[512] = "", want[32];

    assert_int_equal(sp_spec_parse(text, "bad.json", s, err, sizeof(err)), SP_ERR_INVALID);
    snprintf(want, sizeof(want), "bad.json:%d:", line);
    if (strncmp(err, want, strlen(want)) != 0 || strstr(err, what) == NULL) {
        fail_msg("message '%s', want '%s' ... '%s'", err, want, what);
    }
    free(s);
}

static void test_bad_specs(void **state)
{
    (void)state;
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n\n  \"ecc_everything\": {\"max\": 0}}}}}",
               3, "unknown check 'ecc_everything'");
    expect_bad(
        "{\"node_types\": {\"a\": {\"checks\": {\n  \"gpu_count\":\n {\"expect\": \"8\"}}}}}", 3,
        "'expect' must be a number, not a string");
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n\n\n  \"memory_gib\": {}}}}}", 4,
               "has no threshold");
    expect_bad("{\"node_types\": {\"a\": {\n  \"checks\": {},\n  \"kind\": \"gpu\"}}}", 3,
               "unknown node type field 'kind'");
    expect_bad("{\"node_types\": {\"a\": {\"match\": {\n \"gpu\": 8}, \"checks\": {}}}}", 2,
               "unknown node type field 'match.gpu'");
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n \"links_matrix\": {\"min_ratio\": 2}}}}}",
               2, "'min_ratio' must lie between 0 and 1");
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n\n \"gemm_tflops\": {\"min\": 1, "
               "\"dtype\": \"quad\"}}}}}",
               3, "'dtype' must be float");
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n \"proxy_step\": {\"max_slowdown_pct\": "
               "5, \"runs\": 1}}}}}",
               2, "'runs' must be a whole number");
    expect_bad("{\"node_types\": {\"a\": {\"checks\": {\n \"memory_gib\": {\"min\": 1,\n"
               " \"mni\": 2}}}}}",
               3, "no parameter 'mni'");
    expect_bad("{\n\"node_types\": {\n\"a\": {\"checks\": {\"xid\": {\"fail\": [79, \"x\"]}}}}}", 3,
               "one entry is a string");
    expect_bad("{\n\"repeats\": 0, \"node_types\": {}}", 2, "'repeats'");
    expect_bad("{\n\"node_types\": {\"a\": {\"checks\": {}}},\n\"nodes\": 3}", 3,
               "unknown key 'nodes'");
    expect_bad("{\n\"node_types\": {\"a\": {\"checks\": {\"memory_gib\": {\"min\": 1}\n}}\n", 4,
               "not valid JSON");
    expect_bad("{\"description\": \"a\\\": {\\\"x\\\": 1\",\n \"node_types\": {\"a\": {\"checks\":"
               " {\n\"memory_gib\": {\"min\": 1, \"severity\": \"maybe\"}}}}}",
               3, "'severity'");
    expect_bad("{}", 1, "no node types");
}

static void test_xid_lines(void **state)
{
    (void)state;
    assert_int_equal(sp_health_parse_xid("[ 12.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has "
                                         "fallen off the bus."),
                     79);
    assert_int_equal(sp_health_parse_xid("NVRM: Xid (PCI:0000:b3:00): 13, Graphics SM Warp"), 13);
    assert_int_equal(sp_health_parse_xid("NVRM: GPU at PCI:0000:3b:00: GPU-1234"), -1);
    assert_int_equal(sp_health_parse_xid("NVRM: Xid (PCI:0000:3b:00): pid=1"), -1);
}

static void test_no_gpu_never_passes(void **state)
{
    sp_spec_t *s = calloc(1, sizeof(*s));
    sp_health_node_t *h = calloc(1, sizeof(*h));
    sp_accept_eval_t ev;
    char err[256];

    (void)state;
    assert_int_equal(sp_spec_parse(good, "good.json", s, err, sizeof(err)), SP_OK);
    s->types[0].gpus = -1; /* let the GPU type match a node without GPUs */
    snprintf(h->host, sizeof(h->host), "gpu-001");
    snprintf(h->nvml, sizeof(h->nvml), "absent");
    h->ngpus = -1;
    h->xid_readable = 1;
    assert_int_equal(sp_accept_evaluate(s, h, NULL, 1, &ev), SP_OK);
    assert_int_equal(ev.nrows, 4);
    assert_int_equal(ev.rows[0].res.verdict, SP_VERDICT_FAIL); /* gpu_count 0 != 8 */
    assert_int_equal(ev.rows[1].res.verdict, SP_VERDICT_NA);
    assert_int_equal(ev.rows[2].res.verdict, SP_VERDICT_NA);
    assert_int_equal(ev.rows[3].res.verdict, SP_VERDICT_PASS); /* no Xid in a readable log */
    assert_int_equal(ev.job, SP_VERDICT_FAIL);
    sp_accept_eval_cleanup(&ev);
    free(h);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_spec),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_xid_lines),
        cmocka_unit_test(test_no_gpu_never_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
