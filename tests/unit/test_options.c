/* Unit tests of `scaleprobe coll`'s options (collectives/coll_options.h): values as nccl-tests
 * users write them, the sweep's sizes, and a message naming the option on every error path. The
 * generic parser, the shared run options and positional arguments: test_options_table.c. */
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

/* Parse a coll command line that must be accepted. */
static void parse_ok(const char *line, sp_coll_opts_t *opts)
{
    cmdline_t c;
    char err[ERRLEN];
    int help = -1;
    sp_status_t st;

    cmdline_split(&c, line);
    st = sp_coll_opts_parse(c.argc, c.argv, 1, opts, &help, err, sizeof(err));
    if (st != SP_OK) {
        print_error("'%s' was rejected: %s\n", line, err);
        fail();
    }
    assert_int_equal(help, 0);
}

/* Parse a coll command line that must be rejected with a message containing each of `names`. */
static void parse_err(const char *line, const char *name1, const char *name2)
{
    cmdline_t c;
    char err[ERRLEN];
    int help = -1;
    sp_coll_opts_t opts;
    sp_status_t st;

    memset(err, 0, sizeof(err));
    cmdline_split(&c, line);
    st = sp_coll_opts_parse(c.argc, c.argv, 1, &opts, &help, err, sizeof(err));
    if (st != SP_ERR_INVALID) {
        print_error("'%s': expected SP_ERR_INVALID, got %d\n", line, (int)st);
        fail();
    }
    if (strlen(err) == 0 || strstr(err, name1) == NULL ||
        (name2 != NULL && strstr(err, name2) == NULL)) {
        print_error("'%s': message '%s' should name '%s'%s%s\n", line, err, name1,
                    name2 ? " and " : "", name2 ? name2 : "");
        fail();
    }
}

static void assert_sizes(const sp_coll_opts_t *opts, const uint64_t *want, size_t nwant)
{
    uint64_t sizes[64];
    size_t n = 0;

    assert_int_equal(sp_coll_sizes(opts, sizes, 64, &n), SP_OK);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < nwant; i++) {
        assert_int_equal(sizes[i], want[i]);
    }
}

/* ---- sizes ---- */

static void test_parse_size_suffixes(void **state)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } rows[] = {
        {"0", 0},
        {"8", 8},
        {"1000", 1000},
        {"1K", 1024},
        {"1k", 1024},
        {"1KB", 1024},
        {"64K", 65536},
        {"1.5K", 1536},
        {"0.5M", 524288},
        {"1M", 1048576},
        {"1m", 1048576},
        {"1MB", 1048576},
        {"32M", 33554432},
        {"1.5M", 1572864},
        {"1G", 1073741824},
        {"8G", 8589934592ull},
        {"1.25G", 1342177280ull},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint64_t v = 12345;

        if (sp_parse_size(rows[i].text, &v) != SP_OK || v != rows[i].bytes) {
            print_error("'%s': expected %llu, got %llu\n", rows[i].text,
                        (unsigned long long)rows[i].bytes, (unsigned long long)v);
            fail();
        }
    }
}

static void test_parse_size_rejects(void **state)
{
    static const char *const bad[] = {"",    "K",  "abc", "8Q",  "8KK",  "8KBB",
                                      "8 K", "-8", "nan", "inf", "1e30", "100000000000G"};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t v = 777;

        if (sp_parse_size(bad[i], &v) != SP_ERR_INVALID) {
            print_error("'%s' was accepted as %llu\n", bad[i], (unsigned long long)v);
            fail();
        }
        assert_int_equal(v, 777); /* output untouched on error */
    }
    assert_int_equal(sp_parse_size(NULL, NULL), SP_ERR_INVALID);
}

