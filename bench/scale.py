"""The premium work of `scripts/bench-scale` in polars: the legs' Arrow IPC files (written
by `arbkit convert`) read with `pl.read_ipc` (which maps an uncompressed file), aligned as-of on the union clock with a 5 s staleness
limit (`peers.polars_align`), and the statistics of the mid premium (`peers.numpy_stats`).
Prints "seconds peak_kb": the time of that work in this process and its peak RSS.
"""
import resource
import sys
import time

import numpy as np
import polars as pl

from peers import polars_align, numpy_stats


def main(paths):
    start = time.perf_counter()
    frames = [pl.read_ipc(p).select(
        local_timestamp=pl.col("ts_us").cast(pl.Int64), bid_price="bid", ask_price="ask") for p in paths]
    _, out = polars_align(frames, 5_000_000)
    stats = numpy_stats(out["premium"].to_numpy(), out["w"].to_numpy(), out["idx"].to_numpy(), [0.05, 0.1])
    seconds = time.perf_counter() - start
    assert stats["count"] > 0
    print(f"{seconds:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")


if __name__ == "__main__":
    main(sys.argv[1:])
