/* HDF5 types of the tables the runtime writes (topology, clock, fingerprint, timeline) and the
 * building blocks a workload's own compound types are made of. Each compound type is built from
 * its row struct with HOFFSET, so the file and the struct cannot drift apart. */
#include "result.h"

#include <stdio.h>

#include "dtype.h"


static herr_t h5_walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    sp_h5_msg_t *msg = data;

    if (n == 0) {
        snprintf(msg->text, sizeof(msg->text), "%s (%s)", err->desc ? err->desc : "?",
                 err->func_name ? err->func_name : "?");
    }
    return 0;
}

sp_h5_msg_t sp__result_h5_error(void)
{
    sp_h5_msg_t msg;

    snprintf(msg.text, sizeof(msg.text), "unknown HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, h5_walk_cb, &msg);
    return msg;
}

hid_t sp__result_enum8(const char *const *names, int n, int with_none)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);

    for (int i = 0; i < n; i++) {
        int8_t v = (int8_t)i;
        H5Tenum_insert(t, names[i], &v);
    }
    if (with_none) {
        int8_t v = SP_RESULT_ENUM_NONE;
        H5Tenum_insert(t, "none", &v);
    }
    return t;
}

void sp__result_insert_str(hid_t t, const char *name, size_t offset, size_t n)
{
    hid_t str = H5Tcopy(H5T_C_S1);

    H5Tset_size(str, n);
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, name, offset, str);
    H5Tclose(str);
}

hid_t sp__result_topo_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_topo_rank_t));
    hid_t str = H5Tcopy(H5T_C_S1);

    H5Tset_size(str, SP_HOST_LEN);
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, "rank", HOFFSET(sp_topo_rank_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "node", HOFFSET(sp_topo_rank_t, node), H5T_NATIVE_INT32);
    H5Tinsert(t, "local_rank", HOFFSET(sp_topo_rank_t, local_rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "local_size", HOFFSET(sp_topo_rank_t, local_size), H5T_NATIVE_INT32);
    H5Tinsert(t, "host", HOFFSET(sp_topo_rank_t, host), str);
    H5Tinsert(t, "device", HOFFSET(sp_topo_rank_t, device), str);
    H5Tclose(str);
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, sizeof(((sp_topo_rank_t *)0)->bus_id));
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, "bus_id", HOFFSET(sp_topo_rank_t, bus_id), str);
    H5Tclose(str);
    return t;
}

hid_t sp__result_event_type(const char *const *ops, int nops)
{
    const char *dnames[SP_DTYPE_COUNT + 1];
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_event_rec_t));
    hid_t op_t = H5Tenum_create(H5T_NATIVE_INT16);
    hid_t dt_t = H5Tenum_create(H5T_NATIVE_INT16);
    hid_t k16 = H5Tenum_create(H5T_NATIVE_INT16);

    for (int i = 0; i < SP_EV_KIND_COUNT; i++) {
        int16_t v = (int16_t)i;
        H5Tenum_insert(k16, sp_ev_kind_names[i], &v);
    }
    for (int i = -1; i < nops; i++) {
        int16_t v = (int16_t)i;
        H5Tenum_insert(op_t, i < 0 ? "none" : ops[i], &v);
    }
    for (int i = -1; i < SP_DTYPE_COUNT; i++) {
        int16_t v = (int16_t)i;
        dnames[i + 1] = i < 0 ? "none" : sp_dtype_names[i];
        H5Tenum_insert(dt_t, dnames[i + 1], &v);
    }
#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_event_rec_t, name), type)
    F(rank, H5T_NATIVE_INT32);
    F(lane, H5T_NATIVE_INT16);
    F(kind, k16);
    F(op, op_t);
    F(dtype, dt_t);
    F(step, H5T_NATIVE_INT32);
    F(microbatch, H5T_NATIVE_INT32);
    F(chunk, H5T_NATIVE_INT32);
    F(layer, H5T_NATIVE_INT32);
    F(bucket, H5T_NATIVE_INT32);
    F(peer, H5T_NATIVE_INT32);
    F(nops, H5T_NATIVE_INT32);
    F(bytes, H5T_NATIVE_UINT64);
    F(flops, H5T_NATIVE_DOUBLE);
    F(seq, H5T_NATIVE_UINT64);
    F(start_ns, H5T_NATIVE_INT64);
    F(end_ns, H5T_NATIVE_INT64);
#undef F
    H5Tclose(k16);
    H5Tclose(op_t);
    H5Tclose(dt_t);
    return t;
}

hid_t sp__result_tl_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_tl_rank_t));

    H5Tinsert(t, "rank", HOFFSET(sp_tl_rank_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "offset", HOFFSET(sp_tl_rank_t, offset), H5T_NATIVE_UINT64);
    H5Tinsert(t, "count", HOFFSET(sp_tl_rank_t, count), H5T_NATIVE_UINT64);
    H5Tinsert(t, "dropped", HOFFSET(sp_tl_rank_t, dropped), H5T_NATIVE_UINT64);
    return t;
}

hid_t sp__result_clock_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_clock_rank_t));

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_clock_rank_t, name), type)
    F(rank, H5T_NATIVE_INT32);
    F(node, H5T_NATIVE_INT32);
    F(measured, H5T_NATIVE_INT32);
    F(offset_ns, H5T_NATIVE_INT64);
    F(offset_end_ns, H5T_NATIVE_INT64);
    F(drift, H5T_NATIVE_DOUBLE);
    F(err_ns, H5T_NATIVE_INT64);
    F(rtt_ns, H5T_NATIVE_INT64);
    F(sync_start_ns, H5T_NATIVE_INT64);
    F(sync_end_ns, H5T_NATIVE_INT64);
#undef F
    return t;
}

hid_t sp__result_fp_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_fp_rank_t));

    /* the field table describes every member, so the file and the struct cannot drift apart */
    for (int f = 0; f < sp_fp_nfields; f++) {
        const sp_fp_field_t *fd = &sp_fp_fields[f];
        if (fd->kind == SP_FP_INT) {
            H5Tinsert(t, fd->name, fd->offset, H5T_NATIVE_INT32);
        } else {
            sp__result_insert_str(t, fd->name, fd->offset, fd->size);
        }
    }
    return t;
}

hid_t sp__result_fp_node_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_fp_node_t));

#define F(m) HOFFSET(sp_fp_node_t, m), sizeof(((sp_fp_node_t *)0)->m)
    H5Tinsert(t, "node", HOFFSET(sp_fp_node_t, node), H5T_NATIVE_INT32);
    H5Tinsert(t, "nranks", HOFFSET(sp_fp_node_t, nranks), H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host", F(host));
    H5Tinsert(t, "differs", HOFFSET(sp_fp_node_t, differs), H5T_NATIVE_INT32);
    sp__result_insert_str(t, "differs_in", F(differs_in));
    sp__result_insert_str(t, "mixed_in", F(mixed_in));
    sp__result_insert_str(t, "key", F(key));
#undef F
    return t;
}
