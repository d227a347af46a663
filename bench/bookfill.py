"""Peer benchmark: the convergence backtest with book-walking fills (docs/definitions.md,
"Threshold backtest" and "Book-walking fills") as a numba `@njit` loop.

Input: two Tardis `book_snapshot_N` CSV files, the ones `arbkit backtest` reads, loaded
with polars (every side holding all N levels, as the generated files do; a side that
ends early is not supported here). The time of a row is its `local_timestamp`. The union
clock and the as-of indexes are computed with numpy as in bench/backtest.py (`align`).
Loading and aligning are timed on their own (`setup`).

The loop (`book_backtest`) is one pass over the points: signals on the valid points'
top of book (entry on exec >= entry, exit on the closing premium <= exit), fills on the
as-of books --latency-us later (a fill book older than --max-stale-us skips the
signal), no entry at the last valid point, a position still open at the end closed on
the last valid point's books. Each trade is priced when it closes, as ArbKit's
`bookTrade` prices it: quantities on the top of book, each leg's order walking its
book level by level, the liquidity taken used up until a later book of the leg shows
that price with another size or not at all, `--partial` fill / hedge / unwind,
slippage and taker fees on the VWAPs, the exit walking the following books as far as
needed. Leg failures and drawn latencies are not modelled (the scenario has none).
The used-up liquidity lives in arrays allocated once per run.

numba timings start after a warm-up call (JIT compile excluded, reported as
compile_s); wall clock over --repeat runs. One JSON object goes to stdout.
"""
import argparse
import json
import platform
import sys
import time

import numpy as np
import polars as pl
from numba import njit, __version__ as numba_version

from backtest import align, fill_index, fillable
from timing import timed

