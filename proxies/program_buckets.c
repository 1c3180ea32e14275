/* The DP gradient buckets of one rank's step (program.h): which parameters fill which bucket,
 * shared by DDP's all-reduces and the distributed optimizer's reduce-scatters and gathers. */
#include "program.h"

#include <stdlib.h>
#include <string.h>

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The distributed optimizer pads a bucket's end to a multiple of lcm(dp, 128) elements. */
static uint64_t pad_elements(const sp_program_config_t *c, uint64_t n)
{
    uint64_t q;

    if (!c->dist_opt) {
        return n;
    }
    q = (uint64_t)c->dp / gcd_u64((uint64_t)c->dp, 128) * 128;
    return (n + q - 1) / q * q;
}

typedef struct {
    const sp_program_config_t *c;
    sp_buckets_t *bk;
    uint64_t fill; /* elements in the open bucket */
    int chunk;
    size_t last_at; /* the item added last */
} filler_t;

static void close_bucket(filler_t *f)
{
    if (f->fill == 0) {
        return;
    }
    f->bk->elements[f->bk->n] = pad_elements(f->c, f->fill);
    f->bk->chunk[f->bk->n] = f->chunk;
    f->bk->n++;
    f->fill = 0;
}

/* Item it of the current chunk, n elements, enters the open bucket; shared: a bucket of its own
 * (Megatron's shared_embedding parameter under the distributed optimizer). */
static void add_item(filler_t *f, int it, uint64_t n, int shared)
{
    size_t at = (size_t)f->chunk * (size_t)SP_BUCKET_ITEMS(f->c) + (size_t)it;
    int32_t before;

    if (shared && f->fill > 0) { /* the open bucket is ready with the item before */
        close_bucket(f);
        f->bk->closes[f->last_at] = f->bk->n - 1;
    }
    f->last_at = at;
    before = f->bk->n;
    f->bk->item_bucket[at] = before;
    f->fill += n;
    if (shared || f->fill * sp_dtype_size(f->c->grad_dtype) >= f->c->bucket_bytes) {
        close_bucket(f);
        if (f->bk->n > before) {
            f->bk->closes[at] = before;
        }
    }
}

/* The chunks in the order their last gradient op runs (the buckets' numbering). */
static void chunk_order(const sp_program_config_t *c, const int32_t *last_grad, int *order)
{
    for (int i = 0; i < c->v; i++) {
        order[i] = i;
    }
    for (int i = 1; i < c->v; i++) {
        for (int j = i; j > 0 && last_grad[order[j - 1]] > last_grad[order[j]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
}

static void fill_chunk(filler_t *f)
{
    const sp_program_config_t *c = f->c;
    int V = c->p * c->v, L = c->layers_per_chunk;
    int vs = sp_schedule_vstage(c->kind, c->p, c->v, c->stage, f->chunk);
    uint64_t lay = c->layer_param_bytes / sp_dtype_size(c->dtype);
    uint64_t voc = c->logits_param_bytes / sp_dtype_size(c->dtype);
    int shared = c->dist_opt && sp_program_embedding_group(c, c->stage) == 1;

    if (vs == V - 1 && !sp_program_shared_output_weight(c)) {
        add_item(f, L + 1, voc, shared);
    }
    for (int j = L - 1; j >= 0; j--) {
        add_item(f, j + 1, lay, 0);
    }
    if (vs == 0) {
        add_item(f, 0, voc, shared);
    }
    if (f->fill > 0) { /* the chunk's last, partial bucket: ready with its last item */
        close_bucket(f);
        f->bk->closes[f->last_at] = f->bk->n - 1;
    }
}

sp_status_t sp__program_buckets(const sp_program_config_t *c, const int32_t *last_grad,
                                sp_buckets_t *bk)
{
    size_t items = (size_t)c->v * (size_t)SP_BUCKET_ITEMS(c);
    int *order = calloc((size_t)c->v, sizeof(*order));
    filler_t f;

    memset(bk, 0, sizeof(*bk));
    bk->elements = calloc(items, sizeof(*bk->elements));
    bk->chunk = calloc(items, sizeof(*bk->chunk));
    bk->item_bucket = malloc(items * sizeof(*bk->item_bucket));
    bk->closes = malloc(items * sizeof(*bk->closes));
    if (order == NULL || !bk->elements || !bk->chunk || !bk->item_bucket || !bk->closes) {
        free(order);
        sp__program_buckets_free(bk);
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < items; i++) {
        bk->item_bucket[i] = bk->closes[i] = -1;
    }
    chunk_order(c, last_grad, order);
    memset(&f, 0, sizeof(f));
    f.c = c;
    f.bk = bk;
    for (int i = 0; i < c->v; i++) {
        f.chunk = order[i];
        fill_chunk(&f);
    }
    for (size_t i = 0; i < items; i++) {
        if (bk->item_bucket[i] >= bk->n) {
            bk->item_bucket[i] = -1; /* an empty bucket is none */
        }
    }
    free(order);
    return SP_OK;
}

void sp__program_buckets_free(sp_buckets_t *bk)
{
    free(bk->elements);
    free(bk->chunk);
    free(bk->item_bucket);
    free(bk->closes);
    memset(bk, 0, sizeof(*bk));
}
