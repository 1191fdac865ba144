/* cuts.h -- the cut checks of the refutation search (decision R25), included by
 * rigid_refute.c only, after its Search type: each cut row (pi, z) keeps
 * A = sum_j pi_j (rem_j t_j + in_j end_j) and B = sum_j pi_j in_j, so that the remaining work
 * sum_j pi_j d_j at tau is A - tau B (rigid_refute.c's header comment); `cut` checks
 * it against z (T - tau), `profile_cut` against the profile of the running attempts, and
 * `add_lp_row` takes a configuration-LP cut into the ring of LP rows. */
#ifndef RS_REFUTE_CUTS_H
#define RS_REFUTE_CUTS_H

static void set_node_cost(Search *s) {
    s->node_cost = 1 + 10 * (int64_t)s->rows * s->n / CELLS_PER_NODE;
}

/* A and B of row r from the current state */
static void row_sums(Search *s, int r) {
    int64_t a = 0, b = 0;
    for (int j = 0; j < s->n; j++) {
        int64_t w = s->pi[(int64_t)j * s->cap + r];
        a += w * s->rem[j] * s->t[j];
        if (s->in[j]) { a += w * s->end[j]; b += w; }
    }
    s->A[r] = a;
    s->B[r] = b;
}

/* job j enters (sign 1) or leaves (-1) the running set with its end e (0 <= e < 2^31); also
 * used for a start (rem_j falls by one and the end becomes tau + t_j: A rises by pi_j tau for
 * a job not counted as running, by 0 for one counted with end_j = tau) */
static void shift(Search *s, int j, int64_t e, int sign) {
    int64_t *A = s->A, *B = s->B;
    int rows = s->rows;
    if (s->narrow) {
        const uint32_t *c = s->pi32 + (int64_t)j * s->cap;
        uint64_t ue = (uint64_t)e;
        if (sign > 0)
            for (int r = 0; r < rows; r++) {
                A[r] += (int64_t)((uint64_t)c[r] * ue);
                B[r] += c[r];
            }
        else
            for (int r = 0; r < rows; r++) {
                A[r] -= (int64_t)((uint64_t)c[r] * ue);
                B[r] -= c[r];
            }
        return;
    }
    const int64_t *col = s->pi + (int64_t)j * s->cap;
    for (int r = 0; r < rows; r++) {
        A[r] += sign * col[r] * e;
        B[r] += sign * col[r];
    }
}

/* pi[j, r] = v, and its 32-bit mirror while every entry fits */
static void set_pi(Search *s, int j, int r, int64_t v) {
    s->pi[(int64_t)j * s->cap + r] = v;
    if (v < 0 || v > (int64_t)UINT32_MAX) s->narrow = 0;
    s->pi32[(int64_t)j * s->cap + r] = (uint32_t)v;
}

/* some row cuts the node at tau */
static int cut(Search *s, int64_t tau) {
    int64_t left = s->T - tau;
    for (int k = 0; k < s->rows; k++) {
        int r = s->order[k];
        if (s->A[r] - tau * s->B[r] > s->z[r] * left) {
            if (k) { /* move to the front */
                memmove(s->order + 1, s->order, sizeof(int) * (size_t)k);
                s->order[0] = r;
            }
            return 1;
        }
    }
    return 0;
}

/* the profile cut (module comment): the attempts running at tau stay on their processors
 * until they end, so on each piece [e_{k-1}, e_k) between their ends the pi-value at an
 * instant is at most min(z, pi(R_k) + zf[P - p(R_k)]), R_k the attempts still running;
 * after the last end at most z. Some row cuts when sum_j pi_j d_j exceeds that integral. */
static int profile_cut(Search *s, int64_t tau) {
    int n = s->n, q = 0;
    for (int j = 0; j < n; j++) {
        if (s->end[j] <= tau) continue;
        int k = q++; /* insertion by end */
        while (k > 0 && s->end[s->run[k - 1]] > s->end[j]) { s->run[k] = s->run[k - 1]; k--; }
        s->run[k] = j;
    }
    if (!q) return 0;
    int64_t used = 0;
    for (int k = 0; k < q; k++) used += s->p[s->run[k]];
    int64_t P1 = s->P + 1;
    for (int x = 0; x < s->rows; x++) {
        int r = s->order[x];
        const int64_t *col = s->pi, *zf = s->zf + r * P1;
        int64_t piR = 0, z = s->z[r], rhs = 0, prev = tau, u = used;
        for (int k = 0; k < q; k++) piR += col[(int64_t)s->run[k] * s->cap + r];
        for (int k = 0; k < q;) {
            int64_t e = s->end[s->run[k]], v = piR + zf[s->P - u];
            rhs += (e - prev) * (v < z ? v : z);
            for (; k < q && s->end[s->run[k]] == e; k++) {
                piR -= col[(int64_t)s->run[k] * s->cap + r];
                u -= s->p[s->run[k]];
            }
            prev = e;
        }
        rhs += z * (s->T - prev);
        if (s->A[r] - tau * s->B[r] > rhs) {
            if (x) {
                memmove(s->order + 1, s->order, sizeof(int) * (size_t)x);
                s->order[0] = r;
            }
            return 1;
        }
    }
    return 0;
}

/* the LP cut found by the callback joins the ring (the oldest LP row is replaced when full) */
static void add_lp_row(Search *s) {
    int r, fresh = s->nlp < s->lp_cap;
    if (fresh) {
        r = s->nbase + s->nlp++;
        s->rows++;
    } else {
        r = s->nbase + s->lp_next;
        s->lp_next = (s->lp_next + 1) % s->lp_cap;
    }
    for (int j = 0; j < s->n; j++) set_pi(s, j, r, s->row[j]);
    s->z[r] = s->row[s->n];
    if (s->zf) memcpy(s->zf + r * (s->P + 1), s->row + s->n + 1, sizeof(int64_t) * (size_t)(s->P + 1));
    row_sums(s, r);
    int k = 0; /* r to the front of the order */
    if (fresh) k = s->rows - 1;
    else while (s->order[k] != r) k++;
    memmove(s->order + 1, s->order, sizeof(int) * (size_t)k);
    s->order[0] = r;
    set_node_cost(s);
}

#endif
