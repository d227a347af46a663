"""Peer benchmark: the ArbKit premium pipeline done in polars, pandas and numpy.

Given one Tardis.dev `quotes` CSV per venue (same symbol), this script times:

  ingest_s           read every file fully into a dataframe with explicit dtypes
                     (polars `pl.read_csv`; pandas `pd.read_csv`, default C engine;
                     `ingest_pyarrow_s` additionally times pandas' pyarrow engine).
  align_premium_s    from the loaded dataframes to the premium columns: union clock
                     of distinct `local_timestamp`s (from the first time every leg
                     has quoted), backward as-of join of each leg (duplicate
                     timestamps within a leg collapse to the last row), validity
                     (every leg's quote at most --max-stale-us old, both sides
                     priced > 0), then per valid point the max mid premium
                     (max mid / min mid - 1) * 100 and the best executable premium
                     max over i != j of (bid_i / ask_j - 1) * 100.
                     polars: lazy concat/sort/unique + join_asof; pandas: merge_asof.
  stats_s            numpy statistics of the max premium x over valid points with
                     durations w (time to the next clock point, 0 for the last):
                     count, mean, std (ddof=1), min, max, quantiles, skew, excess
                     kurtosis, time-weighted mean/std, and per band b the share of
                     events with |x| >= b, the share of time, and the number of
                     episodes (maximal runs of consecutive clock points, all valid,
                     with |x| >= b and the same sign).

With --rolling FILE --window W and --matrix FILE --series N (raw little-endian
float64 files written by arbkit-bench), it times instead:

  rolling.pandas_s       pandas rolling mean and sample std over the last W points
                         of one series, and z = (x - mean) / std (Series.rolling).
  matrix.numpy_xxt_s     numpy X @ X.T of the N x T matrix X (the BLAS product alone).
  matrix.numpy_corrcoef_s  numpy corrcoef(X): centring, product and scaling, the
                         whole correlation matrix as arbkit computes it.

Run these with OPENBLAS_NUM_THREADS=1 to match ArbKit's single BLAS thread.

Each timing is wall clock (time.perf_counter) over --repeat runs; the median and
every run are reported. Thread settings are left at each library's defaults.
Input files must be ascending by local_timestamp (as Tardis writes them). One JSON
object goes to stdout (timings, row/point counts, and `check`: the statistics plus a
polars-vs-pandas agreement flag, for comparison with ArbKit); progress goes to stderr.
"""
import argparse
import json
import os
import platform
import sys

import numpy as np

from timing import timed

try:
    import pandas as pd
except ImportError:
    pd = None
try:
    import polars as pl
except ImportError:
    pl = None

KEEP = ["timestamp", "local_timestamp", "ask_amount", "ask_price", "bid_price", "bid_amount"]
INT_COLS = ("timestamp", "local_timestamp")
QUANTILES = [0.01, 0.05, 0.25, 0.50, 0.75, 0.95, 0.99]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- polars
def polars_ingest(files):
    schema = {c: (pl.Int64 if c in INT_COLS else pl.Float64) for c in KEEP}
    return [pl.read_csv(f, columns=KEEP, schema_overrides=schema) for f in files]


def polars_align(frames, max_stale):
    """Lazy query: the whole plan is optimised and run by one collect()."""
    n = len(frames)
    ts, t = pl.col("local_timestamp"), pl.col("t")
    start = max(f["local_timestamp"][0] for f in frames)
    # files are sorted by local_timestamp: keep the last row of each timestamp run
    legs = [f.lazy().select(ts, "bid_price", "ask_price").filter(ts != ts.shift(-1).fill_null(-1))
            for f in frames]
    clock = (pl.concat([leg.select(t=ts) for leg in legs])
             .sort("t").unique(maintain_order=True).filter(t >= start)
             .with_columns(idx=pl.int_range(pl.len()), w=(t.shift(-1) - t).fill_null(0)))
    for k, leg in enumerate(legs):
        right = leg.select(t=ts, **{f"ts{k}": ts, f"bid{k}": "bid_price", f"ask{k}": "ask_price"})
        clock = clock.join_asof(right, on="t", strategy="backward")
    mids = [(pl.col(f"bid{k}") + pl.col(f"ask{k}")) / 2 for k in range(n)]
    pairs = [pl.col(f"bid{i}") / pl.col(f"ask{j}") for i in range(n) for j in range(n) if i != j]
    fresh = pl.all_horizontal([(t - pl.col(f"ts{k}") <= max_stale)
                               & (pl.col(f"bid{k}") > 0) & (pl.col(f"ask{k}") > 0)
                               for k in range(n)])
    out = clock.filter(fresh).select(
        "idx", "w",
        premium=(pl.max_horizontal(mids) / pl.min_horizontal(mids) - 1) * 100,
        exec_premium=(pl.max_horizontal(pairs) - 1) * 100).collect()
    return clock, out  # clock stays lazy: it is only counted afterwards, untimed


