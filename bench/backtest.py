"""Peer benchmark: the convergence backtest (docs/definitions.md, mode `convergence`)
as a numba `@njit` loop, one run and a brute-force sweep, plus vectorbt.

Input: two stores written by `arbkit convert` (one series each); their
column files are raw little-endian Int64/Float64 and are read with np.fromfile, so
both sides work on the same bytes. The union clock and each leg's as-of quote index
are computed once with numpy: points from the first time both legs have quoted, valid
when both quotes are at most --max-stale-us old and priced (finite, > 0). Opening and
aligning is timed on its own (`setup`), so that a sweep can be compared from the
files to the results, as `arbkit sweep` is timed.

  backtest   one run of the rules with --entry/--exit: signal on a valid point's
             quotes (enter on exec >= entry, short the rich leg; exit when the
             closing premium ask_R / bid_C - 1 <= exit), fills on the as-of quotes
             --latency-us later (a fill quote older than max-stale skips the signal),
             slippage, per-leg taker fees, no entry at the last valid point, a
             position still open at the end closed at the last valid point's quotes.
  sweep      the same loop for every cell of entries x exits x leg-2 fees, brute
             force (one full pass per cell), on one thread.
  vectorbt   Portfolio.from_signals on the closest equivalent it can express (see
             `vectorbt_cell`), timed on --vectorbt-cells cells and scaled to all.

numba timings start after a warm-up call, so JIT compilation is excluded (and
reported as compile_s). Wall clock (time.perf_counter) over --repeat runs; median and
every run. One JSON object goes to stdout; progress to stderr.
"""
import argparse
import gc
import json
import platform
import sys
import time

import numpy as np
from numba import njit, __version__ as numba_version

import store
from timing import timed


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def load_leg(folder):
    """The one series of an arbkit store (docs/formats.md): its days' columns joined."""
    series = store.manifest(folder)["series"][0]
    return tuple(store.column(folder, series, name) for name in ("time", "bid", "ask"))


def align(legs, max_stale):
    """Union clock from the first time both legs quoted; as-of index per leg; validity."""
    start = max(t[0] for t, _, _ in legs)
    clock = np.union1d(legs[0][0], legs[1][0])
    clock = clock[clock >= start]
    states, valid = [], np.ones(clock.size, dtype=np.bool_)
    for t, bid, ask in legs:
        s = np.searchsorted(t, clock, side="right") - 1
        b, a = bid[s], ask[s]
        valid &= (clock - t[s] <= max_stale) & (b > 0) & (a > 0) & np.isfinite(b) & np.isfinite(a)
        states.append(s.astype(np.int64))
    return clock, valid, states[0], states[1]


@njit(cache=False, inline="always")
def fill_index(t, s, point, clock, latency):
    """The as-of quote index of one leg at the fill time clock[point] + latency."""
    when = clock[point] + latency
    j = s[point]
    while j + 1 < t.size and t[j + 1] <= when:
        j += 1
    return j, when - t[j]


@njit(cache=False, inline="always")
def fillable(age0, age1, j0, j1, bid0, ask0, bid1, ask1, max_stale):
    return (age0 <= max_stale and age1 <= max_stale and np.isfinite(bid0[j0]) and np.isfinite(ask0[j0])
            and np.isfinite(bid1[j1]) and np.isfinite(ask1[j1]))


