/* The proxy summary's sentence on the largest part of the gap to the prediction
 * (proxies/proxy_table.c): a part is named the largest only when its per-step difference to the
 * runner-up has a 95% CI above 0; two parts within the step-to-step noise are named as such. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proxy_table.h"

#define STEPS 12

/* Two stages, one rank each; every prediction 10 ms of compute and nothing else. Per step s
 * stage 0 gets idle_ms[s] of pipeline idle and stage 1 dp_ms[s] of exposed DP communication. */
static char *summary(const double *idle_ms, const double *dp_ms)
{
    sp_proxy_rank_row_t rows[2 * STEPS];
    sp_proxy_info_t info;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    assert_non_null(out);
    memset(&info, 0, sizeof(info));
    info.pp = 2;
    info.tp = info.dp = 1;
    info.tflops = 1.0;
    info.tokens_per_step = 1000.0;
    info.flops_per_step = 1e9;
    memset(rows, 0, sizeof(rows));
    for (int s = 0; s < STEPS; s++) {
        for (int st = 0; st < 2; st++) {
            sp_proxy_rank_row_t *r = &rows[2 * s + st];
            r->step = s;
            r->rank = st;
            r->stage = st;
            r->busy_ms = r->pred_busy_ms = r->pred_step_ms = 10.0;
            r->idle_ms = st == 0 ? idle_ms[s] : 0.0;
            r->dp_excl_ms = st == 1 ? dp_ms[s] : 0.0;
            r->step_ms = r->busy_ms + r->idle_ms + r->dp_excl_ms;
            r->tp_overlap = r->pp_overlap = r->dp_overlap = r->slowdown = NAN;
        }
    }
    sp_proxy_table_summary(out, &info, rows, 2 * STEPS);
    fclose(out);
    return text;
}

static const char *line_of(const char *text, const char *start)
{
    const char *p = strstr(text, start);
    assert_non_null(p);
    return p;
}

/* exposed DP communication 6 ms above pipeline idle in every step, +-0.5 ms: named */
static void test_clear_winner(void **state)
{
    double idle[STEPS], dp[STEPS];
    char *text;
    const char *line;

    (void)state;
    for (int s = 0; s < STEPS; s++) {
        idle[s] = 2.0 + 0.5 * (s % 2);
        dp[s] = 8.0 + 0.5 * ((s / 2) % 2);
    }
    text = summary(idle, dp);
    line = line_of(text, "# the largest part of the gap: ");
    assert_non_null(strstr(line, "exposed DP communication, +8.250 ms of the +8.250 ms"));
    assert_non_null(strstr(line, "(stage 1); +6.000 ms above the next, pipeline idle (stage 0), "
                                 "95% CI +-"));
    assert_non_null(strstr(line, "over 12 steps\n"));
    assert_null(strstr(text, "within the step-to-step noise"));
    free(text);
}

/* the two parts take turns by 4 ms, their means 0.25 ms apart: not named */
static void test_within_noise(void **state)
{
    double idle[STEPS], dp[STEPS];
    char *text;
    const char *line;

    (void)state;
    for (int s = 0; s < STEPS; s++) {
        idle[s] = s % 2 ? 10.0 : 6.0;
        dp[s] = s % 2 ? 6.0 : 10.5;
    }
    text = summary(idle, dp);
    assert_null(strstr(text, "# the largest part of the gap: "));
    line = line_of(text, "# the two largest parts of the gap are within the step-to-step noise");
    /* dp's mean 8.25 ms, idle's 8.0 ms */
    assert_non_null(strstr(line, "exposed DP communication +8.250 ms (stage 1) and pipeline idle "
                                 "+8.000 ms (stage 0)"));
    assert_non_null(strstr(line, "their difference +0.250 ms, 95% CI +-"));
    assert_non_null(strstr(line, "neither is named the largest\n"));
    free(text);
}

/* a larger part in most steps but one reversed step: the CI over 12 steps decides, not the
 * count of steps won */
static void test_one_reversal_still_clear(void **state)
{
    double idle[STEPS], dp[STEPS];
    char *text;

    (void)state;
    for (int s = 0; s < STEPS; s++) {
        idle[s] = 3.0;
        dp[s] = s == 5 ? 2.0 : 9.0;
    }
    text = summary(idle, dp);
    assert_non_null(strstr(text, "# the largest part of the gap: exposed DP communication"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clear_winner),
        cmocka_unit_test(test_within_noise),
        cmocka_unit_test(test_one_reversal_still_clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