static void test_format_size(void **state)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } rows[] = {
        {0, "0"},
        {8, "8"},
        {1000, "1000"},
        {1023, "1023"},
        {1024, "1K"},
        {1536, "1.5K"},
        {1280, "1.25K"},
        {1100, "1100"},
        {65536, "64K"},
        {1048576, "1M"},
        {1572864, "1.5M"},
        {33554432, "32M"},
        {1073741824, "1G"},
        {1610612736, "1.5G"},
        {8589934592ull, "8G"},
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        sp_format_size(rows[i].bytes, buf, sizeof(buf));
        assert_string_equal(buf, rows[i].text);
    }
}

static void check_round_trip(uint64_t bytes)
{
    char buf[64];
    uint64_t back = 0;

    sp_format_size(bytes, buf, sizeof(buf));
    if (sp_parse_size(buf, &back) != SP_OK || back != bytes) {
        print_error("%llu formats as '%s', which parses back as %llu\n", (unsigned long long)bytes,
                    buf, (unsigned long long)back);
        fail();
    }
}

static void test_format_size_round_trips(void **state)
{
    (void)state;
    /* every size up to 4 MiB in steps of 4 bytes, and powers of two and their neighbours */
    for (uint64_t b = 0; b <= 4u << 20; b += 4) {
        check_round_trip(b);
    }
    for (int e = 0; e < 50; e++) {
        check_round_trip(1ull << e);
        check_round_trip((1ull << e) + 1);
        check_round_trip((1ull << e) * 3);
    }
}

/* Fractions must keep every digit: 10000.25K is 10240256 bytes, not "10000.2K". */
static void test_format_size_round_trips_10000_25k(void **state)
{
    (void)state;
    check_round_trip(10000ull * 1024 + 256);
}

/* The same with more digits: 1G + 256 bytes, 20000.25M. */
static void test_format_size_round_trips_large(void **state)
{
    (void)state;
    check_round_trip((1ull << 30) + 256);
    check_round_trip(20000ull * 1048576 + 262144);
}

/* ---- coll: defaults and values ---- */

static void test_coll_defaults(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("", &o);
    assert_int_equal(o.colls, 1u << SP_COLL_ALL_REDUCE);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_FLOAT);
    assert_int_equal(o.redops, 1u << SP_REDOP_SUM);
    assert_int_equal(o.minbytes, 33554432);
    assert_int_equal(o.maxbytes, 33554432);
    assert_int_equal(o.stepfactor, 1);
    assert_int_equal(o.stepbytes, 1048576);
    assert_int_equal(o.root, 0);
    assert_int_equal(o.iters, 0);
    assert_int_equal(o.warmup, 5);
    assert_int_equal(o.batch, 0);
    assert_true(o.batch_us == 1000.0);
    assert_true(o.epsilon == 0.0);
    assert_int_equal(o.min_samples, 10);
    assert_int_equal(o.max_samples, 200);
    assert_true(o.max_time == 2.0);
    assert_int_equal(o.place, SP_PLACE_BOTH);
    assert_int_equal(o.no_check, 0);
    assert_int_equal(o.run.backend, 0); /* auto */
    assert_string_equal(o.run.output, "");
    assert_int_equal(o.run.force, 0);
    {
        static const uint64_t want[] = {33554432};
        assert_sizes(&o, want, 1);
    }
}

static void test_coll_sizes_nccl_tests(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("-b 8 -e 128 -f 2", &o);
    {
        static const uint64_t want[] = {8, 16, 32, 64, 128};
        assert_sizes(&o, want, 5);
    }
    parse_ok("-b 1K -e 4K -i 1K", &o);
    {
        static const uint64_t want[] = {1024, 2048, 3072, 4096};
        assert_sizes(&o, want, 4);
    }
    /* the last step stops at -e even when it does not land on it */
    parse_ok("-b 3 -e 13 -f 2", &o);
    {
        static const uint64_t want[] = {3, 6, 12};
        assert_sizes(&o, want, 3);
    }
    parse_ok("-b 1K -e 3500 -i 1K", &o);
    {
        static const uint64_t want[] = {1024, 2048, 3072};
        assert_sizes(&o, want, 3);
    }
    parse_ok("-b 1M -e 1G -f 4", &o);
    {
        static const uint64_t want[] = {1048576,  4194304,   16777216,
                                        67108864, 268435456, 1073741824};
        assert_sizes(&o, want, 6);
    }
    parse_ok("-b 0 -e 2 -i 1", &o);
    {
        static const uint64_t want[] = {0, 1, 2};
        assert_sizes(&o, want, 3);
    }
    parse_ok("-b 1.5K -e 1.5K", &o);
    {
        static const uint64_t want[] = {1536};
        assert_sizes(&o, want, 1);
    }
}

