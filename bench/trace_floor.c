/* bench/trace_floor.c: the floor of any trace replay: decompress a
 * Mooncake trace (zstd or plain), split it into lines and parse every line
 * with cJSON, reading the four fields a replay needs (timestamp, input
 * and output length, the hash ids), and nothing else. make bench times the
 * simulator's replay of the same trace against this program's CPU time.
 * Prints "trace_floor: LINES lines, CPU_S s cpu" and a checksum; exit 2
 * on a bad trace. */
#include <stdio.h>
#include <sys/resource.h>

#include <cjson/cJSON.h>

#include "traces/lines.h"

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Add line's fields to *sum; -1 when it is not a Mooncake record. */
static int read_record(const char *line, size_t len, double *sum)
{
    cJSON *o = cJSON_ParseWithLength(line, len);
    if (!o)
        return -1;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(o, "input_length");
    const cJSON *ol = cJSON_GetObjectItemCaseSensitive(o, "output_length");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids"), *id;
    int rc = -1;
    if (cJSON_IsNumber(ts) && cJSON_IsNumber(il) && cJSON_IsNumber(ol) && cJSON_IsArray(ids)) {
        *sum += ts->valuedouble + il->valuedouble + ol->valuedouble;
        cJSON_ArrayForEach(id, ids) *sum += id->valuedouble;
        rc = 0;
    }
    cJSON_Delete(o);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_floor TRACE.jsonl[.zst]\n");
        return 2;
    }
    double t0 = cpu_s(), sum = 0;
    sim_err_t err;
    trace_lines_t *r = trace_lines_open(argv[1], &err);
    if (!r) {
        fprintf(stderr, "trace_floor: %s\n", err.msg);
        return 2;
    }
    const char *line;
    size_t len;
    long long n = 0;
    int st;
    while ((st = trace_lines_next_nonblank(r, &line, &len, &err)) == TRACE_OK) {
        if (read_record(line, len, &sum) != 0) {
            fprintf(stderr, "trace_floor: %s:%lld: not a Mooncake record\n", argv[1],
                    (long long)trace_lines_lineno(r));
            trace_lines_close(r);
            return 2;
        }
        n++;
    }
    trace_lines_close(r);
    if (st == TRACE_ERR) {
        fprintf(stderr, "trace_floor: %s\n", err.msg);
        return 2;
    }
    printf("trace_floor: %lld lines, %.4f s cpu (checksum %.6g)\n", n, cpu_s() - t0, sum);
    return 0;
}
