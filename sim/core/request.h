/* sim/core/request.h: one request's state through its lifecycle: arrival ->
 * placement -> prefill queue -> prefill -> KV hand-off -> decode batch ->
 * completion, or a rejection. Invariant: every request ends exactly once
 * (status leaves SIM_REQ_ACTIVE once) and is then freed. */
#ifndef SIM_REQUEST_H
#define SIM_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/util.h"

typedef enum sim_req_status {
    SIM_REQ_ACTIVE = 0,
    SIM_REQ_COMPLETED,
    SIM_REQ_REJECTED_ARRIVAL,
    SIM_REQ_REJECTED_PREFILL,
} sim_req_status_t;

typedef struct sim_req {
    int64_t id; /* 0-based position in the trace */
    sim_time_t arrival_ns;
    int64_t input_tok;
    int64_t output_tok;
    uint32_t n_blocks;
    uint32_t cap_blocks; /* blocks' room, kept when the request is reused */
    uint64_t *blocks; /* chained 512-token prefix ids, owned */
    int32_t prefill_inst; /* -1 until placed */
    int32_t decode_inst;
    int64_t cached_tok;          /* prefix tokens reused instead of computed */
    int64_t cached_dram_tok;     /* of which read from DRAM */
    int64_t cached_ssd_tok;      /* of which read from SSD */
    uint32_t cached_blocks;      /* leading blocks reused (pinned during prefill) */
    sim_time_t load_ns;          /* loading the cached prefix to the GPU */
    int32_t fetch_src;           /* node a prefix is fetched from, -1: none */
    uint32_t fetch_blocks;       /* leading blocks held after the fetch */
    int64_t fetched_tok;         /* tokens fetched over the network */
    sim_time_t fetch_ns;         /* fetch duration (setup included) */
    int fetch_pending;           /* prefill may not start before it lands */
    int prefill_done;
    int inbound;                 /* counted in its decode instance's KV on its way */
    int n_streams;               /* KV stream flows still moving */
    uint32_t *streams;           /* their flow ids (prefill group size + 1) */
    uint32_t streams_in[4];      /* streams for groups of up to 3 (no allocation) */
    sim_time_t kv_ready_ns;      /* all KV in the decode node's DRAM */
    sim_time_t decode_load_ns;   /* DRAM -> VRAM on the decode node */
    sim_time_t decode_join_ns;   /* joined a decode batch */
    struct cpp_job *cpp;         /* chunked pipeline state while prefilling */
    /* Colocated (vLLM-like) serving. */
    int64_t gen_tok;             /* tokens produced so far (the first included) */
    int64_t prefilled_tok;       /* context tokens computed in the current (re)prefill */
    int64_t ctx_tok;             /* context whose KV the instance holds */
    sim_time_t last_tok_ns;      /* when its latest token came out */
    int64_t *tbt_saved;          /* intervals before a preemption (rare) */
    size_t n_tbt_saved, cap_tbt_saved;
    int preemptions;
    /* Prefill stalls its decoding saw (colocated steps, Mooncake's
     * decode-side inlining) and the time they added; the marks are the
     * instance's counters when it joined its batch. */
    int64_t prefill_stalls;
    sim_time_t prefill_stall_ns;
    int64_t stall_mark;
    sim_time_t stall_mark_ns;
    struct sim_req *run_prev, *run_next; /* running list, admission order */
    sim_time_t forecast_join_ns; /* scratch of the decode-load forecast */
    sim_time_t pred_prefill_ns;  /* cost-model prediction used for queue estimates */
    sim_time_t prefill_start_ns;
    sim_time_t prefill_end_ns;   /* end of prefill (the first token is computed) */
    sim_time_t first_token_ns;   /* the first token reaches the user: it joins its decode
                                  * batch (at prefill end when nothing moves) */
    sim_time_t transfer_ns;      /* KV hand-off duration */
    sim_time_t finish_ns;
    int64_t join_iter;   /* decode iteration index of its first decode step */
    int64_t finish_iter; /* index of its last decode step */
    size_t heap_pos;     /* its index in a batch that tracks them (sim/serve/batch.h) */
    sim_req_status_t status;
    /* TBT statistics over its output_tok - 1 token intervals (seconds). */
    double tbt_mean_s, tbt_p90_s, tbt_max_s, tbt_top10_s;
    struct sim_req *next; /* FIFO link in the queue it waits in (sim/serve/reqq.h) */
    struct sim_req *live_prev, *live_next; /* the cluster's list of live requests */
    int64_t trace_key; /* the trace's handle for its completion (trace_done); 0: none */
} sim_req_t;

#endif
