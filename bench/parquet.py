"""Parquet peers: a Tardis-shaped quotes table read by pyarrow and polars and written by
pyarrow, in process (interpreter start and imports not counted).

  --generate DIR --rows N   write DIR/quotes_N.snappy.parquet and .zstd.parquet with
                            pyarrow (row groups of --row-group rows), unless present:
                            exchange, symbol (strings), timestamp, local_timestamp
                            (int64 µs), ask_amount, ask_price, bid_price, bid_amount
                            (double), a seeded random walk; prints {}.
  --read PATH               time pyarrow.parquet.read_table(PATH) and
                            polars.read_parquet(PATH), then pyarrow.parquet.write_table
                            of the table read to --write OUT (zstd, as arbkit writes).

Each timing is wall clock over --repeat runs (median and every run). One JSON object
goes to stdout: {"versions", "rows", "pyarrow_read_s", "polars_read_s", "pyarrow_write_s"}.
"""
import argparse
import json
import os
import sys

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from timing import timed


def generate(folder, rows, row_group):
    paths = {c: os.path.join(folder, f"quotes_{rows}.{c}.parquet") for c in ("snappy", "zstd")}
    if all(os.path.exists(p) for p in paths.values()):
        return
    rng = np.random.default_rng(20240301)
    local = 1735689600000000 + np.cumsum(rng.integers(1, 100000, rows, dtype=np.int64))
    exchange = local - rng.integers(1000, 3000, rows, dtype=np.int64)
    mid = 93500.0 * np.exp(np.cumsum(rng.normal(0, 5e-5, rows)))
    bid_ticks = np.floor(mid * 10).astype(np.int64)
    ask_ticks = bid_ticks + rng.integers(1, 4, rows, dtype=np.int64)
    table = pa.table({
        "exchange": pa.array(["binance-futures"] * rows, pa.string()),
        "symbol": pa.array(["BTCUSDT"] * rows, pa.string()),
        "timestamp": exchange,
        "local_timestamp": local,
        "ask_amount": rng.integers(1, 5000, rows) / 1000.0,
        "ask_price": ask_ticks / 10.0,
        "bid_price": bid_ticks / 10.0,
        "bid_amount": rng.integers(1, 5000, rows) / 1000.0,
    })
    for codec, path in paths.items():
        pq.write_table(table, path + ".tmp", compression=codec, row_group_size=row_group)
        os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generate")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--row-group", type=int, default=1_000_000)
    ap.add_argument("--read")
    ap.add_argument("--write")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    if a.generate:
        generate(a.generate, a.rows, a.row_group)
        print("{}")
        return
    print(f"pyarrow/polars: {a.read}", file=sys.stderr, flush=True)
    table, pyarrow_s = timed(lambda: pq.read_table(a.read), a.repeat)
    _, polars_s = timed(lambda: pl.read_parquet(a.read), a.repeat)
    _, write_s = timed(lambda: pq.write_table(table, a.write, compression="zstd"), a.repeat)
    report = {"versions": {"pyarrow": pa.__version__, "polars": pl.__version__, "threads": pa.cpu_count()},
              "rows": table.num_rows, "pyarrow_read_s": pyarrow_s, "polars_read_s": polars_s, "pyarrow_write_s": write_s}
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
