/* Unit tests of links/links_report.h on pair rows as the run writes them: the verdicts in the
 * metrics' own units (a slow node's bandwidth below 1 x the cohort, a slow pair's latency above
 * 1 x), the exclude list (matrix nodes and the screen's node, host names that are prefixes of
 * others), the printed report and Slurm lines, the two exclude files, and per rail: each rail's
 * matrix judged on its own (one slow rail of a node named on that rail only, a slow node on
 * every rail, the host drained once). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links_report.h"
#include "links_verdict.h"

#define N 4

static const char *const hosts[N] = {"h1", "h2", "h3", "h10"};

static void add(sp_links_pair_row_t *p, int metric, int src, int dst, double us, double bytes)
{
    memset(p, 0, sizeof(*p));
    p->metric = (int8_t)metric;
    p->src = src;
    p->dst = dst;
    p->bytes = (uint64_t)bytes;
    p->samples = 10;
    p->median_us = us;
    p->ci_lo_us = us * 0.99;
    p->ci_hi_us = us * 1.01;
    p->value = metric == SP_LINKS_BW ? bytes / us * 1e-3 : us;
}

/* 4 units, unit 3 ("h10") slow at a tenth of the bandwidth, the pair h1-h2 at 10 x latency */
static void build(sp_links_result_data_t *d, sp_links_unit_row_t *u, sp_links_pair_row_t *p)
{
    size_t k = 0;

    memset(d, 0, sizeof(*d));
    for (int i = 0; i < N; i++) {
        u[i].unit = i;
        u[i].rank = i;
        u[i].node = i;
        snprintf(u[i].host, sizeof(u[i].host), "%s", hosts[i]);
        for (int j = 0; j < N; j++) {
            if (i != j) {
                add(&p[k++], SP_LINKS_BW, i, j, i == 3 || j == 3 ? 1000.0 : 100.0, 1e6);
            }
            if (i < j) {
                add(&p[k++], SP_LINKS_LAT, i, j, i == 0 && j == 1 ? 100.0 : 10.0, 8);
            }
        }
    }
    d->units = u;
    d->nunits = N;
    d->pairs = p;
    d->npairs = k;
    snprintf(d->per, sizeof(d->per), "node");
    snprintf(d->threshold, sizeof(d->threshold), "0.2");
}

static void test_verdicts_in_units(void **state)
{
    sp_links_unit_row_t u[N];
    sp_links_pair_row_t p[3 * N * N];
    sp_links_outlier_row_t o[2 * (N + N * N)];
    sp_links_result_data_t d;
    const double thr[SP_LINKS_METRIC_COUNT] = {0.2, 0.5};
    double cohort[SP_LINKS_METRIC_COUNT];
    size_t nout = 0;
    int node = 0;
    int link = 0;

    (void)state;
    build(&d, u, p);
    assert_int_equal(sp_links_analyze(&d, thr, o, &nout, cohort), SP_OK);
    assert_true(fabs(cohort[SP_LINKS_BW] - 10.0) < 0.01); /* 1 MB / 100 us = 10 GB/s */
    assert_true(fabs(cohort[SP_LINKS_LAT] - 10.0) < 0.01);
    assert_int_equal(nout, 2);
    for (size_t i = 0; i < nout; i++) {
        if (o[i].kind == SP_LINKS_FIND_NODE) {
            node++;
            assert_int_equal(o[i].metric, SP_LINKS_BW);
            assert_string_equal(o[i].host_a, "h10");
            assert_true(fabs(o[i].ratio - 0.1) < 0.005);
            assert_true(o[i].ratio_lo <= o[i].ratio && o[i].ratio <= o[i].ratio_hi);
            assert_int_equal(o[i].nslow, 6);
        } else {
            link++;
            assert_int_equal(o[i].metric, SP_LINKS_LAT);
            assert_string_equal(o[i].host_a, "h1");
            assert_string_equal(o[i].host_b, "h2");
            assert_true(fabs(o[i].ratio - 10.0) < 0.2); /* latency: above 1 is slow */
            assert_true(o[i].ratio_lo <= o[i].ratio && o[i].ratio <= o[i].ratio_hi);
        }
    }
    assert_int_equal(node, 1);
    assert_int_equal(link, 1);
}

