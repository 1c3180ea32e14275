/* Rank layout of the training proxy: world = DP x PP x TP with TP innermost (consecutive ranks,
 * inside a node), then PP, then DP, as Megatron orders its default groups. Pure functions: rank
 * <-> coordinates, group members, pipeline neighbours and the MPI_Comm_split color/key of each
 * group; the split itself is done by the caller. */
#ifndef SP_LAYOUT_H
#define SP_LAYOUT_H

#include <stddef.h>

#include "status.h"

/* Parallel sizes; v is the number of model chunks per pipeline stage (1 = no interleaving). */
typedef struct {
    int dp, pp, tp, v;
} sp_layout_t;

/* A rank's position in each dimension. rank = (dp * pp_size + pp) * tp_size + tp. */
typedef struct {
    int dp, pp, tp;
} sp_layout_coord_t;

/* The three communicator families. Adding one: a value here and a case in layout.c. */
typedef enum { SP_LAYOUT_GROUP_TP = 0, SP_LAYOUT_GROUP_PP, SP_LAYOUT_GROUP_DP } sp_layout_group_t;

/* What a layout must fit. ranks_per_node <= 0 skips the node check. */
typedef struct {
    int world;
    int ranks_per_node;
    long layers;
    long heads;
} sp_layout_target_t;

/* Check a layout against a world and a model, first failure only, message in err (not logged;
 * err may be NULL):
 *   SP_ERR_INVALID when a size is < 1, when dp * pp * tp != world, when layers % (pp * v) != 0
 *   (each stage holds v chunks of equal depth), when heads % tp != 0 (attention is split by
 *   heads), or when v > 1 with pp < 2 (interleaving needs a pipeline).
 *   SP_OK with *warn_p = 1 and a message in err when ranks_per_node % tp != 0: a TP group
 *   would span nodes. It runs, but TP traffic crosses the network, which is not the layout the
 *   proxy stands for; callers should log the message as a warning.
 *   SP_OK with *warn_p = 0 (and err untouched) otherwise. warn_p may be NULL. */
sp_status_t sp_layout_check(const sp_layout_t *layout, const sp_layout_target_t *target,
                            int *warn_p, char *err, size_t errlen);

/* Number of ranks, dp * pp * tp. */
int sp_layout_world(const sp_layout_t *layout);

/* Coordinates of rank. SP_ERR_INVALID for a rank outside [0, world); *coord_p set on success. */
sp_status_t sp_layout_coord(const sp_layout_t *layout, int rank, sp_layout_coord_t *coord_p);

/* Rank at coordinates; -1 when a coordinate is out of range. */
int sp_layout_rank(const sp_layout_t *layout, const sp_layout_coord_t *coord);

/* Size of a group of the family: tp, pp or dp. 0 for an unknown family. */
int sp_layout_group_size(const sp_layout_t *layout, sp_layout_group_t group);

/* Members of rank's group of the family, written to members[0..*n_p) in increasing order of the
 * group's coordinate, which is also increasing rank order; rank's own index in the list is its
 * coordinate in that dimension. SP_ERR_INVALID for a bad rank or family, NULL pointers or
 * max < group size; nothing written then. */
sp_status_t sp_layout_group_members(const sp_layout_t *layout, sp_layout_group_t group, int rank,
                                    int *members, int max, int *n_p);

/* Previous and next pipeline stage of rank (same dp and tp coordinates). Without interleaving
 * (v == 1) the first stage has no previous and the last no next (-1). With v > 1 the pipeline
 * wraps: chunk c of the last stage feeds chunk c+1 of stage 0, so stage 0's previous is the last
 * stage and the last stage's next is stage 0. SP_ERR_INVALID for a bad rank or NULL pointers. */
sp_status_t sp_layout_pp_neighbors(const sp_layout_t *layout, int rank, int *prev_p, int *next_p);

/* MPI_Comm_split arguments that give rank its group of the family: color >= 0 numbers the groups
 * (the same for all members, different between groups), key is the rank's coordinate in the
 * group, so the new communicator's rank equals that coordinate. Not collective itself; the caller
 * calls MPI_Comm_split with these on every rank. SP_ERR_INVALID for a bad rank or family or NULL
 * pointers. */
sp_status_t sp_layout_split(const sp_layout_t *layout, sp_layout_group_t group, int rank,
                            int *color_p, int *key_p);

#endif
