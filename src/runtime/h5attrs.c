/* The attributes of a group as key/value strings (see h5attrs.h). */
#include "h5attrs.h"

#include <hdf5.h>
#include <stdio.h>

#include "result_read.h"

typedef struct {
    sp_kv_t *kv;
    int n;
    int max;
} collect_t;

static herr_t collect(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    collect_t *c = data;
    sp_kv_t *kv;

    (void)info;
    if (c->n >= c->max) {
        return 1; /* full: stop iterating */
    }
    kv = &c->kv[c->n++];
    snprintf(kv->key, sizeof(kv->key), "%s", name);
    if (sp__result_read_attr(loc, name, kv->value, sizeof(kv->value)) != SP_OK) {
        kv->value[0] = '\0';
    }
    return 0;
}

int sp_h5attrs_read(const char *path, const char *group, sp_kv_t *kv, int max)
{
    collect_t c = {kv, 0, max};
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g;

    if (f < 0) {
        return 0;
    }
    if (H5Lexists(f, group, H5P_DEFAULT) > 0 && (g = H5Gopen2(f, group, H5P_DEFAULT)) >= 0) {
        H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, &c);
        H5Gclose(g);
    }
    H5Fclose(f);
    return c.n;
}
