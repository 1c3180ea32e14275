/* The one validation rule set of the option parser (src/base/options.c), checked row by row over
 * every MPI workload's table: an empty value is refused, a default outside its row's range is a
 * "not given" sentinel the user cannot spell (0 where a count must be positive), non-numbers and
 * huge values are refused, and the cross-field checks of issue 21 (a sweep with no measurable
 * size). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_options.h"
#include "node_options.h"
#include "options.h"
#include "proxy_options.h"

#define ERRLEN 1024

typedef sp_status_t (*parse_fn)(int argc, char **argv, int first, void *opts, int *help_p,
                                char *err, size_t errlen);

static sp_status_t coll_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_coll_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t proxy_parse(int argc, char **argv, int first, void *opts, int *help_p,
                               char *err, size_t errlen)
{
    return sp_proxy_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t node_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_node_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

typedef struct {
    const sp_opt_table_t *table;
    parse_fn parse;
    size_t size;
} workload_t;

static workload_t workloads(int i)
{
    workload_t w[] = {
        {&sp_coll_opt_table, coll_parse, sizeof(sp_coll_opts_t)},
        {&sp_proxy_opt_table, proxy_parse, sizeof(sp_proxy_opts_t)},
        {&sp_node_opt_table, node_parse, sizeof(sp_node_opts_t)},
    };
    return w[i];
}

#define NWORKLOADS 3

/* Parse "--name value" with the workload's own parser: the status, the message in err. */
static sp_status_t parse_one(const workload_t *w, const char *name, const char *value, char *err)
{
    char opt[96];
    char val[SP_OPT_STRLEN];
    char *argv[4];
    int help = 0;
    void *opts = calloc(1, w->size);
    sp_status_t st;

    assert_non_null(opts);
    snprintf(opt, sizeof(opt), "--%s", name);
    snprintf(val, sizeof(val), "%s", value);
    argv[0] = (char *)w->table->command;
    argv[1] = opt;
    argv[2] = val;
    err[0] = '\0';
    st = w->parse(value != NULL ? 3 : 2, argv, 1, opts, &help, err, ERRLEN);
    free(opts);
    return st;
}

static int is_numeric(const sp_opt_def_t *d)
{
    return d->kind == SP_OPT_INT || d->kind == SP_OPT_DOUBLE || d->kind == SP_OPT_SIZE;
}

static int default_in_range(const sp_opt_def_t *d)
{
    uint64_t bytes;
    double v;

    if (d->min > d->max) {
        return 1;
    }
    if (d->kind == SP_OPT_SIZE) {
        assert_int_equal(sp_parse_size(d->default_value, &bytes), SP_OK);
        v = (double)bytes;
    } else {
        v = strtod(d->default_value, NULL);
    }
    return v >= d->min && v <= d->max;
}

/* Every row that takes a value refuses an empty one, naming the option. */
static void test_empty_value_refused_everywhere(void **state)
{
    char err[ERRLEN];
    int checked = 0;

    (void)state;
    for (int i = 0; i < NWORKLOADS; i++) {
        workload_t w = workloads(i);
        for (int r = 0; r < w.table->ndefs; r++) {
            const sp_opt_def_t *d = &w.table->defs[r];
            if (d->kind == SP_OPT_FLAG || d->kind == SP_OPT_MARK || d->kind == SP_OPT_ARGS) {
                continue;
            }
            assert_int_equal(parse_one(&w, d->long_name, "", err), SP_ERR_INVALID);
            if (strstr(err, d->long_name) == NULL || strstr(err, "empty") == NULL) {
                print_error("%s --%s '': message '%s'\n", w.table->command, d->long_name, err);
                fail();
            }
            checked++;
        }
    }
    assert_true(checked > 40);
}

/* A numeric default outside the row's range is the "not given" sentinel: applied without the
 * option, refused when spelled on the command line (--pp 0, --hidden 0, -n 0). */
