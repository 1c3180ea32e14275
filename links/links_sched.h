/* The round schedule of `scaleprobe links`: rounds of disjoint pairs that together cover every
 * pair of n units once (a 1-factorization of the complete graph, by the circle method; odd n
 * adds a bye), and the choice of a sample of rounds for a fast screen. Pure C, no MPI. */
#ifndef SP_LINKS_SCHED_H
#define SP_LINKS_SCHED_H

/* Rounds for n units: n - 1 for even n, n for odd n (each round one unit sits out), 0 for
 * n < 2. */
int sp_links_nrounds(int n);

/*
 * The pairs of round r (0 <= r < sp_links_nrounds(n)): writes npairs = n / 2 pairs as
 * pairs[2i] < pairs[2i + 1] and returns npairs; *bye_p (may be NULL) is the unit that sits out
 * (-1 for even n). pairs holds n entries. Returns -1 for r or n out of range. Every unit is in
 * exactly one pair of a round (or is the bye) and every pair occurs in exactly one round.
 */
int sp_links_round(int n, int r, int *pairs, int *bye_p);

/*
 * Round r of the rail matrix (--per rail) of nnodes nodes with nrails ranks each: the units are
 * rail-major (unit = rail * nnodes + node), and each rail runs round r of the node schedule
 * (sp_links_round(nnodes, r)) among its own units at the same time, so a round holds
 * nrails * (nnodes / 2) pairs, never two rails in one pair, and sp_links_nrounds(nnodes) rounds
 * cover every same-rail pair once. Writes the pairs as sp_links_round does (pairs holds
 * nnodes * nrails entries) and returns how many; *bye_p (may be NULL) is the node that sits out
 * on every rail (-1 for even nnodes). Returns -1 for arguments out of range.
 */
int sp_links_rail_round(int nnodes, int nrails, int r, int *pairs, int *bye_p);

/* k of nrounds rounds spread evenly over the schedule (k >= nrounds or k <= 0: all), in
 * increasing order into rounds[]; returns how many. */
int sp_links_pick_rounds(int nrounds, int k, int *rounds);

#endif