BID, ASK = 0, 1
PARTIAL = {"fill": 0, "hedge": 1, "unwind": 2}
CAPACITY = 4096  # used-up levels kept per leg and side


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def load_books(path):
    """Times, and prices and sizes of shape (2 sides, rows, levels): bids, asks, best first."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    levels = sum(1 for name in header if name.startswith("bids[") and name.endswith(".price"))
    schema = {name: pl.Float64 for name in header if name.startswith(("bids[", "asks["))}
    frame = pl.read_csv(path, columns=["local_timestamp"] + list(schema),
                        schema_overrides={"local_timestamp": pl.Int64, **schema})
    if frame.null_count().sum_horizontal()[0] > 0:
        raise SystemExit(f"{path}: a side with fewer than {levels} levels; bookfill.py reads full books only")
    def side(name, field):
        return np.column_stack([frame[f"{name}[{k}].{field}"].to_numpy() for k in range(levels)])
    prices = np.ascontiguousarray(np.stack([side("bids", "price"), side("asks", "price")]))
    sizes = np.ascontiguousarray(np.stack([side("bids", "amount"), side("asks", "amount")]))
    return frame["local_timestamp"].to_numpy().astype(np.int64), prices, sizes


@njit(cache=False)
def restore(wp, ws, wr, wq, m, row, prices, sizes, side):
    """Drops the used-up levels that a book after theirs, up to `row`, shows with another
    size or not at all; the others are checked up to `row`. Returns how many are kept."""
    keep = 0
    for e in range(m):
        kept = True
        for r in range(wr[e] + 1, row + 1):
            found = -1
            for level in range(prices.shape[2]):
                if prices[side, r, level] == wp[e]:
                    found = level
                    break
            if found < 0 or sizes[side, r, found] != ws[e]:
                kept = False
                break
        if kept:
            wp[keep], ws[keep], wr[keep], wq[keep] = wp[e], ws[e], max(wr[e], row), wq[e]
            keep += 1
    return keep


@njit(cache=False)
def take(state, leg, side, row, quantity, onward, commit, prices, sizes):
    """Walks `quantity` through leg `leg`'s `side` from the book of `row` (and the
    following books when `onward`); records what it took when `commit`.
    Returns (filled, notional, levels, last price, lowest, highest)."""
    tp, ts, tr, tq, tn, wp, ws, wr, wq = state
    slot = 2 * leg + side
    m = tn[slot]
    for e in range(m):
        wp[e], ws[e], wr[e], wq[e] = tp[slot, e], ts[slot, e], tr[slot, e], tq[slot, e]
    notional, levels, last, lowest, highest = 0.0, 0, np.nan, np.inf, -np.inf
    remaining = quantity
    r = row
    while remaining > 0 and r < prices.shape[1]:
        m = restore(wp, ws, wr, wq, m, r, prices, sizes, side)
        for level in range(prices.shape[2]):
            if not remaining > 0:
                break
            price, size = prices[side, r, level], sizes[side, r, level]
            i = -1
            for e in range(m):
                if wp[e] == price:
                    i = e
                    break
            available = size - (wq[i] if i >= 0 else 0.0)
            if not available > 0:
                continue
            t = min(available, remaining)
            remaining -= t
            notional += t * price
            levels += 1
            last = price
            lowest, highest = min(lowest, price), max(highest, price)
            if i >= 0:
                wq[i] += t
            else:
                if m == wp.size:
                    raise RuntimeError("more used-up levels than CAPACITY")
                wp[m], ws[m], wr[m], wq[m] = price, size, r, t
                m += 1
        if not onward:
            break
        r += 1
    if commit:
        for e in range(m):
            tp[slot, e], ts[slot, e], tr[slot, e], tq[slot, e] = wp[e], ws[e], wr[e], wq[e]
        tn[slot] = m
    return quantity - remaining, notional, levels, last, lowest, highest


@njit(cache=False, inline="always")
def average_price(walk, fallback):
    filled, notional, levels, last, lowest, highest = walk
    if levels == 1:
        return last
    if filled > 0:
        return min(max(notional / filled, lowest), highest)
    return fallback


@njit(cache=False, inline="always")
def closing_price(walk, quantity, fallback):
    """Closing `quantity`: the walk's levels, the rest at the last level's price."""
    filled, notional, levels, last, lowest, highest = walk
    if not quantity > 0:
        return fallback
    rest = quantity - filled
    if levels == 1 and rest == 0:
        return last
    rest_price = fallback if np.isnan(last) else last
    return min(max((notional + rest * rest_price) / quantity, min(lowest, rest_price)), max(highest, rest_price))


@njit(cache=False)
def book_trade(state, books, rich, rows, rich_bid, cheap_ask, rich_ask, cheap_bid, fees, s, notional, partial):
    """The PnL of one round trip whose fills are on `rows` (rich entry, cheap entry,
    rich exit, cheap exit), walking the books as `ConvergenceBacktest.bookTrade` does."""
    cheap = 1 - rich
    prices, sizes = books[rich]
    cheap_prices, cheap_sizes = books[cheap]
    rich_fee, cheap_fee = fees[rich], fees[cheap]
    rich_q, cheap_q = notional / (rich_bid * (1 - s)), notional / (cheap_ask * (1 + s))
    at_rich = take(state, rich, BID, rows[0], rich_q, False, False, prices, sizes)[0] / rich_q
    at_cheap = take(state, cheap, ASK, rows[1], cheap_q, False, False, cheap_prices, cheap_sizes)[0] / cheap_q
    onward = partial == 1
    if onward:
        matched = min(take(state, rich, BID, rows[0], rich_q, True, False, prices, sizes)[0] / rich_q,
                      take(state, cheap, ASK, rows[1], cheap_q, True, False, cheap_prices, cheap_sizes)[0] / cheap_q)
    else:
        matched = min(at_rich, at_cheap)
    ordered_rich, ordered_cheap = (at_rich, at_cheap) if partial == 2 else (matched, matched)
    rich_walk = take(state, rich, BID, rows[0], rich_q * ordered_rich, onward, True, prices, sizes)
    cheap_walk = take(state, cheap, ASK, rows[1], cheap_q * ordered_cheap, onward, True, cheap_prices, cheap_sizes)
    rich_sell = average_price(rich_walk, rich_bid) * (1 - s)
    cheap_buy = average_price(cheap_walk, cheap_ask) * (1 + s)
    rich_held, cheap_held = min(rich_walk[0], rich_q * matched), min(cheap_walk[0], cheap_q * matched)
    unwound, unwind_pnl, unwind_fees = 0.0, 0.0, 0.0
    if partial == 2:
        if rich_walk[0] > rich_held:
            unwound = rich_walk[0] - rich_held
            back = take(state, rich, ASK, rows[0], unwound, True, True, prices, sizes)
            buy = closing_price(back, unwound, prices[ASK, rows[0], 0]) * (1 + s)
            unwind_fees = rich_fee * unwound * (rich_sell + buy)
            unwind_pnl = unwound * (rich_sell - buy) - unwind_fees
        elif cheap_walk[0] > cheap_held:
            unwound = cheap_walk[0] - cheap_held
            back = take(state, cheap, BID, rows[1], unwound, True, True, cheap_prices, cheap_sizes)
            sell = closing_price(back, unwound, cheap_prices[BID, rows[1], 0]) * (1 - s)
            unwind_fees = cheap_fee * unwound * (cheap_buy + sell)
            unwind_pnl = unwound * (sell - cheap_buy) - unwind_fees
    rich_close = take(state, rich, ASK, rows[2], rich_held, True, True, prices, sizes)
    cheap_close = take(state, cheap, BID, rows[3], cheap_held, True, True, cheap_prices, cheap_sizes)
    rich_buy = closing_price(rich_close, rich_held, rich_ask) * (1 + s)
    cheap_sell = closing_price(cheap_close, cheap_held, cheap_bid) * (1 - s)
    fees_total = rich_fee * rich_held * (rich_sell + rich_buy) + cheap_fee * cheap_held * (cheap_buy + cheap_sell) + unwind_fees
    return rich_held * (rich_sell - rich_buy) + cheap_held * (cheap_sell - cheap_buy) - (fees_total - unwind_fees) + unwind_pnl


@njit(cache=False)
def book_backtest(clock, valid, s0, s1, t0, t1, books, tops, entry, exit_, fees, slip_bps, lat0, lat1, max_stale,
                  notional, partial):
    """Trades and total PnL of one run with book-walking fills."""
    (bid0, ask0), (bid1, ask1) = tops
    n = clock.size
    first, last = -1, -1
    for i in range(n):
        if valid[i]:
            if first < 0:
                first = i
            last = i
    if first < 0:
        return 0, 0.0
    # The used-up levels per leg and side (price, size, row checked, quantity), and a
    # scratch copy for the walk in progress: allocated once per run.
    state = (np.empty((4, CAPACITY)), np.empty((4, CAPACITY)), np.empty((4, CAPACITY), dtype=np.int64),
             np.empty((4, CAPACITY)), np.zeros(4, dtype=np.int64), np.empty(CAPACITY), np.empty(CAPACITY),
             np.empty(CAPACITY, dtype=np.int64), np.empty(CAPACITY))
    rows = np.empty(4, dtype=np.int64)
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
                rows[2], rows[3], rich_ask, cheap_bid = j0, j1, ask0[j0], bid1[j1]
            else:
                rows[2], rows[3], rich_ask, cheap_bid = j1, j0, ask1[j1], bid0[j0]
            pnl += book_trade(state, books, rich, rows, rich_bid, cheap_ask, rich_ask, cheap_bid, fees, s, notional, partial)
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
            rows[0], rows[1], rich_bid, cheap_ask = j0, j1, bid0[j0], ask1[j1]
        else:
            rows[0], rows[1], rich_bid, cheap_ask = j1, j0, bid1[j1], ask0[j0]
        is_open = True
    if is_open:  # forced exit on the last valid point's own books
        a, b = s0[last], s1[last]
        if rich == 0:
            rows[2], rows[3], rich_ask, cheap_bid = a, b, ask0[a], bid1[b]
        else:
            rows[2], rows[3], rich_ask, cheap_bid = b, a, ask1[b], bid0[a]
        pnl += book_trade(state, books, rich, rows, rich_bid, cheap_ask, rich_ask, cheap_bid, fees, s, notional, partial)
        trades += 1
    return trades, pnl


def floats(text):
    return np.array([float(x) for x in text.split(",") if x.strip()], dtype=np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--books", nargs=2, required=True, help="two Tardis book_snapshot_N CSV files")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-stale-us", type=int, required=True)
    ap.add_argument("--latency-us", type=int, required=True)
    ap.add_argument("--slippage-bps", type=float, required=True)
    ap.add_argument("--notional", type=float, required=True)
    ap.add_argument("--fees", type=floats, required=True, help="taker fee of each leg")
    ap.add_argument("--entry", type=float, required=True)
    ap.add_argument("--exit", type=float, required=True)
    ap.add_argument("--partial", choices=sorted(PARTIAL), required=True)
    a = ap.parse_args()

    def setup():
        legs = [load_books(path) for path in a.books]
        tops = tuple((p[BID, :, 0].copy(), p[ASK, :, 0].copy()) for _, p, _ in legs)
        return legs, tops, align([(t, top[0], top[1]) for (t, _, _), top in zip(legs, tops)], a.max_stale_us)

    log("polars: read the book files; numpy: align")
    (legs, tops, (clock, valid, s0, s1)), setup_runs = timed(setup, a.repeat)
    books = tuple((p, z) for _, p, z in legs)

    def one():
        return book_backtest(clock, valid, s0, s1, legs[0][0], legs[1][0], books, tops, a.entry, a.exit, a.fees,
                             a.slippage_bps, a.latency_us, a.latency_us, a.max_stale_us, a.notional, PARTIAL[a.partial])

    start = time.perf_counter()
    one()
    compile_s = time.perf_counter() - start
    log("numba: book-fill backtest")
    (trades, pnl), runs = timed(one, a.repeat)
    report = {
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "numba": numba_version, "polars": pl.__version__},
        "points": int(clock.size), "valid_points": int(valid.sum()), "setup": {"seconds": setup_runs}, "compile_s": compile_s,
        "bookfill": {"trades": int(trades), "pnl": float(pnl), "seconds": runs},
    }
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
