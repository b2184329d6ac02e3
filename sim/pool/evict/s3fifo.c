/* sim/pool/evict/s3fifo.c: S3-FIFO (Yang, Zhang, Qiu, Yue, Vinayak: "FIFO
 * queues are all you need for cache eviction", SOSP'23, Algorithm 1), a
 * policy with an order of its own. A tier's blocks sit in a small FIFO S
 * (its share small_frac of the tier, 10% by default) and a main FIFO M;
 * a ghost FIFO G remembers the ids of blocks evicted from S, as many as
 * M's share (1 - small_frac) of the tier holds.
 *   enter: into M when the id is in G (it leaves G), else into S; freq 0.
 *   use:   freq = min(freq + 1, 3).
 *   evict: from S while S holds small_frac of the tier or more (or M has
 *          nothing evictable), else from M. From S: the oldest block moves
 *          to M's new end when freq > 1 (its freq kept), else it is the
 *          victim and its id enters G (the oldest id leaving G when G is
 *          full); repeated until a victim, or from M once S has nothing
 *          evictable. From M: the oldest block with freq > 0 goes back to
 *          M's new end with freq - 1; the first with freq 0 is the victim.
 * Pinned blocks (held) are out of their FIFO and keep their place in S or
 * M: released, a block goes to its FIFO's new end. S's share counts held
 * blocks too. A block that comes from another tier (demoted, promoted)
 * enters as a new one. A replica made ahead of use (never used: freq 0
 * in its statistics), as the pool requires, is evicted before every used
 * block: it waits in a cold FIFO, evicted first (oldest first, no ghost),
 * and its first use moves it to S's new end as a block just entered. Every operation is O(1) (hash maps by slot and by
 * id) but eviction, O(blocks it passes over). */
#include "sim/pool/evict.h"

#include "sim/core/hmap.h"
#include "sim/core/util.h"

#define NIL UINT32_MAX
#define FREQ_MAX 3

typedef struct s3fifo_params {
    double small_frac;
} s3fifo_params_t;

static const sim_param_t s3fifo_fields[] = {
    SIM_PARAM_N("small_frac", s3fifo_params_t, small_frac, 0.01, 0.9, "0.1",
                "the small FIFO's share of a tier; the ghost holds as many ids as the rest"),
};
static const sim_params_t s3fifo_table = SIM_PARAMS(s3fifo_fields, s3fifo_params_t);

enum { Q_SMALL, Q_MAIN, Q_GHOST, Q_COLD, N_Q };

/* A block of the tier (q S or M) or an id in the ghost (q G). */
typedef struct s3_node {
    uint64_t id;
    uint32_t slot;
    uint32_t newer, older; /* links in its FIFO while in it */
    uint8_t q;
    uint8_t freq;
    uint8_t held; /* pinned: out of its FIFO */
} s3_node_t;

typedef struct s3_fifo {
    uint32_t newest, oldest;
    int64_t n; /* nodes linked in it */
} s3_fifo_t;

typedef struct s3 {
    double small_frac;
    s3_node_t *nd;
    size_t n_nd, cap_nd;
    uint32_t free_nd; /* recycled nodes, linked through newer */
    s3_fifo_t fifo[N_Q];
    int64_t in_small; /* blocks of S, held ones included */
    sim_hmap_t by_slot; /* slot -> node, blocks of the tier */
    sim_hmap_t by_id;   /* id -> node, ids in the ghost */
} s3_t;

static uint32_t node_new(s3_t *s)
{
    if (s->free_nd != NIL) {
        uint32_t i = s->free_nd;
        s->free_nd = s->nd[i].newer;
        return i;
    }
    SIM_ASSERT(s->n_nd < NIL);
    sim_grow((void **)&s->nd, &s->cap_nd, s->n_nd + 1, sizeof *s->nd, "s3fifo nodes");
    return (uint32_t)s->n_nd++;
}

static void node_free(s3_t *s, uint32_t i)
{
    s->nd[i].newer = s->free_nd;
    s->free_nd = i;
}

