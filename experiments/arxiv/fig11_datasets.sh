#!/bin/sh
# Traces: none
# arXiv Fig. 11: end-to-end on the ArXiv Summarization and L-Eval workloads
# (generators from their published statistics). Writes results/arxiv/fig11.*.
FIG=fig11
WORKLOADS="arxiv:--set+trace.generator.kind=arxiv+start=0.5 leval:--set+trace.generator.kind=leval+start=0.2"
. "$(dirname "$0")/e2e.sh"
