"""The timing loop every peer script uses, so that all sides are timed alike."""
import gc
import statistics
import time


def timed(fn, repeat):
    """Run fn() `repeat` times; return (last result, {"median", "runs"})."""
    runs, result = [], None
    for _ in range(repeat):
        result = None  # free the previous run's output before the next one
        gc.collect()
        start = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - start)
    return result, {"median": statistics.median(runs), "runs": runs}
