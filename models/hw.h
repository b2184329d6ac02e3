/* models/hw.h: hardware descriptors of one serving node (N GPUs plus the
 * node's DRAM, SSD, NICs and PCIe), looked up by name. Values are specs or
 * the paper's testbed; each table entry says where its numbers come from. */
#ifndef MODEL_HW_H
#define MODEL_HW_H

#include <stddef.h>

typedef struct model_hw {
    const char *name;
    const char *gpu;
    const char *source;
    int n_gpus;
    double vram_bytes_per_gpu;
    double gpu_tflops_bf16;  /* dense BF16, per GPU */
    double hbm_bytes_per_s;  /* per GPU */
    int n_nics;
    double nic_gbps;         /* per NIC, gigabits per second */
    double h2d_bytes_per_s;  /* host-to-device, whole node */
    double dram_pool_bytes;  /* DRAM given to the KVCache pool */
    double ssd_bytes;
    double ssd_read_bytes_per_s;
} model_hw_t;

/* NULL when unknown. */
const model_hw_t *model_hw_find(const char *name);
/* "a, b, c" into buf. */
void model_hw_names(char *buf, size_t len);

/* Total NIC bandwidth of a node in bytes per second. */
double model_hw_nic_bytes_per_s(const model_hw_t *hw);

#endif