static void test_coll_sizes_limit(void **state)
{
    sp_coll_opts_t o;
    uint64_t sizes[4];
    size_t n = 0;

    (void)state;
    /* exactly SP_MAX_SIZES points is allowed, one more is not */
    parse_ok("-b 1 -e 4096 -i 1", &o);
    assert_int_equal(sp_coll_sizes(&o, NULL, SP_MAX_SIZES, &n), SP_OK);
    assert_int_equal(n, 4096);
    parse_err("-b 1 -e 4097 -i 1", "4096", "--maxbytes");
    /* a caller's smaller array is honoured */
    parse_ok("-b 8 -e 128 -f 2", &o);
    assert_int_equal(sp_coll_sizes(&o, sizes, 4, &n), SP_ERR_INVALID);
    assert_int_equal(sp_coll_sizes(&o, NULL, 5, &n), SP_OK);
    assert_int_equal(n, 5);
}

/* With one size (min == max) no step is needed: -i 0 gives exactly one point. */
static void test_coll_single_point_stepbytes_0(void **state)
{
    sp_coll_opts_t o;
    static const uint64_t want[] = {8};

    (void)state;
    parse_ok("-b 8 -e 8 -i 0", &o);
    assert_sizes(&o, want, 1);
}

/* -b 0 -e 0 -f 2 is one point of 0 bytes, not an endless sweep. */
static void test_coll_single_point_zero_bytes_stepfactor(void **state)
{
    (void)state;
    /* the 0-byte point alone moves no data: a sweep with nothing to measure (issue 21) */
    parse_err("-b 0 -e 0 -f 2", "no measurable size", "--maxbytes 0");
    parse_err("-b 0 -e 0", "no measurable size", NULL);
}

static void test_coll_option_forms(void **state)
{
    static const char *const forms[] = {"-b8 -e 1K", "-b 8 -e 1K", "--minbytes=8 -e 1K",
                                        "--minbytes 8 --maxbytes=1K", "-e1K --minbytes 8"};

    (void)state;
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        sp_coll_opts_t o;

        parse_ok(forms[i], &o);
        assert_int_equal(o.minbytes, 8);
        assert_int_equal(o.maxbytes, 1024);
    }
}

static void test_coll_lists(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("--collectives all", &o);
    assert_int_equal(o.colls, 0x3ff); /* ten collectives, alltoallv the last */
    parse_ok("--collectives alltoallv", &o);
    assert_int_equal(o.colls, 1u << SP_COLL_ALLTOALLV);
    parse_ok("--collectives all_gather,alltoall,scatter", &o);
    assert_int_equal(o.colls, (1u << SP_COLL_ALL_GATHER) | (1u << SP_COLL_ALLTOALL) |
                                  (1u << SP_COLL_SCATTER));
    parse_ok("--collectives=sendrecv", &o);
    assert_int_equal(o.colls, 1u << SP_COLL_SENDRECV);
    parse_ok("-d all", &o);
    assert_int_equal(o.dtypes, 0xfff); /* twelve types, f8e5m2 the last */
    parse_ok("-d half,bfloat16,int8", &o);
    assert_int_equal(o.dtypes,
                     (1u << SP_DTYPE_HALF) | (1u << SP_DTYPE_BFLOAT16) | (1u << SP_DTYPE_INT8));
    parse_ok("-o all", &o);
    assert_int_equal(o.redops, 0x3f); /* mulsum (premulsum) the last */
    parse_ok("-o max,avg", &o);
    assert_int_equal(o.redops, (1u << SP_REDOP_MAX) | (1u << SP_REDOP_AVG));
    /* the last occurrence wins */
    parse_ok("-d int8 -d double", &o);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_DOUBLE);
}

