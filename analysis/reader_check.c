/* The reader's plausibility checks: every index, rank, count and offset a tool would use from a
 * file is checked here once, against the registries and the file's own extents, so that no tool
 * indexes a table, allocates or reads by a number that damage or another program put there. */
#include "reader_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"
#include "node_kind.h"

/* The largest world a file may claim: predict's bound. */
#define MAX_WORLD 100000000L

static sp_status_t bad(sp_reader_t *rd, const char *what, size_t i, const char *detail)
{
    snprintf(rd->why, sizeof(rd->why), "is a damaged scaleprobe result file: %s row %zu %s", what,
             i, detail);
    return SP_ERR_FORMAT;
}

static int in(long v, long lo, long hi)
{
    return v >= lo && v < hi;
}

static sp_status_t check_coll(sp_reader_t *rd, hsize_t nsamples, hsize_t nrank_times)
{
    int world = rd->world_size;

    for (size_t i = 0; i < rd->nrows; i++) {
        const sp_coll_row_t *r = &rd->rows[i];
        if (!in(r->op, 0, SP_COLL_COUNT) || !in(r->dtype, 0, SP_DTYPE_COUNT) ||
            !in(r->redop, -1, SP_REDOP_COUNT) || !in(r->in_place, 0, 2)) {
            return bad(rd, "/coll/results", i, "names no known collective, type or reduction");
        }
        if (!in(r->root, -1, world) || !in(r->slowest_rank, -1, world) ||
            !in(r->late_rank, -1, world) || !in(r->wrong_ranks, 0, (long)world + 1)) {
            return bad(rd, "/coll/results", i, "names a rank outside the job");
        }
        /* -1: not checked; beyond 2^50 wrong elements (petabytes) is damage */
        if (r->wrong < -1 || r->wrong > ((int64_t)1 << 50)) {
            return bad(rd, "/coll/results", i, "has an impossible #wrong");
        }
        if ((hsize_t)r->samples > nsamples || r->sample_offset > nsamples - r->samples) {
            return bad(rd, "/coll/results", i, "points past the end of /coll/samples");
        }
        if (nrank_times > 0 && i >= nrank_times) {
            return bad(rd, "/coll/results", i, "has no row in /coll/rank_times");
        }
    }
    for (size_t i = 0; i < rd->nwrong; i++) {
        const sp_coll_wrong_t *w = &rd->wrong[i];
        /* a count beyond 2^48 elements (a petabyte of bytes) is damage, and summing stays exact */
        if (w->row >= rd->nrows || !in(w->rank, 0, world) || w->wrong > (1ull << 48)) {
            return bad(rd, "/coll/wrong", i, "names a point, rank or count outside the file");
        }
    }
    return SP_OK;
}

static sp_status_t check_proxy(sp_reader_t *rd)
{
    const sp_proxy_info_t *p = &rd->proxy_info;

    if (rd->has_proxy) {
        long product = (long)p->pp * p->tp * p->dp;
        if (p->pp < 1 || p->tp < 1 || p->dp < 1 || p->microbatches < 1 || p->chunks < 1 ||
            p->pp > rd->world_size || p->tp > rd->world_size || p->dp > rd->world_size ||
            product != rd->world_size) {
            return bad(rd, "/proxy/info", 0, "has no layout of the job (pp x tp x dp must be its "
                       "ranks, each at least 1)");
        }
    }
    for (size_t i = 0; i < rd->nproxy; i++) {
        const sp_proxy_rank_row_t *r = &rd->proxy[i];
        /* steps are numbered from 0, every step has a row per rank: a step beyond the rows is
         * damage (compare and regress size an array by it) */
        if (!in(r->step, 0, (long)rd->nproxy) || !in(r->rank, 0, rd->world_size)) {
            return bad(rd, "/proxy/ranks", i, "names a step or rank outside the file");
        }
    }
    return SP_OK;
}

static sp_status_t check_node(sp_reader_t *rd, hsize_t nsamples)
{
    for (size_t i = 0; i < rd->nnode_rows; i++) {
        const sp_node_row_t *r = &rd->node_rows[i];
        if (!in(r->rank, 0, rd->world_size) || !in(r->kind, 0, SP_NODE_KIND_COUNT) ||
            !in(r->dtype, 0, SP_DTYPE_COUNT) || memchr(r->host, '\0', sizeof(r->host)) == NULL) {
            return bad(rd, "/node/results", i, "names a rank, kind or type outside the file");
        }
        if ((hsize_t)r->samples > nsamples || r->sample_offset > nsamples - r->samples) {
            return bad(rd, "/node/results", i, "points past the end of /node/samples");
        }
    }
    return SP_OK;
}

sp_status_t sp__reader_check(hid_t file, sp_reader_t *rd)
{
    sp_status_t status;

    if (rd->world_size < 1 || rd->world_size > MAX_WORLD || rd->node_count < 0 ||
        rd->node_count > rd->world_size) {
        snprintf(rd->why, sizeof(rd->why), "is a damaged scaleprobe result file: world_size %d "
                 "and node_count %d are no job", rd->world_size, rd->node_count);
        return SP_ERR_FORMAT;
    }
    status = check_coll(rd, sp_result_read_extent(file, "/coll/samples"),
                        sp_result_read_extent(file, "/coll/rank_times"));
    if (status == SP_OK) {
        status = check_proxy(rd);
    }
    if (status == SP_OK) {
        status = check_node(rd, sp_result_read_extent(file, "/node/samples"));
    }
    return status;
}
