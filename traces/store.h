/* traces/store.h: trace files parsed once per process and replayed from
 * memory by every run that reads them (a sweep's points, a search's
 * probes). An entry holds the records as the source yields them, before
 * the per-run transforms (speed, limit, output_cap, dependency holding),
 * which the trace_t wrapper applies to each replay exactly as to a
 * streamed file; a replay is the same records, in the same order, ending
 * in the same error as streaming the file would.
 *
 * Key: the path as given, its device, inode, size and modification time
 * (taken when the first run opens it), trace.format ("auto" when unset)
 * and trace.block_size (0 read as 512); generators are never stored.
 * Memory: 80 bytes per request plus 8 per hash id and 8 per dependency,
 * at most max_bytes over all entries; a file over what is left is
 * streamed by every run, as is one whose open fails (each run then
 * reports the error itself). While an entry is built its arrays may hold
 * up to twice its bytes. Thread-safe: an entry is built once, by the
 * first run to open it, while later openers of the same key wait; a built
 * entry is never written again. */
#ifndef TRACE_STORE_H
#define TRACE_STORE_H

#include "traces/trace.h"

/* The bound a sweep or search gives its store: 1 GiB, about 4 M requests
 * of the conversation trace's shape. */
#define TRACE_STORE_MAX_BYTES (INT64_C(1) << 30)

typedef struct trace_store trace_store_t;

/* A store of at most max_bytes of records (0: store nothing, every open
 * streams). Caller frees with trace_store_free, after every trace opened
 * from it is closed. */
trace_store_t *trace_store_new(int64_t max_bytes);
void trace_store_free(trace_store_t *s);

/* trace_open, through s: a trace file is replayed from s (parsed on its
 * first open); a generator, a file s cannot hold, or s NULL is opened by
 * trace_open itself. Same results and errors as trace_open. */
trace_t *trace_store_open(trace_store_t *s, const trace_open_args_t *args, sim_err_t *err);

/* The bytes s holds, and the entries stored (replayed from memory). */
int64_t trace_store_bytes(trace_store_t *s);
int trace_store_entries(trace_store_t *s);

#endif
