/* A progress line on stderr for long runs (a sweep's points, a proxy's steps): rank 0 only,
 * rewritten in place with '\r', and only when stderr is a terminal and --quiet was not given;
 * elsewhere (a batch job's log, a pipe) optionally a whole line every few seconds, the
 * heartbeat. Not thread safe; never called inside a timed region. */
#ifndef SP_PROGRESS_H
#define SP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int on;           /* drawing at all */
    const char *unit; /* "point", "step" */
    size_t total;     /* 0: unknown (no ETA) */
    size_t done;
    uint64_t t0_ns;   /* when sp_progress_init ran */
    uint64_t last_ns; /* when the last item finished (or init) */
    size_t drawn;     /* characters of the line on screen, to blank them */
    uint64_t beat_ns;      /* heartbeat interval; 0: none */
    uint64_t next_beat_ns; /* when the next heartbeat line is due */
    char what[96];         /* the item in progress, for the heartbeat */
} sp_progress_t;

/* Start: on when rank is 0, quiet is 0 and stderr is a terminal (under mpirun, whose ranks
 * write stderr into a pipe: when mpirun's own stderr is one). total: items of the run. */
void sp_progress_init(sp_progress_t *p, int rank, int quiet, size_t total, const char *unit);

/* Whether a progress line is drawn where stderr is the terminal fd and quiet as given (pure,
 * for tests: is_tty is isatty(2)). */
int sp_progress_wanted(int rank, int quiet, int is_tty);

/* Where the line is not drawn (stderr not a terminal) and not quiet, on rank 0: a heartbeat,
 * one whole line "progress: [done/total unit] what  elapsed  ETA" on stderr every every_s
 * seconds (0: none), printed by the calls below and sp_progress_tick once it is due. */
void sp_progress_heartbeat(sp_progress_t *p, int rank, int quiet, double every_s);

/* Print the heartbeat line if it is due (p may be NULL: nothing). Call between operations of a
 * long item, outside timed regions. */
void sp_progress_tick(sp_progress_t *p);

/* Draw "[done/total unit] what  elapsed  ETA" for the item that starts now. */
void sp_progress_start_item(sp_progress_t *p, const char *what);

/* An item finished: the line shows done/total, elapsed, ETA and this item's time ("last
 * 1.2 s"). The line ends with '\r', so the next line on the terminal overwrites it. */
void sp_progress_item_done(sp_progress_t *p);

/* Blank the line, so the next output starts clean (before printing a table line, and at the
 * end). */
void sp_progress_clear(sp_progress_t *p);

/* Format the line for done of total items after elapsed_s (ETA from the mean item time so far;
 * none before the first item or without a total), what and last_s as above. Pure. */
void sp_progress_format(size_t done, size_t total, const char *unit, double elapsed_s,
                        const char *what, double last_s, char *out, size_t outlen);

/* A duration for people: 0.84 s, 12.3 s, 4m05s, 2h07m. Pure. */
void sp_progress_duration(double s, char *out, size_t outlen);

#endif
