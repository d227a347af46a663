"""An arbkit store (docs/formats.md §13) read with numpy: its manifest and the column
files of each series, raw little-endian Int64/Float64, one folder per UTC day."""
import json
import os

import numpy as np

DTYPES = {".i64": "<i8", ".f64": "<f8"}


def manifest(folder):
    with open(os.path.join(folder, "store.json")) as f:
        return json.load(f)


def day_folders(folder, series):
    """The day folders of one series of the store at `folder`, in time order."""
    return [os.path.join(folder, series["folder"], p["day"]) for p in series["partitions"]]


def column(folder, series, name):
    """Column `name` (`time`, `bid`, …) of one series, its days joined."""
    file = name + (".i64" if name.endswith("time") else ".f64")
    return np.concatenate([np.fromfile(os.path.join(day, file), dtype=DTYPES[file[-4:]]) for day in day_folders(folder, series)])


def column_files(folder):
    """Every column file of every series of the store, with its numpy dtype."""
    for series in manifest(folder)["series"]:
        for day in day_folders(folder, series):
            for name in sorted(os.listdir(day)):
                if name[-4:] in DTYPES:
                    yield os.path.join(day, name), DTYPES[name[-4:]]
