/* Unit tests of src/base/status.h: every status has its own name and message, and the exit code a
 * script sees (0 ok, 2 bad input, 1 anything else). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "status.h"

typedef struct {
    sp_status_t status;
    const char *name;
    int exit_code;
} status_row_t;

/* Written out by hand from the contract in status.h, not generated from SP_STATUS_LIST. */
static const status_row_t status_rows[] = {
    {SP_OK, "SP_OK", 0},
    {SP_ERR_INVALID, "SP_ERR_INVALID", 2},
    {SP_ERR_NOMEM, "SP_ERR_NOMEM", 1},
    {SP_ERR_MPI, "SP_ERR_MPI", 1},
    {SP_ERR_IO, "SP_ERR_IO", 1},
    {SP_ERR_EXISTS, "SP_ERR_EXISTS", 2},
    {SP_ERR_UNSUPPORTED, "SP_ERR_UNSUPPORTED", 1},
    {SP_ERR_MISMATCH, "SP_ERR_MISMATCH", 2},
    {SP_ERR_TIMEOUT, "SP_ERR_TIMEOUT", 1},
    {SP_ERR_WRONG_DATA, "SP_ERR_WRONG_DATA", 1},
    {SP_ERR_INTERRUPTED, "SP_ERR_INTERRUPTED", 1},
    {SP_ERR_PEER, "SP_ERR_PEER", 1},
    {SP_ERR_FORMAT, "SP_ERR_FORMAT", 2},
    {SP_ERR_DEVICE, "SP_ERR_DEVICE", 1},
};
#define NROWS (sizeof(status_rows) / sizeof(status_rows[0]))

/* The X-macro list, counted, so that a status added to status.h without a row here fails. */
#define COUNT_ONE(name, value, msg) +1
enum { N_STATUS_IN_LIST = 0 SP_STATUS_LIST(COUNT_ONE) };
#undef COUNT_ONE

static void test_table_covers_every_status(void **state)
{
    (void)state;
    assert_int_equal(NROWS, N_STATUS_IN_LIST);
}

static void test_ok_is_zero_and_errors_negative(void **state)
{
    (void)state;
    assert_int_equal(SP_OK, 0);
    for (size_t i = 1; i < NROWS; i++) {
        assert_true(status_rows[i].status < 0);
    }
}

static void test_names_are_the_symbols(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        assert_string_equal(sp_status_name(status_rows[i].status), status_rows[i].name);
    }
}

static void test_names_and_messages_distinct_and_non_empty(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        const char *name_i = sp_status_name(status_rows[i].status);
        const char *msg_i = sp_status_str(status_rows[i].status);

        assert_non_null(name_i);
        assert_non_null(msg_i);
        assert_true(strlen(name_i) > 0);
        assert_true(strlen(msg_i) > 0);
        for (size_t j = i + 1; j < NROWS; j++) {
            assert_string_not_equal(name_i, sp_status_name(status_rows[j].status));
            assert_string_not_equal(msg_i, sp_status_str(status_rows[j].status));
        }
    }
}

static void test_known_messages(void **state)
{
    (void)state;
    assert_string_equal(sp_status_str(SP_OK), "success");
    assert_string_equal(sp_status_str(SP_ERR_EXISTS),
                        "output file exists (use --force to overwrite)");
    assert_string_equal(sp_status_str(SP_ERR_WRONG_DATA), "data verification failed");
}

static void test_exit_codes(void **state)
{
    (void)state;
    for (size_t i = 0; i < NROWS; i++) {
        assert_int_equal(sp_status_exit_code(status_rows[i].status), status_rows[i].exit_code);
    }
}

static void test_unknown_status(void **state)
{
    sp_status_t bogus = (sp_status_t)-99;

    (void)state;
    /* never NULL, and never the text of a real status */
    assert_string_equal(sp_status_name(bogus), "SP_ERR_UNKNOWN");
    assert_string_equal(sp_status_str(bogus), "unknown status");
    assert_int_equal(sp_status_exit_code(bogus), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_covers_every_status),
        cmocka_unit_test(test_ok_is_zero_and_errors_negative),
        cmocka_unit_test(test_names_are_the_symbols),
        cmocka_unit_test(test_names_and_messages_distinct_and_non_empty),
        cmocka_unit_test(test_known_messages),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_unknown_status),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