/* --issue: blocking by default, stream accepted with the default method only, never with a
 * captured graph or nccl-tests' -z 1; the pre-MPI scan finds both spellings and nothing else. */
static void test_coll_issue(void **state)
{
    sp_coll_opts_t o;
    char a0[] = "coll", a1[] = "--issue", a2[] = "stream", a3[] = "--issue=stream",
         a4[] = "blocking", a5[] = "--split";
    char *stream2[] = {a0, a1, a2}, *stream1[] = {a0, a3}, *blocking[] = {a0, a1, a4},
         *other[] = {a0, a5, a2}, *cut[] = {a0, a1};

    (void)state;
    parse_ok("", &o);
    assert_int_equal(o.issue, SP_ISSUE_BLOCKING);
    parse_ok("--issue stream -b 1K -e 1M", &o);
    assert_int_equal(o.issue, SP_ISSUE_STREAM);
    parse_ok("--issue=blocking --method osu", &o);
    assert_int_equal(o.issue, SP_ISSUE_BLOCKING);
    parse_err("--issue stream --method osu", "--issue stream", "osu");
    parse_err("--issue stream --method nccl-tests", "--issue stream", "nccl-tests");
    parse_err("--issue stream -G", "--issue stream", "--cuda-graph");
    parse_err("--issue sideways", "sideways", NULL);
    parse_err("--issue stream -o sum,mulsum", "--issue stream", "mulsum");
    parse_err("--issue stream -o all", "--issue stream", "mulsum");
    assert_int_equal(sp_issue_stream_asked(3, stream2, 1), 1);
    assert_int_equal(sp_issue_stream_asked(2, stream1, 1), 1);
    assert_int_equal(sp_issue_stream_asked(3, blocking, 1), 0);
    assert_int_equal(sp_issue_stream_asked(3, other, 1), 0);
    assert_int_equal(sp_issue_stream_asked(2, cut, 1), 0);
    assert_string_equal(sp_issue_names[SP_ISSUE_STREAM], "stream");
}

static void test_coll_scalars(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("--place in", &o);
    assert_int_equal(o.place, SP_PLACE_IN);
    parse_ok("--place=out", &o);
    assert_int_equal(o.place, SP_PLACE_OUT);
    parse_ok("--place both", &o);
    assert_int_equal(o.place, SP_PLACE_BOTH);
    parse_ok("--no-check", &o);
    assert_int_equal(o.no_check, 1);
    parse_ok("--force", &o);
    assert_int_equal(o.run.force, 1);
    parse_ok("-O /tmp/run.h5", &o);
    assert_string_equal(o.run.output, "/tmp/run.h5");
    parse_ok("--output=results/x.h5", &o);
    assert_string_equal(o.run.output, "results/x.h5");
    parse_ok("-r -1", &o);
    assert_int_equal(o.root, -1);
    parse_ok("-r 3 -n 50 -w 0 -k 4", &o);
    assert_int_equal(o.root, 3);
    assert_int_equal(o.iters, 50);
    assert_int_equal(o.warmup, 0);
    assert_int_equal(o.batch, 4);
    parse_ok("--epsilon 0.02 --batch-us 250.5 --max-time 0.5", &o);
    assert_true(o.epsilon == 0.02);
    assert_true(o.batch_us == 250.5);
    assert_true(o.max_time == 0.5);
    parse_ok("--min-samples 20 --max-samples 20", &o);
    assert_int_equal(o.min_samples, 20);
    assert_int_equal(o.max_samples, 20);
    parse_ok("--backend host", &o);
    assert_int_equal(o.run.backend, 1);
    parse_ok("--backend nccl", &o);
    assert_int_equal(o.run.backend, 2);
}