@njit(cache=False)
def convergence(clock, valid, s0, s1, t0, bid0, ask0, t1, bid1, ask1,
                entry, exit_, fee0, fee1, slip_bps, lat0, lat1, max_stale, notional):
    """Trades and total PnL of one run; the rules of ConvergenceBacktest.decide + price."""
    n = clock.size
    first, last = -1, -1
    for i in range(n):
        if valid[i]:
            if first < 0:
                first = i
            last = i
    if first < 0:
        return 0, 0.0
    s = slip_bps / 10_000
    trades, pnl = 0, 0.0
    is_open, rich = False, 0
    rich_bid, cheap_ask = 0.0, 0.0
    for i in range(first, last + 1):
        if not valid[i]:
            continue
        a, b = s0[i], s1[i]
        if is_open:
            if rich == 0:
                closing = (ask0[a] / bid1[b] - 1) * 100
            else:
                closing = (ask1[b] / bid0[a] - 1) * 100
            if not closing <= exit_:
                continue
            j0, age0 = fill_index(t0, s0, i, clock, lat0)
            j1, age1 = fill_index(t1, s1, i, clock, lat1)
            if not fillable(age0, age1, j0, j1, bid0, ask0, bid1, ask1, max_stale):
                continue  # stale or one-sided fill: the position stays open
            if rich == 0:
                rich_ask, cheap_bid = ask0[j0], bid1[j1]
            else:
                rich_ask, cheap_bid = ask1[j1], bid0[j0]
            pnl += trade_pnl(rich_bid, cheap_ask, rich_ask, cheap_bid, rich, fee0, fee1, s, notional)
            trades += 1
            is_open = False
            continue
        if i == last:
            break
        forward = (bid0[a] / ask1[b] - 1) * 100
        backward = (bid1[b] / ask0[a] - 1) * 100
        if not max(forward, backward) >= entry:
            continue
        j0, age0 = fill_index(t0, s0, i, clock, lat0)
        j1, age1 = fill_index(t1, s1, i, clock, lat1)
        if not fillable(age0, age1, j0, j1, bid0, ask0, bid1, ask1, max_stale):
            continue  # stale or one-sided fill: no entry
        rich = 0 if forward >= backward else 1
        if rich == 0:
            rich_bid, cheap_ask = bid0[j0], ask1[j1]
        else:
            rich_bid, cheap_ask = bid1[j1], ask0[j0]
        is_open = True
    if is_open:  # forced exit at the last valid point's own quotes
        a, b = s0[last], s1[last]
        if rich == 0:
            rich_ask, cheap_bid = ask0[a], bid1[b]
        else:
            rich_ask, cheap_bid = ask1[b], bid0[a]
        pnl += trade_pnl(rich_bid, cheap_ask, rich_ask, cheap_bid, rich, fee0, fee1, s, notional)
        trades += 1
    return trades, pnl


@njit(cache=False, inline="always")
def trade_pnl(rich_bid, cheap_ask, rich_ask, cheap_bid, rich, fee0, fee1, s, notional):
    rich_sell, cheap_buy = rich_bid * (1 - s), cheap_ask * (1 + s)
    rich_buy, cheap_sell = rich_ask * (1 + s), cheap_bid * (1 - s)
    q_rich, q_cheap = notional / rich_sell, notional / cheap_buy
    fee_rich, fee_cheap = (fee0, fee1) if rich == 0 else (fee1, fee0)
    fees = fee_rich * q_rich * (rich_sell + rich_buy) + fee_cheap * q_cheap * (cheap_buy + cheap_sell)
    return q_rich * (rich_sell - rich_buy) + q_cheap * (cheap_sell - cheap_buy) - fees


@njit(cache=False)
def brute_force(clock, valid, s0, s1, t0, bid0, ask0, t1, bid1, ask1,
                entries, exits, fees1, fee0, slip_bps, lat0, lat1, max_stale, notional):
    """Every cell (entry slowest, then exit, then fee) run in full."""
    cells = entries.size * exits.size * fees1.size
    trades = np.empty(cells, dtype=np.int64)
    pnl = np.empty(cells, dtype=np.float64)
    c = 0
    for e in entries:
        for x in exits:
            for f in fees1:
                trades[c], pnl[c] = convergence(clock, valid, s0, s1, t0, bid0, ask0, t1, bid1, ask1,
                                                e, x, fee0, f, slip_bps, lat0, lat1, max_stale, notional)
                c += 1
    return trades, pnl


