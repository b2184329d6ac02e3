#!/usr/bin/env python3
"""tests/timeline_check.py: check a run's timeline (docs/timeline.md) against
its result directory: the file is JSON in the documented schema (required
fields per event type), and every request of the window that has phases
on its track has them tile its life as requests.csv reports it: contiguous,
the first starting at arrival_s, a boundary at decode_start_s (arrival_s +
ttft_s), the last ending at finish_s, each with its id and SLO outcome.
Times compare within requests.csv's printed precision (6 decimals of s).
Usage: timeline_check.py TIMELINE DIR [--window requests:A-B | time:X-Ys]
(default requests:0-1000; a time window's rows are those whose arrival_s,
as printed, falls in it)
Exit 0 when it holds, 1 naming the first few violations."""
import csv
import json
import subprocess
import sys

TOL_NS = 500.5  # requests.csv rounds to the microsecond
PHASES = {"schedule", "fetch", "queue", "prefill", "transfer", "load", "decode slot wait",
          "wait", "decode"}
OUTCOMES = {"met", "missed", "rejected_at_arrival", "rejected_after_prefill"}
META = {"process_name", "process_sort_index", "thread_name", "thread_sort_index"}
errors = []


def bad(msg):
    errors.append(msg)


def ns(us):
    """A timestamp in microseconds (3 decimals) as integer ns."""
    return round(us * 1000)


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load(path):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        return json.loads(text)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_schema(doc):
    if not isinstance(doc, dict) or doc.get("displayTimeUnit") != "ns":
        bad("top level: expected an object with displayTimeUnit ns")
        return []
    evs = doc.get("traceEvents")
    if not isinstance(evs, list) or not evs:
        bad("traceEvents: expected a non-empty array")
        return []
    for i, e in enumerate(evs):
        where = "traceEvents[%d]" % i
        ph = e.get("ph")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("name"), str):
            bad(where + ": pid and name required")
        elif ph == "M":
            if e["name"] not in META or not isinstance(e.get("args"), dict):
                bad(where + ": metadata name or args")
            elif e["name"].startswith("thread") and not isinstance(e.get("tid"), int):
                bad(where + ": thread metadata without tid")
        elif ph == "X":
            if not (isinstance(e.get("tid"), int) and num(e.get("ts")) and num(e.get("dur"))
                    and e["ts"] >= 0 and e["dur"] > 0 and isinstance(e.get("args"), dict)):
                bad(where + ": X needs tid, ts >= 0, dur > 0, args")
        elif ph == "C":
            a = e.get("args")
            if not (num(e.get("ts")) and isinstance(a, dict) and a
                    and all(num(v) for v in a.values())):
                bad(where + ": C needs ts and numeric args")
        elif ph == "i":
            if not (isinstance(e.get("tid"), int) and num(e.get("ts"))
                    and e.get("s") in ("t", "p", "g")):
                bad(where + ": i needs tid, ts, s")
        else:
            bad(where + ": ph %r not one of X C i M" % ph)
        if len(errors) > 10:
            break
    return evs


def main():
    args = sys.argv[1:]
    window = None
    if "--window" in args:
        k = args.index("--window")
        window = args[k + 1]
        del args[k:k + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    path, run = args
    evs = check_schema(load(path))
    if errors:
        report(path)
    # The window's requests: by id, or by arrival (s) for time:X-Ys.
    key, lo, hi = "id", 0, 1000
    if window and window.startswith("time:"):
        key = "arrival_s"
        lo, hi = (float(x) for x in window[5:].rstrip("s").split("-"))
    elif window:
        lo, hi = (int(x) for x in window.split(":")[1].split("-"))
    with open(run + "/config.json", encoding="utf-8") as f:
        slo = json.load(f)["slo"]
    tracks = {}
    instants = {}
    for e in evs:
        if e.get("pid") != 5:
            continue
        if e["ph"] == "X":
            tracks.setdefault(e["tid"], []).append(e)
        elif e["ph"] == "i":
            instants[e["tid"]] = e
    n_checked = 0
    with open(run + "/requests.csv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if lo <= float(r[key]) < hi]
    for r in rows:
        rid = int(r["id"])
        arr, fin = float(r["arrival_s"]) * 1e9, float(r["finish_s"]) * 1e9
        ph = sorted(tracks.pop(rid, []), key=lambda e: e["ts"])
        st = r["status"]
        if st == "completed":
            ttft = float(r["ttft_s"]) * 1e9
            met = float(r["ttft_s"]) <= slo["ttft_s"] and float(r["tbt_top10_s"]) <= slo["tbt_s"]
            near = (abs(float(r["ttft_s"]) - slo["ttft_s"]) < 1e-6
                    or abs(float(r["tbt_top10_s"]) - slo["tbt_s"]) < 1e-6)
            want = "met" if met else "missed"
        else:
            ttft, near, want = None, False, st
            if instants.get(rid, {}).get("name") != st:
                bad("request %d: no %s instant on its track" % (rid, st))
        if not ph:
            if fin - arr > TOL_NS:
                bad("request %d: no phases over %g ns of life" % (rid, fin - arr))
            continue
        n_checked += 1
        for e in ph:
            a = e["args"]
            if e["name"] not in PHASES or a.get("id") != rid or a.get("slo") not in OUTCOMES:
                bad("request %d: phase %r args %r" % (rid, e["name"], a))
            elif a["slo"] != want and not near:
                bad("request %d: slo %s, requests.csv says %s" % (rid, a["slo"], want))
        bounds = [ns(ph[0]["ts"])]
        for e, nxt in zip(ph, ph[1:] + [None]):
            end = ns(e["ts"]) + ns(e["dur"])
            if nxt is not None and ns(nxt["ts"]) != end:
                bad("request %d: %s ends at %d ns, %s starts at %d ns" %
                    (rid, e["name"], end, nxt["name"], ns(nxt["ts"])))
            bounds.append(end)
        if abs(bounds[0] - arr) > TOL_NS:
            bad("request %d: first phase at %d ns, arrival_s %.6f" % (rid, bounds[0], arr / 1e9))
        if abs(bounds[-1] - fin) > TOL_NS:
            bad("request %d: last phase ends at %d ns, finish_s %.6f" % (rid, bounds[-1], fin / 1e9))
        if ttft is not None:
            # decode_start_s when the row has it; else arrival + ttft_s,
            # from the track's own (checked) arrival: one rounding either way.
            ds = r["decode_start_s"]
            at = float(ds) * 1e9 if ds else bounds[0] + ttft
            if not any(abs(b - at) <= TOL_NS for b in bounds):
                bad("request %d: no phase boundary at decode_start %.6f s" % (rid, at / 1e9))
            dec = [e for e in ph if e["name"] == "decode"]
            if dec and abs(ns(dec[0]["ts"]) - at) > TOL_NS:
                bad("request %d: decode starts at %d ns, not at decode_start" % (rid, ns(dec[0]["ts"])))
        if len(errors) > 10:
            break
    if tracks:
        bad("tracks of requests outside requests.csv's window: %s" % sorted(tracks)[:5])
    if not errors and not n_checked:
        bad("no request phases in the window")
    report(path, n_checked)


def report(path, n=0):
    if errors:
        for m in errors[:10]:
            print("%s: %s" % (path, m), file=sys.stderr)
        sys.exit(1)
    print("%s: schema ok, %d requests tile" % (path, n))
    sys.exit(0)


if __name__ == "__main__":
    main()
