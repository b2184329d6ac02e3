/* sim/pool/kvpool.c: see kvpool.h. Entries of all tiers live in one slab,
 * recycled through a free list per node (see entry_new). The global index
 * maps a block id to the first of its replica entries (pages of a direct
 * array, kept only where ids are live, while ids are small; else a hash
 * map), so it holds the live blocks, not every id ever seen; replicas are chained both ways
 * and the chain's head counts them. A block with many replicas (a shared
 * system prompt held by every node) also gets a wide slot: a (slot, node)
 * -> entry map, so finding one node's replica stays O(1) however long its
 * chain, a packed list of its replicas (node, tier), so a walk over all of
 * them reads one array, and a bit set of its holders per tier, so the
 * prefix walk cuts the nodes still matching a word at a time. Each
 * evictable tier orders its unpinned entries for eviction: a few
 * tick-sorted runs for recency policies (O(1)), a lazy min-heap by
 * policy key for the other priority policies, or the policy's own state
 * (sim_evict_order_t) for a policy that keeps its order itself. */
#include "sim/pool/kvpool.h"

#include <string.h>

#include "sim/core/heap.h"
#include "sim/core/hmap.h"
#include "sim/core/util.h"

#define NONE UINT32_MAX

/* The runs of a recency tier; see order_add. */
enum { RUN_FRESH, RUN_COLD, RUN_OLD, RUN_OLD_COLD, N_RUNS };

/* One replica, on one cache line: large blocks start on a line (sim/core/util.c)
 * and an entry is 64 bytes, so a walk touches one line per block. What a
 * walk does not read lives in kv_cold_t beside it. */
typedef struct kv_entry {
    uint64_t id;
    uint64_t freq;         /* sim_evict_stats_t's fields, which policies key on */
    uint64_t tick;
    uint32_t pos;
    uint32_t next;         /* next replica of the same id, or free-list link */
    uint32_t prev;         /* previous replica; NONE at the chain's head */
    uint32_t n_rep;        /* at the chain's head: replicas of the id */
    uint32_t wide;         /* at the chain's head: its wide slot, or NONE */
    union {
        struct {
            uint32_t lprev, lnext; /* recency policies: links in its run */
        };
        uint32_t gen; /* heap policies: bumped whenever its heap node goes stale */
    };
    uint32_t pins;
    int32_t node;
    uint8_t ordered; /* in its tier's eviction order (unpinned, evictable) */
    uint8_t tier;
    uint8_t run;
    _Bool in_wide : 1;    /* in a wide slot's list: its cold wpos is valid */
    _Bool has_served : 1; /* its cold served count is valid (else it is 0) */
} kv_entry_t;

_Static_assert(sizeof(kv_entry_t) == 64, "a pool entry is one cache line");

/* The rest of entry i, at cold[i]: read and written only where the
 * entry's flags say the field is in use, so storing, moving and dropping
 * a block never touch this array (over millions of entries each touch
 * would be a miss to memory of its own). */
typedef struct kv_cold {
    uint32_t wpos;   /* while in_wide: its place in the slot's list */
    uint32_t served; /* while has_served: fetches other nodes made of it, as a
                      * prefix's first block */
} kv_cold_t;

/* A heap node: a snapshot of an entry's key, live while the entry's
 * generation still matches. Keys sit in the node so comparisons never
 * chase entries. */
typedef struct kv_hnode {
    uint64_t key[SIM_EVICT_KEYS];
    uint64_t id;
    uint32_t ei;
    uint32_t gen;
} kv_hnode_t;

typedef struct kv_run {
    uint32_t head, tail; /* head: the smallest tick */
    uint64_t top;        /* no entry of the run has a larger tick (0: none ever) */
} kv_run_t;

typedef struct kv_tier {
    int64_t cap; /* blocks; -1 unlimited, 0 absent */
    int64_t size;
    int64_t n_ordered;
    kv_run_t run[N_RUNS];
    kv_hnode_t *heap;
    size_t n_heap, cap_heap;
    void *own; /* a policy's own order (bounded tiers only), else NULL */
    uint64_t pad; /* to 128 bytes: tier_of indexes with a shift, not a multiply */
} kv_tier_t;

_Static_assert(sizeof(kv_tier_t) == 128, "a tier is 128 bytes");

/* sim_kvpool_prefix_all's last answer, kept for sim_kvpool_prefix: valid
 * while the pool's holdings are those of version ver. */
typedef struct kv_memo {
    uint64_t ver;     /* 0: none */
    uint64_t *ids;    /* the leading ids asked, as far as any node's run reached + 1 */
    size_t cap_ids;
    uint32_t n;       /* the length of the list asked */
    uint32_t *len;    /* [node]: its leading run */
    uint32_t *by_tier; /* [node * SIM_N_TIERS + tier]: the run's blocks there */
    uint32_t *touched; /* the nodes whose run is not 0: all that is reset next time */
    size_t n_touched;
    uint64_t *alive;   /* the common set: nodes not listed whose run is common_len */
    uint32_t common_len;
    uint32_t common_by[SIM_N_TIERS]; /* the common run's blocks per tier */
    int all;          /* every node with a run is listed (sim_kvpool_prefix_all) */
} kv_memo_t;

struct sim_kvpool {
    const sim_evict_ops_t *policy;
    const sim_evict_order_t *own; /* the policy's own order, or NULL (a priority) */
    int recency;                  /* policy->recency_order, read on every order change */
    int lru;                      /* recency and no order of the policy's own: the runs */
    const void *policy_params; /* the policy's filled parameter struct, or NULL */
    void *own_params;          /* its defaults when none were given, or NULL */
    int n_nodes;
    size_t bit_words; /* words of a bit set over the nodes */
    int dense;       /* the index is dense_page (small ids), else the hash map */
    int dense_fixed; /* SIM_KVPOOL_DENSE_IDS: never leave the array */
    kv_tier_t *tiers; /* [node * SIM_N_TIERS + tier] */
    kv_entry_t *e;
    kv_cold_t *cold; /* [entry] */
    size_t n_e, cap_e;
    uint32_t *free_head; /* [node]: its freed entries, the last freed first */
    sim_hmap_t index;     /* id -> first replica entry (when not dense) */
    sim_hmap_t wide;      /* (wide slot << 32 | node) -> that node's replica */
    struct kv_wide *wides; /* [slot] */
    uint32_t wide_free;   /* recycled wide slots, linked through next_free */
    size_t n_wide, cap_wide;
    uint32_t **dense_page; /* the same while dense: [id >> PAGE_BITS][id & PAGE_MASK],
                            * plus one (0: none); a page with no live id is
                            * zero_page, shared and never written */
    uint16_t *page_live;   /* [page]: live ids in it; a page is freed at 0 */
    uint32_t **spare_page; /* freed pages kept for reuse (all zero), at most N_SPARE */
    size_t n_spare;
    size_t n_dense;        /* ids the directory covers (a multiple of PAGE_IDS) */
    size_t n_pages;        /* pages allocated (not zero_page), spares excluded */
    int64_t n_ids;
    int64_t n_entries; /* replicas of all blocks */
    int64_t n_multi;   /* blocks with more than one replica */
    int64_t *rep_hist; /* [r]: blocks with r replicas, r = 1..n_nodes ([0] unused) */
    uint32_t rep_max;  /* the largest r with rep_hist[r] > 0 (0: none) */
    uint64_t tick;      /* access clock; starts at TICK0 */
    uint64_t cold_tick; /* below TICK0: cold replicas, oldest first */
    uint64_t ver;       /* bumped whenever a block enters, leaves or changes tier */
    kv_memo_t memo;
    uint32_t *held;   /* sim_kvpool_release_access: the entries its first pass found */
    uint8_t *freed;   /* [k]: held[k]'s last pin was released there */
    size_t cap_held, cap_freed;
    sim_kvpool_counts_t c;
};

/* Ticks of accesses start here; cold replicas get ticks below it, so they
 * are older than any block that was really used. */
#define TICK0 (UINT64_C(1) << 62)

/* The dense index is paged: a directory over the id space, one pointer
 * and one count per PAGE_IDS ids up to the largest id, and a page of
 * 4-byte slots (4 KiB) for each run of PAGE_IDS ids that holds a live
 * block (one with a replica in some tier). A page whose last live id
 * leaves is freed (N_SPARE are kept for the next new page), so the slots
 * follow the blocks that are live, not every id ever seen. A lookup is two
 * loads, the directory's mostly in cache. Both parts are held to
 * DENSE_SLOTS_PER_ID per live id past a floor of DENSE_MIN_SLOTS (page
 * slots, and directory entries of 10 bytes: the directory stays under
 * 10 MiB, doubled while it grows, unless the live blocks justify more;
 * a 10 M-request day's 10^8 ids need 1 MiB); an id that would break
 * either bound moves the index to the hash map for good, which holds
 * the live ids only. */
#define PAGE_BITS 10
#define PAGE_IDS ((size_t)1 << PAGE_BITS)
#define PAGE_MASK (PAGE_IDS - 1)
#define N_SPARE 4
#define DENSE_SLOTS_PER_ID 16
#define DENSE_MIN_SLOTS (UINT64_C(1) << 20)
#define DENSE_MAX_ID UINT32_MAX /* ids at or above it go to the hash map */

/* Every page of the directory with no live id: only ever read. */
static const uint32_t zero_page[PAGE_IDS];

static kv_tier_t *tier_of(sim_kvpool_t *p, int node, int tier)
{
    return &p->tiers[node * SIM_N_TIERS + tier];
}

/* ---- the global index: id -> first replica ---- */

/* The dense index's entry for id (< n_dense): NONE when it has none. */
static inline __attribute__((always_inline)) uint32_t dense_at(const sim_kvpool_t *p, uint64_t id)
{
    return p->dense_page[id >> PAGE_BITS][id & PAGE_MASK] - 1;
}

