/* Unit tests of the option parser (src/base/options.h) on tables of their own, of the shared
 * run options (runopts.h) in every MPI workload's table, and of positional arguments and marks.
 * `scaleprobe coll`'s own options: test_options.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "coll_options.h"
#include "dtype.h"
#include "method.h"
#include "node_options.h"
#include "options.h"
#include "proxy_options.h"
#include "runopts.h"

#include "optline.h"

/* ---- the generic parser, on a table of its own ---- */

typedef struct {
    int flag;
    long count;
    double ratio;
    uint64_t size;
    char name[SP_OPT_STRLEN];
    int mode;
    uint32_t set;
} demo_opts_t;

static const char *const demo_modes[] = {"fast", "slow"};
static const char *const demo_items[] = {"a", "b", "c"};

static const sp_opt_def_t demo_defs[] = {
    {"flag", 'F', SP_OPT_FLAG, offsetof(demo_opts_t, flag), NULL, NULL, "a flag", 0, -1, NULL, 0},
    {"count", 'n', SP_OPT_INT, offsetof(demo_opts_t, count), "7", "N", "a count", -5, 5000, NULL,
     0},
    {"ratio", 0, SP_OPT_DOUBLE, offsetof(demo_opts_t, ratio), "0.5", "R", "a ratio", 0, 1, NULL, 0},
    {"size", 's', SP_OPT_SIZE, offsetof(demo_opts_t, size), "4K", "SIZE", "a size", 16, 1 << 20,
     NULL, 0},
    {"name", 0, SP_OPT_STRING, offsetof(demo_opts_t, name), "none", "S", "a name", 0, -1, NULL, 0},
    {"mode", 'm', SP_OPT_CHOICE, offsetof(demo_opts_t, mode), "slow", "M", "a mode", 0, -1,
     demo_modes, 2},
    {"items", 0, SP_OPT_SET, offsetof(demo_opts_t, set), "b", "LIST", "items", 0, -1, demo_items,
     3},
};

static const sp_opt_table_t demo_table = {
    .command = "demo",
    .summary = "a table for tests",
    .defs = demo_defs,
    .ndefs = (int)(sizeof(demo_defs) / sizeof(demo_defs[0])),
};

static sp_status_t demo_parse(const char *line, demo_opts_t *o, unsigned char *seen, char *err)
{
    cmdline_t c;
    int help = 0;

    cmdline_split(&c, line);
    memset(o, 0, sizeof(*o));
    err[0] = '\0';
    return sp_opts_parse(&demo_table, c.argc, c.argv, 1, o, &help, seen, err, ERRLEN);
}

static void test_generic_defaults_and_seen(void **state)
{
    demo_opts_t o;
    unsigned char seen[7];
    char err[ERRLEN];

    (void)state;
    memset(seen, 0xff, sizeof(seen));
    assert_int_equal(demo_parse("", &o, seen, err), SP_OK);
    assert_int_equal(o.flag, 0);
    assert_int_equal(o.count, 7);
    assert_true(o.ratio == 0.5);
    assert_int_equal(o.size, 4096);
    assert_string_equal(o.name, "none");
    assert_int_equal(o.mode, 1);
    assert_int_equal(o.set, 2);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(seen[i], 0);
    }

    assert_int_equal(
        demo_parse("-F --ratio 0.25 -s 64K --name x --items all -m fast", &o, seen, err), SP_OK);
    assert_int_equal(o.flag, 1);
    assert_int_equal(o.count, 7);
    assert_true(o.ratio == 0.25);
    assert_int_equal(o.size, 65536);
    assert_string_equal(o.name, "x");
    assert_int_equal(o.mode, 0);
    assert_int_equal(o.set, 7);
    assert_int_equal(seen[0], 1);
    assert_int_equal(seen[1], 0); /* count kept its default */
    for (int i = 2; i < 7; i++) {
        assert_int_equal(seen[i], 1);
    }

    assert_int_equal(sp_opts_defaults(&demo_table, &o, err, ERRLEN), SP_OK);
    assert_int_equal(o.size, 4096);
}

static void test_generic_errors(void **state)
{
    static const struct {
        const char *line;
        const char *name;
    } rows[] = {
        {"--count 5001", "--count"}, {"-n -6", "--count"},       {"--ratio 1.5", "--ratio"},
        {"--ratio x", "--ratio"},    {"-s 8", "--size"},         {"-s 2M", "--size"},
        {"-m medium", "--mode"},     {"--items a,d", "--items"}, {"-F1", "-F"},
        {"--flag=0", "--flag"},      {"--name", "--name"},
    };
    demo_opts_t o;
    char err[ERRLEN];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (demo_parse(rows[i].line, &o, NULL, err) != SP_ERR_INVALID ||
            strstr(err, rows[i].name) == NULL) {
            print_error("'%s': expected an error naming '%s', got '%s'\n", rows[i].line,
                        rows[i].name, err);
            fail();
        }
    }
}

