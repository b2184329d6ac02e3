/* models/hw.c: the hardware descriptor table. a800x8 is the paper's
 * testbed (FAST'25 Table 1); h800x8 and h200x8 use vendor specs. DRAM pool
 * and SSD sizes are assumptions for a typical node, documented here. */
#include "models/hw.h"

#include "sim/core/util.h"

#include <stdio.h>
#include <string.h>

#define GB 1e9
#define TB 1e12

static const model_hw_t hw_table[] = {
    {
        .name = "a800x8",
        .gpu = "NVIDIA A800-SXM4-80GB",
        .source = "Mooncake FAST'25 Table 1 (8 x A800 80 GB, 4 x 200 Gbps RoCE, "
                  "host-to-device 128 GB/s, about 1 TB of DRAM for KVCache); "
                  "A800 spec: 312 TFLOPS BF16, 2.039 TB/s HBM; SSD assumed 8 TB at 12 GB/s",
        .n_gpus = 8,
        .vram_bytes_per_gpu = 80 * GB,
        .gpu_tflops_bf16 = 312,
        .hbm_bytes_per_s = 2.039 * TB,
        .n_nics = 4,
        .nic_gbps = 200,
        .h2d_bytes_per_s = 128 * GB,
        .dram_pool_bytes = 1 * TB,
        .ssd_bytes = 8 * TB,
        .ssd_read_bytes_per_s = 12 * GB,
    },
    {
        .name = "h800x8",
        .gpu = "NVIDIA H800-SXM5-80GB",
        .source = "H800 spec: 989 TFLOPS BF16 dense, 3.35 TB/s HBM; the paper pairs H800 "
                  "with 8 x 400 Gbps; PCIe 5 host-to-device 256 GB/s per node; DRAM and SSD "
                  "as a800x8 (assumed)",
        .n_gpus = 8,
        .vram_bytes_per_gpu = 80 * GB,
        .gpu_tflops_bf16 = 989,
        .hbm_bytes_per_s = 3.35 * TB,
        .n_nics = 8,
        .nic_gbps = 400,
        .h2d_bytes_per_s = 256 * GB,
        .dram_pool_bytes = 1 * TB,
        .ssd_bytes = 8 * TB,
        .ssd_read_bytes_per_s = 12 * GB,
    },
    {
        .name = "h200x8",
        .gpu = "NVIDIA H200-SXM-141GB",
        .source = "H200 spec: 141 GB HBM3e at 4.8 TB/s, 989 TFLOPS BF16 dense; 8 x 400 Gbps "
                  "NICs and PCIe 5 host-to-device 256 GB/s per node; 2 TB DRAM pool and "
                  "16 TB SSD assumed",
        .n_gpus = 8,
        .vram_bytes_per_gpu = 141 * GB,
        .gpu_tflops_bf16 = 989,
        .hbm_bytes_per_s = 4.8 * TB,
        .n_nics = 8,
        .nic_gbps = 400,
        .h2d_bytes_per_s = 256 * GB,
        .dram_pool_bytes = 2 * TB,
        .ssd_bytes = 16 * TB,
        .ssd_read_bytes_per_s = 24 * GB,
    },
};

const model_hw_t *model_hw_find(const char *name)
{
    for (size_t i = 0; i < sizeof hw_table / sizeof hw_table[0]; i++)
        if (strcmp(hw_table[i].name, name) == 0)
            return &hw_table[i];
    return NULL;
}

void model_hw_names(char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof hw_table / sizeof hw_table[0]; i++)
        sim_names_append(buf, len, &off, hw_table[i].name);
}

double model_hw_nic_bytes_per_s(const model_hw_t *hw)
{
    return hw->n_nics * hw->nic_gbps * 1e9 / 8.0;
}