static void test_exclude_and_report(void **state)
{
    sp_links_unit_row_t u[N];
    sp_links_pair_row_t p[3 * N * N];
    sp_links_outlier_row_t o[2 * (N + N * N)];
    sp_links_result_data_t d;
    const double thr[SP_LINKS_METRIC_COUNT] = {0.2, 0.5};
    double cohort[SP_LINKS_METRIC_COUNT];
    char list[256];
    char host[64];
    char *text = NULL;
    size_t len = 0;
    char prefix[] = "/tmp/sp-links-unit-XXXXXX";
    char path[64];
    char buf[4096];
    FILE *f;
    size_t nout = 0;

    (void)state;
    build(&d, u, p);
    assert_int_equal(sp_links_analyze(&d, thr, o, &nout, cohort), SP_OK);
    d.outliers = o;
    d.noutliers = nout;
    assert_int_equal(sp_links_exclude_hosts(&d, list, sizeof(list)), 1);
    assert_string_equal(list, "h10");
    /* the screen named h1: a prefix of h10, still its own entry */
    snprintf(d.screen_verdict, sizeof(d.screen_verdict), "slow node h1 (unit 0) found in 2 "
                                                         "round(s)");
    assert_int_equal(sp_links_screen_host(&d, host, sizeof(host)), 1);
    assert_string_equal(host, "h1");
    assert_int_equal(sp_links_exclude_hosts(&d, list, sizeof(list)), 2);
    assert_string_equal(list, "h10,h1");
    f = open_memstream(&text, &len);
    sp_links_report_print(&d, f);
    fclose(f);
    assert_non_null(strstr(text, "# SLOW NODE bandwidth: h10 (unit 3)"));
    assert_non_null(strstr(text, "# SLOW LINK latency: h1 <-> h2"));
    assert_non_null(strstr(text, "sbatch --exclude=h10,h1 "));
    assert_non_null(strstr(text, "scontrol update nodename=h10 state=drain reason=\"scaleprobe "
                                 "links: bandwidth 0.10x cohort\""));
    assert_non_null(strstr(text, "scontrol update nodename=h1 state=drain reason=\"scaleprobe "
                                 "links: slow in the screen\""));
    free(text);
    /* the files: one host a line, and JSON with reasons */
    assert_non_null(mkdtemp(prefix));
    snprintf(path, sizeof(path), "%s/x", prefix);
    assert_int_equal(sp_links_exclude_write(&d, path, "r.h5"), SP_OK);
    snprintf(path, sizeof(path), "%s/x.txt", prefix);
    f = fopen(path, "r");
    assert_non_null(f);
    len = fread(buf, 1, sizeof(buf) - 1, f);
    buf[len] = '\0';
    fclose(f);
    remove(path);
    assert_string_equal(buf, "h10\nh1\n");
    snprintf(path, sizeof(path), "%s/x.json", prefix);
    f = fopen(path, "r");
    assert_non_null(f);
    len = fread(buf, 1, sizeof(buf) - 1, f);
    buf[len] = '\0';
    fclose(f);
    remove(path);
    remove(prefix);
    assert_non_null(strstr(buf, "\"slurm_exclude\": \"h10,h1\""));
    assert_non_null(strstr(buf, "{\"host\": \"h10\", \"reason\": \"scaleprobe links: bandwidth"));
    assert_non_null(strstr(buf, "{\"host\": \"h1\", \"reason\": \"scaleprobe links: slow screen"));
    assert_non_null(strstr(buf, "\"a\": \"h1\", \"b\": \"h2\""));
}

#define NODES 4
#define RAILS 2
#define NU (NODES * RAILS)

/* 4 nodes x 2 rails, units rail-major (unit = rail * 4 + node), pairs only within a rail; node
 * 2 ("h3") at a tenth of the bandwidth on the rails in slow_rails (a bit mask). */
