/* The measured inputs of `scaleprobe predict`: coll sweep files (the communication cost) and a
 * node file (the compute rate). Each loader prints one message from `scaleprobe predict` and
 * returns the exit code on bad input (2), 0 to go on. */
#ifndef SP_PREDICT_INPUTS_H
#define SP_PREDICT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "options.h"
#include "predict_sim.h"
#include "program.h"

/* The communication the prediction is priced with, and how it says so. */
typedef struct {
    sp_predict_sweeps_t sweeps;
    int stream_sweep[SP_PREDICT_MAX_SWEEPS]; /* that size's curves are from coll --issue stream */
    int64_t wait_ns; /* cross-lane wait of the stream-issued sweeps (the largest), 0: none */
    char source[SP_OPT_STRLEN + 1024];       /* the `# communication:` text */
} sp_predict_comm_t;

/* --sweep FILE[,FILE...]: every file's out-of-place, verified, summing (or reduction-free) rows,
 * of dtype where a file has it (else of every type), into the set of its communicator size;
 * stream-issued files first, a blocking file of a size they cover named and left out; then
 * each size's curves sorted. */
int sp_predict_load_sweeps(const char *files, sp_dtype_t dtype, sp_predict_comm_t *c);

/* --node FILE: *tflops_p is the median over ranks of the GEMM rate of dtype (GFLOP/s in the
 * file), and source gets the text that says where it came from. */
int sp_predict_load_node_rate(const char *path, sp_dtype_t dtype, double *tflops_p, char *source,
                              size_t len);

/* The sweeps (from files) must hold every collective the p stage programs run, and sendrecv
 * for their messages. */
int sp_predict_check_covers(const sp_predict_sweeps_t *sweeps, const char *files,
                            const sp_program_t *progs, int p);

#endif
