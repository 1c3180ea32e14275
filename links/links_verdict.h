/* Which node or link a link matrix blames, and with what confidence: a node whose links are slow
 * in its row (what it sends), its column (what it receives) or both is a node fault; a slow link
 * whose nodes are otherwise fine is a link fault (cable, switch port, one path). Pure C, no MPI;
 * docs/METHODOLOGY.md ("Link matrix") states the rule. */
#ifndef SP_LINKS_VERDICT_H
#define SP_LINKS_VERDICT_H

#include "node_outliers.h"
#include "status.h"

typedef enum { SP_LINKS_FIND_NODE = 0, SP_LINKS_FIND_LINK = 1 } sp_links_find_kind_t;

/* Node: its row (send), its column (recv) or both. Link a-b: a->b only (send), b->a only
 * (recv), or both directions. */
typedef enum {
    SP_LINKS_SIDE_BOTH = 0,
    SP_LINKS_SIDE_SEND = 1,
    SP_LINKS_SIDE_RECV = 2
} sp_links_side_t;

typedef struct {
    int kind;         /* sp_links_find_kind_t */
    int side;         /* sp_links_side_t */
    int a;            /* the node's unit, or the link's lower unit */
    int b;            /* the link's higher unit; -1 for a node */
    double ratio;     /* rate / cohort median (below 1: slow); a node: median over its links */
    double ratio_lo;  /* 95% CI of that ratio (a link: its median's CI; a node: the CI of the */
    double ratio_hi;  /* median over its slow side's links, order statistics) */
    int nslow;        /* a node: flagged links on its slow side; a link: flagged directions */
    int nlinks;       /* a node: measured links on that side; a link: measured directions */
} sp_links_finding_t;

/*
 * Classify an n x n matrix of directed links. est[i * n + j] is link i -> j as a rate (higher
 * is better: bandwidth, or 1 / latency), its median NaN where not measured and on the diagonal.
 * The cohort is the median over units of each unit's median link (one slow node cannot drag
 * it); a link is flagged when its whole CI lies below (1 - threshold) x the cohort (the node
 * baselines' rule). Then, with n >= 3, repeatedly: among the units not yet named, the one with
 * the largest share of flagged links in its row or column (over links to units not named),
 * when that share is above one half and the CI of the median ratio of that side's links lies
 * below 1 - threshold, is named a node fault (the lowest median ratio first). The flagged
 * links left (neither end named) are link faults, one finding per pair. out holds
 * n + n * (n - 1) / 2 entries. With n == 2 only links are named (two nodes cannot tell a node
 * from their one link).
 * Returns SP_ERR_INVALID for n < 2 or threshold outside (0, 1), SP_ERR_NOMEM.
 */
sp_status_t sp_links_classify(int n, const sp_node_est_t *est, double threshold,
                              sp_links_finding_t *out, int *nout_p, double *cohort_p);

#endif
