/* moldable.h -- the moldable LIST engine of the core (spec 000 §3.1, Algorithm 1). */
#ifndef RS_MOLDABLE_H
#define RS_MOLDABLE_H

#include <stdint.h>

/* LIST runs without the attempt log (moldable_list.c).
 *
 * Job j's attempt k (0-based, counted in this run) uses alloc[j G + min(k, G-1)] processors
 * for dur[j G + min(k, G-1)] with priority key[j G + min(k, G-1)] (larger first, ties by job
 * index); cap[j] > 0 limits the attempts in this run (BATCH-LIST), 0 means unlimited; attempt
 * k fails iff k < fail[j].  Only the njobs jobs listed in `jobs` take part.
 *
 * rs_moldable_prepare fixes the queue order of every (job, column) pair from the keys and
 * allocates the buffers of a run (NULL: out of memory); it keeps pointers to alloc and jobs,
 * which must outlive it.  rs_moldable_run then simulates one scenario (any number in turn, on
 * the same allocations) and returns the largest end of any attempt of the run; on return
 * done[j] holds the attempts job j ran (n entries).  rs_moldable_release frees it all.
 */
typedef struct rs_mlist rs_mlist;
rs_mlist *rs_moldable_prepare(int64_t n, int64_t P, int64_t G, const double *key,
                              const int64_t *alloc, const int64_t *jobs, int64_t njobs);
double rs_moldable_run(rs_mlist *m, const double *dur, const int64_t *fail, const int64_t *cap,
                       double tol, int64_t *done);
void rs_moldable_release(rs_mlist *m);

/* The job fronts of MT-ALLOTMENT (spec 000 §3.7), flattened as MTAllotment.flat() builds them:
 * job j's time-Pareto front occupies [off[j], off[j+1]) of key (j B - log t, increasing),
 * p (processors), sufmin (suffix minimum of the area) and sufarg (its global index). */
typedef struct {
    const double *key;
    const int64_t *off;
    const int64_t *p;
    const double *sufmin;
    const int64_t *sufarg;
    int64_t nkey;
    double B, lo, hi;
} rs_fronts;

/* MTAllotment.solve for chains of g = 2^L identical attempts (moldable_batch.c): the bisection
 * from X0 until Xmax / Xmin <= 1 + eps2 over the DP of MTAllotment.feasible, then the
 * backtracking.  Writes the m x g allocations (DP order) to alloc and *xmax, *calls.
 * Returns 0, -1 out of memory, -2 when X overflows without a feasible DP. */
int rs_mt_solve(const rs_fronts *fr, const int64_t *jobs, int64_t m, int64_t g, double eps,
                double eps2, double area_slack, int64_t P, double X0, int64_t *alloc,
                double *xmax, int64_t *calls);

#endif