static void push_newest(s3_t *s, int q, uint32_t i)
{
    s3_fifo_t *f = &s->fifo[q];
    s->nd[i].q = (uint8_t)q;
    s->nd[i].newer = NIL;
    s->nd[i].older = f->newest;
    if (f->newest != NIL)
        s->nd[f->newest].newer = i;
    else
        f->oldest = i;
    f->newest = i;
    f->n++;
}

static void unlink_node(s3_t *s, uint32_t i)
{
    s3_fifo_t *f = &s->fifo[s->nd[i].q];
    const s3_node_t *x = &s->nd[i];
    if (x->newer != NIL)
        s->nd[x->newer].older = x->older;
    else
        f->newest = x->older;
    if (x->older != NIL)
        s->nd[x->older].newer = x->newer;
    else
        f->oldest = x->newer;
    f->n--;
}

static uint32_t node_of(const s3_t *s, uint32_t slot)
{
    const uint32_t *v = sim_hmap_get(&s->by_slot, slot);
    SIM_ASSERT(v != NULL);
    return *v;
}

static void *s3_init(const void *params)
{
    s3_t *s = sim_xcalloc(1, sizeof *s, "s3fifo");
    s->small_frac = ((const s3fifo_params_t *)params)->small_frac;
    s->free_nd = NIL;
    for (int q = 0; q < N_Q; q++)
        s->fifo[q] = (s3_fifo_t){NIL, NIL, 0};
    sim_hmap_init(&s->by_slot);
    sim_hmap_init(&s->by_id);
    return s;
}

static void s3_free(void *st)
{
    s3_t *s = st;
    sim_hmap_free(&s->by_slot);
    sim_hmap_free(&s->by_id);
    sim_free(s->nd);
    sim_free(s);
}

static void s3_insert(void *st, uint32_t slot, uint64_t id, const sim_evict_stats_t *stats)
{
    s3_t *s = st;
    const uint32_t *g = stats->freq == 0 ? NULL : sim_hmap_get(&s->by_id, id);
    int q = stats->freq == 0 ? Q_COLD : Q_SMALL;
    if (g) {
        uint32_t gi = *g;
        unlink_node(s, gi);
        node_free(s, gi);
        sim_hmap_del(&s->by_id, id);
        q = Q_MAIN;
    }
    uint32_t i = node_new(s);
    s->nd[i] = (s3_node_t){.id = id, .slot = slot, .newer = NIL, .older = NIL,
                           .q = (uint8_t)q, .held = 1};
    s->in_small += q == Q_SMALL;
    sim_hmap_put(&s->by_slot, slot, i);
}

static void s3_hit(void *st, uint32_t slot)
{
    s3_t *s = st;
    uint32_t i = node_of(s, slot);
    s3_node_t *x = &s->nd[i];
    if (x->q == Q_COLD) { /* its first use: as if it entered S now */
        if (!x->held)
            unlink_node(s, i);
        x->q = Q_SMALL;
        s->in_small++;
        if (!x->held)
            push_newest(s, Q_SMALL, i);
        return;
    }
    x->freq = (uint8_t)(x->freq < FREQ_MAX ? x->freq + 1 : FREQ_MAX);
}

static void s3_remove(void *st, uint32_t slot)
{
    s3_t *s = st;
    uint32_t i = node_of(s, slot);
    SIM_ASSERT(s->nd[i].held);
    s->in_small -= s->nd[i].q == Q_SMALL;
    sim_hmap_del(&s->by_slot, slot);
    node_free(s, i);
}

static void s3_pin(void *st, uint32_t slot)
{
    s3_t *s = st;
    uint32_t i = node_of(s, slot);
    SIM_ASSERT(!s->nd[i].held);
    unlink_node(s, i);
    s->nd[i].held = 1;
}

static void s3_unpin(void *st, uint32_t slot)
{
    s3_t *s = st;
    uint32_t i = node_of(s, slot);
    SIM_ASSERT(s->nd[i].held);
    s->nd[i].held = 0;
    push_newest(s, s->nd[i].q, i);
}

/* Block node i leaves the tier as the victim: its slot. */
static uint32_t victim(s3_t *s, uint32_t i)
{
    uint32_t slot = s->nd[i].slot;
    sim_hmap_del(&s->by_slot, slot);
    return slot;
}