def vectorbt_cell(vbt, fills, entry, exit_, fees, slip_bps, notional):
    """The closest `Portfolio.from_signals` equivalent of one cell, on the valid points.

    Two columns (leg 1, leg 2) in one group with shared cash. Signals come from the
    same premiums; a forward trade (leg 1 rich) is a short entry on column 0 and a long
    entry on column 1, a backward one the opposite; the exit signals of each direction
    are its closing premium <= exit. Prices are the as-of mids at signal + latency with
    a per-point slippage of half the spread plus the slippage, so a buy fills at
    ~ask (1 + s) and a sell at ~bid (1 - s) (exact only to first order: vectorbt has one
    slippage per point, not per side). Size is `notional` in value per leg. What it
    cannot express: a fill skipped for a stale quote (the signal is dropped instead),
    the coupling "one position at a time" across columns (both columns get the same
    signals, so they stay in step), and the forced exit at the last point's quotes
    (vectorbt values the open position at the last price instead).
    """
    exec_, forward, closing_fwd, closing_bwd, price0, price1, half0, half1, fillable = fills
    enter = (exec_ >= entry) & fillable
    enter[-1] = False
    fwd, bwd = enter & forward, enter & ~forward
    exit_fwd = (closing_fwd <= exit_) & fillable
    exit_bwd = (closing_bwd <= exit_) & fillable
    s = slip_bps / 10_000
    pf = vbt.Portfolio.from_signals(
        close=np.column_stack([price0, price1]),
        entries=np.column_stack([bwd, fwd]), exits=np.column_stack([exit_bwd, exit_fwd]),
        short_entries=np.column_stack([fwd, bwd]), short_exits=np.column_stack([exit_fwd, exit_bwd]),
        size=notional, size_type="value", fees=np.array([fees]),
        slippage=np.column_stack([half0, half1]) + s,
        group_by=True, cash_sharing=True, init_cash=1e12, upon_opposite_entry="ignore",
        freq="1s")
    return int(pf.trades.count()) // 2, float(pf.total_profit())


def vectorbt_inputs(clock, valid, s0, s1, legs, lat, max_stale):
    """Per valid point: premiums, directions and the latency-shifted fill mids."""
    (t0, bid0, ask0), (t1, bid1, ask1) = legs
    v = np.flatnonzero(valid)
    a, b = s0[v], s1[v]
    forward_p = (bid0[a] / ask1[b] - 1) * 100
    backward_p = (bid1[b] / ask0[a] - 1) * 100
    cols = []
    fillable = np.ones(v.size, dtype=np.bool_)
    for (t, bid, ask), latency in zip(legs, lat):
        j = np.searchsorted(t, clock[v] + latency, side="right") - 1
        fillable &= clock[v] + latency - t[j] <= max_stale
        mid = (bid[j] + ask[j]) / 2
        cols.append((mid, (ask[j] - mid) / mid))
    return (np.maximum(forward_p, backward_p), forward_p >= backward_p,
            (ask0[a] / bid1[b] - 1) * 100, (ask1[b] / bid0[a] - 1) * 100,
            cols[0][0], cols[1][0], cols[0][1], cols[1][1], fillable)