static void test_sentinel_defaults_cannot_be_spelled(void **state)
{
    char err[ERRLEN];
    int sentinels = 0;

    (void)state;
    for (int i = 0; i < NWORKLOADS; i++) {
        workload_t w = workloads(i);
        for (int r = 0; r < w.table->ndefs; r++) {
            const sp_opt_def_t *d = &w.table->defs[r];
            if (!is_numeric(d) || d->default_value == NULL || default_in_range(d)) {
                continue;
            }
            sentinels++;
            assert_int_equal(parse_one(&w, d->long_name, d->default_value, err), SP_ERR_INVALID);
            if (strstr(err, d->long_name) == NULL || strstr(err, "out of range") == NULL) {
                print_error("%s --%s %s: message '%s'\n", w.table->command, d->long_name,
                            d->default_value, err);
                fail();
            }
        }
    }
    /* coll -n -k --epsilon; proxy's seven model overrides, --pp --dp --peak-tflops --steps;
     * node -n --gemm-n */
    assert_true(sentinels >= 15);
}

/* Non-numbers and huge values are refused by every numeric row. */
static void test_numbers_refused(void **state)
{
    static const char *const bad[] = {"abc", "1e999", "99999999999999999999999", "-", "0x",
                                      "nan", "inf", "1 2"};
    char err[ERRLEN];

    (void)state;
    for (int i = 0; i < NWORKLOADS; i++) {
        workload_t w = workloads(i);
        for (int r = 0; r < w.table->ndefs; r++) {
            const sp_opt_def_t *d = &w.table->defs[r];
            if (!is_numeric(d)) {
                continue;
            }
            for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
                if (parse_one(&w, d->long_name, bad[b], err) != SP_ERR_INVALID ||
                    strstr(err, d->long_name) == NULL) {
                    print_error("%s --%s '%s' accepted or unnamed: '%s'\n", w.table->command,
                                d->long_name, bad[b], err);
                    fail();
                }
            }
        }
    }
}

/* The defaults alone parse on every workload (the sentinels are not range-checked there). */
static void test_defaults_parse(void **state)
{
    char err[ERRLEN];
    char *argv[1];
    int help = 0;

    (void)state;
    for (int i = 0; i < NWORKLOADS; i++) {
        workload_t w = workloads(i);
        void *opts = calloc(1, w.size);
        argv[0] = (char *)w.table->command;
        assert_non_null(opts);
        if (w.parse(1, argv, 1, opts, &help, err, sizeof(err)) != SP_OK) {
            print_error("%s defaults refused: %s\n", w.table->command, err);
            fail();
        }
        free(opts);
    }
}

/* The misses of issue 21 by name. */
static void test_issue21_misses(void **state)
{
    workload_t coll = workloads(0);
    workload_t proxy = workloads(1);
    char err[ERRLEN];
    sp_coll_opts_t o;
    char *argv[8] = {"coll", "-b", "1", "-e", "4", "--collectives", "all_gather", NULL};
    int help = 0;

    (void)state;
    assert_int_equal(parse_one(&coll, "iters", "0", err), SP_ERR_INVALID);
    assert_int_equal(parse_one(&coll, "output", "", err), SP_ERR_INVALID);
    assert_non_null(strstr(err, "--output: empty value"));
    assert_int_equal(parse_one(&coll, "maxbytes", "0", err), SP_ERR_INVALID);
    assert_non_null(strstr(err, "no measurable size"));
    assert_int_equal(parse_one(&proxy, "pp", "0", err), SP_ERR_INVALID);
    assert_int_equal(parse_one(&proxy, "hidden", "0", err), SP_ERR_INVALID);
    assert_int_equal(parse_one(&proxy, "model", "gpt5", err), SP_ERR_INVALID);
    assert_non_null(strstr(err, "unknown --model 'gpt5'"));
    assert_int_equal(parse_one(&proxy, "pp", "2", err), SP_OK);

    /* 4 bytes of float all-gathered over 2 ranks: each rank's part is 0 elements */
    assert_int_equal(sp_coll_opts_parse(7, argv, 1, &o, &help, err, sizeof(err)), SP_OK);
    assert_int_equal(sp_coll_opts_check_world(&o, 2, err, sizeof(err)), SP_ERR_INVALID);
    assert_non_null(strstr(err, "no measurable size: all_gather of float on 2 ranks"));
    argv[4] = "64";
    assert_int_equal(sp_coll_opts_parse(7, argv, 1, &o, &help, err, sizeof(err)), SP_OK);
    assert_int_equal(sp_coll_opts_check_world(&o, 2, err, sizeof(err)), SP_OK);
}