static void build_rails(sp_links_result_data_t *d, sp_links_unit_row_t *u,
                        sp_links_pair_row_t *p, unsigned slow_rails)
{
    size_t k = 0;

    memset(d, 0, sizeof(*d));
    for (int i = 0; i < NU; i++) {
        u[i].unit = i;
        u[i].rank = (i % NODES) * RAILS + i / NODES; /* ranks by block: node-major */
        u[i].node = i % NODES;
        u[i].rail = i / NODES;
        snprintf(u[i].host, sizeof(u[i].host), "%s", hosts[i % NODES]);
    }
    for (int i = 0; i < NU; i++) {
        for (int j = 0; j < NU; j++) {
            int q = i / NODES;
            int slow = ((slow_rails >> q) & 1u) && (i % NODES == 2 || j % NODES == 2);
            if (q != j / NODES || i == j) {
                continue; /* never across rails */
            }
            add(&p[k++], SP_LINKS_BW, i, j, slow ? 1000.0 : 100.0, 1e6);
            if (i < j) {
                add(&p[k++], SP_LINKS_LAT, i, j, 10.0, 8);
            }
        }
    }
    d->units = u;
    d->nunits = NU;
    d->pairs = p;
    d->npairs = k;
    snprintf(d->per, sizeof(d->per), "rail");
    snprintf(d->threshold, sizeof(d->threshold), "0.2");
}

/* The report of d with its outliers analysed, into a string the caller frees. */
static char *analysed_report(sp_links_result_data_t *d, sp_links_outlier_row_t *o,
                             size_t *nout_p)
{
    const double thr[SP_LINKS_METRIC_COUNT] = {0.2, 0.5};
    double cohort[SP_LINKS_METRIC_COUNT];
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    assert_int_equal(sp_links_analyze(d, thr, o, nout_p, cohort), SP_OK);
    assert_true(fabs(cohort[SP_LINKS_BW] - 10.0) < 0.01);
    d->outliers = o;
    d->noutliers = *nout_p;
    f = open_memstream(&text, &len);
    sp_links_report_print(d, f);
    fclose(f);
    return text;
}

static void test_rails(void **state)
{
    sp_links_unit_row_t u[NU];
    sp_links_pair_row_t p[2 * NU * NU];
    sp_links_outlier_row_t o[2 * (NU + NU * NU)];
    sp_links_result_data_t d;
    char list[256];
    size_t nout = 0;
    int nodes = 0;
    char *text;

    (void)state;
    /* one slow rail (a NIC): named on rail 1 only, as h3's unit there */
    build_rails(&d, u, p, 2u);
    assert_int_equal(sp_links_rails(&d, &nodes), RAILS);
    assert_int_equal(nodes, NODES);
    text = analysed_report(&d, o, &nout);
    assert_int_equal(nout, 1);
    assert_int_equal(o[0].kind, SP_LINKS_FIND_NODE);
    assert_int_equal(o[0].rail, 1);
    assert_int_equal(o[0].a, 1 * NODES + 2);
    assert_string_equal(o[0].host_a, "h3");
    assert_int_equal(o[0].nslow, 6); /* its 3 links on rail 1, both ways */
    assert_non_null(strstr(text, "# links: 8 units (per rail: 2 rail(s) x 4 nodes)"));
    assert_non_null(strstr(text, "# bandwidth (GB/s, 1000000 B one way, rail 1)"));
    assert_non_null(strstr(text, "# SLOW NODE bandwidth: h3 on rail 1 (unit 6)"));
    assert_non_null(strstr(text, "# RAILS bandwidth: h3 slow on 1 of 2 rails (1): a rail fault"));
    assert_int_equal(sp_links_exclude_hosts(&d, list, sizeof(list)), 1);
    assert_string_equal(list, "h3");
    free(text);

    /* a slow node: every rail names it; drained once */
    build_rails(&d, u, p, 3u);
    text = analysed_report(&d, o, &nout);
    assert_int_equal(nout, 2);
    assert_int_equal(o[0].rail + o[1].rail, 0 + 1);
    assert_string_equal(o[0].host_a, "h3");
    assert_string_equal(o[1].host_a, "h3");
    assert_non_null(strstr(text, "# RAILS bandwidth: h3 slow on 2 of 2 rails (0 1): a node fault"));
    assert_null(strstr(text, "a rail fault"));
    assert_int_equal(sp_links_exclude_hosts(&d, list, sizeof(list)), 1);
    assert_string_equal(list, "h3");
    free(text);

    /* healthy rails: nothing named */
    build_rails(&d, u, p, 0u);
    text = analysed_report(&d, o, &nout);
    assert_int_equal(nout, 0);
    assert_non_null(strstr(text, "# no slow node or link"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_in_units),
        cmocka_unit_test(test_exclude_and_report),
        cmocka_unit_test(test_rails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
