/* memo.h -- the refutation search's memo of failed states (decisions R25, R29), included by
 * rigid_refute.c only.
 *
 * Open addressing over entries of K int32 words, each with the largest time left T - tau at
 * which the state failed (a state that cannot finish within L cannot within less, whatever T:
 * the memo serves every target of a scenario). A slot is one 64-bit word, the high half of
 * the key's hash and the entry's index + 1 (0: empty), so a probe reads one word.
 *
 * The slots and entries are allocated for `max` states at once (the pages are touched only
 * when used), so nothing moves while the search runs and the workers of a split search
 * (decision R29) share one memo: an entry is written before its slot is published with a
 * compare-and-swap, the time left is raised with a compare-and-swap, and two workers that
 * store the same state at once may both add it (the first one found serves). A single worker
 * empties the memo when `max` states are held (as refute.py does); several stop adding to it
 * until the next call, which empties it then.
 */
#ifndef RS_REFUTE_MEMO_H
#define RS_REFUTE_MEMO_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int K;
    int64_t max, cap;  /* entries; slots (a power of two, at least 2 max) */
    int64_t count;     /* entries used (atomic) */
    uint64_t *slot;    /* (hash >> 32) << 32 | (entry + 1), 0 when empty */
    int32_t *keys;     /* max x K */
    int64_t *left;
} Memo;

static uint64_t hash_key(const int32_t *key, int K) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < K; i++) {
        h ^= (uint32_t)key[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static void memo_clear(Memo *m) {
    memset(m->slot, 0, sizeof(uint64_t) * (size_t)m->cap);
    m->count = 0;
}

/* the entry of `key` (h its hash), or -1 and in *free_slot the slot where it would go */
static int64_t memo_find(const Memo *m, const int32_t *key, uint64_t h, int64_t *free_slot) {
    uint64_t mask = (uint64_t)m->cap - 1, tag = h >> 32 << 32;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t w = __atomic_load_n(&m->slot[i], __ATOMIC_ACQUIRE);
        if (!w) {
            *free_slot = (int64_t)i;
            return -1;
        }
        int64_t e = (int64_t)(w & 0xffffffffull) - 1;
        if ((w & ~0xffffffffull) == tag &&
            !memcmp(m->keys + e * m->K, key, sizeof(int32_t) * (size_t)m->K))
            return e;
    }
}

/* the most time left with which `key` failed, or -1 */
static int64_t memo_left(const Memo *m, const int32_t *key, uint64_t h) {
    int64_t slot, e = memo_find(m, key, h, &slot);
    return e < 0 ? -1 : __atomic_load_n(&m->left[e], __ATOMIC_RELAXED);
}

static void raise_left(int64_t *at, int64_t left) {
    int64_t old = __atomic_load_n(at, __ATOMIC_RELAXED);
    while (left > old &&
           !__atomic_compare_exchange_n(at, &old, left, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* record that `key` failed with `left` time left: the entry is set to max(left, its old
 * value); a new state is added unless the memo is full, when a single worker (`shared` 0)
 * empties it first and several do not add it */
static void memo_store(Memo *m, const int32_t *key, int64_t left, uint64_t h, int shared) {
    if (!shared && m->count >= m->max) memo_clear(m);
    for (;;) {
        int64_t slot, e = memo_find(m, key, h, &slot);
        if (e >= 0) {
            raise_left(&m->left[e], left);
            return;
        }
        int64_t mine = __atomic_fetch_add(&m->count, 1, __ATOMIC_RELAXED);
        if (mine >= m->max) { /* full (several workers) */
            __atomic_fetch_sub(&m->count, 1, __ATOMIC_RELAXED);
            return;
        }
        memcpy(m->keys + mine * m->K, key, sizeof(int32_t) * (size_t)m->K);
        m->left[mine] = left;
        uint64_t want = (h >> 32 << 32) | (uint64_t)(mine + 1), empty = 0;
        if (__atomic_compare_exchange_n(&m->slot[slot], &empty, want, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
            return;
        /* another worker took the slot: this entry is lost, look again */
    }
}

/* a memo for keys of K words holding at most `max` states; NULL when out of memory */
API Memo *rs_memo_new(int K, int64_t max) {
    Memo *m = calloc(1, sizeof(Memo));
    if (!m) return NULL;
    m->K = K;
    m->max = max > 0 ? max : 1;
    if (m->max > 0x7fffffffll) m->max = 0x7fffffffll; /* an entry index fits in 32 bits */
    m->cap = 16;
    while (m->cap < 2 * m->max) m->cap *= 2;
    m->slot = calloc((size_t)m->cap, sizeof(uint64_t));
    m->keys = malloc(sizeof(int32_t) * (size_t)(m->max * K));
    m->left = malloc(sizeof(int64_t) * (size_t)m->max);
    if (!m->slot || !m->keys || !m->left) {
        free(m->slot); free(m->keys); free(m->left); free(m);
        return NULL;
    }
    return m;
}

API void rs_memo_free(Memo *m) {
    if (!m) return;
    free(m->slot); free(m->keys); free(m->left); free(m);
}

/* states held (tests) */
API int64_t rs_memo_count(const Memo *m) { return m ? m->count : 0; }

#endif