static void test_generic_long_string(void **state)
{
    static char longval[SP_OPT_STRLEN + 8];
    char *argv[3] = {"demo", "--name", longval};
    demo_opts_t o;
    char err[ERRLEN] = "";
    int help = 0;

    (void)state;
    memset(longval, 'x', SP_OPT_STRLEN);
    longval[SP_OPT_STRLEN] = '\0'; /* 1024 characters: one too many */
    assert_int_equal(sp_opts_parse(&demo_table, 3, argv, 1, &o, &help, NULL, err, ERRLEN),
                     SP_ERR_INVALID);
    assert_non_null(strstr(err, "--name"));
    longval[SP_OPT_STRLEN - 1] = '\0'; /* 1023 fit */
    assert_int_equal(sp_opts_parse(&demo_table, 3, argv, 1, &o, &help, NULL, err, ERRLEN), SP_OK);
    assert_int_equal(strlen(o.name), SP_OPT_STRLEN - 1);
}

static void test_generic_format(void **state)
{
    demo_opts_t o;
    char err[ERRLEN];
    char buf[SP_OPT_STRLEN + 64];
    static const char *const want[] = {"1", "-3", "0.25", "65536", "x y", "fast", "a,c"};

    (void)state;
    assert_int_equal(demo_parse("-F -n -3 --ratio 0.25 -s 64K -m fast --items c,a", &o, NULL, err),
                     SP_OK);
    snprintf(o.name, sizeof(o.name), "x y");
    for (int i = 0; i < demo_table.ndefs; i++) {
        sp_opts_format(&demo_defs[i], &o, buf, sizeof(buf));
        assert_string_equal(buf, want[i]);
    }
}

static void test_help_lists_options(void **state)
{
    FILE *f = tmpfile();
    char text[16384];
    size_t n;

    (void)state;
    assert_non_null(f);
    sp_opts_help(&sp_coll_opt_table, f);
    rewind(f);
    n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "usage: scaleprobe coll"));
    for (int i = 0; i < sp_coll_opt_table.ndefs; i++) {
        char name[64];
        snprintf(name, sizeof(name), "--%s", sp_coll_opt_table.defs[i].long_name);
        assert_non_null(strstr(text, name));
    }
    assert_non_null(strstr(text, "-b, --minbytes SIZE"));
    assert_non_null(strstr(text, "[32M]"));
    assert_non_null(strstr(text, "--help"));
    /* -c's choices come from the registry, every collective in its order, none written by hand */
    {
        char list[512] = "collectives: all, or a comma list of";
        for (int i = 0; i < SP_COLL_COUNT; i++) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof(list) - len, "%s %s", i > 0 ? "," : "", sp_coll_names[i]);
        }
        assert_non_null(strstr(text, list));
        assert_non_null(strstr(text, "alltoallv"));
    }
}

/* ---- the shared run options in every MPI workload ---- */

typedef struct {
    const char *command;
    const sp_opt_table_t *table;
    size_t run_offset; /* offsetof the embedded sp_run_opts_t */
    size_t size;
} workload_table_t;

static const workload_table_t workloads[] = {
    {"coll", &sp_coll_opt_table, offsetof(sp_coll_opts_t, run), sizeof(sp_coll_opts_t)},
    {"proxy", &sp_proxy_opt_table, offsetof(sp_proxy_opts_t, run), sizeof(sp_proxy_opts_t)},
    {"node", &sp_node_opt_table, offsetof(sp_node_opts_t, run), sizeof(sp_node_opts_t)},
};
#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static const sp_opt_def_t *row_named(const sp_opt_table_t *t, const char *name)
{
    const sp_opt_def_t *found = NULL;

    for (int i = 0; i < t->ndefs; i++) {
        if (strcmp(t->defs[i].long_name, name) == 0) {
            assert_null(found); /* a name appears once */
            found = &t->defs[i];
        }
    }
    return found;
}