# ---------------------------------------------------------------- pandas
def pandas_ingest(files, engine=None):
    dtype = {c: ("int64" if c in INT_COLS else "float64") for c in KEEP}
    kw = {"engine": engine} if engine else {}
    return [pd.read_csv(f, usecols=KEEP, dtype=dtype, **kw) for f in files]


def pandas_align(frames, max_stale):
    n = len(frames)
    legs = []
    for f in frames:  # sorted by local_timestamp: keep the last row of each timestamp run
        ts = f["local_timestamp"]
        legs.append(f.loc[ts.ne(ts.shift(-1)), ["local_timestamp", "bid_price", "ask_price"]])
    start = max(leg["local_timestamp"].iloc[0] for leg in legs)
    # a stable sort (timsort) merges the already-sorted legs in near-linear time
    t = (pd.concat([leg["local_timestamp"] for leg in legs], ignore_index=True)
         .sort_values(kind="stable", ignore_index=True))
    t = t[t.ne(t.shift()) & (t >= start)]
    clock = t.reset_index(drop=True).to_frame("t")
    clock["idx"] = np.arange(len(clock))
    clock["w"] = (clock["t"].shift(-1) - clock["t"]).fillna(0)
    for k, leg in enumerate(legs):
        right = leg.rename(columns={"local_timestamp": f"ts{k}",
                                    "bid_price": f"bid{k}", "ask_price": f"ask{k}"})
        clock = pd.merge_asof(clock, right, left_on="t", right_on=f"ts{k}", direction="backward")
    fresh = np.logical_and.reduce([((clock["t"] - clock[f"ts{k}"] <= max_stale)
                                    & (clock[f"bid{k}"] > 0) & (clock[f"ask{k}"] > 0)).to_numpy()
                                   for k in range(n)])
    v = clock[fresh]
    mids = pd.DataFrame({k: (v[f"bid{k}"] + v[f"ask{k}"]) / 2 for k in range(n)})
    pairs = pd.DataFrame({(i, j): v[f"bid{i}"] / v[f"ask{j}"]
                          for i in range(n) for j in range(n) if i != j})
    out = pd.DataFrame({"idx": v["idx"], "w": v["w"],
                        "premium": (mids.max(axis=1) / mids.min(axis=1) - 1) * 100,
                        "exec_premium": (pairs.max(axis=1) - 1) * 100})
    return clock, out


# ---------------------------------------------------------------- numpy
def numpy_stats(x, w, idx, bands):
    n = x.size
    if n == 0:
        return {"count": 0}
    w = w.astype(np.float64)
    mean = x.mean()
    d = x - mean
    d2 = d * d  # explicit products: d ** 3 / d ** 4 would go through the slow pow()
    m2, m3, m4 = d2.mean(), (d2 * d).mean(), (d2 * d2).mean()
    tw_mean = (w * x).sum() / w.sum()
    s = {"count": int(n), "mean": float(mean), "std": float(x.std(ddof=1)),
         "min": float(x.min()), "max": float(x.max())}
    for q, val in zip(QUANTILES, np.quantile(x, QUANTILES)):
        s[f"q{round(q * 100):02d}"] = float(val)
    s["skew"] = float(m3 / m2 ** 1.5)
    s["kurtosis"] = float(m4 / m2 ** 2 - 3)
    s["tw_mean"] = float(tw_mean)
    s["tw_std"] = float(np.sqrt((w * (x - tw_mean) ** 2).sum() / w.sum()))
    # a new run starts where the clock skips an invalid point or the band-sign changes
    contiguous = np.empty(n, dtype=bool)
    contiguous[0] = False
    contiguous[1:] = np.diff(idx) == 1
    sign = np.where(x >= 0, 1, -1).astype(np.int8)
    for b in bands:
        hit = np.abs(x) >= b
        state = sign * hit
        cont = np.empty(n, dtype=bool)
        cont[0] = False
        cont[1:] = contiguous[1:] & (state[1:] == state[:-1])
        s[f"share_events_{b:g}"] = float(hit.mean())
        s[f"share_time_{b:g}"] = float(w[hit].sum() / w.sum())
        s[f"episodes_{b:g}"] = int((hit & ~cont).sum())
    return s