/* n_dense is 0 unless dense (dense_free_pages), so one compare finds
 * the common case, a dense id the pages cover. */
static inline __attribute__((always_inline)) uint32_t idx_get(const sim_kvpool_t *p, uint64_t id)
{
    if (id < p->n_dense)
        return dense_at(p, id);
    if (p->dense)
        return NONE;
    const uint32_t *h = sim_hmap_get(&p->index, id);
    return h ? *h : NONE;
}

static void dense_free_pages(sim_kvpool_t *p)
{
    for (size_t pg = 0; pg < p->n_dense >> PAGE_BITS; pg++)
        if (p->dense_page[pg] != zero_page)
            sim_free(p->dense_page[pg]);
    for (size_t i = 0; i < p->n_spare; i++)
        sim_free(p->spare_page[i]);
    sim_free(p->dense_page);
    sim_free(p->page_live);
    sim_free(p->spare_page);
    p->dense_page = NULL;
    p->page_live = NULL;
    p->spare_page = NULL;
    p->n_dense = p->n_pages = p->n_spare = 0;
}

/* Iterate ids with replicas; start with *it = 0. */
static int idx_next(const sim_kvpool_t *p, size_t *it, uint64_t *id, uint32_t *head)
{
    if (!p->dense)
        return sim_hmap_next(&p->index, it, id, head);
    for (; *it < p->n_dense; (*it)++) {
        if (p->dense_page[*it >> PAGE_BITS] == zero_page) {
            *it |= PAGE_MASK; /* the loop's step moves to the next page */
            continue;
        }
        if (dense_at(p, *it) != NONE) {
            *id = *it;
            *head = dense_at(p, (*it)++);
            return 1;
        }
    }
    return 0;
}

/* Leave the pages for the hash map for good: ids are too sparse. The
 * ids are put in ascending order, as the dense pages hold them. */
static void idx_to_hmap(sim_kvpool_t *p)
{
    size_t it = 0;
    uint64_t id;
    uint32_t head;
    while (idx_next(p, &it, &id, &head))
        sim_hmap_put(&p->index, id, head);
    dense_free_pages(p);
    p->dense = 0;
}

/* The page of id (< n_dense) made writable: a fresh zero page when it
 * was zero_page. */
static uint32_t *dense_page_for(sim_kvpool_t *p, uint64_t id)
{
    size_t pg = (size_t)(id >> PAGE_BITS);
    if (p->dense_page[pg] == zero_page) {
        p->dense_page[pg] = p->n_spare ? p->spare_page[--p->n_spare]
                                       : sim_xcalloc(PAGE_IDS, sizeof **p->dense_page,
                                                     "kvpool dense index page");
        p->n_pages++;
    }
    return p->dense_page[pg];
}

static void idx_dense_put(sim_kvpool_t *p, uint64_t id, uint32_t old, uint32_t ei)
{
    if (id >= p->n_dense) {
        SIM_ASSERT(id < DENSE_MAX_ID);
        size_t n0 = p->n_dense >> PAGE_BITS, need = (size_t)(id >> PAGE_BITS) + 1;
        size_t cap = n0 ? n0 : 64;
        while (cap < need)
            cap *= 2;
        p->dense_page = sim_xrealloc(p->dense_page, cap * sizeof *p->dense_page,
                                     "kvpool dense index");
        p->page_live = sim_xrealloc(p->page_live, cap * sizeof *p->page_live,
                                    "kvpool dense index");
        memset(p->page_live + n0, 0, (cap - n0) * sizeof *p->page_live);
        for (size_t pg = n0; pg < cap; pg++)
            p->dense_page[pg] = (uint32_t *)(uintptr_t)zero_page; /* never written */
        p->n_dense = cap << PAGE_BITS;
    }
    size_t pg = (size_t)(id >> PAGE_BITS);
    if (ei != NONE) {
        dense_page_for(p, id)[id & PAGE_MASK] = ei + 1;
        if (old == NONE)
            p->page_live[pg]++;
        return;
    }
    p->dense_page[pg][id & PAGE_MASK] = 0; /* NONE + 1 */
    if (--p->page_live[pg] > 0)
        return;
    /* The page's last live id left: it is all zero again. */
    if (p->n_spare < N_SPARE) {
        if (!p->spare_page)
            p->spare_page = sim_xmalloc(N_SPARE * sizeof *p->spare_page, "kvpool dense index");
        p->spare_page[p->n_spare++] = p->dense_page[pg];
    } else {
        sim_free(p->dense_page[pg]);
    }
    p->dense_page[pg] = (uint32_t *)(uintptr_t)zero_page;
    p->n_pages--;
}

/* Adding id would leave the dense index more than DENSE_SLOTS_PER_ID
 * slots (page slots, or directory pointers) per live id, past the floor;
 * or id is beyond the pages' reach. Live ids are counted with id's. */
static int too_sparse(const sim_kvpool_t *p, uint64_t id)
{
    uint64_t budget = DENSE_SLOTS_PER_ID * (uint64_t)p->n_ids + DENSE_MIN_SLOTS;
    if (id >= DENSE_MAX_ID)
        return 1;
    if (id >= p->n_dense)
        return (id >> PAGE_BITS) + 1 > budget ||
               (uint64_t)(p->n_pages + 1) * PAGE_IDS > budget;
    return p->dense_page[id >> PAGE_BITS] == zero_page &&
           (uint64_t)(p->n_pages + 1) * PAGE_IDS > budget;
}

/* Set id's first replica from old (idx_get's answer now, which every
 * caller already holds) to ei; NONE as either adds or removes the id. */
static void idx_set_slow(sim_kvpool_t *p, uint64_t id, uint32_t old, uint32_t ei);

static inline void idx_set(sim_kvpool_t *p, uint64_t id, uint32_t old, uint32_t ei)
{
    /* The common case, on its own: a dense id on an allocated page gets
     * an entry. No bound can break (the page exists, the id is in the
     * pages' reach) and no page is made or freed. */
    if (ei != NONE && id < p->n_dense && id < DENSE_MAX_ID) { /* dense: n_dense > 0 */
        size_t pg = (size_t)(id >> PAGE_BITS);
        uint32_t *page = p->dense_page[pg];
        if (page != zero_page) {
            page[id & PAGE_MASK] = ei + 1;
            if (old == NONE) {
                p->n_ids++;
                p->page_live[pg]++;
            }
            return;
        }
    }
    /* The same for an id leaving a page that keeps other live ids. */
    if (ei == NONE && old != NONE && id < p->n_dense &&
        p->page_live[id >> PAGE_BITS] > 1) {
        p->dense_page[id >> PAGE_BITS][id & PAGE_MASK] = 0; /* NONE + 1 */
        p->page_live[id >> PAGE_BITS]--;
        p->n_ids--;
        return;
    }
    idx_set_slow(p, id, old, ei);
}

/* idx_set's every case. */
__attribute__((noinline)) static void idx_set_slow(sim_kvpool_t *p, uint64_t id, uint32_t old,
                                                   uint32_t ei)
{
    p->n_ids += (old == NONE) - (ei == NONE);
    if (old == NONE && p->dense && !p->dense_fixed && too_sparse(p, id))
        idx_to_hmap(p);
    if (p->dense)
        idx_dense_put(p, id, old, ei);
    else if (ei == NONE)
        sim_hmap_del(&p->index, id);
    else
        sim_hmap_put(&p->index, id, ei);
}

size_t sim_kvpool_index_bytes(const sim_kvpool_t *p)
{
    size_t pages = p->n_dense >> PAGE_BITS;
    return (p->n_pages + p->n_spare) * PAGE_IDS * sizeof(uint32_t) +
           pages * (sizeof *p->dense_page + sizeof *p->page_live) +
           p->index.cap * sizeof *p->index.slots;
}

/* Blocks with r replicas: one block goes from `from` replicas to `to`. */
static inline void rep_count(sim_kvpool_t *p, uint32_t from, uint32_t to)
{
    if (from > 0)
        p->rep_hist[from]--;
    if (to > 0)
        p->rep_hist[to]++;
    p->n_multi += (to > 1) - (from > 1);
    /* rep_max is 0 or has blocks: only a block leaving it can empty it. */
    if (to > p->rep_max)
        p->rep_max = to;
    else if (from == p->rep_max)
        while (p->rep_max > 0 && p->rep_hist[p->rep_max] == 0) /* amortized O(1) */
            p->rep_max--;
}

/* rep_count(p, n, n + 1), folded: n + 1 is above rep_max or was n's successor. */
static inline __attribute__((always_inline)) void rep_count_up(sim_kvpool_t *p, uint32_t n)
{
    if (n > 0)
        p->rep_hist[n]--;
    p->rep_hist[n + 1]++;
    p->n_multi += n == 1;
    if (n + 1 > p->rep_max)
        p->rep_max = n + 1;
}

/* ---- lazy min-heap by (key, id) ----
 * Re-keying pushes a fresh node instead of moving the old one; eviction
 * pops stale nodes first. The heap is rebuilt when stale nodes outnumber
 * live ones, so it stays O(size): amortized O(log n) per operation. */

static int hless(const kv_hnode_t *x, const kv_hnode_t *y)
{
    for (int i = 0; i < SIM_EVICT_KEYS; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i];
    return x->id < y->id;
}

SIM_HEAP_DEFINE(kv_heap, kv_hnode_t, hless, SIM_HEAP_UNTRACKED)

static int live_node(const sim_kvpool_t *p, const kv_hnode_t *n)
{
    return p->e[n->ei].gen == n->gen;
}