static void test_run_rows_in_every_workload(void **state)
{
    (void)state;
    assert_int_equal(sp_run_opt_table.ndefs, SP_RUN_OPT_NROWS);
    for (size_t w = 0; w < NWORKLOADS; w++) {
        for (int i = 0; i < sp_run_opt_table.ndefs; i++) {
            const sp_opt_def_t *ref = &sp_run_opt_table.defs[i];
            const sp_opt_def_t *d = row_named(workloads[w].table, ref->long_name);
            char want[128];
            assert_non_null(d);
            assert_int_equal(d->kind, ref->kind);
            assert_int_equal(d->short_name, ref->short_name);
            assert_int_equal(d->offset, workloads[w].run_offset + ref->offset);
            assert_true(d->offset < workloads[w].size);
            assert_true((d->default_value == NULL) == (ref->default_value == NULL));
            if (ref->default_value != NULL) {
                assert_string_equal(d->default_value, ref->default_value);
            }
            assert_true(d->min == ref->min && d->max == ref->max);
            assert_ptr_equal(d->names, ref->names);
            assert_int_equal(d->nnames, ref->nnames);
            if (strcmp(ref->long_name, "output") == 0) {
                snprintf(want, sizeof(want), "results/%s-", workloads[w].command);
                assert_non_null(strstr(d->help, want));
            } else {
                assert_string_equal(d->help, ref->help);
            }
        }
    }
    /* the one --timeout bound of every workload */
    assert_true(row_named(&sp_run_opt_table, "timeout")->min == SP_RUN_TIMEOUT_MIN_S);
    assert_true(row_named(&sp_run_opt_table, "timeout")->max == SP_RUN_TIMEOUT_MAX_S);
}

/* Parse argv (split on spaces) with a table into opts; the status and err. */
static sp_status_t parse_line(const sp_opt_table_t *t, const char *line, void *opts, char *err)
{
    cmdline_t c;
    int help = 0;

    cmdline_split(&c, line);
    return sp_opts_parse(t, c.argc, c.argv, 1, opts, &help, NULL, err, ERRLEN);
}

static void test_run_rows_parse_into_the_fragment(void **state)
{
    static sp_coll_opts_t coll;
    static sp_proxy_opts_t proxy;
    static sp_node_opts_t node;
    void *opts[NWORKLOADS] = {&coll, &proxy, &node};
    char err[ERRLEN];

    (void)state;
    for (size_t w = 0; w < NWORKLOADS; w++) {
        const sp_run_opts_t *ro =
            (const sp_run_opts_t *)((const char *)opts[w] + workloads[w].run_offset);
        memset(opts[w], 0, workloads[w].size);
        assert_int_equal(parse_line(workloads[w].table, "", opts[w], err), SP_OK);
        assert_int_equal(ro->backend, SP_BACKEND_AUTO);
        assert_int_equal(ro->device, -1);
        assert_true(ro->timeout == 300.0);
        assert_string_equal(ro->output, "");
        assert_int_equal(ro->force, 0);
        assert_int_equal(parse_line(workloads[w].table,
                                    "--backend host --device 3 --timeout 0.1 -O x.h5 --force",
                                    opts[w], err),
                         SP_OK);
        assert_int_equal(ro->backend, SP_BACKEND_HOST);
        assert_int_equal(ro->device, 3);
        assert_true(ro->timeout == 0.1);
        assert_string_equal(ro->output, "x.h5");
        assert_int_equal(ro->force, 1);
        /* the same bounds everywhere (proxy accepted 1e-3 .. 1e7 before) */
        assert_int_equal(parse_line(workloads[w].table, "--timeout 0.05", opts[w], err),
                         SP_ERR_INVALID);
        assert_non_null(strstr(err, "--timeout"));
        assert_int_equal(parse_line(workloads[w].table, "--timeout 100000", opts[w], err),
                         SP_ERR_INVALID);
        assert_int_equal(parse_line(workloads[w].table, "--device 1025", opts[w], err),
                         SP_ERR_INVALID);
    }
}

static void help_text(const sp_opt_table_t *t, char *text, size_t len)
{
    FILE *f = tmpfile();
    size_t n;

    assert_non_null(f);
    sp_opts_help(t, f);
    rewind(f);
    n = fread(text, 1, len - 1, f);
    text[n] = '\0';
    fclose(f);
}

static void test_run_rows_in_every_help(void **state)
{
    static const char *const want[] = {"--backend NAME", "--device N", "--timeout SEC",
                                       "-O, --output PATH", "--force"};
    static char text[32768];

    (void)state;
    for (size_t w = 0; w < NWORKLOADS; w++) {
        help_text(workloads[w].table, text, sizeof(text));
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
            assert_non_null(strstr(text, want[i]));
        }
        assert_non_null(strstr(text, "[300]")); /* --timeout's default */
    }
}

/* ---- positional arguments and marks ---- */

typedef struct {
    sp_opt_args_t files;
    int vs;
    int json;
    double level;
} pos_opts_t;

static const sp_opt_def_t pos_defs[] = {
    {"files", 0, SP_OPT_ARGS, offsetof(pos_opts_t, files), NULL, "FILE", "input files", 1, -1, NULL,
     0},
    {"vs", 0, SP_OPT_MARK, offsetof(pos_opts_t, vs), NULL, NULL, "split the files", 0, -1, NULL, 0},
    {"json", 'j', SP_OPT_FLAG, offsetof(pos_opts_t, json), NULL, NULL, "JSON", 0, -1, NULL, 0},
    {"level", 0, SP_OPT_DOUBLE, offsetof(pos_opts_t, level), "0.5", "L", "a level", 0, 1, NULL, 0},
};
static const sp_opt_table_t pos_table = {"tool", "A tool with files.", pos_defs, 4};

