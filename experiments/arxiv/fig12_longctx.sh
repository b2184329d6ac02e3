#!/bin/sh
# Traces: none
# arXiv Fig. 12: end-to-end on simulated long-context prompts of 16k, 32k,
# 64k and 128k tokens (512 output tokens, half of each prompt shared).
# Writes results/arxiv/fig12.*. Each start (the lowest tested rate, where
# vLLM-[4M] sets the SLO) loads vLLM-[4M] lightly: its P90 TTFT there is
# one request's own.
FIG=fig12
WORKLOADS="16k:--set+trace.generator.prompt_tok=16384+start=0.1 32k:--set+trace.generator.prompt_tok=32768+start=0.08 64k:--set+trace.generator.prompt_tok=65536+start=0.05 128k:--set+trace.generator.prompt_tok=131072+start=0.015"
. "$(dirname "$0")/e2e.sh"