static void heap_compact(sim_kvpool_t *p, kv_tier_t *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n_heap; i++)
        if (live_node(p, &t->heap[i]))
            t->heap[k++] = t->heap[i];
    t->n_heap = k;
    kv_heap_heapify(t->heap, k);
}

/* Out of line: inlined into order_add, its key buffers' frame and saved
 * registers were paid by every recency-order insert too. */
__attribute__((noinline)) static void heap_push(sim_kvpool_t *p, kv_tier_t *t, uint32_t ei)
{
    const kv_entry_t *x = &p->e[ei];
    if (t->n_heap >= 2 * (size_t)t->n_ordered + 64)
        heap_compact(p, t);
    kv_hnode_t n = {.id = x->id, .ei = ei, .gen = x->gen};
    const sim_evict_stats_t st = {.freq = x->freq, .tick = x->tick, .pos = x->pos};
    p->policy->key(&st, p->policy_params, n.key);
    kv_heap_push(&t->heap, &t->n_heap, &t->cap_heap, n, "kvpool heap");
}

static uint32_t heap_pop(sim_kvpool_t *p, kv_tier_t *t)
{
    while (t->n_heap > 0) {
        kv_hnode_t top = kv_heap_pop(t->heap, &t->n_heap);
        if (live_node(p, &top))
            return top.ei;
    }
    return NONE;
}

/* ---- recency order: tick-sorted runs ----
 * A recency tier evicts its smallest tick (ticks are unique). Its entries
 * sit in N_RUNS lists, each sorted by tick, and the victim is the smallest
 * of their heads. Which run an entry joins makes the insert a tail append:
 *   FRESH: it holds the newest access tick (an access, a release, a new
 *          block) - newer than anything already in any run;
 *   COLD:  the newest cold tick (a replica made ahead of use);
 *   OLD, OLD_COLD: an older tick, real or cold - a block demoted from DRAM.
 * DRAM only ever receives FRESH and COLD entries, so each kind of its
 * victims leaves in increasing tick order, and the SSD's OLD runs receive
 * exactly those: appends again. So no insert walks; an insert that did not
 * fit at its run's tail would walk back to its place, which keeps the
 * order exact whatever the sequence of calls.
 * Over millions of entries a run's ends are rarely in cache, so the two
 * common operations read neither of them: an append knows it is one from
 * the run's top (a bound on its ticks kept in the run, not in an entry),
 * and taking the head out leaves the new head's lprev as it was - a head's
 * lprev is never read (the run's head field says which entry is first). */

static int run_for(const sim_kvpool_t *p, uint64_t tick)
{
    if (tick >= TICK0)
        return tick == p->tick ? RUN_FRESH : RUN_OLD;
    return tick == p->cold_tick ? RUN_COLD : RUN_OLD_COLD;
}

/* Entry ei joins run k at its tail: its tick is not below the run's top,
 * so it is the run's newest (run_insert's case without a walk). */
static inline __attribute__((always_inline)) void run_append(sim_kvpool_t *p, kv_tier_t *t,
                                                              uint32_t ei, int k)
{
    kv_entry_t *x = &p->e[ei];
    kv_run_t *r = &t->run[k];
    x->run = (uint8_t)k;
    r->top = x->tick;
    x->lprev = r->tail;
    x->lnext = NONE;
    if (r->tail == NONE)
        r->head = ei;
    else
        p->e[r->tail].lnext = ei;
    r->tail = ei;
}

static void run_walk(sim_kvpool_t *p, kv_tier_t *t, uint32_t ei, int k);

/* Entry ei joins its run in tick order: appended when it is the newest
 * (the common case, inline), else walked back to its place (run_walk). */
static inline __attribute__((always_inline)) void run_insert(sim_kvpool_t *p, kv_tier_t *t,
                                                              uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    int k = run_for(p, x->tick);
    if (x->tick >= t->run[k].top)
        run_append(p, t, ei, k);
    else
        run_walk(p, t, ei, k);
}

/* run_insert's walk: entry ei is not newer than all of run k. */
__attribute__((noinline)) static void run_walk(sim_kvpool_t *p, kv_tier_t *t, uint32_t ei, int k)
{
    kv_entry_t *x = &p->e[ei];
    kv_run_t *r = &t->run[k];
    x->run = (uint8_t)k;
    uint32_t after = r->tail;
    while (after != NONE && p->e[after].tick > x->tick)
        after = after == r->head ? NONE : p->e[after].lprev;
    x->lprev = after;
    if (after == NONE) {
        x->lnext = r->head;
        r->head = ei;
    } else {
        x->lnext = after == r->tail ? NONE : p->e[after].lnext;
        p->e[after].lnext = ei;
    }
    if (x->lnext != NONE)
        p->e[x->lnext].lprev = ei;
    else
        r->tail = ei;
}

static inline __attribute__((always_inline)) void run_remove(sim_kvpool_t *p, kv_tier_t *t,
                                                              uint32_t ei)
{
    const kv_entry_t *x = &p->e[ei];
    kv_run_t *r = &t->run[x->run];
    if (r->head == ei) {
        r->head = x->lnext;
        if (x->lnext != NONE) /* read by the next run_min */
            __builtin_prefetch(&p->e[x->lnext]);
        else
            r->tail = NONE;
        return;
    }
    p->e[x->lprev].lnext = x->lnext;
    if (x->lnext != NONE)
        p->e[x->lnext].lprev = x->lprev;
    else
        r->tail = x->lprev;
}

static uint32_t run_min(const sim_kvpool_t *p, const kv_tier_t *t)
{
    uint32_t best = NONE;
    uint64_t best_tick = UINT64_MAX; /* above every tick: the clocks stay below 2^63 */
    for (int k = 0; k < N_RUNS; k++) {
        uint32_t h = t->run[k].head;
        if (h != NONE && p->e[h].tick < best_tick) {
            best = h;
            best_tick = p->e[h].tick;
        }
    }
    return best;
}

/* run_min of a DRAM tier under a recency policy. DRAM only ever receives
 * FRESH and COLD entries (the runs' comment above: a block enters DRAM
 * stored, touched, released, or promoted right after its touch), which
 * sim_kvpool_check asserts (its OLD runs empty); and every cold tick is
 * below every real one (TICK0). So the smallest tick is COLD's head when
 * it has one, else FRESH's. */
static inline __attribute__((always_inline)) uint32_t dram_min(const kv_tier_t *t)
{
    uint32_t v = t->run[RUN_COLD].head;
    return v != NONE ? v : t->run[RUN_FRESH].head;
}

/* ---- eviction order: runs, heap or the policy's own, behind three calls ----
 * A policy's own order also hears of a block entering a tier, being used
 * and leaving it other than as a victim (tier_put, touch, promote). */

/* Entry ei (unpinned, in tier t) becomes evictable, as just accessed. */
static inline __attribute__((always_inline)) void order_add(sim_kvpool_t *p, kv_tier_t *t,
                                                             uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    if (t->cap < 0 || x->ordered) /* an unlimited tier never evicts */
        return;
    x->ordered = 1;
    t->n_ordered++;
    if (p->own)
        p->own->on_unpin(t->own, ei);
    else if (p->recency)
        run_insert(p, t, ei);
    else
        heap_push(p, t, ei);
}

/* order_add for an entry whose tick is the clock's, just taken (a touch
 * or a release): under a recency policy run_insert would append it to
 * FRESH (run_for; no tick is above the clock), so it does so directly. */
static inline __attribute__((always_inline)) void order_add_fresh(sim_kvpool_t *p, kv_tier_t *t,
                                                                   uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    if (!p->lru) {
        order_add(p, t, ei);
        return;
    }
    if (t->cap < 0 || x->ordered)
        return;
    x->ordered = 1;
    t->n_ordered++;
    run_append(p, t, ei, RUN_FRESH);
}

/* Entry ei leaves its tier's eviction order (pinned, moved or dropped). */
static inline __attribute__((always_inline)) void order_del(sim_kvpool_t *p, uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    if (!x->ordered)
        return;
    kv_tier_t *t = tier_of(p, x->node, x->tier);
    x->ordered = 0;
    t->n_ordered--;
    if (p->own)
        p->own->on_pin(t->own, ei);
    else if (p->recency)
        run_remove(p, t, ei);
    else
        x->gen++;
}

/* The next victim of tier t, taken out of the order; NONE when every
 * block there is pinned. */
static uint32_t order_victim(sim_kvpool_t *p, kv_tier_t *t)
{
    if (p->own) { /* the policy takes its victim out of its own state */
        if (t->n_ordered == 0)
            return NONE;
        uint32_t v = p->own->pick_victim(t->own, t->cap);
        SIM_ASSERT(v < p->n_e && p->e[v].ordered && &p->tiers[p->e[v].node * SIM_N_TIERS +
                                                               p->e[v].tier] == t);
        p->e[v].ordered = 0;
        t->n_ordered--;
        return v;
    }
    uint32_t ei = p->recency ? run_min(p, t) : heap_pop(p, t);
    if (ei != NONE)
        order_del(p, ei);
    return ei;
}

/* ---- wide chains: an id with WIDE_ON replicas or more is found through
 * the wide map; it leaves it again below WIDE_OFF (hysteresis, so a
 * chain at the edge does not rebuild on every change). The map holds one
 * slot per wide replica: memory in proportion to the entries. ---- */

#define WIDE_ON 8
#define WIDE_OFF 4

/* One replica in a wide slot's list. */
typedef struct kv_rep {
    int32_t node;
    uint32_t tier;
    uint32_t ei;
} kv_rep_t;

typedef struct kv_wide {
    kv_rep_t *rep;  /* its replicas, in no particular order */
    size_t n, cap;
    uint64_t *bits; /* [tier * bit_words + w]: the nodes holding it there, a bit each */
    uint32_t next_free;
} kv_wide_t;

