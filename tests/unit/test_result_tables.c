/* The generic table helpers of the result writer (src/runtime/result_tables.c) as the workloads
 * use them: /coll points written and read back through collectives/coll_result.c, /proxy through
 * proxies/proxy_result.c, the rule that nothing is written while the file is suspended for a
 * collective write, and more tables than the handle keeps open. Serial HDF5, no MPI. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_result.h"
#include "log.h"
#include "proxy_result.h"
#include "result.h"
#include "result_read.h"

#define NRANKS 3

typedef struct {
    char dir[64];
    char path[128];
    sp_result_t *res;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    sp_result_info_t info = {.command_line = "test", .subcommand = "coll", .backend = "host",
                             .world_size = NRANKS, .node_count = 1};

    snprintf(f->dir, sizeof(f->dir), "/tmp/sp_result_tables_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/r.h5", f->dir);
    assert_int_equal(sp_result_create(f->path, 0, &info, &f->res), SP_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;

    sp_result_close(f->res, "complete");
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* One point of `nsamples` samples; rank r's time is base + r. */
static sp_status_t append_point(sp_result_t *res, uint32_t nsamples, double base,
                                sp_coll_row_t *row, sp_coll_wrong_t *wrong, size_t nwrong)
{
    sp_coll_sample_t samples[8];
    double times[NRANKS];

    memset(row, 0, sizeof(*row));
    row->bytes = 1024;
    row->redop = SP_REDOP_NONE;
    row->root = -1;
    row->samples = nsamples;
    row->time_us = base;
    for (uint32_t i = 0; i < nsamples; i++) {
        samples[i].time_us = base + 0.5 * i;
        samples[i].slowest_rank = (int32_t)(i % NRANKS);
    }
    for (int r = 0; r < NRANKS; r++) {
        times[r] = base + r;
    }
    return sp_coll_result_append(res, row, samples, times, NRANKS, wrong, nwrong);
}

static void test_coll_points_read_back(void **state)
{
    fixture_t *f = *state;
    sp_coll_row_t row;
    sp_coll_wrong_t wrong[1] = {{.rank = 2, .wrong = 7}};
    sp_coll_row_t *rows = NULL;
    sp_coll_wrong_t *wr = NULL;
    sp_coll_sample_t *s = NULL;
    double *t = NULL;
    size_t nrows = 0, nwrong = 0;
    hid_t file;

    assert_int_equal(append_point(f->res, 3, 10.0, &row, NULL, 0), SP_OK);
    assert_int_equal(row.sample_offset, 0);
    assert_int_equal(append_point(f->res, 4, 20.0, &row, wrong, 1), SP_OK);
    assert_int_equal(row.sample_offset, 3);
    assert_int_equal(wrong[0].row, 1);

    /* the file is flushed after each point: a reader sees both while the writer is open */
    assert_int_equal(sp_result_read_open(f->path, &file), SP_OK);
    assert_int_equal(sp_coll_result_read(file, &rows, &nrows, &wr, &nwrong), SP_OK);
    H5Fclose(file);
    assert_int_equal(nrows, 2);
    assert_int_equal(nwrong, 1);
    assert_int_equal(rows[1].samples, 4);
    assert_int_equal(rows[1].sample_offset, 3);
    assert_int_equal(rows[1].redop, SP_REDOP_NONE);
    assert_int_equal(wr[0].row, 1);
    assert_int_equal(wr[0].rank, 2);
    assert_int_equal(wr[0].wrong, 7);
    assert_int_equal(sp_coll_result_read_samples(f->path, &rows[1], &s), SP_OK);
    assert_true(s[0].time_us == 20.0 && s[3].time_us == 21.5);
    assert_int_equal(s[3].slowest_rank, 0);
    assert_int_equal(sp_coll_result_read_rank_times(f->path, 1, NRANKS, &t), SP_OK);
    assert_true(t[0] == 20.0 && t[2] == 22.0);
    free(t);
    free(s);
    free(wr);
    free(rows);
}

