"""tests/test_mooncake_sim.py: the Python package (mooncake_sim/) over the
shared library: a run, a dict config, overrides both ways, a located
error, determinism, a sweep, and the summary equal to the one the command
line writes for the same experiment. Standard library only (unittest).
Run from anywhere: python3 tests/test_mooncake_sim.py (make test runs it
with MOONCAKE_SIM_LIB and MOONCAKE_SIM_BIN, the CLI, set)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.chdir(ROOT)
import mooncake_sim  # noqa: E402

BIN = os.environ.get("MOONCAKE_SIM_BIN", os.path.join(ROOT, "bin", "mooncake-sim"))
# A small experiment: 200 requests of the default workload, 2P + 2D.
SMALL = dict(trace__generator__requests=200, cluster__prefill=2, cluster__decode=2)


class TestRun(unittest.TestCase):
    def test_small_run(self):
        r = mooncake_sim.run("experiments/default.json", **SMALL)
        self.assertEqual(r["requests"]["total"], 200)
        self.assertIn("attainment", r["slo"])
        self.assertEqual(r["sim"]["version"], mooncake_sim.sim_version())
        self.assertGreater(r.events, 0)
        self.assertEqual(r.warnings, "")
        rows = r.requests
        self.assertEqual(len(rows), 200)
        self.assertEqual(r.requests_csv.split("\n", 1)[0].split(",")[:2], ["id", "arrival_s"])

    def test_version(self):
        self.assertEqual(mooncake_sim.version() // 10000, mooncake_sim.API_VERSION[0])

    def test_dict_config(self):
        with open("experiments/default.json") as f:
            cfg = json.load(f)
        cfg["trace"]["generator"]["requests"] = 200
        cfg["cluster"] = {"prefill": 2, "decode": 2}
        a = mooncake_sim.run(cfg, rows=False)
        b = mooncake_sim.run("experiments/default.json", **SMALL)
        self.assertIsNone(a.requests)
        self.assertEqual(a, b)

    def test_overrides_both_ways(self):
        a = mooncake_sim.run("experiments/default.json", **SMALL, rows=False)
        b = mooncake_sim.run("experiments/default.json", rows=False,
                             set={"trace.generator.requests": 200, "cluster.prefill": 2,
                                  "cluster.decode": 2})
        self.assertEqual(a, b)
        c = mooncake_sim.run("experiments/default.json", **dict(SMALL, cluster__prefill=1),
                             rows=False)
        self.assertNotEqual(a["ttft_s"], c["ttft_s"])
        eff = mooncake_sim.config_json("experiments/default.json", cluster__prefill=3)
        self.assertEqual(eff["cluster"]["prefill"], 3)

    def test_errors_are_located(self):
        with self.assertRaises(mooncake_sim.Error) as e:
            mooncake_sim.run("experiments/default.json", cluster__prefill="x")
        self.assertTrue(e.exception.message.startswith("--set cluster.prefill=x"),
                        e.exception.message)
        self.assertEqual(e.exception.status, 2)
        with self.assertRaises(mooncake_sim.Error) as e:
            mooncake_sim.run({"cluster": {"prefil": 2}})
        self.assertTrue(e.exception.message.startswith("<dict>: $.cluster.prefil"),
                        e.exception.message)
        with self.assertRaises(mooncake_sim.Error) as e:
            mooncake_sim.run("no/such/experiment.json")
        self.assertIn("no/such/experiment.json", e.exception.message)

    def test_error_equals_cli_message(self):
        with self.assertRaises(mooncake_sim.Error) as e:
            mooncake_sim.run("experiments/default.json", scheduler__policy="nope")
        p = subprocess.run([BIN, "run", "experiments/default.json", "--quiet",
                            "--set", "scheduler.policy=nope"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn(e.exception.message, p.stderr)

    def test_deterministic(self):
        a = mooncake_sim.run("experiments/default.json", **SMALL)
        b = mooncake_sim.run("experiments/default.json", **SMALL)
        self.assertEqual(a, b)
        self.assertEqual(a.requests_csv, b.requests_csv)

    def test_sweep(self):
        pts = [{"cluster.prefill": 1}, {"cluster__prefill": 2}]
        rs = mooncake_sim.sweep("experiments/default.json", pts, workers=2,
                                trace__generator__requests=200, cluster__decode=2)
        self.assertEqual([r.point for r in rs], pts)
        one = mooncake_sim.run("experiments/default.json", **SMALL, rows=False)
        self.assertEqual(rs[1], one)
        ax = mooncake_sim.sweep("experiments/default.json", axes={"cluster.prefill": [1, 2]},
                                trace__generator__requests=200, cluster__decode=2)
        self.assertEqual(ax, rs)
        table = mooncake_sim.frame(rs)
        self.assertEqual(len(table), 2)

    def test_summary_equals_cli(self):
        with tempfile.TemporaryDirectory() as d:
            cli, lib = os.path.join(d, "cli"), os.path.join(d, "lib")
            args = [BIN, "run", "experiments/default.json", "--quiet", "--out", cli]
            for k, v in SMALL.items():
                args += ["--set", "%s=%s" % (k.replace("__", "."), v)]
            subprocess.run(args, check=True)
            r = mooncake_sim.run("experiments/default.json", out=lib, **SMALL)
            for name in ("summary.json", "requests.csv", "config.json", "timeseries.csv"):
                with open(os.path.join(cli, name), "rb") as f1, \
                        open(os.path.join(lib, name), "rb") as f2:
                    self.assertEqual(f1.read(), f2.read(), name)
            with open(os.path.join(cli, "summary.json")) as f:
                self.assertEqual(json.load(f), r)
            with open(os.path.join(cli, "requests.csv")) as f:
                self.assertEqual(f.read(), r.requests_csv)
            # without an output directory: the same texts from memory
            m = mooncake_sim.run("experiments/default.json", **SMALL)
            self.assertEqual(m, r)
            self.assertEqual(m.requests_csv, r.requests_csv)


if __name__ == "__main__":
    unittest.main(verbosity=1)