static void bit_set(uint64_t *b, int i) { b[i >> 6] |= UINT64_C(1) << (i & 63); }
static void bit_clear(uint64_t *b, int i) { b[i >> 6] &= ~(UINT64_C(1) << (i & 63)); }

static uint64_t wide_key(uint32_t slot, int node) { return (uint64_t)slot << 32 | (uint32_t)node; }

/* Add replica ei to wide slot slot: the map and the list. */
static void wide_add(sim_kvpool_t *p, uint32_t slot, uint32_t ei)
{
    kv_wide_t *w = &p->wides[slot];
    kv_entry_t *x = &p->e[ei];
    sim_hmap_put(&p->wide, wide_key(slot, x->node), ei);
    sim_grow((void **)&w->rep, &w->cap, w->n + 1, sizeof *w->rep, "kvpool wide replicas");
    p->cold[ei].wpos = (uint32_t)w->n;
    x->in_wide = 1;
    w->rep[w->n++] = (kv_rep_t){x->node, x->tier, ei};
    bit_set(w->bits + x->tier * p->bit_words, x->node);
}

/* Take replica ei out of wide slot slot (the last one fills its place). */
static void wide_del(sim_kvpool_t *p, uint32_t slot, uint32_t ei)
{
    kv_wide_t *w = &p->wides[slot];
    kv_entry_t *x = &p->e[ei];
    sim_hmap_del(&p->wide, wide_key(slot, x->node));
    bit_clear(w->bits + x->tier * p->bit_words, x->node);
    kv_rep_t last = w->rep[--w->n];
    uint32_t pos = p->cold[ei].wpos;
    x->in_wide = 0;
    if (pos < w->n) {
        w->rep[pos] = last;
        p->cold[last.ei].wpos = pos;
    }
}

static void wide_release(sim_kvpool_t *p, uint32_t slot)
{
    memset(p->wides[slot].bits, 0, SIM_N_TIERS * p->bit_words * sizeof *p->wides[slot].bits);
    p->wides[slot].n = 0;
    p->wides[slot].next_free = p->wide_free;
    p->wide_free = slot;
}

/* Give the chain headed by head a wide slot with its replicas. */
static void wide_make(sim_kvpool_t *p, uint32_t head)
{
    uint32_t slot = p->wide_free;
    if (slot != NONE) {
        p->wide_free = p->wides[slot].next_free;
    } else {
        SIM_ASSERT(p->n_wide < NONE);
        size_t n0 = p->cap_wide;
        sim_grow((void **)&p->wides, &p->cap_wide, p->n_wide + 1, sizeof *p->wides,
                 "kvpool wide slots");
        memset(p->wides + n0, 0, (p->cap_wide - n0) * sizeof *p->wides);
        slot = (uint32_t)p->n_wide++;
        p->wides[slot].bits =
            sim_xcalloc(SIM_N_TIERS * p->bit_words, sizeof *p->wides[slot].bits, "kvpool wide bits");
    }
    p->e[head].wide = slot;
    for (uint32_t ei = head; ei != NONE; ei = p->e[ei].next)
        wide_add(p, slot, ei);
}

/* Take the chain headed by head out of its wide slot and free it. */
static void wide_unmake(sim_kvpool_t *p, uint32_t head)
{
    uint32_t slot = p->e[head].wide;
    for (uint32_t ei = head; ei != NONE; ei = p->e[ei].next) {
        sim_hmap_del(&p->wide, wide_key(slot, p->e[ei].node));
        p->e[ei].in_wide = 0;
    }
    wide_release(p, slot);
    p->e[head].wide = NONE;
}

/* Entry ei changed tier: its wide list entry, if it has one, follows. */
static void wide_tier(sim_kvpool_t *p, uint32_t ei)
{
    if (!p->e[ei].in_wide)
        return;
    uint32_t head = idx_get(p, p->e[ei].id);
    kv_wide_t *w = &p->wides[p->e[head].wide];
    kv_rep_t *r = &w->rep[p->cold[ei].wpos];
    bit_clear(w->bits + r->tier * p->bit_words, r->node);
    r->tier = p->e[ei].tier;
    bit_set(w->bits + r->tier * p->bit_words, r->node);
}

/* ---- entries ---- */

/* Node's replica of the id whose first replica is head (idx_get's
 * answer; a walk that may store the block reuses it for its chain), or
 * NONE. The chain's head is tried first, wide or not: a node holds a
 * block at most once, so a head on node is its replica (most lookups end
 * there: a block's first replica is where it was last stored). Inlined
 * into every walk. */
static inline __attribute__((always_inline)) uint32_t find_at(const sim_kvpool_t *p, int node,
                                                              uint32_t head)
{
    if (head == NONE)
        return NONE;
    const kv_entry_t *h = &p->e[head];
    if (h->node == node)
        return head;
    if (h->wide != NONE) {
        const uint32_t *v = sim_hmap_get(&p->wide, wide_key(h->wide, node));
        return v ? *v : NONE;
    }
    for (uint32_t ei = h->next; ei != NONE; ei = p->e[ei].next)
        if (p->e[ei].node == node)
            return ei;
    return NONE;
}

/* Node's replica of id, or NONE. */
static inline __attribute__((always_inline)) uint32_t find(const sim_kvpool_t *p, int node,
                                                           uint64_t id)
{
    return find_at(p, node, idx_get(p, id));
}

/* Prefetching for a walk over a request's blocks, a hint only: the
 * index slot of the block WALK_FAR ahead, the first replica of the block
 * WALK_NEAR ahead (its slot fetched WALK_FAR - WALK_NEAR blocks before),
 * and, for the next block, the neighbours in the eviction order of its
 * first replica when that is node's (the entries a touch, a pin or an
 * unpin relinks). Over millions of entries each of these is a miss to
 * memory; issued ahead they overlap instead of following one another.
 * What is read here decides nothing: stale or absent, the walk's own
 * lookups are the same. */
#define WALK_FAR 8
#define WALK_NEAR 4

static void walk_ahead(const sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t k,
                       uint32_t n)
{
    if (!p->dense)
        return;
    if (k + WALK_FAR < n && blocks[k + WALK_FAR] < p->n_dense)
        __builtin_prefetch(&p->dense_page[blocks[k + WALK_FAR] >> PAGE_BITS]
                                         [blocks[k + WALK_FAR] & PAGE_MASK]);
    if (k + WALK_NEAR < n && blocks[k + WALK_NEAR] < p->n_dense) {
        uint32_t h = dense_at(p, blocks[k + WALK_NEAR]);
        if (h != NONE)
            __builtin_prefetch(&p->e[h]);
    }
    if (k + 1 < n && blocks[k + 1] < p->n_dense) {
        uint32_t h = dense_at(p, blocks[k + 1]);
        if (h != NONE && p->e[h].node == node && p->e[h].ordered && p->recency) {
            const kv_entry_t *x = &p->e[h]; /* its run links (a heap policy's gen there) */
            if (x->lprev != NONE)
                __builtin_prefetch(&p->e[x->lprev]);
            if (x->lnext != NONE)
                __builtin_prefetch(&p->e[x->lnext]);
        }
    }
}

/* A free entry for node: the one it freed last, else a new one. A store
 * into a full node frees that node's oldest SSD entry, which the node's
 * next store takes; so a node's entries are reused among themselves, in
 * the order they were stored, and its eviction victims mostly follow one
 * another in the array (88% of them were the entry after the one before
 * over a day slice, against 79% with one list for all nodes), which is
 * fewer lines and pages missed per victim. Which entry holds a block
 * decides nothing: only the memory layout depends on it. */
static inline __attribute__((always_inline)) uint32_t entry_new(sim_kvpool_t *p, int node)
{
    if (p->free_head[node] != NONE) {
        uint32_t ei = p->free_head[node];
        p->free_head[node] = p->e[ei].next;
        return ei;
    }
    SIM_ASSERT(p->n_e < NONE);
    size_t cap = p->cap_e;
    sim_grow((void **)&p->e, &p->cap_e, p->n_e + 1, sizeof *p->e, "kvpool entries");
    sim_grow((void **)&p->cold, &cap, p->n_e + 1, sizeof *p->cold, "kvpool entries");
    p->e[p->n_e].gen = 0;
    return (uint32_t)p->n_e++;
}

/* Link entry ei (id set, its links and flags zero) at the head of its
 * id's replica chain, whose head is head (idx_get's answer, which the
 * callers hold). */
static inline __attribute__((always_inline)) void chain_add(sim_kvpool_t *p, uint32_t ei,
                                                             uint32_t head)
{
    kv_entry_t *x = &p->e[ei];
    uint32_t n = 0, wide = NONE;
    if (head != NONE) {
        n = p->e[head].n_rep;
        wide = p->e[head].wide;
        p->e[head].prev = ei;
    }
    x->next = head;
    x->prev = NONE;
    x->n_rep = n + 1;
    x->wide = wide;
    p->n_entries++;
    rep_count_up(p, n);
    idx_set(p, x->id, head, ei);
    if (wide != NONE)
        wide_add(p, wide, ei);
    else if (n + 1 >= WIDE_ON)
        wide_make(p, ei);
}

/* Unlink entry ei from its id's replica chain and free it. O(1). */
static void entry_drop(sim_kvpool_t *p, uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    uint32_t head = x->prev == NONE ? ei : idx_get(p, x->id);
    SIM_ASSERT(head != NONE && p->e[head].n_rep > 0);
    uint32_t n = p->e[head].n_rep;
    uint32_t wide = p->e[head].wide;
    if (wide != NONE)
        wide_del(p, wide, ei);
    if (x->next != NONE)
        p->e[x->next].prev = x->prev;
    if (x->prev != NONE) {
        p->e[x->prev].next = x->next;
        p->e[head].n_rep = n - 1;
    } else {
        if (x->next != NONE) {
            p->e[x->next].n_rep = n - 1;
            p->e[x->next].wide = wide;
        }
        idx_set(p, x->id, ei, x->next);
        head = x->next;
    }
    if (wide != NONE && n - 1 < WIDE_OFF) {
        if (head != NONE)
            wide_unmake(p, head);
        else
            wide_release(p, wide);
    }
    p->n_entries--;
    rep_count(p, n, n - 1);
    p->ver++;
    x->gen++;
    x->next = p->free_head[x->node];
    p->free_head[x->node] = ei;
}