def floats(text):
    return np.array([float(x) for x in text.split(",") if x.strip()], dtype=np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--legs", nargs=2, required=True, help="two columnar cache folders")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-stale-us", type=int, required=True)
    ap.add_argument("--latency-us", type=int, required=True)
    ap.add_argument("--slippage-bps", type=float, required=True)
    ap.add_argument("--notional", type=float, required=True)
    ap.add_argument("--fees", type=floats, required=True, help="taker fee of each leg")
    ap.add_argument("--entry", type=float, required=True)
    ap.add_argument("--exit", type=float, required=True)
    ap.add_argument("--sweep-entries", type=floats)
    ap.add_argument("--sweep-exits", type=floats)
    ap.add_argument("--sweep-fees", type=floats, help="leg 2's fee axis")
    ap.add_argument("--sweep-repeat", type=int, default=None)
    ap.add_argument("--vectorbt-cells", type=int, default=0, help="cells timed with vectorbt (0: skip)")
    ap.add_argument("--only", default="backtest,sweep")
    a = ap.parse_args()
    only = {s.strip() for s in a.only.split(",") if s.strip()}

    versions = {"python": platform.python_version(), "numpy": np.__version__, "numba": numba_version}
    def setup():
        legs = [load_leg(folder) for folder in a.legs]
        return legs, align(legs, a.max_stale_us)

    log("numpy: open the caches and align")
    (legs, (clock, valid, s0, s1)), setup_runs = timed(setup, a.repeat)
    (t0, bid0, ask0), (t1, bid1, ask1) = legs
    data = (clock, valid, s0, s1, t0, bid0, ask0, t1, bid1, ask1)
    report = {"versions": versions, "points": int(clock.size), "valid_points": int(valid.sum()), "setup": {"seconds": setup_runs}}
    common = (a.slippage_bps, a.latency_us, a.latency_us, a.max_stale_us, a.notional)

    def one():
        return convergence(*data, a.entry, a.exit, a.fees[0], a.fees[1], *common)

    start = time.perf_counter()
    one()
    report["compile_s"] = time.perf_counter() - start
    if "backtest" in only:
        log("numba: backtest")
        (trades, pnl), runs = timed(one, a.repeat)
        report["backtest"] = {"trades": int(trades), "pnl": float(pnl), "seconds": runs}

    if "sweep" in only and a.sweep_entries is not None:
        entries, exits, fees = a.sweep_entries, a.sweep_exits, a.sweep_fees

        def sweep():
            return brute_force(*data, entries, exits, fees, a.fees[0], *common)

        start = time.perf_counter()  # warm-up on one cell: compiles brute_force
        brute_force(*data, entries[:1], exits[:1], fees[:1], a.fees[0], *common)
        report["sweep_compile_s"] = time.perf_counter() - start
        log(f"numba: brute-force sweep of {entries.size * exits.size * fees.size} cells")
        (trades, pnl), runs = timed(sweep, a.sweep_repeat or a.repeat)
        report["sweep"] = {"trades": trades.tolist(), "pnl": pnl.tolist(), "seconds": runs}

        if a.vectorbt_cells > 0:
            report["vectorbt"] = run_vectorbt(a, legs, data, entries, exits, fees)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


def run_vectorbt(a, legs, data, entries, exits, fees):
    try:
        import vectorbt as vbt
    except Exception as error:  # not installed, or broken against this numpy/pandas
        return {"error": f"import failed: {type(error).__name__}: {error}"}
    clock, valid, s0, s1 = data[:4]
    inputs = vectorbt_inputs(clock, valid, s0, s1, legs, (a.latency_us, a.latency_us), a.max_stale_us)
    cells = [(e, x, f) for e in entries for x in exits for f in fees][: a.vectorbt_cells]
    out = {"version": vbt.__version__, "cells": [], "cell_seconds": []}
    try:
        vectorbt_cell(vbt, inputs, cells[0][0], cells[0][1], [a.fees[0], cells[0][2]], a.slippage_bps, a.notional)  # compiles
        for e, x, f in cells:
            log(f"vectorbt: cell entry {e} exit {x} fee {f}")
            gc.collect()
            start = time.perf_counter()
            trades, pnl = vectorbt_cell(vbt, inputs, e, x, [a.fees[0], f], a.slippage_bps, a.notional)
            out["cell_seconds"].append(time.perf_counter() - start)
            out["cells"].append([trades, pnl])
    except Exception as error:
        out["error"] = f"{type(error).__name__}: {error}"
    return out


if __name__ == "__main__":
    main()
