/* sim/core/heap.h: the binary min-heap every ordered queue uses (the event
 * queue, the KVCache pool's eviction order, a decode batch), over a
 * caller's growable array. SIM_HEAP_DEFINE generates it per element type
 * so the comparison inlines: the event queue pops once per event, and an
 * indirect comparator call or a memcpy of a run-time element size there
 * costs measurable time. Header-only for that reason; the sift rules exist
 * once, here. Invariant: no element is LESS than its parent; the sift rules
 * are fixed, so the pop order (ties included) is a pure function of the
 * operations, and outputs stay byte-identical across builds.
 * push, pop, remove O(log n); heapify O(n). */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <stddef.h>

#include "sim/core/util.h"

/* The PLACED hook of a heap whose elements do not track their index. */
#define SIM_HEAP_UNTRACKED(h, i) ((void)0)

/* Define static inline functions PFX_push, _pop, _remove, _heapify (and
 * the sift steps _up and _down) over an array T *h of n elements.
 *   LESS(const T *a, const T *b): a strict weak order (irreflexive,
 *     transitive); make it total (e.g. a sequence number last) when equal
 *     keys must pop in a known order.
 *   PLACED(T *h, size_t i): called whenever an element is stored at h[i],
 *     so it can record its index (for _remove); SIM_HEAP_UNTRACKED if not.
 * Functions:
 *   void PFX_push(T **h, size_t *n, size_t *cap, T x, const char *label):
 *     add x, growing *h (sim_grow, label names the allocation).
 *   T PFX_pop(T *h, size_t *n): remove and return the least; *n > 0.
 *   void PFX_remove(T *h, size_t *n, size_t i): remove h[i]; i < *n. The
 *     last element fills the hole and moves down or, if it cannot, up (one
 *     that moved down is already above its new parent).
 *   void PFX_heapify(T *h, size_t n): order an arbitrary array.
 *   size_t PFX_up(T *h, size_t i, T x), PFX_down(T *h, size_t n, size_t i,
 *     T x): fill the hole at h[i] with x, moving it up / down to its place;
 *     return its final index. x travels in a register, never through h,
 *     so the compiler need not reload it after stores into h.
 *   size_t PFX_sink(T *h, size_t n, T x): fill the hole at the root with
 *     x as PFX_down(h, n, 0, x) does, but by Floyd's rule: the hole goes
 *     down to a leaf along the lesser children (one comparison a level,
 *     not two), then x goes up from there. x from the heap's end mostly
 *     belongs near the bottom, so this is fewer comparisons; the heap
 *     holds the same elements, and where LESS is total the pops that
 *     follow give the same order, but the layout can differ from
 *     PFX_down's, so a heap with ties keeps to PFX_down. */
#define SIM_HEAP_DEFINE(PFX, T, LESS, PLACED)                                                  \
    static inline size_t PFX##_up(T *h, size_t i, T x)                                         \
    {                                                                                          \
        while (i > 0) {                                                                        \
            size_t up_ = (i - 1) / 2;                                                          \
            if (!LESS(&x, &h[up_]))                                                            \
                break;                                                                         \
            h[i] = h[up_];                                                                     \
            PLACED(h, i);                                                                      \
            i = up_;                                                                           \
        }                                                                                      \
        h[i] = x;                                                                              \
        PLACED(h, i);                                                                          \
        return i;                                                                              \
    }                                                                                          \
                                                                                               \
    static inline size_t PFX##_down(T *h, size_t n, size_t i, T x)                             \
    {                                                                                          \
        for (;;) {                                                                             \
            size_t ch_ = 2 * i + 1;                                                            \
            if (ch_ >= n)                                                                      \
                break;                                                                         \
            if (ch_ + 1 < n && LESS(&h[ch_ + 1], &h[ch_]))                                     \
                ch_++;                                                                         \
            if (!LESS(&h[ch_], &x))                                                            \
                break;                                                                         \
            h[i] = h[ch_];                                                                     \
            PLACED(h, i);                                                                      \
            i = ch_;                                                                           \
        }                                                                                      \
        h[i] = x;                                                                              \
        PLACED(h, i);                                                                          \
        return i;                                                                              \
    }                                                                                          \
                                                                                               \
    static inline size_t PFX##_sink(T *h, size_t n, T x)                                       \
    {                                                                                          \
        size_t i = 0, ch_;                                                                     \
        while ((ch_ = 2 * i + 2) < n) {                                                        \
            if (LESS(&h[ch_ - 1], &h[ch_]))                                                    \
                ch_--;                                                                         \
            h[i] = h[ch_];                                                                     \
            PLACED(h, i);                                                                      \
            i = ch_;                                                                           \
        }                                                                                      \
        if (ch_ - 1 < n) {                                                                     \
            h[i] = h[ch_ - 1];                                                                 \
            PLACED(h, i);                                                                      \
            i = ch_ - 1;                                                                       \
        }                                                                                      \
        return PFX##_up(h, i, x);                                                              \
    }                                                                                          \
                                                                                               \
    static inline void PFX##_push(T **h, size_t *n, size_t *cap, T x, const char *label)      \
    {                                                                                          \
        size_t i_ = *n;                                                                        \
        sim_grow((void **)h, cap, i_ + 1, sizeof **h, label);                                  \
        *n = i_ + 1;                                                                           \
        PFX##_up(*h, i_, x);                                                                   \
    }                                                                                          \
                                                                                               \
    static inline T PFX##_pop(T *h, size_t *n)                                                 \
    {                                                                                          \
        SIM_ASSERT(*n > 0);                                                                    \
        T top = h[0];                                                                          \
        if (--*n > 0)                                                                          \
            PFX##_down(h, *n, 0, h[*n]);                                                       \
        return top;                                                                            \
    }                                                                                          \
                                                                                               \
    static inline void PFX##_remove(T *h, size_t *n, size_t i)                                 \
    {                                                                                          \
        SIM_ASSERT(i < *n);                                                                    \
        if (i == --*n)                                                                         \
            return;                                                                            \
        T x = h[*n];                                                                           \
        if (PFX##_down(h, *n, i, x) == i)                                                      \
            PFX##_up(h, i, x);                                                                 \
    }                                                                                          \
                                                                                               \
    static inline void PFX##_heapify(T *h, size_t n)                                           \
    {                                                                                          \
        for (size_t i_ = n / 2; i_-- > 0;)                                                     \
            PFX##_down(h, n, i_, h[i_]);                                                       \
    }

#endif