static void test_coll_help(void **state)
{
    cmdline_t c;
    char err[ERRLEN];
    sp_coll_opts_t o;
    int help = 0;

    (void)state;
    cmdline_split(&c, "-h");
    assert_int_equal(sp_coll_opts_parse(c.argc, c.argv, 1, &o, &help, err, sizeof(err)), SP_OK);
    assert_int_equal(help, 1);
    help = 0;
    cmdline_split(&c, "-b 8 --help --bogus");
    assert_int_equal(sp_coll_opts_parse(c.argc, c.argv, 1, &o, &help, err, sizeof(err)), SP_OK);
    assert_int_equal(help, 1);
}

/* ---- coll: every error path ---- */

/* nccl-tests' spelling of a run: every flag at its one meaningful value is taken. */
static void test_coll_nccltests_flags(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("-b 8 -e 128M -f 2 -g 1 -t 1 -c 1 -n 20 -w 5 -m 1 -z 0 -C 0 -R 0 -N 3 -T 60 "
             "-J out.json",
             &o);
    assert_int_equal(o.check, 1);
    assert_int_equal(o.no_check, 0);
    assert_int_equal(o.cycles, 3);
    assert_true(o.run.timeout == 60.0);
    assert_string_equal(o.json, "out.json");
    assert_int_equal(o.colls, 1u << SP_COLL_ALL_REDUCE);
    parse_ok("-d bf16,fp16,float32 --datatype=fp64", &o);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_DOUBLE);
    parse_ok("-d bf16,fp16,float32", &o);
    assert_int_equal(o.dtypes,
                     (1u << SP_DTYPE_BFLOAT16) | (1u << SP_DTYPE_HALF) | (1u << SP_DTYPE_FLOAT));
    parse_ok("-dbf16", &o);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_BFLOAT16);
    /* fp8 as nccl-tests names it, and the format names alone */
    parse_ok("-d f8e4m3,e5m2", &o);
    assert_int_equal(o.dtypes, (1u << SP_DTYPE_F8E4M3) | (1u << SP_DTYPE_F8E5M2));
    parse_ok("--datatype=e4m3", &o);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_F8E4M3);
    /* premulsum: nccl-tests' mulsum, and NCCL's name for it in every spelling of -o */
    parse_ok("-o mulsum", &o);
    assert_int_equal(o.redops, 1u << SP_REDOP_PREMULSUM);
    parse_ok("-o sum,premulsum", &o);
    assert_int_equal(o.redops, (1u << SP_REDOP_SUM) | (1u << SP_REDOP_PREMULSUM));
    parse_ok("-opremulsum", &o);
    assert_int_equal(o.redops, 1u << SP_REDOP_PREMULSUM);
    parse_ok("--op=premulsum -d bf16", &o);
    assert_int_equal(o.redops, 1u << SP_REDOP_PREMULSUM);
    assert_int_equal(o.dtypes, 1u << SP_DTYPE_BFLOAT16);
    parse_ok("-z 1", &o);
    assert_int_equal(o.blocking, 1);
    parse_ok("-a 3", &o);
    assert_int_equal(o.average, 3);
    assert_int_equal(o.average_given, 1);
    parse_ok("-b 8", &o);
    assert_int_equal(o.average_given, 0);
    parse_ok("-c 0", &o);
    assert_int_equal(o.no_check, 1);
    parse_ok("--check=1 --collectives all_gather", &o);
    assert_int_equal(o.no_check, 0);
    assert_int_equal(o.colls, 1u << SP_COLL_ALL_GATHER);
}

