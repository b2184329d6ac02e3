/* sim/pool/kvpool.h: the distributed KVCache pool. Every node has a DRAM tier
 * and an SSD tier of 512-token blocks keyed by the traces' chained hash
 * ids; a global index maps each block to its replicas (node, tier). A
 * block evicted from DRAM is demoted to the node's SSD when it has one,
 * else dropped; blocks in use are pinned and never evicted.
 * Invariants: a tier never holds more than its capacity; a block appears
 * at most once per node. A block access costs O(replicas of the block)
 * to find it, then O(1) under recency policies (LRU), O(log n) under the
 * other priority policies (heap by policy key), and what its own order
 * costs under a policy that keeps one (sim_evict_order_t). */
#ifndef SIM_KVPOOL_H
#define SIM_KVPOOL_H

#include <stdint.h>

#include <jansson.h>

#include "sim/pool/evict.h"

enum { SIM_TIER_DRAM = 0, SIM_TIER_SSD = 1, SIM_N_TIERS = 2 };

typedef struct sim_kvpool sim_kvpool_t;

typedef struct sim_kvpool_counts {
    int64_t inserts;      /* blocks newly stored on a node */
    int64_t evictions;    /* blocks pushed out of a tier (DRAM or SSD) */
    int64_t demotions;    /* DRAM -> SSD moves (each is also an eviction from DRAM) */
    int64_t promotions;   /* SSD -> DRAM moves on reuse */
    int64_t drops;        /* blocks that left a node entirely */
    int64_t rejected;     /* stores refused: the tier was full of pinned blocks */
    int64_t replications; /* replicas made by sim_kvpool_replicate */
} sim_kvpool_counts_t;

/* Block ids are small integers from 0 (a remapped trace): the index is
 * always a paged direct array. Without the flag it is a paged direct
 * array while its pages and directory stay within 16 slots per live block
 * (plus 2^20) and ids below 2^32, as the traces' sequential ids do, and a
 * hash map from the first id beyond that on. Either way the index holds
 * only the live blocks (pages with none are freed): its memory follows
 * the pool's contents, not the ids ever seen (see
 * sim_kvpool_index_bytes). */
#define SIM_KVPOOL_DENSE_IDS 1u

/* A pool of n_nodes nodes, each with cap_blocks[tier] blocks per tier
 * (-1 = unlimited, 0 = no such tier), evicting by policy with its
 * parameters policy_params (the struct its table describes, outliving the
 * pool; NULL: its defaults, or none without a table). Free with sim_kvpool_free (accepts NULL). */
sim_kvpool_t *sim_kvpool_new(int n_nodes, const int64_t cap_blocks[SIM_N_TIERS],
                             const sim_evict_ops_t *policy, const void *policy_params,
                             unsigned flags);
void sim_kvpool_free(sim_kvpool_t *p);

/* Length of the longest leading run of blocks[0..n) held on node; when
 * by_tier is not NULL it gets how many of those sit in each tier. Pure
 * lookup: no statistics change. O(run x replicas); O(run) compares when
 * sim_kvpool_prefix_all or sim_kvpool_prefix_scan was last asked the same
 * list and no block has entered, left or moved since (its answer is
 * kept). */
uint32_t sim_kvpool_prefix(const sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n,
                           uint32_t by_tier[SIM_N_TIERS]);

/* The tier of block id on node, or -1 when the node does not hold it. */
int sim_kvpool_tier_of(const sim_kvpool_t *p, int node, uint64_t id);

/* Access blocks[0..n) on node in order, as a request that uses them: a
 * block present is touched (promoted to DRAM if it was on SSD), a missing
 * one is stored in the node's top tier, evicting by policy as needed.
 * Returns the leading run that was present before the call (evictions
 * start only after the first miss, so it equals sim_kvpool_prefix). */
uint32_t sim_kvpool_access(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n);

/* Pin / unpin the first n blocks present on node (a running request's
 * prefix); pins nest. Pinned blocks are never evicted; a block's last use
 * is the moment its last pin is released. */
void sim_kvpool_pin(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n);
void sim_kvpool_unpin(sim_kvpool_t *p, int node, const uint64_t *blocks, uint32_t n);

/* sim_kvpool_unpin(p, node, blocks, n_pinned) then sim_kvpool_access(p,
 * node, blocks, n), the same in every effect and result, with one lookup
 * per pinned block instead of two (a prefill that ends: its cached prefix
 * released, all its blocks used). */
uint32_t sim_kvpool_release_access(sim_kvpool_t *p, int node, const uint64_t *blocks,
                                   uint32_t n_pinned, uint32_t n);

