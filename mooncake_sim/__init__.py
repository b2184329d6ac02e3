"""mooncake_sim: the Mooncake serving simulator from Python.

A ctypes binding (standard library only) of lib/libmooncake-sim.so, the
library of sim/api/mooncake_sim.h: the same code as `mooncake-sim run`, so
a run's summary is the summary.json the command line writes for the same
experiment. See docs/python.md.

    import mooncake_sim
    r = mooncake_sim.run("experiments/default.json", cluster__prefill=4)
    r["slo"]["attainment"]        # the summary, as a dict
    r.requests                    # requests.csv: a DataFrame with pandas,
                                  # else a list of dicts

Overrides are keyword arguments, a double underscore for each dot of the
config key (cluster__prefill=4 is --set cluster.prefill=4), or a set=
dict of config keys as written ({"scheduler.params.slo_reject": 1}) for
keys that are no Python names; set= is applied first. The library is
found at $MOONCAKE_SIM_LIB, else at lib/libmooncake-sim.so beside this
package; the built-in data (models/calib) at $MOONCAKE_SIM_DATA, else the
folder holding lib/.
"""

import concurrent.futures
import csv
import ctypes
import io
import itertools
import json
import os

__all__ = ["run", "sweep", "frame", "config_json", "Result", "Error", "version", "sim_version"]

API_VERSION = (1, 0, 0)
_MSG_LEN = 1024
_RUN_FORCE = 1
_RUN_REQUESTS = 2


class Error(Exception):
    """A run or config the simulator refused: .message is the located
    message the command line prints ("file: $.path: ..."), .status its
    code (2 bad input, 1 a system failure, 3 a bad call)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.message = message
        self.status = status


def _lib_path():
    env = os.environ.get("MOONCAKE_SIM_LIB")
    if env:
        return os.path.abspath(env)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(root, "lib", "libmooncake-sim.so")


def _load():
    path = _lib_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("mooncake_sim: cannot load %s (%s); build it with `make` at the "
                          "repository root, or set MOONCAKE_SIM_LIB" % (path, e)) from None
    P, S, U = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    sig = {
        "mcs_version": (ctypes.c_int, []),
        "mcs_sim_version": (S, []),
        "mcs_config_new": (P, []),
        "mcs_config_copy": (P, [P]),
        "mcs_config_free": (None, [P]),
        "mcs_config_load_file": (ctypes.c_int, [P, S, S, U]),
        "mcs_config_load_json": (ctypes.c_int, [P, S, S, S, U]),
        "mcs_config_set": (ctypes.c_int, [P, S, S, U]),
        "mcs_config_json": (P, [P]),
        "mcs_run": (ctypes.c_int, [P, S, S, ctypes.c_uint, ctypes.POINTER(P), S, U]),
        "mcs_result_free": (None, [P]),
        "mcs_result_summary_json": (S, [P]),
        "mcs_result_requests_csv": (S, [P]),
        "mcs_result_warnings": (S, [P]),
        "mcs_result_events": (ctypes.c_uint64, [P]),
        "mcs_result_wall_s": (ctypes.c_double, [P]),
        "mcs_free": (None, [P]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    if lib.mcs_version() // 10000 != API_VERSION[0]:
        raise ImportError("mooncake_sim: %s has API version %d, this package wants %d.x"
                          % (path, lib.mcs_version(), API_VERSION[0]))
    return lib, path


_lib, _lib_file = _load()


def _data_dir():
    env = os.environ.get("MOONCAKE_SIM_DATA")
    if env:
        return env
    root = os.path.dirname(os.path.dirname(_lib_file))
    return root if os.path.isdir(os.path.join(root, "models", "calib")) else "."


def version():
    """The library's API version, MCS_VERSION (major * 10000 + minor * 100 + patch)."""
    return _lib.mcs_version()


def sim_version():
    """The simulator's code version, as summaries record it ($.sim.version)."""
    return _lib.mcs_sim_version().decode()


def _check(status, msg):
    if status != 0:
        raise Error(msg.value.decode("utf-8", "replace"), status)