/* --overlap against Megatron-LM's --overlap-grad-reduce and --overlap-param-gather: the
 * resolved pair, and each refusal with its message. */
static void test_proxy_overlap_flags(void **state)
{
    static const struct {
        const char *args[5];
        int grad, param; /* -1: refused */
        const char *msg;
    } cases[] = {
        {{NULL}, 1, 1, NULL},
        {{"--overlap", "off"}, 0, 0, NULL},
        {{"--overlap-grad-reduce"}, 1, 0, NULL},
        {{"--dp-mode", "fsdp", "--overlap-grad-reduce"}, 1, 0, NULL},
        {{"--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather"}, 1, 1,
         NULL},
        {{"--dp-mode", "fsdp", "--overlap-grad-reduce", "--overlap-param-gather"}, 1, 1, NULL},
        {{"--use-distributed-optimizer", "--overlap-param-gather"}, -1, -1,
         "--overlap-param-gather needs --overlap-grad-reduce"},
        {{"--overlap-grad-reduce", "--overlap-param-gather"}, -1, -1,
         "needs --use-distributed-optimizer or --dp-mode fsdp"},
        {{"--overlap", "on", "--overlap-grad-reduce"}, -1, -1, "not both"},
        {{"--dp-mode", "fsdp", "--use-distributed-optimizer"}, -1, -1, "needs --dp-mode ddp"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[8] = {"proxy"};
        int argc = 1, help = 0;
        char err[ERRLEN] = "";
        sp_proxy_opts_t o;
        sp_status_t st;
        for (int a = 0; a < 5 && cases[i].args[a] != NULL; a++) {
            argv[argc++] = (char *)cases[i].args[a];
        }
        st = sp_proxy_opts_parse(argc, argv, 1, &o, &help, err, sizeof(err));
        if (cases[i].grad < 0) {
            assert_int_equal(st, SP_ERR_INVALID);
            assert_non_null(strstr(err, cases[i].msg));
        } else {
            assert_int_equal(st, SP_OK);
            assert_int_equal(o.grad_overlap, cases[i].grad);
            assert_int_equal(o.param_overlap, cases[i].param);
        }
    }
}

/* An empty positional argument is refused too (report "" and the like). */
static void test_empty_positional(void **state)
{
    typedef struct {
        sp_opt_args_t files;
    } args_opts_t;
    static const sp_opt_def_t defs[] = {
        {"files", 0, SP_OPT_ARGS, offsetof(args_opts_t, files), NULL, "FILE", "files", 0, -1,
         NULL, 0},
    };
    static const sp_opt_table_t table = {"t", "t", defs, 1};
    char *store[4];
    char *argv[3] = {"t", "a.h5", ""};
    args_opts_t o = {{store, 0, 4}};
    char err[ERRLEN];
    int help = 0;

    (void)state;
    assert_int_equal(sp_opts_parse(&table, 3, argv, 1, &o, &help, NULL, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_non_null(strstr(err, "empty FILE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_value_refused_everywhere),
        cmocka_unit_test(test_sentinel_defaults_cannot_be_spelled),
        cmocka_unit_test(test_numbers_refused),
        cmocka_unit_test(test_defaults_parse),
        cmocka_unit_test(test_issue21_misses),
        cmocka_unit_test(test_proxy_overlap_flags),
        cmocka_unit_test(test_empty_positional),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