/* Copy blocks[0..n) to node dst (its DRAM), making replicas; blocks dst
 * already holds are touched. cold: replicas made ahead of use (hot-spot
 * replication) enter as the least recently and least frequently used, so
 * they are evicted first until used; blocks already there are left as
 * they are. Returns how many replicas were created. */
uint32_t sim_kvpool_replicate(sim_kvpool_t *p, int dst, const uint64_t *blocks, uint32_t n,
                              int cold);

/* The walk of sim_kvpool_prefix_all without writing every node's run:
 * O(replicas of the run's blocks that few nodes hold + words of a node
 * bit set per block that many hold). Afterwards every node is either
 * listed (its own run), in the common set (the common run), or holds
 * none of the run: sim_kvpool_scan_runs says which, sim_kvpool_scan_node
 * answers for one node, and sim_kvpool_prefix answers from it, while no
 * block has entered, left or moved since (asserted). */
void sim_kvpool_prefix_scan(sim_kvpool_t *p, const uint64_t *blocks, uint32_t n);
typedef struct sim_kvpool_runs {
    uint32_t common_len;                 /* the run of every node in common */
    uint32_t common_by[SIM_N_TIERS];     /* its blocks per tier */
    const uint64_t *common;              /* bit per node: the common set */
    const uint32_t *listed;              /* nodes with runs of their own, in no order */
    size_t n_listed;
} sim_kvpool_runs_t;
void sim_kvpool_scan_runs(const sim_kvpool_t *p, sim_kvpool_runs_t *out);
uint32_t sim_kvpool_scan_node(const sim_kvpool_t *p, int node, uint32_t by_tier[SIM_N_TIERS]);

/* out[node] = the longest leading run of blocks[0..n) each node holds, for
 * every node at once. O(nodes + replicas of the run): never a scan of the
 * pool. The answer, with each node's blocks per tier, is kept for
 * sim_kvpool_prefix (the only state it changes). */
void sim_kvpool_prefix_all(sim_kvpool_t *p, const uint64_t *blocks, uint32_t n, uint32_t *out);
/* Every node's run of the last sim_kvpool_prefix_all by tier, [node *
 * SIM_N_TIERS + tier] (what sim_kvpool_prefix would give), with no look at
 * the list: only while no block has entered, left or moved since
 * (asserted); valid until the next call that changes the pool. */
const uint32_t *sim_kvpool_prefix_all_tiers(const sim_kvpool_t *p);

/* Count one fetch of blocks[0..n) served by node src against its first
 * block; returns how many fetches that block has served at src (0 when n is
 * 0 or src does not hold blocks[0]). */
uint32_t sim_kvpool_note_fetch(sim_kvpool_t *p, int src, const uint64_t *blocks, uint32_t n);

/* Distinct blocks held, replicas of all of them, and blocks with more
 * than one replica. O(1). */
void sim_kvpool_replica_totals(const sim_kvpool_t *p, int64_t *blocks, int64_t *replicas,
                               int64_t *multi);

/* Replicas of one block across nodes and tiers. O(1). */
uint32_t sim_kvpool_replicas(const sim_kvpool_t *p, uint64_t id);
/* Blocks held anywhere, the mean and the most replicas per block. O(1):
 * kept as blocks change. */
void sim_kvpool_replica_stats(const sim_kvpool_t *p, int64_t *n_blocks, double *mean,
                              uint32_t *max);

/* Change a bounded tier's capacity (blocks, >= 0); shrinking evicts by
 * policy down to it (pinned blocks stay, so it may remain above). */
void sim_kvpool_set_capacity(sim_kvpool_t *p, int node, int tier, int64_t cap_blocks);

/* Bytes the global index holds now (pages, spare pages, directory, hash
 * map slots): bounded by the live blocks and the largest id, never by the
 * ids seen. O(1). For tests and diagnostics. */
size_t sim_kvpool_index_bytes(const sim_kvpool_t *p);

int64_t sim_kvpool_size(const sim_kvpool_t *p, int node, int tier);
int64_t sim_kvpool_capacity(const sim_kvpool_t *p, int node, int tier);
sim_kvpool_counts_t sim_kvpool_counts(const sim_kvpool_t *p);

/* $.cache of a run's summary, the pool's part: the eviction policy (its
 * configured name, as given), node 0's DRAM and SSD capacities in blocks,
 * the counters and the replica statistics; sim_metrics_summary adds the
 * hit rates. New reference (the caller json_decref's it or hands it on),
 * or NULL when p is NULL (a run without a pool has no $.cache). O(1). */
json_t *sim_kvpool_summary_json(const sim_kvpool_t *p, const char *policy);

/* Check every invariant (capacities, eviction order, index, replica
 * counts); 0 when they hold, else -1. O(blocks x replicas). For tests and
 * debugging. */
int sim_kvpool_check(const sim_kvpool_t *p);

#endif
