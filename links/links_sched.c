/* Rounds of disjoint pairs (see links_sched.h). */
#include "links_sched.h"

#include <stddef.h>

int sp_links_nrounds(int n)
{
    if (n < 2) {
        return 0;
    }
    return n % 2 == 0 ? n - 1 : n;
}

/* Circle method over m = n (even) or n + 1 (odd, the extra unit m - 1 is the bye): unit m - 1
 * stays put and meets r; the others sit on a circle of m - 1 and meet (r + i, r - i). */
int sp_links_round(int n, int r, int *pairs, int *bye_p)
{
    int m = n % 2 == 0 ? n : n + 1;
    int c = m - 1;
    int np = 0;

    if (n < 2 || r < 0 || r >= sp_links_nrounds(n)) {
        return -1;
    }
    if (bye_p != NULL) {
        *bye_p = -1;
    }
    for (int i = 0; i < m / 2; i++) {
        int a = i == 0 ? c : (r + i) % c;
        int b = (r - i + c) % c;
        if (a >= n || b >= n) {
            if (bye_p != NULL) {
                *bye_p = a >= n ? b : a;
            }
            continue;
        }
        pairs[2 * np] = a < b ? a : b;
        pairs[2 * np + 1] = a < b ? b : a;
        np++;
    }
    return np;
}

int sp_links_rail_round(int nnodes, int nrails, int r, int *pairs, int *bye_p)
{
    int np = nrails >= 1 ? sp_links_round(nnodes, r, pairs, bye_p) : -1;

    if (np < 0) {
        return -1;
    }
    /* rail 0's pairs are the node pairs; rail q's the same pairs shifted by q * nnodes */
    for (int q = 1; q < nrails; q++) {
        for (int i = 0; i < 2 * np; i++) {
            pairs[2 * np * q + i] = pairs[i] + q * nnodes;
        }
    }
    return np * nrails;
}

int sp_links_pick_rounds(int nrounds, int k, int *rounds)
{
    if (k <= 0 || k > nrounds) {
        k = nrounds;
    }
    for (int i = 0; i < k; i++) {
        /* floor(i * nrounds / k): distinct and increasing since nrounds >= k */
        rounds[i] = (int)((long)i * nrounds / k);
    }
    return k;
}