static void test_coll_errors(void **state)
{
    static const struct {
        const char *line;
        const char *name1;
        const char *name2;
    } rows[] = {
        /* unknown options */
        {"--bogus", "--bogus", NULL},
        {"--bogus=3", "--bogus", NULL},
        {"-x", "-x", NULL},
        {"-x5", "-x", NULL},
        /* missing values */
        {"-b", "-b", NULL},
        {"--minbytes", "--minbytes", NULL},
        {"-e 1K -c", "-c", NULL},
        /* integers */
        {"-n abc", "--iters", "abc"},
        {"--iters 5x", "--iters", "5x"},
        {"--iters=", "--iters", NULL},
        {"-n 1.5", "--iters", "1.5"},
        {"-r 99999999999999999999999", "--root", NULL},
        {"-n -1", "--iters", "-1"},
        {"-r -2", "--root", "-2"},
        {"-f 0", "--stepfactor", NULL},
        {"-f 1025", "--stepfactor", NULL},
        {"--min-samples 0", "--min-samples", NULL},
        /* doubles */
        {"--epsilon abc", "--epsilon", NULL},
        {"--epsilon 2", "--epsilon", NULL},
        {"--max-time 0", "--max-time", NULL},
        {"--batch-us inf", "--batch-us", NULL},
        /* sizes */
        {"-b abc", "--minbytes", "abc"},
        {"-b 8Q", "--minbytes", "8Q"},
        {"-e 1KK", "--maxbytes", "1KK"},
        {"-i -1", "--stepbytes", NULL},
        {"--minbytes=", "--minbytes", NULL},
        /* names */
        {"--collectives all_reduce,bogus", "--collectives", "bogus"},
        {"-c allreduce", "--collectives", "allreduce"},
        {"--collectives all_reduce,", "--collectives", NULL},
        {"-d float,foo", "--datatype", "foo"},
        {"-d fp8", "--datatype", "fp8"},
        {"-o mean", "--op", "mean"},
        {"--place bad", "--place", "bad"},
        {"--backend bad", "--backend", "bad"},
        /* flags take no value */
        {"--force=1", "--force", NULL},
        {"--no-check=yes", "--no-check", NULL},
        /* stray arguments */
        {"stray", "stray", NULL},
        {"-b 8 -e 16 extra", "extra", NULL},
        {"-", "'-'", NULL},
        /* checks across options */
        {"-b 1M -e 1K", "--minbytes 1048576", "--maxbytes 1024"},
        {"-b 0 -e 1K -f 2", "--minbytes 0", "--stepfactor 2"},
        {"-b 8 -e 16 -i 0", "--stepbytes 0", NULL},
        {"-b 1 -e 100000 -i 1", "4096", "--maxbytes"},
        {"--min-samples 50 --max-samples 20", "--min-samples 50", "--max-samples 20"},
        /* methods: names, nccl-tests' -a range, options of one method only */
        {"--method nccl", "--method", "nccl"},
        {"--method", "--method", NULL},
        {"--method nccl-tests -a 4", "--average", "4"},
        {"--method nccl-tests -a -1", "--average", "-1"},
        {"--method osu -a 0", "--average", "nccl-tests"},
        {"--osu-full", "--osu-full", "osu"},
        {"--method nccl-tests --osu-full", "--osu-full", "osu"},
        {"--method osu -k 4", "--batch", "fixed count"},
        {"--method nccl-tests --epsilon 0.02", "--epsilon", "nccl-tests"},
        {"--method osu --max-time 1", "--max-time", "osu"},
        {"--method osu --min-samples 5", "--min-samples", NULL},
        {"--method nccl-tests --max-samples 5", "--max-samples", NULL},
        {"--method osu --batch-us 10", "--batch-us", NULL},
        /* nccl-tests' flags: -c is --check now, the rest say why they are refused */
        {"-c all_reduce", "--collectives all_reduce", "-c is nccl-tests' --check"},
        {"-call_gather,sendrecv", "--collectives all_gather,sendrecv", NULL},
        {"--check=all", "--collectives all", NULL},
        {"-c 2", "-c 2", "once"},
        {"-c -1", "--check", NULL},
        {"-g 2", "-g/--ngpus 2", "one GPU per MPI rank"},
        {"-t 4", "-t/--nthreads 4", "launch one rank per GPU"},
        {"-m 8", "--agg-iters 8", "not implemented"},
        {"-z 1 -G", "-z 1 with -G", "graph"},
        {"-C 1", "-C 1", "the same number"},
        {"-R 1", "-R 1", "registration"},
        {"-N 0", "--cycles", NULL},
        {"-J", "-J", NULL},
        {"-d fp8", "f8e4m3 or f8e5m2", NULL},
        {"-d float,fp8,half", "--datatype fp8", NULL},
        {"-o premul", "--op", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        parse_err(rows[i].line, rows[i].name1, rows[i].name2);
    }
}

/* --method and its options: the default is the default method; nccl-tests' -a defaults to 1
 * (its mean over ranks); osu without -w leaves -1 for OSU's per-size warm-up, with -w keeps it. */
static void test_coll_methods(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("", &o);
    assert_int_equal(o.method, SP_METHOD_DEFAULT);
    assert_int_equal(o.average, 1);
    assert_int_equal(o.osu_full, 0);
    assert_int_equal(o.warmup, 5);
    parse_ok("--method default -n 5", &o);
    assert_int_equal(o.method, SP_METHOD_DEFAULT);
    parse_ok("--method nccl-tests -n 20 -w 5", &o);
    assert_int_equal(o.method, SP_METHOD_NCCL_TESTS);
    assert_int_equal(o.iters, 20);
    assert_int_equal(o.warmup, 5);
    assert_int_equal(o.average, 1);
    for (long a = 0; a <= 3; a++) {
        char line[64];

        snprintf(line, sizeof(line), "--method=nccl-tests -a %ld", a);
        parse_ok(line, &o);
        assert_int_equal(o.average, a);
    }
    parse_ok("--method nccl-tests --average 2 -G", &o);
    assert_int_equal(o.average, 2);
    assert_int_equal(o.cuda_graph, 1);
    parse_ok("--method osu", &o);
    assert_int_equal(o.method, SP_METHOD_OSU);
    assert_int_equal(o.iters, 0);
    assert_int_equal(o.warmup, -1);
    parse_ok("--method osu -w 5 --osu-full", &o);
    assert_int_equal(o.warmup, 5);
    assert_int_equal(o.osu_full, 1);
    parse_ok("-w 0 --method osu", &o);
    assert_int_equal(o.warmup, 0);
    /* the default method keeps every sampling option */
    parse_ok("-k 4 --batch-us 10 --epsilon 0.02 --min-samples 5 --max-samples 9 --max-time 1", &o);
    assert_int_equal(o.batch, 4);
}

static void test_coll_check_world(void **state)
{
    sp_coll_opts_t o;
    char err[ERRLEN];

    (void)state;
    parse_ok("-r 3", &o);
    assert_int_equal(sp_coll_opts_check_world(&o, 4, err, sizeof(err)), SP_OK);
    err[0] = '\0';
    assert_int_equal(sp_coll_opts_check_world(&o, 3, err, sizeof(err)), SP_ERR_INVALID);
    assert_non_null(strstr(err, "--root"));
    assert_non_null(strstr(err, "3"));
    assert_int_equal(sp_coll_opts_check_world(&o, 1, err, sizeof(err)), SP_ERR_INVALID);
    parse_ok("-r -1", &o);
    assert_int_equal(sp_coll_opts_check_world(&o, 1, err, sizeof(err)), SP_OK);
    parse_ok("", &o);
    assert_int_equal(sp_coll_opts_check_world(&o, 1, err, sizeof(err)), SP_OK);
}

static void test_coll_epsilon(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    parse_ok("", &o);
    assert_true(sp_coll_epsilon(&o, 8) == 0.03);
    assert_true(sp_coll_epsilon(&o, 65536) == 0.03);
    assert_true(sp_coll_epsilon(&o, 65537) == 0.01);
    assert_true(sp_coll_epsilon(&o, 1u << 30) == 0.01);
    parse_ok("--epsilon 0.05", &o);
    assert_true(sp_coll_epsilon(&o, 8) == 0.05);
    assert_true(sp_coll_epsilon(&o, 1u << 30) == 0.05);
}

static void test_coll_hash(void **state)
{
    static const char *const variants[] = {
        "-b 16 -e 1M -f 2",
        "-b 8 -e 2M -f 2",
        "-b 8 -e 1M -f 4",
        "-b 8 -e 1M -f 2 -d half",
        "-b 8 -e 1M -f 2 -o max",
        "-b 8 -e 1M -f 2 --collectives all",
        "-b 8 -e 1M -f 2 -r 1",
        "-b 8 -e 1M -f 2 --no-check",
        "-b 8 -e 1M -f 2 --place in",
        "-b 8 -e 1M -f 2 -O x.h5",
        "-b 8 -e 1M -f 2 --epsilon 0.02",
        "-b 8 -e 1M -f 2 --force",
        "-b 8 -e 1M -f 2 --method osu",
        "-b 8 -e 1M -f 2 --method nccl-tests",
        "-b 8 -e 1M -f 2 --method nccl-tests -a 0",
    };
    sp_coll_opts_t a;
    sp_coll_opts_t b;
    uint64_t base;

    (void)state;
    parse_ok("-b 8 -e 1M -f 2", &a);
    parse_ok("--minbytes=8 --maxbytes 1024K --stepfactor=2", &b);
    base = sp_opts_hash(&sp_coll_opt_table, &a);
    assert_true(base == sp_opts_hash(&sp_coll_opt_table, &b));
    for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
        parse_ok(variants[i], &b);
        if (sp_opts_hash(&sp_coll_opt_table, &b) == base) {
            print_error("'%s' hashes like '-b 8 -e 1M -f 2'\n", variants[i]);
            fail();
        }
    }
    /* values are hashed field by field: "1" "55" is not "15" "5" (--iters, then --warmup) */
    parse_ok("-n 1 -w 55", &a);
    parse_ok("-n 15 -w 5", &b);
    assert_true(sp_opts_hash(&sp_coll_opt_table, &a) != sp_opts_hash(&sp_coll_opt_table, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size_suffixes),
        cmocka_unit_test(test_parse_size_rejects),
        cmocka_unit_test(test_format_size),
        cmocka_unit_test(test_format_size_round_trips),
        cmocka_unit_test(test_format_size_round_trips_10000_25k),
        cmocka_unit_test(test_format_size_round_trips_large),
        cmocka_unit_test(test_coll_defaults),
        cmocka_unit_test(test_coll_sizes_nccl_tests),
        cmocka_unit_test(test_coll_sizes_limit),
        cmocka_unit_test(test_coll_single_point_stepbytes_0),
        cmocka_unit_test(test_coll_single_point_zero_bytes_stepfactor),
        cmocka_unit_test(test_coll_option_forms),
        cmocka_unit_test(test_coll_lists),
        cmocka_unit_test(test_coll_issue),
        cmocka_unit_test(test_coll_scalars),
        cmocka_unit_test(test_coll_help),
        cmocka_unit_test(test_coll_errors),
        cmocka_unit_test(test_coll_nccltests_flags),
        cmocka_unit_test(test_coll_methods),
        cmocka_unit_test(test_coll_check_world),
        cmocka_unit_test(test_coll_epsilon),
        cmocka_unit_test(test_coll_hash),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
