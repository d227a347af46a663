"""Peer benchmark: venue files read by polars and pandas, and a store scanned
with numpy.memmap.

  --file KIND PATH   read PATH (plain or .gz) fully with the columns ArbKit uses, as
                     explicit dtypes (polars `pl.read_csv`, pandas `pd.read_csv`, C
                     engine); KIND is binance-bookTicker, binance-aggTrades or
                     bybit-trading. Repeatable.
  --cache DIR        open DIR/store.json (an arbkit store), `numpy.memmap` every column
                     file of its partitions and sum its 64-bit words (wrapping, as
                     uint64): one full scan.

Each timing is wall clock over --repeat runs (median and every run). One JSON object
goes to stdout: {"files": [{"path", "rows", "polars_s", "pandas_s"}], "memmap": {...}}.
"""
import argparse
import json
import sys

import numpy as np
import pandas as pd
import polars as pl

import store
from timing import timed

COLUMNS = {
    "binance-bookTicker": {"best_bid_price": "f", "best_bid_qty": "f", "best_ask_price": "f",
                           "best_ask_qty": "f", "transaction_time": "i", "event_time": "i"},
    "binance-aggTrades": {"price": "f", "quantity": "f", "transact_time": "i"},
    "bybit-trading": {"timestamp": "f", "symbol": "s", "size": "f", "price": "f"},
}


def polars_read(path, cols):
    kinds = {"f": pl.Float64, "i": pl.Int64, "s": pl.String}
    return pl.read_csv(path, columns=list(cols), schema_overrides={c: kinds[k] for c, k in cols.items()})


def pandas_read(path, cols):
    kinds = {"f": "float64", "i": "int64", "s": "object"}
    return pd.read_csv(path, usecols=list(cols), dtype={c: kinds[k] for c, k in cols.items()})


def memmap_scan(folder):
    """Sums every column file of an arbkit store (docs/formats.md) as little-endian words."""
    total = 0
    for path, _ in store.column_files(folder):
        total = (total + int(np.memmap(path, dtype="<u8", mode="r").sum(dtype=np.uint64))) % 2**64
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", nargs=2, action="append", default=[], metavar=("KIND", "PATH"))
    ap.add_argument("--cache", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    report = {"versions": {"numpy": np.__version__, "pandas": pd.__version__, "polars": pl.__version__},
              "files": [], "memmap": []}
    for kind, path in a.file:
        cols = COLUMNS[kind]
        print(f"polars/pandas: {path}", file=sys.stderr, flush=True)
        frame, polars_s = timed(lambda: polars_read(path, cols), a.repeat)
        rows = len(frame)
        del frame
        _, pandas_s = timed(lambda: pandas_read(path, cols), a.repeat)
        report["files"].append({"path": path, "rows": rows, "polars_s": polars_s, "pandas_s": pandas_s})
    with np.errstate(over="ignore"):
        for folder in a.cache:
            print(f"numpy.memmap: {folder}", file=sys.stderr, flush=True)
            total, scan_s = timed(lambda: memmap_scan(folder), a.repeat)
            report["memmap"].append({"path": folder, "sum": total, "scan_s": scan_s})
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
