#!/usr/bin/env python3
"""tools/timeline_gantt.py: a time window of a run's timeline (docs/timeline.md)
as data for plots/timeline.gp, a Gantt-style rendering of the same file
Perfetto opens: the prefill and decode (or colocated) instance tracks, the
first NIC lane of each node that sent a flow, and the phase tracks of the
first requests that arrived in the window.
Usage: timeline_gantt.py TIMELINE FROM_S TO_S OUT_PREFIX [MAX_REQUESTS]
Writes OUT_PREFIX.dat (y x0_s x1_s class: one box per span, clipped to the
window) and OUT_PREFIX.tics.gp (the y tic labels, a gnuplot `set ytics`)."""
import json
import subprocess
import sys

# Span and phase names, by the class (colour) they are drawn in.
CLASSES = {"prefill": 0, "inlined prefill": 0, "inlined prefill (stall)": 6, "prefill step": 0,
           "prefill step (stall)": 6, "mixed step": 0,
           "span": 1, "iteration": 1, "decode step": 1, "decode": 1,
           "pd": 2, "fetch": 3, "stage": 3, "replication": 3, "transfer": 2, "load": 3,
           "schedule": 5, "queue": 4, "wait": 4, "decode slot wait": 4}


def load(path):
    if path.endswith(".zst"):
        return json.loads(subprocess.run(["zstd", "-dc", path], check=True,
                                          capture_output=True).stdout)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    path, lo, hi, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    max_req = int(sys.argv[5]) if len(sys.argv) == 6 else 12
    evs = load(path)["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
             if e["ph"] == "M" and e["name"] == "thread_name"}
    spans = [e for e in evs if e["ph"] == "X"]
    first = {}
    for e in spans:
        if e["pid"] == 5:
            first[e["tid"]] = min(first.get(e["tid"], e["ts"]), e["ts"])
    reqs = sorted(t for t, ts in first.items() if lo <= ts / 1e6 < hi)[:max_req]
    tracks = sorted(k for k in names if k[0] in (1, 2, 3) or (k[0] == 4 and k[1] % 1024 == 0))
    tracks += [(5, t) for t in reqs]
    y = {k: len(tracks) - i for i, k in enumerate(tracks)}  # the first on top
    with open(out + ".dat", "w", encoding="utf-8") as f:
        for e in spans:
            k = (e["pid"], e["tid"])
            x0, x1 = e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6
            if k in y and x1 > lo and x0 < hi:
                f.write("%d %.6f %.6f %d\n" % (y[k], max(x0, lo), min(x1, hi),
                                               CLASSES.get(e["name"], 7)))
    with open(out + ".tics.gp", "w", encoding="utf-8") as f:
        f.write("set ytics (%s)\n" % ", ".join('"%s" %d' % (names[k], y[k]) for k in tracks))
        f.write("n_tracks = %d\n" % len(tracks))


if __name__ == "__main__":
    main()