/* Id leaves S as a victim: into the ghost (its newest id, once), trimmed
 * to ghost_cap ids. It may be there already: a replica made ahead of use
 * enters the tier without looking at the ghost. */
static void ghost_add(s3_t *s, uint64_t id, int64_t ghost_cap)
{
    const uint32_t *old_g = sim_hmap_get(&s->by_id, id);
    if (old_g) {
        uint32_t gi = *old_g;
        unlink_node(s, gi);
        node_free(s, gi);
        sim_hmap_del(&s->by_id, id);
    }
    while (s->fifo[Q_GHOST].n > 0 && s->fifo[Q_GHOST].n >= ghost_cap) {
        uint32_t old = s->fifo[Q_GHOST].oldest;
        unlink_node(s, old);
        sim_hmap_del(&s->by_id, s->nd[old].id);
        node_free(s, old);
    }
    if (ghost_cap <= 0)
        return;
    uint32_t g = node_new(s);
    s->nd[g] = (s3_node_t){.id = id, .slot = NIL};
    push_newest(s, Q_GHOST, g);
    sim_hmap_put(&s->by_id, id, g);
}

static uint32_t s3_pick_victim(void *st, int64_t cap)
{
    s3_t *s = st;
    if (s->fifo[Q_COLD].n > 0) {
        uint32_t i = s->fifo[Q_COLD].oldest;
        unlink_node(s, i);
        uint32_t slot = victim(s, i);
        node_free(s, i);
        return slot;
    }
    s3_fifo_t *S = &s->fifo[Q_SMALL], *M = &s->fifo[Q_MAIN];
    /* Once from S, from S until a victim or S has nothing evictable. */
    int small = S->n > 0 && ((double)s->in_small >= s->small_frac * (double)cap || M->n == 0);
    for (;;) {
        if (small && S->n > 0) {
            uint32_t i = S->oldest;
            unlink_node(s, i);
            s->in_small--;
            if (s->nd[i].freq > 1) {
                push_newest(s, Q_MAIN, i);
                continue;
            }
            uint64_t id = s->nd[i].id;
            uint32_t slot = victim(s, i);
            node_free(s, i);
            ghost_add(s, id, (int64_t)((1 - s->small_frac) * (double)cap));
            return slot;
        }
        SIM_ASSERT(M->n > 0);
        uint32_t i = M->oldest;
        unlink_node(s, i);
        if (s->nd[i].freq > 0) {
            s->nd[i].freq--;
            push_newest(s, Q_MAIN, i);
            continue;
        }
        uint32_t slot = victim(s, i);
        node_free(s, i);
        return slot;
    }
}

static int s3_check(const void *st, int64_t n_evictable)
{
    const s3_t *s = st;
    int64_t small = 0, linked = 0;
    size_t it = 0;
    uint64_t slot;
    uint32_t i;
    while (sim_hmap_next(&s->by_slot, &it, &slot, &i)) {
        const s3_node_t *x = &s->nd[i];
        if (x->slot != slot || x->q == Q_GHOST)
            return -1;
        small += x->q == Q_SMALL;
        linked += !x->held;
    }
    if (small != s->in_small || linked != n_evictable ||
        s->fifo[Q_SMALL].n + s->fifo[Q_MAIN].n + s->fifo[Q_COLD].n != linked ||
        s->fifo[Q_GHOST].n != (int64_t)s->by_id.n)
        return -1;
    return 0;
}

static const sim_evict_order_t s3fifo_order = {
    .init = s3_init,
    .free = s3_free,
    .on_insert = s3_insert,
    .on_hit = s3_hit,
    .on_remove = s3_remove,
    .on_pin = s3_pin,
    .on_unpin = s3_unpin,
    .pick_victim = s3_pick_victim,
    .check = s3_check,
};

const sim_evict_ops_t sim_evict_s3fifo = {
    .name = "s3fifo",
    .help = "S3-FIFO (SOSP'23): a small FIFO for new blocks, a main FIFO for reused ones, "
            "a ghost of the ids evicted from the small one",
    .params = &s3fifo_table,
    .order = &s3fifo_order,
};