static int top_tier(const sim_kvpool_t *p, int node)
{
    const kv_tier_t *t = &p->tiers[node * SIM_N_TIERS];
    _Static_assert(SIM_N_TIERS == 2, "top_tier reads DRAM, then SSD");
    return t[SIM_TIER_DRAM].cap != 0 ? SIM_TIER_DRAM : t[SIM_TIER_SSD].cap != 0 ? SIM_TIER_SSD : -1;
}

static int has_room(const kv_tier_t *t) { return t->cap < 0 || t->size < t->cap; }

/* Put entry ei into (its node, tier), making room by evicting; victims
 * from DRAM go down to SSD when there is one. 0, or -1 when every block
 * there is pinned (the caller then drops ei). */
static int tier_put(sim_kvpool_t *p, uint32_t ei, int tier);

/* Evict one block from (node, tier): demoted to the next tier when there
 * is one, else dropped. -1 when every block there is pinned. */
static int evict_one(sim_kvpool_t *p, int node, int tier)
{
    kv_tier_t *t = tier_of(p, node, tier);
    uint32_t v = order_victim(p, t);
    if (v == NONE)
        return -1;
    t->size--;
    p->c.evictions++;
    if (tier + 1 < SIM_N_TIERS && tier_of(p, node, tier + 1)->cap != 0 &&
        tier_put(p, v, tier + 1) == 0) {
        p->c.demotions++;
    } else {
        p->c.drops++;
        entry_drop(p, v);
    }
    return 0;
}

static int tier_put(sim_kvpool_t *p, uint32_t ei, int tier)
{
    int node = p->e[ei].node;
    kv_tier_t *t = tier_of(p, node, tier);
    while (!has_room(t))
        if (evict_one(p, node, tier) != 0)
            return -1;
    p->e[ei].tier = (uint8_t)tier;
    wide_tier(p, ei);
    p->ver++;
    t->size++;
    SIM_ASSERT(t->cap < 0 || t->size <= t->cap);
    if (t->own) {
        const kv_entry_t *x = &p->e[ei];
        const sim_evict_stats_t st = {.freq = x->freq, .tick = x->tick, .pos = x->pos};
        p->own->on_insert(t->own, ei, x->id, &st);
    }
    if (p->e[ei].pins == 0)
        order_add(p, t, ei);
    return 0;
}

static inline __attribute__((always_inline)) void touch(sim_kvpool_t *p, uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    x->freq++;
    x->tick = ++p->tick;
    if (p->own) {
        kv_tier_t *t = tier_of(p, x->node, x->tier);
        if (t->own)
            p->own->on_hit(t->own, ei);
        return;
    }
    if (x->ordered && p->recency) {
        /* order_del then order_add, which leave it ordered and the
         * tier's count as they were: out of its run, and in at FRESH's
         * tail (its tick is the clock's, the newest; run_insert). */
        kv_tier_t *t = tier_of(p, x->node, x->tier);
        run_remove(p, t, ei);
        run_append(p, t, ei, RUN_FRESH);
    } else if (x->ordered) {
        order_del(p, ei);
        order_add(p, tier_of(p, x->node, x->tier), ei);
    }
}

/* A fresh entry for block id at position pos on node, in its replica
 * chain and no tier yet (store_new's first steps). */
static inline __attribute__((always_inline)) uint32_t entry_init(sim_kvpool_t *p, int node,
                                                                 uint64_t id, uint32_t pos,
                                                                 int cold, uint32_t head)
{
    uint32_t ei = entry_new(p, node);
    kv_entry_t *x = &p->e[ei];
    uint32_t gen = x->gen + 1; /* a recycled entry's old heap nodes stay stale */
    memset(x, 0, sizeof *x);
    x->gen = gen;
    x->id = id;
    x->node = node;
    x->freq = cold ? 0 : 1;
    x->tick = cold ? ++p->cold_tick : ++p->tick;
    x->pos = pos;
    chain_add(p, ei, head);
    return ei;
}

/* store_new's every case (below). */
__attribute__((noinline)) static int store_any(sim_kvpool_t *p, int node, uint64_t id,
                                               uint32_t pos, int cold, uint32_t head)
{
    int top = top_tier(p, node);
    if (top < 0)
        return 0;
    uint32_t ei = entry_init(p, node, id, pos, cold, head);
    if (tier_put(p, ei, top) != 0) {
        p->c.rejected++;
        entry_drop(p, ei);
        return 0;
    }
    p->c.inserts++;
    return 1;
}

/* tier_put's last steps for entry ei (unpinned, not ordered) entering
 * tier t (its node's tier number tier), room made: into the run k
 * (RUN_FRESH or RUN_COLD, an append), or k < 0, wherever run_insert
 * places it. Under a recency policy with no order of its own. */
static inline __attribute__((always_inline)) void lru_enter(sim_kvpool_t *p, kv_tier_t *t,
                                                            uint32_t ei, int tier, int k)
{
    kv_entry_t *x = &p->e[ei];
    x->tier = (uint8_t)tier;
    if (x->in_wide)
        wide_tier(p, ei);
    p->ver++;
    t->size++;
    if (t->cap >= 0) { /* order_add */
        x->ordered = 1;
        t->n_ordered++;
        if (k < 0)
            run_insert(p, t, ei);
        else
            run_append(p, t, ei, k);
    }
}

/* The SSD's part of a DRAM victim v (unpinned, out of DRAM's order)
 * moving down to s, node's SSD (cap != 0): tier_put(p, v, SIM_TIER_SSD)
 * step by step, under a recency policy (no order of the policy's own). */
static inline __attribute__((always_inline)) int demote_lru(sim_kvpool_t *p, int node,
                                                             kv_tier_t *s, uint32_t v)
{
    while (!has_room(s))
        if (evict_one(p, node, SIM_TIER_SSD) != 0)
            return -1;
    lru_enter(p, s, v, SIM_TIER_SSD, -1);
    return 0;
}

/* store_new under a recency policy into a node with DRAM (its top tier),
 * the calls it makes laid out in one path, each step in the same order
 * with the same effect: the entry made and chained, then DRAM's victims,
 * each (evict_one) taken out of its run and moved to the SSD (demote_lru)
 * or dropped, then the entry put in DRAM and its order. The entry holds
 * the clock's newest tick of its kind (the real clock's, or the cold
 * one's for a cold replica) and nothing between its tick and its append
 * moves either clock, so run_insert would append it to FRESH or COLD:
 * run_append does so directly. */
static inline __attribute__((always_inline)) int store_lru(sim_kvpool_t *p, int node,
                                                           uint64_t id, uint32_t pos, int cold,
                                                           uint32_t head)
{
    kv_tier_t *t = tier_of(p, node, SIM_TIER_DRAM);
    uint32_t ei = entry_init(p, node, id, pos, cold, head);
    int64_t cap = t->cap; /* fixed but by sim_kvpool_set_capacity */
    while (cap >= 0 && t->size >= cap) { /* !has_room */
        uint32_t v = dram_min(t); /* order_victim, then evict_one */
        if (v == NONE) {
            p->c.rejected++;
            entry_drop(p, ei);
            return 0;
        }
        kv_entry_t *y = &p->e[v];
        y->ordered = 0;
        t->n_ordered--;
        run_remove(p, t, v);
        t->size--;
        p->c.evictions++;
        kv_tier_t *s = t + 1;
        if (s->cap != 0 && demote_lru(p, node, s, v) == 0) {
            p->c.demotions++;
        } else {
            p->c.drops++;
            entry_drop(p, v);
        }
    }
    lru_enter(p, t, ei, SIM_TIER_DRAM, cold ? RUN_COLD : RUN_FRESH);
    p->c.inserts++;
    return 1;
}

/* Whether store_new takes store_lru's path on node: read once per walk
 * (no store changes a policy or a capacity). */
static inline __attribute__((always_inline)) int stores_lru(const sim_kvpool_t *p, int node)
{
    return p->lru && p->tiers[node * SIM_N_TIERS + SIM_TIER_DRAM].cap != 0;
}

/* Store a block new to node at position pos; 1 if stored. head: the
 * block's first replica (idx_get's answer); lru: stores_lru(p, node). A
 * cold block (a replica made ahead of use) enters as the least recently
 * and least frequently used. */
static inline __attribute__((always_inline)) int store_new(sim_kvpool_t *p, int node, uint64_t id,
                                                           uint32_t pos, int cold, uint32_t head,
                                                           int lru)
{
    if (lru)
        return store_lru(p, node, id, pos, cold, head);
    return store_any(p, node, id, pos, cold, head);
}

static void promote_up(sim_kvpool_t *p, uint32_t ei);

/* Move a block on SSD up to DRAM on reuse. */
static inline __attribute__((always_inline)) void promote(sim_kvpool_t *p, uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    if (x->tier != SIM_TIER_SSD || tier_of(p, x->node, SIM_TIER_DRAM)->cap == 0)
        return;
    promote_up(p, ei);
}