static void test_nothing_written_while_suspended(void **state)
{
    fixture_t *f = *state;
    sp_coll_row_t row;
    uint64_t n = 99;

    assert_int_equal(append_point(f->res, 2, 1.0, &row, NULL, 0), SP_OK);
    assert_int_equal(sp_result_suspend(f->res), SP_OK);
    assert_int_equal(append_point(f->res, 2, 2.0, &row, NULL, 0), SP_ERR_INVALID);
    assert_int_equal(sp_result_resume(f->res), SP_OK);
    /* the handles closed by the suspension are reopened on the next use */
    assert_int_equal(sp_result_table_rows(f->res, "/coll/results", &n), SP_OK);
    assert_int_equal(n, 1);
    assert_int_equal(sp_result_table_rows(f->res, "/coll/samples", &n), SP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(append_point(f->res, 2, 3.0, &row, NULL, 0), SP_OK);
    assert_int_equal(row.sample_offset, 2);
}

static void test_rank_times_of_another_world_refused(void **state)
{
    fixture_t *f = *state;
    sp_coll_row_t row;
    double times[NRANKS + 1] = {0};

    assert_int_equal(append_point(f->res, 1, 1.0, &row, NULL, 0), SP_OK);
    assert_int_equal(sp_result_matrix_append(f->res, "/coll/rank_times", H5T_NATIVE_DOUBLE, times,
                                             NRANKS + 1),
                     SP_ERR_INVALID);
}

/* More tables than the handle keeps open: every append still lands at its table's end. */
static void test_more_tables_than_kept_open(void **state)
{
    fixture_t *f = *state;
    char path[32];
    uint64_t n = 0;

    assert_int_equal(sp_result_group_create(f->res, "/t"), SP_OK);
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof(path), "/t/x%d", i);
        assert_int_equal(sp_result_table_create(f->res, path, H5T_NATIVE_INT32, 4), SP_OK);
    }
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 12; i++) {
            int32_t v[2] = {round, i};
            snprintf(path, sizeof(path), "/t/x%d", i);
            assert_int_equal(sp_result_table_append(f->res, path, H5T_NATIVE_INT32, v, 2), SP_OK);
        }
    }
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof(path), "/t/x%d", i);
        assert_int_equal(sp_result_table_rows(f->res, path, &n), SP_OK);
        assert_int_equal(n, 6);
    }
}

static void test_proxy_read_back(void **state)
{
    fixture_t *f = *state;
    sp_proxy_info_t info = {.pp = 2, .tp = 1, .dp = 3, .layers = 4, .tflops = 2.5};
    sp_proxy_rank_row_t rows[2] = {{.step = 0, .rank = 0, .step_ms = 1.5},
                                   {.step = 0, .rank = 1, .step_ms = 2.5}};
    sp_proxy_result_data_t d;
    hid_t file;

    assert_int_equal(
        sp_proxy_result_begin(f->res, &info, "1f1b", "gpt", "allreduce", "bfloat16", "float"),
        SP_OK);
    assert_int_equal(sp_proxy_result_append(f->res, rows, 2), SP_OK);
    assert_int_equal(sp_proxy_result_append(f->res, rows, 1), SP_OK);
    assert_int_equal(sp_proxy_result_mark_predicted(f->res, "alpha-beta"), SP_OK);
    assert_int_equal(sp_result_read_open(f->path, &file), SP_OK);
    assert_int_equal(sp_proxy_result_read(file, &d), SP_OK);
    H5Fclose(file);
    assert_true(d.has_info);
    assert_int_equal(d.info.dp, 3);
    assert_true(d.info.tflops == 2.5);
    assert_int_equal(d.nrows, 3);
    assert_true(d.rows[1].step_ms == 2.5);
    assert_string_equal(d.schedule, "1f1b");
    assert_string_equal(d.dp_mode, "allreduce");
    assert_string_equal(d.grad_reduce_dtype, "float");
    assert_int_equal(d.predicted, 1);
    assert_string_equal(d.predicted_source, "alpha-beta");
    free(d.rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_coll_points_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_written_while_suspended, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rank_times_of_another_world_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_more_tables_than_kept_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_proxy_read_back, setup, teardown),
    };

    sp_log_set_level(SP_LOG_ERROR);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
