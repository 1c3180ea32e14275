/* The `op` enum of /timeline/events is named by the workload (sp_result_info_t.event_ops): the
 * runtime does not see the collectives' registry. These tests check the enum members of the HDF5
 * types built from the collectives' names, and that the /coll/results op enum uses them too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <string.h>

#include "coll.h"
#include "coll_result.h"
#include "result.h"

/* The name of value v of the enum member `member` of compound type t. */
static void enum_name(hid_t t, const char *member, long v, char *out, size_t len)
{
    int idx = H5Tget_member_index(t, member);
    hid_t mt;
    herr_t rc;

    assert_true(idx >= 0);
    mt = H5Tget_member_type(t, (unsigned)idx);
    assert_int_equal(H5Tget_class(mt), H5T_ENUM);
    if (H5Tget_size(mt) == 2) {
        int16_t v16 = (int16_t)v;
        rc = H5Tenum_nameof(mt, &v16, out, len);
    } else {
        int8_t v8 = (int8_t)v;
        rc = H5Tenum_nameof(mt, &v8, out, len);
    }
    assert_true(rc >= 0);
    H5Tclose(mt);
}

static void test_event_type_op_enum(void **state)
{
    hid_t t = sp__result_event_type(sp_coll_names, SP_COLL_COUNT);
    char name[64];

    (void)state;
    enum_name(t, "op", -1, name, sizeof(name));
    assert_string_equal(name, "none");
    for (int i = 0; i < SP_COLL_COUNT; i++) {
        enum_name(t, "op", i, name, sizeof(name));
        assert_string_equal(name, sp_coll_names[i]);
    }
    H5Tclose(t);
}

static void test_coll_row_type_enums(void **state)
{
    hid_t t = sp__coll_row_type();
    char name[64];

    (void)state;
    enum_name(t, "op", SP_COLL_SCATTER, name, sizeof(name));
    assert_string_equal(name, "scatter");
    enum_name(t, "redop", SP_REDOP_NONE, name, sizeof(name));
    assert_string_equal(name, "none");
    enum_name(t, "redop", SP_REDOP_SUM, name, sizeof(name));
    assert_string_equal(name, "sum");
    assert_int_equal(H5Tget_size(t), sizeof(sp_coll_row_t));
    H5Tclose(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_type_op_enum),
        cmocka_unit_test(test_coll_row_type_enums),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
