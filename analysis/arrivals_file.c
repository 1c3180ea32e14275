/* The file source of the streaming arrival pass (arrivals.h): the timeline of a result file,
 * rank by rank through tlread.h. */
#include "arrivals.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "tlread.h"

typedef sp_arrival_ev_t cev_t;

/* The file source: whole rows (sp_tlread_rank: HDF5 converts a full row faster than a subset
 * of its columns), cut down to sp_arrival_ev_t, with a warning when a read fails. */
typedef struct {
    const char *path;
    sp_tlread_t *tl;
    sp_event_rec_t *rows;
    size_t room;
} file_src_t;

static sp_status_t file_read(void *ctx, int rank, cev_t *buf, size_t max, uint64_t from,
                             size_t *n_p)
{
    file_src_t *f = ctx;
    sp_status_t st;

    if (max > f->room) {
        sp_event_rec_t *grown = realloc(f->rows, max * sizeof(*grown));
        if (grown == NULL) {
            return SP_ERR_NOMEM;
        }
        f->rows = grown;
        f->room = max;
    }
    st = sp_tlread_rank(f->tl, rank, f->rows, max, from, n_p);
    if (st != SP_OK) {
        sp_warn("%s: the timeline is damaged: %s", f->path, f->tl->why);
        return st;
    }
    for (size_t i = 0; i < *n_p; i++) {
        const sp_event_rec_t *x = &f->rows[i];
        buf[i] = (cev_t){x->seq, x->start_ns, x->end_ns, x->bytes, x->rank, x->step, x->kind};
    }
    return SP_OK;
}

sp_status_t sp_arrivals_scan(const char *path, int nranks, const int *node_of, int nnodes,
                             sp_arrivals_t *a)
{
    sp_tlread_t tl;
    file_src_t f = {path, &tl, NULL, 0};
    sp_status_t st;

    if (path == NULL || a == NULL || nranks < 1) {
        return SP_ERR_INVALID;
    }
    memset(a, 0, sizeof(*a)); /* a file without a timeline: present 0, nothing to free */
    st = sp_tlread_open(path, &tl);
    if (st != SP_OK) {
        sp_warn("%s: %s", path, tl.why);
        return st;
    }
    if (tl.present) {
        sp_arrivals_source_t src = {
            .ranks = tl.ranks,
            .nranks = tl.nranks,
            .chunk_rows = sp_tlread_chunk_rows(&tl),
            .err_ns = tl.clock_err_ns,
            .read = file_read,
            .ctx = &f,
        };
        st = sp_arrivals_run(&src, nranks, node_of, nnodes, a);
    }
    free(f.rows);
    sp_tlread_close(&tl);
    return st;
}

