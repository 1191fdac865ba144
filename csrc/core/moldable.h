/* moldable.h -- the moldable LIST engine of the core (spec 000 §3.1, Algorithm 1). */
#ifndef RS_MOLDABLE_H
#define RS_MOLDABLE_H

#include <stdint.h>

/* One LIST run without the attempt log (moldable_list.c).
 *
 * Job j's attempt k (0-based, counted in this run) uses alloc[j G + min(k, G-1)] processors
 * for dur[j G + min(k, G-1)] with priority key[j G + min(k, G-1)] (larger first, ties by job
 * index); cap[j] > 0 limits the attempts in this run (BATCH-LIST), 0 means unlimited; attempt
 * k fails iff k < fail[j].  Only the njobs jobs listed in `jobs`, in priority order, take part.
 * On return done[j] holds the attempts job j ran (n entries, written for every job).
 * Returns the largest end of any attempt of this run, or -1 when out of memory.
 */
double rs_moldable_list(int64_t n, int64_t P, int64_t G, const double *dur, const int64_t *alloc,
                        const double *key, const int64_t *fail, const int64_t *cap,
                        const int64_t *jobs, int64_t njobs, double tol, int64_t *done);

#endif