# ---------------------------------------------------------------- time series
def timeseries(a):
    """pandas rolling z-score and numpy X @ X.T / corrcoef on arbkit-bench's files."""
    report, check = {}, {}
    if a.rolling:
        x = pd.Series(np.fromfile(a.rolling, dtype="<f8"))

        def rolling_z():
            r = x.rolling(a.window, min_periods=1)
            mean, std = r.mean(), r.std()
            return mean, std, (x - mean) / std.where(std > 0)

        log(f"pandas: rolling mean/std/z over {len(x)} points, window {a.window}")
        (_, std, z), report["rolling"] = timed(rolling_z, a.repeat)
        report["rolling"] = {"pandas_s": report["rolling"]}
        check["z_last"], check["std_last"] = float(z.iloc[-1]), float(std.iloc[-1])
    if a.matrix:
        flat = np.fromfile(a.matrix, dtype="<f8")
        m = flat.reshape(a.series, flat.size // a.series)
        log(f"numpy: X @ X.T and corrcoef of {m.shape[0]} x {m.shape[1]}")
        _, xxt = timed(lambda: m @ m.T, a.repeat)
        corr, cc = timed(lambda: np.corrcoef(m), a.repeat)
        report["matrix"] = {"numpy_xxt_s": xxt, "numpy_corrcoef_s": cc}
        check["corr_0_1"], check["corr_0_last"] = float(corr[0, 1]), float(corr[0, -1])
    report["check"] = check
    report["versions"] = {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__}
    report["openblas_num_threads"] = os.environ.get("OPENBLAS_NUM_THREADS")
    return report


# ---------------------------------------------------------------- main
ENGINES = {"polars": (polars_ingest, polars_align), "pandas": (pandas_ingest, pandas_align)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="+", help="one quotes CSV per venue")
    ap.add_argument("--rolling", help="raw float64 series for the rolling z-score")
    ap.add_argument("--window", type=int, default=300)
    ap.add_argument("--matrix", help="raw float64 N x T matrix, series after series")
    ap.add_argument("--series", type=int, default=64, help="N of --matrix")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-stale-us", type=int, default=5_000_000)
    ap.add_argument("--bands", default="0.05,0.1", help="comma-separated |premium| bands, percent")
    ap.add_argument("--only", default="polars,pandas,numpy", help="subset of polars,pandas,numpy")
    a = ap.parse_args()
    if a.rolling or a.matrix:
        json.dump(timeseries(a), sys.stdout)
        sys.stdout.write("\n")
        return
    bands = [float(b) for b in a.bands.split(",") if b.strip()]
    only = {s.strip() for s in a.only.split(",") if s.strip()}
    mods = {"polars": pl, "pandas": pd}
    if not a.files or len(a.files) < 2 or a.repeat < 1 or not only <= {"polars", "pandas", "numpy"}:
        ap.error("need >= 2 files, --repeat >= 1, --only within polars,pandas,numpy")
    if any(mods[lib] is None for lib in only & mods.keys()) or pl is pd is None:
        ap.error("a requested library is not installed")

    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("pandas", "polars", "pyarrow"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            pass
    report = {"versions": versions, "cpu_count": os.cpu_count(),
              "polars_threads": pl.thread_pool_size() if pl is not None else None,
              "bytes": sum(os.path.getsize(f) for f in a.files),
              "rows": None, "points": None, "valid_points": None}

    results = {}
    for lib in [lib for lib in ENGINES if lib in only]:
        ingest, align = ENGINES[lib]
        r = report[lib] = {}
        log(f"{lib}: ingest")
        frames, r["ingest_s"] = timed(lambda: ingest(a.files), a.repeat)
        if lib == "pandas" and "pyarrow" in versions:
            log("pandas: ingest (pyarrow engine)")
            _, r["ingest_pyarrow_s"] = timed(lambda: ingest(a.files, engine="pyarrow"), a.repeat)
        log(f"{lib}: align + premium")
        results[lib], r["align_premium_s"] = timed(lambda: align(frames, a.max_stale_us), a.repeat)
        report["rows"] = sum(len(f) for f in frames)
        del frames
    if not results:  # numpy only: align once, untimed, with whichever library is installed
        lib = "polars" if pl is not None else "pandas"
        ingest, align = ENGINES[lib]
        log(f"{lib}: aligning once (untimed) for the numpy statistics")
        frames = ingest(a.files)
        results[lib] = align(frames, a.max_stale_us)
        report["rows"] = sum(len(f) for f in frames)
        del frames

    arrays = {}
    for lib, (clock, out) in results.items():
        arrays[lib] = {c: np.ascontiguousarray(out[c].to_numpy()) for c in out.columns}
        points = clock.select(pl.len()).collect().item() if lib == "polars" else len(clock)
        report["points"], report["valid_points"] = points, len(out)
    ref = arrays.get("polars") or arrays["pandas"]
    x, w, idx = ref["premium"], ref["w"], ref["idx"]

    if "numpy" in only:
        log("numpy: stats")
        check, stats_s = timed(lambda: numpy_stats(x, w, idx, bands), a.repeat)
        report["numpy"] = {"stats_s": stats_s}
    else:
        check = numpy_stats(x, w, idx, bands)
    if x.size:
        check["exec_mean"] = float(ref["exec_premium"].mean())
        check["exec_max"] = float(ref["exec_premium"].max())
    if len(arrays) == 2:  # both libraries must give the same valid points and premiums
        p, q = arrays["polars"], arrays["pandas"]
        same = np.array_equal(p["idx"], q["idx"])
        diff = (max(float(np.abs(p[c] - q[c]).max()) for c in ("premium", "exec_premium"))
                if same and x.size else 0.0)
        check["polars_pandas_agree"] = bool(same and diff <= 1e-9)
        check["polars_pandas_max_abs_diff"] = diff if same else None
        if not check["polars_pandas_agree"]:
            log("WARNING: polars and pandas aligned results differ")
    report["check"] = check
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
