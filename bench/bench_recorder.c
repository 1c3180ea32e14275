/* Cost of one timeline record (src/runtime/timeline.h), the call every timed operation makes: once with
 * the event stamped from CLOCK_MONOTONIC as a real recording does, once bare with ready events.
 * Single process, no MPI. Prints medians over repeats against the 50 ns/event target.
 *   bench_recorder [events (10000000)] [repeats (5)] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "timeutil.h"

#define TARGET_NS 50.0
/* Ready events are cycled from a small table: a real caller records an event it just built on
 * the stack, which is in cache, so the source should not add a memory stream of its own. */
#define TEMPLATE_COUNT 4096

typedef enum { MODE_CLOCK_ONLY, MODE_STAMPED, MODE_BARE, MODE_COUNT } bench_mode_t;

/* Where the reference loop leaves its result, so the compiler keeps both clock calls. */
static volatile int64_t bench_sink;

static const char *const mode_names[MODE_COUNT] = {
    "2x clock_gettime alone (reference)",
    "stamped record (2x clock_gettime + fill + record)",
    "bare record (ready events)",
};

static int parse_count(const char *s, unsigned long long min, unsigned long long *out_p)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min) {
        return -1;
    }
    *out_p = v;
    return 0;
}

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa;
    double b = *(const double *)pb;

    return (a > b) - (a < b);
}

/* One pass of n events into an emptied buffer; returns ns per event. Nothing in the loop
 * allocates, prints or branches on the mode. */
static double run_pass(bench_mode_t mode, sp_timeline_t *tl, const sp_event_rec_t *templ, size_t n)
{
    sp_event_rec_t ev = templ[0];
    int64_t acc = 0;
    uint64_t t0;
    uint64_t t1;

    sp_timeline_reset(tl);
    t0 = sp_time_ns();
    switch (mode) {
    case MODE_CLOCK_ONLY:
        for (size_t i = 0; i < n; i++) {
            int64_t a = (int64_t)sp_time_ns();
            int64_t b = (int64_t)sp_time_ns();

            acc += b - a;
        }
        bench_sink = acc;
        break;
    case MODE_STAMPED:
        for (size_t i = 0; i < n; i++) {
            ev.seq = i;
            ev.start_ns = (int64_t)sp_time_ns();
            /* the timed operation would run here */
            ev.end_ns = (int64_t)sp_time_ns();
            sp_timeline_record(tl, &ev);
        }
        break;
    case MODE_BARE:
        for (size_t i = 0; i < n; i++) {
            sp_timeline_record(tl, &templ[i % TEMPLATE_COUNT]);
        }
        break;
    case MODE_COUNT:
        break;
    }
    t1 = sp_time_ns();
    return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
    unsigned long long nevents = 10000000ull;
    unsigned long long repeats = 5;
    sp_timeline_t tl;
    sp_event_rec_t *templ;
    double *samples;
    double median[MODE_COUNT];
    sp_status_t st;
    int rc = 1;

    if (argc > 3 || (argc > 1 && parse_count(argv[1], 1, &nevents) != 0) ||
        (argc > 2 && parse_count(argv[2], 1, &repeats) != 0)) {
        fprintf(stderr, "usage: %s [events >= 1] [repeats >= 1]\n", argv[0]);
        return 2;
    }
    st = sp_timeline_init(&tl, 0, (size_t)nevents);
    if (st != SP_OK) {
        fprintf(stderr, "bench_recorder: timeline of %llu events: %s\n", nevents,
                sp_status_str(st));
        return 1;
    }
    templ = malloc(TEMPLATE_COUNT * sizeof(*templ));
    samples = malloc((size_t)repeats * sizeof(*samples));
    if (templ == NULL || samples == NULL) {
        fprintf(stderr, "bench_recorder: out of memory\n");
        goto free_all;
    }
    for (size_t i = 0; i < TEMPLATE_COUNT; i++) {
        sp_event_init(&templ[i], 0, SP_EV_COLL);
        templ[i].op = 0;
        templ[i].dtype = 0;
        templ[i].bytes = 1u << 20;
        templ[i].seq = i;
        templ[i].start_ns = (int64_t)i * 1000;
        templ[i].end_ns = (int64_t)i * 1000 + 500;
    }
    /* Touch the whole buffer once, untimed: the first pass would otherwise also measure the
     * kernel handing out zeroed pages, a one-off cost of the buffer, not of a record. */
    (void)run_pass(MODE_BARE, &tl, templ, (size_t)nevents);

    printf("recorder: %llu events x %llu repeats, sizeof(sp_event_rec_t) = %zu bytes\n", nevents,
           repeats, sizeof(sp_event_rec_t));
    for (int m = 0; m < MODE_COUNT; m++) {
        for (unsigned long long r = 0; r < repeats; r++) {
            samples[r] = run_pass((bench_mode_t)m, &tl, templ, (size_t)nevents);
            if (m != MODE_CLOCK_ONLY && (tl.count != nevents || tl.dropped != 0)) {
                fprintf(stderr, "bench_recorder: recorded %zu of %llu events, dropped %llu\n",
                        tl.count, nevents, (unsigned long long)tl.dropped);
                goto free_all;
            }
        }
        qsort(samples, (size_t)repeats, sizeof(*samples), double_cmp);
        median[m] = repeats % 2 ? samples[repeats / 2]
                                : 0.5 * (samples[repeats / 2 - 1] + samples[repeats / 2]);
        printf("  %-52s median %7.2f ns/event (min %.2f, max %.2f)\n", mode_names[m], median[m],
               samples[0], samples[repeats - 1]);
    }
    /* The buffer really holds the last pass (bare): the stores were not optimized away. */
    if (tl.events[nevents - 1].seq != (nevents - 1) % TEMPLATE_COUNT) {
        fprintf(stderr, "bench_recorder: last recorded event is wrong\n");
        goto free_all;
    }
    printf("recorder result: stamped %.2f ns/event (%s), bare %.2f ns/event (%s), target <= %.0f "
           "ns/event\n",
           median[MODE_STAMPED], median[MODE_STAMPED] <= TARGET_NS ? "met" : "MISSED",
           median[MODE_BARE], median[MODE_BARE] <= TARGET_NS ? "met" : "MISSED", TARGET_NS);
    rc = 0;
free_all:
    free(samples);
    free(templ);
    sp_timeline_cleanup(&tl);
    return rc;
}