def _text(v):
    """A Python value as --set's text."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def _overrides(set=None, **kw):
    """The overrides as (key, text) pairs: set= first, then keywords."""
    pairs = [(k, _text(v)) for k, v in (set or {}).items()]
    pairs += [(k.replace("__", "."), _text(v)) for k, v in kw.items()]
    return pairs


class _Config:
    """An mcs_config handle, freed with the object."""

    def __init__(self, config, pairs, base=None):
        msg = ctypes.create_string_buffer(_MSG_LEN)
        if base is not None:  # a copy of a loaded one: no file read again
            self.h = _lib.mcs_config_copy(base.h)
            if not self.h:
                raise MemoryError("mcs_config_copy")
            self._set(pairs, msg)
            return
        self.h = _lib.mcs_config_new()
        if isinstance(config, dict):
            st = _lib.mcs_config_load_json(self.h, json.dumps(config).encode(), b"<dict>",
                                           msg, _MSG_LEN)
        else:
            st = _lib.mcs_config_load_file(self.h, os.fsencode(config), msg, _MSG_LEN)
        _check(st, msg)
        self._set(pairs, msg)

    def _set(self, pairs, msg):
        for k, v in pairs:
            _check(_lib.mcs_config_set(self.h, ("%s=%s" % (k, v)).encode(), msg, _MSG_LEN), msg)

    def __del__(self):
        if getattr(self, "h", None):
            _lib.mcs_config_free(self.h)
            self.h = None


class Result(dict):
    """A run's summary.json as a dict, with:
    .requests  requests.csv (a pandas DataFrame when pandas is installed,
               else a list of dicts with numbers converted), or None when
               run with rows=False
    .requests_csv  its text; .warnings  what the CLI would print on stderr
    .events, .wall_s  events simulated and the loop's wall seconds
    .point     the overrides of a sweep's point ({} for run)."""

    def __init__(self, summary, requests_csv, warnings, events, wall_s, point=None):
        super().__init__(summary)
        self.requests_csv = requests_csv
        self.warnings = warnings
        self.events = events
        self.wall_s = wall_s
        self.point = dict(point or {})
        self._rows = None

    @property
    def requests(self):
        if self.requests_csv is None:
            return None
        if self._rows is None:
            self._rows = _table(self.requests_csv)
        return self._rows


def _num(s):
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def _table(text):
    try:
        import pandas
    except ImportError:
        return [{k: _num(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
    return pandas.read_csv(io.StringIO(text))


def run(config, *, set=None, out=None, force=False, rows=True, **overrides):
    """Run one experiment: config is an experiment file's path or a dict of
    its JSON; overrides as keywords (cluster__prefill=4) or set= (a dict of
    dotted keys). out: a directory to write the command line's files to
    (None: none); force: overwrite one holding another experiment; rows:
    keep requests.csv's rows (Result.requests). Raises Error with the
    located message on bad input."""
    cfg = _Config(config, _overrides(set, **overrides))
    return _run(cfg, out, force, rows, {})


def _run(cfg, out, force, rows, point):
    msg = ctypes.create_string_buffer(_MSG_LEN)
    res = ctypes.c_void_p()
    flags = (_RUN_FORCE if force else 0) | (_RUN_REQUESTS if rows else 0)
    st = _lib.mcs_run(cfg.h, os.fsencode(out) if out is not None else None,
                      os.fsencode(_data_dir()), flags, ctypes.byref(res), msg, _MSG_LEN)
    _check(st, msg)
    try:
        summary = json.loads(_lib.mcs_result_summary_json(res).decode())
        rq = _lib.mcs_result_requests_csv(res)
        return Result(summary, rq.decode() if rq is not None else None,
                      _lib.mcs_result_warnings(res).decode(), _lib.mcs_result_events(res),
                      _lib.mcs_result_wall_s(res), point)
    finally:
        _lib.mcs_result_free(res)


def config_json(config, *, set=None, **overrides):
    """The effective configuration (config.json less its inputs) as a dict."""
    cfg = _Config(config, _overrides(set, **overrides))
    p = _lib.mcs_config_json(cfg.h)
    try:
        return json.loads(ctypes.string_at(p).decode())
    finally:
        _lib.mcs_free(p)


def sweep(config, points=None, *, axes=None, workers=1, set=None, rows=False, **overrides):
    """Run config at each point: points, a list of override dicts (dotted
    keys or __ names), or axes, a dict of key -> list of values whose
    product is the points (the first key varies slowest). set= and keyword overrides apply to every point, before the
    point's own. workers runs that many points at once on threads (the
    library releases the interpreter while it simulates). Returns the
    Results in the points' order, each with .point; the first failing
    point raises Error."""
    if points is None:
        if not axes:
            raise ValueError("sweep: give points (a list of dicts) or axes (a dict of lists)")
        keys = list(axes)
        points = [dict(zip(keys, vals)) for vals in itertools.product(*(axes[k] for k in keys))]
    base = _Config(config, _overrides(set, **overrides))
    cfgs = [_Config(None, _overrides({k.replace("__", "."): v for k, v in p.items()}), base)
            for p in points]
    def one(i):
        return _run(cfgs[i], None, False, rows, points[i])
    if workers <= 1:
        return [one(i) for i in range(len(points))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
        return list(ex.map(one, range(len(points))))


def _flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def frame(results):
    """Results as one table: a row per result, its point's keys then its
    summary flattened to dotted columns ("ttft_s.p90"); a DataFrame with
    pandas, else a list of dicts."""
    rows = []
    for r in results:
        row = {k.replace("__", "."): v for k, v in r.point.items()}
        row.update(_flat(r))
        rows.append(row)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