/* promote's move, for a block on SSD of a node with DRAM. */
__attribute__((noinline)) static void promote_up(sim_kvpool_t *p, uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    order_del(p, ei);
    kv_tier_t *ssd = tier_of(p, x->node, SIM_TIER_SSD);
    if (ssd->own)
        p->own->on_remove(ssd->own, ei);
    ssd->size--;
    if (tier_put(p, ei, SIM_TIER_DRAM) == 0)
        p->c.promotions++;
    else /* DRAM is full of pinned blocks: stay on SSD (room was just made) */
        SIM_ASSERT(tier_put(p, ei, SIM_TIER_SSD) == 0);
}

/* ---- API ---- */

sim_kvpool_t *sim_kvpool_new(int n_nodes, const int64_t cap_blocks[SIM_N_TIERS],
                             const sim_evict_ops_t *policy, const void *policy_params,
                             unsigned flags)
{
    SIM_ASSERT(n_nodes >= 1 && policy != NULL && (policy->key != NULL) != (policy->order != NULL));
    sim_kvpool_t *p = sim_xcalloc(1, sizeof *p, "kvpool");
    p->policy = policy;
    p->own = policy->order;
    p->recency = policy->recency_order;
    p->lru = p->recency && !p->own;
    if (!policy_params && policy->params) {
        p->own_params = sim_xcalloc(1, policy->params->size ? policy->params->size : 1,
                                    "kvpool policy parameters");
        sim_params_defaults(policy->params, p->own_params);
        policy_params = p->own_params;
    }
    p->policy_params = policy_params;
    p->n_nodes = n_nodes;
    p->bit_words = ((size_t)n_nodes + 63) / 64;
    p->dense = 1;
    p->dense_fixed = (flags & SIM_KVPOOL_DENSE_IDS) != 0;
    p->free_head = sim_xmalloc((size_t)n_nodes * sizeof *p->free_head, "kvpool free lists");
    for (int i = 0; i < n_nodes; i++)
        p->free_head[i] = NONE;
    p->wide_free = NONE;
    p->tick = TICK0;
    p->ver = 1;
    p->tiers = sim_xcalloc((size_t)n_nodes * SIM_N_TIERS, sizeof *p->tiers, "kvpool tiers");
    for (int n = 0; n < n_nodes; n++)
        for (int t = 0; t < SIM_N_TIERS; t++) {
            kv_tier_t *tr = tier_of(p, n, t);
            tr->cap = cap_blocks[t];
            for (int k = 0; k < N_RUNS; k++)
                tr->run[k].head = tr->run[k].tail = NONE;
            if (p->own && tr->cap >= 0) /* 0 too: sim_kvpool_set_capacity may open it */
                tr->own = p->own->init(policy_params);
        }
    p->rep_hist = sim_xcalloc((size_t)n_nodes + 1, sizeof *p->rep_hist, "kvpool replica counts");
    sim_hmap_init(&p->index);
    sim_hmap_init(&p->wide);
    return p;
}

void sim_kvpool_free(sim_kvpool_t *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_nodes * SIM_N_TIERS; i++) {
        sim_free(p->tiers[i].heap);
        if (p->tiers[i].own)
            p->own->free(p->tiers[i].own);
    }
    sim_free(p->tiers);
    sim_free(p->own_params);
    sim_free(p->free_head);
    sim_free(p->e);
    sim_free(p->cold);
    dense_free_pages(p);
    sim_free(p->rep_hist);
    sim_free(p->memo.ids);
    sim_free(p->memo.len);
    sim_free(p->memo.by_tier);
    sim_free(p->memo.touched);
    sim_free(p->memo.alive);
    sim_free(p->held);
    sim_free(p->freed);
    sim_hmap_free(&p->index);
    sim_hmap_free(&p->wide);
    for (size_t w = 0; w < p->n_wide; w++) {
        sim_free(p->wides[w].rep);
        sim_free(p->wides[w].bits);
    }
    sim_free(p->wides);
    sim_free(p);
}

/* Node nd's run, as the last walk left it: its own (listed) when it has
 * one, else the common run when it is in the common set, else none. */
static uint32_t memo_len(const kv_memo_t *m, uint32_t nd)
{
    if (m->len[nd])
        return m->len[nd];
    return m->alive[nd / 64] >> (nd % 64) & 1 ? m->common_len : 0;
}

static const uint32_t *memo_by(const kv_memo_t *m, uint32_t nd)
{
    static const uint32_t none[SIM_N_TIERS];
    if (m->len[nd])
        return &m->by_tier[(size_t)nd * SIM_N_TIERS];
    return m->alive[nd / 64] >> (nd % 64) & 1 ? m->common_by : none;
}

/* Does the memo answer node's prefix of blocks[0..n)? Its run there, L,
 * depends only on blocks[0..L] (held, then the first block not held), so
 * those ids must match; O(L) compares instead of L replica-chain walks.
 * *len: L, when it does. */
static int memo_answers(const sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n,
                        uint32_t *len)
{
    const kv_memo_t *m = &p->memo;
    if (m->ver != p->ver || m->n != n)
        return 0;
    *len = memo_len(m, (uint32_t)node);
    uint32_t k = *len < n ? *len + 1 : n;
    return k == 0 || memcmp(blocks, m->ids, (size_t)k * sizeof *blocks) == 0;
}

/* sim_kvpool_prefix's walk, when the memo does not answer: out of line,
 * so that the memo's answer (most calls) pays for no registers the walk
 * needs. */
__attribute__((noinline)) static uint32_t prefix_walk(const sim_kvpool_t *p, int node,
                                                      const uint64_t *blocks, uint32_t n,
                                                      uint32_t by_tier[SIM_N_TIERS])
{
    if (by_tier)
        memset(by_tier, 0, SIM_N_TIERS * sizeof *by_tier);
    uint32_t k = 0;
    for (; k < n; k++) {
        uint32_t ei = find(p, node, blocks[k]);
        if (ei == NONE)
            break;
        if (by_tier)
            by_tier[p->e[ei].tier]++;
    }
    return k;
}

uint32_t sim_kvpool_prefix(const sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n,
                           uint32_t by_tier[SIM_N_TIERS])
{
    uint32_t len;
    if (!memo_answers(p, node, blocks, n, &len))
        return prefix_walk(p, node, blocks, n, by_tier);
    if (by_tier)
        memcpy(by_tier, memo_by(&p->memo, (uint32_t)node), SIM_N_TIERS * sizeof *by_tier);
    return len;
}

int sim_kvpool_tier_of(const sim_kvpool_t *p, int node, uint64_t id)
{
    uint32_t ei = find(p, node, id);
    return ei == NONE ? -1 : p->e[ei].tier;
}

/* Access blocks[from..n) after the first from of them were found at
 * held[0..from) (blocks[0..from) present, lead from): see
 * sim_kvpool_access. A held block whose pins are all released goes back
 * in its tier's order at its touch (sim_kvpool_release_access). */
static uint32_t access_from(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n,
                            const uint32_t *held, uint32_t from)
{
    for (uint32_t k = 0; k < from; k++) {
        uint32_t ei = held[k];
        touch(p, ei);
        if (p->e[ei].pins == 0) /* nothing if touch put it back */
            order_add_fresh(p, tier_of(p, node, p->e[ei].tier), ei);
        promote(p, ei);
    }
    uint32_t lead = from;
    int run = 1, lru = stores_lru(p, node);
    for (uint32_t k = from; k < n; k++) {
        walk_ahead(p, node, blocks, k, n);
        uint32_t head = idx_get(p, blocks[k]);
        uint32_t ei = find_at(p, node, head);
        if (ei == NONE) {
            run = 0;
            store_new(p, node, blocks[k], k, 0, head, lru);
        } else {
            lead += (uint32_t)run;
            touch(p, ei);
            promote(p, ei);
        }
    }
    return lead;
}

uint32_t sim_kvpool_access(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n)
{
    return access_from(p, node, blocks, n, NULL, 0);
}

/* Entry ei on node, whose last pin was just released, goes back in its
 * tier's eviction order: in use until now, it is as recent as its
 * release. */
static inline __attribute__((always_inline)) void unpinned(sim_kvpool_t *p, int node,
                                                            uint32_t ei)
{
    kv_entry_t *x = &p->e[ei];
    x->tick = ++p->tick;
    order_add_fresh(p, tier_of(p, node, x->tier), ei);
}

/* One walk finds the pinned blocks and the access reuses what it found.
 * sim_kvpool_unpin gives each block it releases the next tick and puts
 * it back in its tier's order; the access then gives every block present
 * the next tick again and moves it to its order's newest end. So a
 * released block's own tick does not outlive the two calls, and here the
 * release only takes the tick (the clock ends where the two calls leave
 * it) while the block goes back in its order at its touch, with the
 * touch's tick: where the two calls leave it. That holds while nothing
 * between the release and the touch reads the order, and only an
 * eviction reads it: the pinned blocks lead the access, so no miss (no
 * store) comes between; a promotion from SSD evicts in DRAM, so when a
 * held block is to be promoted the releases are done as
 * sim_kvpool_unpin does them before the access. So are they under a
 * policy with its own order: where a released block enters its FIFO (or
 * whatever order the policy keeps) depends on when it is released, not
 * only on its last use. */
uint32_t sim_kvpool_release_access(sim_kvpool_t *p, int node, const uint64_t *blocks,
                                   uint32_t n_pinned, uint32_t n)
{
    SIM_ASSERT(n_pinned <= n);
    sim_grow((void **)&p->held, &p->cap_held, (size_t)n_pinned + 1, sizeof *p->held,
             "kvpool held entries");
    sim_grow((void **)&p->freed, &p->cap_freed, (size_t)n_pinned + 1, sizeof *p->freed,
             "kvpool held entries");
    int promotes = tier_of(p, node, SIM_TIER_DRAM)->cap != 0;
    uint32_t k = 0, released = 0, to_dram = 0;
    for (; k < n_pinned; k++) {
        walk_ahead(p, node, blocks, k, n_pinned);
        uint32_t ei = find(p, node, blocks[k]);
        if (ei == NONE)
            break;
        kv_entry_t *x = &p->e[ei];
        SIM_ASSERT(x->pins > 0);
        p->freed[k] = --x->pins == 0;
        released += p->freed[k];
        to_dram += promotes && x->tier == SIM_TIER_SSD;
        p->held[k] = ei;
    }
    if (to_dram == 0 && !p->own) {
        p->tick += released; /* the releases' ticks, which the touches replace */
    } else {
        for (uint32_t j = 0; j < k; j++) /* as sim_kvpool_unpin does them */
            if (p->freed[j])
                unpinned(p, node, p->held[j]);
    }
    return access_from(p, node, blocks, n, p->held, k);
}

