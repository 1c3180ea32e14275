/* DP x PP x TP rank layout (TP innermost): validation, coordinates, groups and split keys. */
#include "layout.h"

#include <stdio.h>

int sp_layout_world(const sp_layout_t *l)
{
    return l->dp * l->pp * l->tp;
}

sp_status_t sp_layout_check(const sp_layout_t *l, const sp_layout_target_t *t, int *warn_p,
                            char *err, size_t errlen)
{
    char dummy[1];

    if (err == NULL || errlen == 0) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    if (l == NULL || t == NULL) {
        snprintf(err, errlen, "no layout or target");
        return SP_ERR_INVALID;
    }
    if (l->dp < 1 || l->pp < 1 || l->tp < 1 || l->v < 1) {
        snprintf(err, errlen, "parallel sizes must be >= 1 (dp %d, pp %d, tp %d, v %d)", l->dp,
                 l->pp, l->tp, l->v);
        return SP_ERR_INVALID;
    }
    /* Compare in 64 bits: the product of three ints can overflow one. */
    if ((long long)l->dp * l->pp * l->tp != (long long)t->world) {
        snprintf(err, errlen, "dp %d x pp %d x tp %d = %lld ranks, but the world has %d", l->dp,
                 l->pp, l->tp, (long long)l->dp * l->pp * l->tp, t->world);
        return SP_ERR_INVALID;
    }
    if (l->v > 1 && l->pp < 2) {
        snprintf(err, errlen, "interleaving (v %d) needs pp >= 2", l->v);
        return SP_ERR_INVALID;
    }
    if (t->layers < 1 || t->layers % ((long)l->pp * l->v) != 0) {
        if (l->v > 1) {
            snprintf(err, errlen,
                     "%ld layers do not split into pp %d x v %d = %ld equal model chunks",
                     t->layers, l->pp, l->v, (long)l->pp * l->v);
        } else {
            snprintf(err, errlen, "%ld layers do not split into pp %d equal stages", t->layers,
                     l->pp);
        }
        return SP_ERR_INVALID;
    }
    if (t->heads < 1 || t->heads % l->tp != 0) {
        snprintf(err, errlen, "%ld attention heads do not split over tp %d", t->heads, l->tp);
        return SP_ERR_INVALID;
    }
    if (t->ranks_per_node > 0 && t->ranks_per_node % l->tp != 0) {
        snprintf(err, errlen,
                 "warning: tp %d does not divide the %d ranks per node, so tensor-parallel "
                 "groups span nodes and their traffic crosses the network",
                 l->tp, t->ranks_per_node);
        if (warn_p != NULL) {
            *warn_p = 1;
        }
        return SP_OK;
    }
    if (warn_p != NULL) {
        *warn_p = 0;
    }
    return SP_OK;
}

sp_status_t sp_layout_coord(const sp_layout_t *l, int rank, sp_layout_coord_t *coord_p)
{
    if (l == NULL || coord_p == NULL || rank < 0 || rank >= sp_layout_world(l)) {
        return SP_ERR_INVALID;
    }
    coord_p->tp = rank % l->tp;
    coord_p->pp = rank / l->tp % l->pp;
    coord_p->dp = rank / (l->tp * l->pp);
    return SP_OK;
}

int sp_layout_rank(const sp_layout_t *l, const sp_layout_coord_t *c)
{
    if (c->dp < 0 || c->dp >= l->dp || c->pp < 0 || c->pp >= l->pp || c->tp < 0 || c->tp >= l->tp) {
        return -1;
    }
    return (c->dp * l->pp + c->pp) * l->tp + c->tp;
}

int sp_layout_group_size(const sp_layout_t *l, sp_layout_group_t group)
{
    switch (group) {
    case SP_LAYOUT_GROUP_TP:
        return l->tp;
    case SP_LAYOUT_GROUP_PP:
        return l->pp;
    case SP_LAYOUT_GROUP_DP:
        return l->dp;
    }
    return 0;
}

/* Stride between neighbouring members of a group, in ranks. */
static int layout_stride(const sp_layout_t *l, sp_layout_group_t group)
{
    switch (group) {
    case SP_LAYOUT_GROUP_TP:
        return 1;
    case SP_LAYOUT_GROUP_PP:
        return l->tp;
    case SP_LAYOUT_GROUP_DP:
        return l->tp * l->pp;
    }
    return 0;
}

/* Rank's coordinate along the group's dimension. */
static int layout_index(const sp_layout_coord_t *c, sp_layout_group_t group)
{
    return group == SP_LAYOUT_GROUP_TP ? c->tp : group == SP_LAYOUT_GROUP_PP ? c->pp : c->dp;
}

sp_status_t sp_layout_group_members(const sp_layout_t *l, sp_layout_group_t group, int rank,
                                    int *members, int max, int *n_p)
{
    sp_layout_coord_t c;
    int size, stride, first;

    if (members == NULL || n_p == NULL || sp_layout_coord(l, rank, &c) != SP_OK) {
        return SP_ERR_INVALID;
    }
    size = sp_layout_group_size(l, group);
    stride = layout_stride(l, group);
    if (size == 0 || max < size) {
        return SP_ERR_INVALID;
    }
    first = rank - layout_index(&c, group) * stride;
    for (int i = 0; i < size; i++) {
        members[i] = first + i * stride;
    }
    *n_p = size;
    return SP_OK;
}

sp_status_t sp_layout_pp_neighbors(const sp_layout_t *l, int rank, int *prev_p, int *next_p)
{
    sp_layout_coord_t c;
    int prev, next;

    if (prev_p == NULL || next_p == NULL || sp_layout_coord(l, rank, &c) != SP_OK) {
        return SP_ERR_INVALID;
    }
    prev = c.pp > 0 ? rank - l->tp : -1;
    next = c.pp < l->pp - 1 ? rank + l->tp : -1;
    if (l->v > 1) {
        if (prev < 0) {
            prev = rank + (l->pp - 1) * l->tp;
        }
        if (next < 0) {
            next = rank - (l->pp - 1) * l->tp;
        }
    }
    *prev_p = prev;
    *next_p = next;
    return SP_OK;
}

sp_status_t sp_layout_split(const sp_layout_t *l, sp_layout_group_t group, int rank, int *color_p,
                            int *key_p)
{
    sp_layout_coord_t c;
    int color;

    if (color_p == NULL || key_p == NULL || sp_layout_coord(l, rank, &c) != SP_OK) {
        return SP_ERR_INVALID;
    }
    /* The color is the rank with the group's own coordinate removed, numbered densely. */
    switch (group) {
    case SP_LAYOUT_GROUP_TP:
        color = c.dp * l->pp + c.pp;
        break;
    case SP_LAYOUT_GROUP_PP:
        color = c.dp * l->tp + c.tp;
        break;
    case SP_LAYOUT_GROUP_DP:
        color = c.pp * l->tp + c.tp;
        break;
    default:
        return SP_ERR_INVALID;
    }
    *color_p = color;
    *key_p = layout_index(&c, group);
    return SP_OK;
}
