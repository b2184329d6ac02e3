/* bench/trace_floor.c: the physical floor of any trace replay, timed: CPU
 * seconds of trace_bench_floor (decompress a Mooncake trace, split it into
 * lines and scan the integers of each, nothing else).
 * make bench times the simulator's replay of the same trace against it.
 * Prints "trace_floor: LINES lines, CPU_S s cpu"; exit 2 on a bad trace. */
#include <stdio.h>

#include "sim/core/util.h"
#include "traces/trace.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_floor TRACE.jsonl[.zst]\n");
        return 2;
    }
    sim_malloc_tune(); /* as the simulator's own command line does */
    double t0 = sim_thread_cpu_s();
    int64_t n;
    sim_err_t err;
    if (trace_bench_floor(argv[1], &n, &err) != 0) {
        fprintf(stderr, "trace_floor: %s\n", err.msg);
        return 2;
    }
    printf("trace_floor: %lld lines, %.4f s cpu\n", (long long)n, sim_thread_cpu_s() - t0);
    return 0;
}
