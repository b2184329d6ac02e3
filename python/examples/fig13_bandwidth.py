"""FAST'25 Fig. 13: mean TTFT against per-node NIC bandwidth, with the
global KVCache pool and recomputing every prompt, on the first 3,000
requests of the synthetic trace (MOONCAKE_TRACES; see docs/python.md).
Run from the repository root: python3 python/examples/fig13_bandwidth.py"""
import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import mooncake_sim

rs = mooncake_sim.sweep("experiments/fast25/fig13_bandwidth.json", workers=2,
                        axes={"network.nic_gbps": [24, 100, 400], "cache.enabled": [1, 0]},
                        trace__limit=3000)
print("NIC Gbps  mean TTFT pool (s)  mean TTFT recompute (s)")
for pool, rec in zip(rs[::2], rs[1::2]):
    print("%8d  %18.3f  %23.3f" % (pool.point["network.nic_gbps"], pool["ttft_s"]["mean"],
                                  rec["ttft_s"]["mean"]))