void sim_kvpool_pin(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        walk_ahead(p, node, blocks, k, n);
        uint32_t ei = find(p, node, blocks[k]);
        if (ei == NONE)
            break;
        if (p->e[ei].pins++ == 0)
            order_del(p, ei);
    }
}

void sim_kvpool_unpin(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        walk_ahead(p, node, blocks, k, n);
        uint32_t ei = find(p, node, blocks[k]);
        if (ei == NONE)
            break;
        SIM_ASSERT(p->e[ei].pins > 0);
        if (--p->e[ei].pins == 0)
            unpinned(p, node, ei);
    }
}

uint32_t sim_kvpool_replicate(sim_kvpool_t *p, int dst, const uint64_t *blocks, uint32_t n,
                              int cold)
{
    uint32_t made = 0;
    int lru = stores_lru(p, dst);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t head = idx_get(p, blocks[k]);
        uint32_t ei = find_at(p, dst, head);
        if (ei != NONE) {
            if (!cold) {
                touch(p, ei);
                promote(p, ei);
            }
        } else if (store_new(p, dst, blocks[k], k, cold, head, lru)) {
            made++;
        }
    }
    p->c.replications += made;
    return made;
}

uint32_t sim_kvpool_replicas(const sim_kvpool_t *p, uint64_t id)
{
    uint32_t head = idx_get(p, id);
    return head == NONE ? 0 : p->e[head].n_rep;
}

/* List node nd with run k: the common set's blocks per tier (common),
 * counted on its own from now. */
static void list_node(kv_memo_t *m, uint32_t nd, uint32_t k, const uint32_t common[SIM_N_TIERS])
{
    m->len[nd] = k;
    for (size_t t = 0; t < SIM_N_TIERS; t++)
        m->by_tier[(size_t)nd * SIM_N_TIERS + t] += common[t];
    m->touched[m->n_touched++] = nd;
}

/* The walk's first part, while every block is wide (a system prompt's
 * blocks, held by many nodes) and every node still matching holds it in
 * the same tier: the matching nodes are a bit set (the common set), cut
 * by each block's holders a word at a time instead of one step per
 * replica, and their blocks per tier are counted once for all. A node
 * that falls out is listed with its run. Returns the first block it did
 * not take; the common set's run is that long. */
static uint32_t lead_wide(sim_kvpool_t *p, const uint64_t *blocks, uint32_t n)
{
    kv_memo_t *m = &p->memo;
    size_t nw = p->bit_words;
    uint64_t *a = m->alive;
    uint32_t common[SIM_N_TIERS] = {0};
    /* Every node before the first block (bits past the last node never
     * hold a block, so the first cut clears them). */
    for (size_t i = 0; i < nw; i++)
        a[i] = ~UINT64_C(0);
    /* Words of a outside [lo, hi) are 0: they add nothing to any, off or
     * gone, and a cut leaves them 0, so the loops skip them. */
    size_t lo = 0, hi = nw;
    uint32_t k = 0;
    for (; k < n; k++) {
        uint32_t head = idx_get(p, blocks[k]);
        if (head == NONE || p->e[head].wide == NONE)
            break;
        const uint64_t *bits = p->wides[p->e[head].wide].bits;
        uint64_t any = 0, miss = 0, off[SIM_N_TIERS] = {0};
        for (size_t i = lo; i < hi; i++) {
            uint64_t h = 0;
            for (size_t t = 0; t < SIM_N_TIERS; t++)
                h |= bits[t * nw + i];
            any |= a[i] & h;
            miss |= a[i] & ~h;
            for (size_t t = 0; t < SIM_N_TIERS; t++)
                off[t] |= a[i] & h & ~bits[t * nw + i];
        }
        size_t t1 = SIM_N_TIERS;
        for (size_t t = 0; t < SIM_N_TIERS && t1 == SIM_N_TIERS; t++)
            if (!off[t])
                t1 = t;
        if (!any || t1 == SIM_N_TIERS)
            break; /* no run grows, or they grow in different tiers: the replica walk's */
        /* Every node still matching holds the block, all in tier t1 (off[t1]
         * is 0): the cut takes none out and leaves a as it is. */
        for (size_t i = miss ? lo : hi; i < hi; i++) {
            uint64_t gone = a[i] & ~bits[t1 * nw + i];
            a[i] &= bits[t1 * nw + i];
            for (uint64_t x = k ? gone : 0; x; x &= x - 1)
                list_node(m, (uint32_t)(i * 64 + (size_t)__builtin_ctzll(x)), k, common);
        }
        while (lo < hi && a[lo] == 0)
            lo++;
        while (hi > lo && a[hi - 1] == 0)
            hi--;
        common[t1]++;
    }
    m->common_len = k;
    memcpy(m->common_by, common, sizeof common);
    return k;
}

/* Block k of the walk is on node nd in tier: when nd's run is k long it
 * grows (a node of the common set is listed first). 1 when it grew. */
static inline __attribute__((always_inline)) int run_grows(kv_memo_t *m, uint32_t nd,
                                                            uint32_t tier, uint32_t k)
{
    static const uint32_t zero[SIM_N_TIERS];
    if (memo_len(m, nd) != k)
        return 0;
    if (!m->len[nd]) { /* from the common set (or k == 0): listed from now */
        int in_common = m->alive[nd / 64] >> (nd % 64) & 1;
        list_node(m, nd, k, in_common ? m->common_by : zero);
        m->alive[nd / 64] &= ~(UINT64_C(1) << (nd % 64));
    }
    m->len[nd] = k + 1;
    m->by_tier[(size_t)nd * SIM_N_TIERS + tier]++;
    return 1;
}

void sim_kvpool_prefix_scan(sim_kvpool_t *p, const uint64_t *blocks, uint32_t n)
{
    kv_memo_t *m = &p->memo;
    size_t nn = (size_t)p->n_nodes;
    if (!m->len) {
        m->len = sim_xcalloc(nn, sizeof *m->len, "kvpool prefix memo");
        m->by_tier = sim_xcalloc(nn * SIM_N_TIERS, sizeof *m->by_tier, "kvpool prefix memo");
        m->touched = sim_xmalloc(nn * sizeof *m->touched, "kvpool prefix memo");
        m->alive = sim_xmalloc(p->bit_words * sizeof *m->alive, "kvpool prefix memo");
    }
    for (size_t q = 0; q < m->n_touched; q++) {
        uint32_t nd = m->touched[q];
        m->len[nd] = 0;
        memset(&m->by_tier[(size_t)nd * SIM_N_TIERS], 0, SIM_N_TIERS * sizeof *m->by_tier);
    }
    m->n_touched = 0;
    uint32_t k = lead_wide(p, blocks, n);
    for (; k < n; k++) {
        int alive = 0;
        uint32_t head = idx_get(p, blocks[k]);
        if (head != NONE && p->e[head].wide != NONE) {
            const kv_wide_t *w = &p->wides[p->e[head].wide];
            for (size_t q = 0; q < w->n; q++)
                alive |= run_grows(m, (uint32_t)w->rep[q].node, w->rep[q].tier, k);
        } else {
            for (uint32_t ei = head; ei != NONE; ei = p->e[ei].next)
                alive |= run_grows(m, (uint32_t)p->e[ei].node, p->e[ei].tier, k);
        }
        if (!alive)
            break;
    }
    /* Every run is at most k long: blocks[0..k] decide them all. */
    size_t n_ids = k < n ? (size_t)k + 1 : n;
    if (n_ids > 0) {
        sim_grow((void **)&m->ids, &m->cap_ids, n_ids, sizeof *m->ids, "kvpool prefix memo");
        memcpy(m->ids, blocks, n_ids * sizeof *m->ids);
    }
    m->n = n;
    m->ver = p->ver;
    m->all = 0;
}

void sim_kvpool_scan_runs(const sim_kvpool_t *p, sim_kvpool_runs_t *out)
{
    const kv_memo_t *m = &p->memo;
    SIM_ASSERT(m->ver == p->ver && m->len);
    out->common_len = m->common_len;
    memcpy(out->common_by, m->common_by, sizeof out->common_by);
    out->common = m->alive;
    out->listed = m->touched;
    out->n_listed = m->n_touched;
}

uint32_t sim_kvpool_scan_node(const sim_kvpool_t *p, int node, uint32_t by_tier[SIM_N_TIERS])
{
    const kv_memo_t *m = &p->memo;
    SIM_ASSERT(m->ver == p->ver && m->len);
    if (by_tier)
        memcpy(by_tier, memo_by(m, (uint32_t)node), SIM_N_TIERS * sizeof *by_tier);
    return memo_len(m, (uint32_t)node);
}

/* The scan, with every node of the common set listed: each node's run
 * and blocks per tier in the arrays. */