/* Parse line with room for cap positional arguments. */
static sp_status_t parse_pos(const char *line, pos_opts_t *o, char **room, int cap, char *err)
{
    memset(o, 0, sizeof(*o));
    o->files.v = room;
    o->files.cap = cap;
    return parse_line(&pos_table, line, o, err);
}

static void test_positional_arguments(void **state)
{
    char *room[8];
    pos_opts_t o;
    char err[ERRLEN];

    (void)state;
    assert_int_equal(parse_pos("a.h5 --json b.h5 --level 0.25 c.h5", &o, room, 8, err), SP_OK);
    assert_int_equal(o.files.n, 3);
    assert_string_equal(o.files.v[0], "a.h5");
    assert_string_equal(o.files.v[1], "b.h5");
    assert_string_equal(o.files.v[2], "c.h5");
    assert_int_equal(o.json, 1);
    assert_true(o.level == 0.25);
    assert_int_equal(o.vs, 0);
    /* a lone "-" is an argument (stdin, by convention); after "--" everything is */
    assert_int_equal(parse_pos("- -- -j --level", &o, room, 8, err), SP_OK);
    assert_int_equal(o.files.n, 3);
    assert_string_equal(o.files.v[0], "-");
    assert_string_equal(o.files.v[1], "-j");
    assert_string_equal(o.files.v[2], "--level");
    assert_int_equal(o.json, 0);
    /* the mark records how many came before it */
    assert_int_equal(parse_pos("a1 a2 --vs b1", &o, room, 8, err), SP_OK);
    assert_int_equal(o.vs, 3);
    assert_int_equal(o.files.n, 3);
    assert_int_equal(parse_pos("--vs b1", &o, room, 8, err), SP_OK);
    assert_int_equal(o.vs, 1);
    assert_int_equal(parse_pos("a --vs b --vs c", &o, room, 8, err), SP_ERR_INVALID);
    assert_string_equal(err, "--vs given twice");
    assert_int_equal(parse_pos("a --vs=1", &o, room, 8, err), SP_ERR_INVALID);
    assert_string_equal(err, "--vs takes no value");
    /* more than the caller's room */
    assert_int_equal(parse_pos("a b c", &o, room, 2, err), SP_ERR_INVALID);
    assert_non_null(strstr(err, "too many FILE arguments"));
    /* an unknown option among arguments */
    assert_int_equal(parse_pos("a --frobnicate b", &o, room, 8, err), SP_ERR_INVALID);
    assert_string_equal(err, "unknown option '--frobnicate' (see 'scaleprobe tool --help')");
    assert_int_equal(parse_pos("a --level", &o, room, 8, err), SP_ERR_INVALID);
    assert_string_equal(err, "--level needs a value (L)");
}

static void test_positional_refused_without_a_row(void **state)
{
    cmdline_t c;
    sp_coll_opts_t o;
    int help = 0;
    char err[ERRLEN];

    (void)state;
    memset(&o, 0, sizeof(o));
    cmdline_split(&c, "-b 8 stray");
    assert_int_equal(sp_coll_opts_parse(c.argc, c.argv, 1, &o, &help, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_string_equal(err, "unexpected argument 'stray' (see 'scaleprobe coll --help')");
    cmdline_split(&c, "--");
    assert_int_equal(sp_coll_opts_parse(c.argc, c.argv, 1, &o, &help, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_string_equal(err, "unexpected argument '--' (see 'scaleprobe coll --help')");
}

static void test_positional_help(void **state)
{
    static char text[8192];

    (void)state;
    help_text(&pos_table, text, sizeof(text));
    assert_non_null(strstr(text, "usage: scaleprobe tool [options] FILE...\n"));
    assert_non_null(strstr(text, "arguments:\n  FILE"));
    assert_non_null(strstr(text, "    --vs"));
    assert_non_null(strstr(text, "-j, --json"));
    assert_null(strstr(text, "--files")); /* the positional row has no option name */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generic_defaults_and_seen),
        cmocka_unit_test(test_generic_errors),
        cmocka_unit_test(test_generic_long_string),
        cmocka_unit_test(test_generic_format),
        cmocka_unit_test(test_help_lists_options),
        cmocka_unit_test(test_run_rows_in_every_workload),
        cmocka_unit_test(test_run_rows_parse_into_the_fragment),
        cmocka_unit_test(test_run_rows_in_every_help),
        cmocka_unit_test(test_positional_arguments),
        cmocka_unit_test(test_positional_refused_without_a_row),
        cmocka_unit_test(test_positional_help),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
