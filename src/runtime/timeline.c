/* Timeline buffer lifecycle; recording itself is inline in timeline.h. */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

const char *const sp_ev_kind_names[SP_EV_KIND_COUNT] = {
    "coll", "batch", "compute", "send", "recv", "forward", "backward", "wgrad"};

sp_status_t sp_timeline_init(sp_timeline_t *tl, int rank, size_t capacity)
{
    memset(tl, 0, sizeof(*tl));
    tl->rank = rank;
    if (capacity > 0) {
        tl->events = calloc(capacity, sizeof(*tl->events));
        if (tl->events == NULL) {
            return SP_ERR_NOMEM;
        }
    }
    tl->capacity = capacity;
    return SP_OK;
}

void sp_timeline_cleanup(sp_timeline_t *tl)
{
    if (tl == NULL) {
        return;
    }
    free(tl->events);
    memset(tl, 0, sizeof(*tl));
}

void sp_timeline_reset(sp_timeline_t *tl)
{
    tl->count = 0;
    tl->dropped = 0;
}

void sp_event_init(sp_event_rec_t *ev, int rank, sp_ev_kind_t kind)
{
    memset(ev, 0, sizeof(*ev));
    ev->rank = rank;
    ev->kind = (int16_t)kind;
    ev->op = ev->dtype = -1;
    ev->step = ev->microbatch = ev->chunk = ev->layer = ev->bucket = ev->peer = -1;
    ev->nops = 1;
}