void sim_kvpool_prefix_all(sim_kvpool_t *p, const uint64_t *blocks, uint32_t n, uint32_t *out)
{
    sim_kvpool_prefix_scan(p, blocks, n);
    kv_memo_t *m = &p->memo;
    for (size_t i = 0; i < p->bit_words; i++) {
        for (uint64_t x = m->common_len ? m->alive[i] : 0; x; x &= x - 1)
            list_node(m, (uint32_t)(i * 64 + (size_t)__builtin_ctzll(x)), m->common_len,
                      m->common_by);
        m->alive[i] = 0;
    }
    m->all = 1;
    memcpy(out, m->len, (size_t)p->n_nodes * sizeof *out);
}

const uint32_t *sim_kvpool_prefix_all_tiers(const sim_kvpool_t *p)
{
    SIM_ASSERT(p->memo.ver == p->ver && p->memo.by_tier && p->memo.all);
    return p->memo.by_tier;
}

/* Only the first block's count is ever read (a prefix's fetches all pass
 * through its first block), so only blocks[0] is counted. */
uint32_t sim_kvpool_note_fetch(sim_kvpool_t *p, int src, const uint64_t *blocks, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t ei = find(p, src, blocks[0]);
    if (ei == NONE)
        return 0;
    if (!p->e[ei].has_served) {
        p->e[ei].has_served = 1;
        p->cold[ei].served = 0;
    }
    return ++p->cold[ei].served;
}

void sim_kvpool_replica_totals(const sim_kvpool_t *p, int64_t *blocks, int64_t *replicas,
                               int64_t *multi)
{
    *blocks = p->n_ids;
    *replicas = p->n_entries;
    *multi = p->n_multi;
}

void sim_kvpool_replica_stats(const sim_kvpool_t *p, int64_t *n_blocks, double *mean,
                              uint32_t *max)
{
    *n_blocks = p->n_ids;
    *mean = p->n_ids ? (double)p->n_entries / (double)p->n_ids : 0;
    *max = p->rep_max;
}

void sim_kvpool_set_capacity(sim_kvpool_t *p, int node, int tier, int64_t cap_blocks)
{
    kv_tier_t *t = tier_of(p, node, tier);
    /* Only between bounded sizes: an unlimited tier keeps no order. */
    SIM_ASSERT(cap_blocks >= 0 && t->cap >= 0);
    t->cap = cap_blocks;
    while (t->size > t->cap && evict_one(p, node, tier) == 0)
        ;
}

int64_t sim_kvpool_size(const sim_kvpool_t *p, int node, int tier)
{
    return p->tiers[node * SIM_N_TIERS + tier].size;
}

int64_t sim_kvpool_capacity(const sim_kvpool_t *p, int node, int tier)
{
    return p->tiers[node * SIM_N_TIERS + tier].cap;
}

sim_kvpool_counts_t sim_kvpool_counts(const sim_kvpool_t *p) { return p->c; }

/* Tier t of node n: its order holds exactly its unpinned entries, sorted. */
static int check_order(const sim_kvpool_t *p, const kv_tier_t *tr, int n, int t)
{
    int64_t in_order = 0;
    if (p->own)
        return tr->own ? p->own->check(tr->own, tr->n_ordered) : -(tr->n_ordered != 0);
    if (p->recency) {
        if (p->lru && t == SIM_TIER_DRAM &&
            (tr->run[RUN_OLD].head != NONE || tr->run[RUN_OLD_COLD].head != NONE))
            return -1; /* dram_min reads FRESH and COLD only */
        for (int k = 0; k < N_RUNS; k++) {
            uint32_t prev = NONE;
            uint64_t last_tick = 0;
            for (uint32_t ei = tr->run[k].head; ei != NONE; prev = ei, ei = p->e[ei].lnext) {
                const kv_entry_t *x = &p->e[ei];
                if ((prev != NONE && x->lprev != prev) || !x->ordered || x->pins || x->node != n ||
                    x->tier != t || x->run != k || x->tick < last_tick ||
                    x->tick > tr->run[k].top)
                    return -1;
                last_tick = x->tick;
                in_order++;
            }
            if (prev != tr->run[k].tail)
                return -1;
        }
    } else {
        for (size_t i = 0; i < tr->n_heap; i++) {
            const kv_hnode_t *h = &tr->heap[i];
            if (i > 0 && hless(h, &tr->heap[(i - 1) / 2]))
                return -1;
            if (!live_node(p, h))
                continue;
            const kv_entry_t *x = &p->e[h->ei];
            if (!x->ordered || x->node != n || x->tier != t || x->pins || x->id != h->id)
                return -1;
            in_order++;
        }
    }
    return in_order == tr->n_ordered ? 0 : -1;
}

/* A chain of r replicas headed by head is wide exactly as the
 * hysteresis allows, and then the wide map finds each replica and the
 * slot's list holds each one (node, tier) where it says; *n counts
 * the map's slots it accounts for. */
static int wide_bad(const sim_kvpool_t *p, uint32_t head, uint32_t r, size_t *n)
{
    uint32_t slot = p->e[head].wide;
    if (slot == NONE) {
        for (uint32_t ei = head; ei != NONE; ei = p->e[ei].next)
            if (p->e[ei].in_wide)
                return 1;
        return r >= WIDE_ON;
    }
    if (r < WIDE_OFF || slot >= p->n_wide)
        return 1;
    const kv_wide_t *w = &p->wides[slot];
    if (w->n != r)
        return 1;
    size_t bits = 0;
    for (size_t i = 0; i < SIM_N_TIERS * p->bit_words; i++)
        bits += (size_t)__builtin_popcountll(w->bits[i]);
    if (bits != r)
        return 1;
    for (uint32_t ei = head; ei != NONE; ei = p->e[ei].next) {
        const uint32_t *v = sim_hmap_get(&p->wide, wide_key(slot, p->e[ei].node));
        const kv_entry_t *x = &p->e[ei];
        uint32_t pos = p->cold[ei].wpos;
        if (!v || *v != ei || !x->in_wide || pos >= w->n || w->rep[pos].ei != ei ||
            w->rep[pos].node != x->node || w->rep[pos].tier != x->tier ||
            !(w->bits[x->tier * p->bit_words + (size_t)x->node / 64] >> (x->node % 64) & 1))
            return 1;
    }
    *n += r;
    return 0;
}

/* The index, the chains (links both ways, one replica per node, the
 * head's count) and the replica statistics; *live: entries indexed. */
static int check_index(const sim_kvpool_t *p, int64_t *live)
{
    size_t it = 0;
    uint64_t id;
    uint32_t head;
    int64_t indexed = 0, ids = 0, multi = 0;
    size_t wide_n = 0;
    int64_t *hist = sim_xcalloc((size_t)p->n_nodes + 1, sizeof *hist, "kvpool check");
    int bad = 0;
    while (!bad && idx_next(p, &it, &id, &head)) {
        ids++;
        uint32_t r = 0;
        for (uint32_t a = head, prev = NONE; a != NONE; prev = a, a = p->e[a].next) {
            r++;
            if (p->e[a].id != id || p->e[a].prev != prev || r > (uint32_t)p->n_nodes)
                bad = 1;
            for (uint32_t b = p->e[a].next; !bad && b != NONE; b = p->e[b].next)
                bad = p->e[b].node == p->e[a].node;
            if (bad)
                break;
        }
        bad = bad || p->e[head].n_rep != r || wide_bad(p, head, r, &wide_n);
        if (!bad) {
            hist[r]++;
            multi += r > 1;
            indexed += r;
        }
    }
    uint32_t mx = 0;
    for (uint32_t r = 1; !bad && r <= (uint32_t)p->n_nodes; r++) {
        bad = hist[r] != p->rep_hist[r];
        mx = hist[r] ? r : mx;
    }
    sim_free(hist);
    *live = indexed;
    return !bad && mx == p->rep_max && ids == p->n_ids && indexed == p->n_entries &&
                   multi == p->n_multi && wide_n == p->wide.n
               ? 0
               : -1;
}

int sim_kvpool_check(const sim_kvpool_t *p)
{
    int64_t live = 0;
    for (int n = 0; n < p->n_nodes; n++)
        for (int t = 0; t < SIM_N_TIERS; t++) {
            const kv_tier_t *tr = &p->tiers[n * SIM_N_TIERS + t];
            if (tr->size < 0 || (tr->cap >= 0 && tr->size > tr->cap) || tr->n_ordered < 0 ||
                tr->n_ordered > tr->size || check_order(p, tr, n, t) != 0)
                return -1;
            live += tr->size;
        }
    int64_t indexed;
    if (check_index(p, &indexed) != 0)
        return -1;
    return indexed == live ? 0 : -1;
}

json_t *sim_kvpool_summary_json(const sim_kvpool_t *p, const char *policy)
{
    if (!p)
        return NULL;
    json_t *o = json_object(), *r = json_object();
    sim_kvpool_counts_t k = sim_kvpool_counts(p);
    json_object_set_new(o, "policy", json_string(policy));
    json_object_set_new(o, "dram_blocks_per_node", json_integer(sim_kvpool_capacity(p, 0, SIM_TIER_DRAM)));
    json_object_set_new(o, "ssd_blocks_per_node", json_integer(sim_kvpool_capacity(p, 0, SIM_TIER_SSD)));
    json_object_set_new(o, "inserts", json_integer(k.inserts));
    json_object_set_new(o, "evictions", json_integer(k.evictions));
    json_object_set_new(o, "demotions", json_integer(k.demotions));
    json_object_set_new(o, "promotions", json_integer(k.promotions));
    json_object_set_new(o, "drops", json_integer(k.drops));
    json_object_set_new(o, "replications", json_integer(k.replications));
    int64_t blocks;
    double mean;
    uint32_t max;
    sim_kvpool_replica_stats(p, &blocks, &mean, &max);
    json_object_set_new(r, "blocks", json_integer(blocks));
    json_object_set_new(r, "mean", json_real(mean));
    json_object_set_new(r, "max", json_integer(max));
    json_object_set_new(o, "replicas", r);
    return o;
}
