"""Writes a Tardis `incremental_book_L2` CSV of two instruments' books on random walks,
made as the tests' `TardisL2Generator` makes them (its measurements: docs/performance.md,
"Rebuilt L2 books"): updates before the first snapshot, a snapshot every 400 messages of
an instrument, 1-4 level changes a message, levels on the wrong side of the mid deleted,
now and then an instant with every level deleted or a crossing bid.

    python3 bench/l2books.py EXCHANGE MESSAGES SEED OUT.csv
    python3 bench/l2books.py binance-futures 1280000 3 a.csv
"""
import random
import sys


def write(out, exchange, symbols, messages, seed, gap=400_000, snapshot_every=400):
    rng = random.Random(seed)
    books = [dict(bids={}, asks={}, mid=300_000, started=False, messages=0, crossing=None) for _ in symbols]
    time = 1_700_000_000_000_000

    def decimal(tenths):
        return f"{tenths // 10}.{tenths % 10}"

    for m in range(messages):
        if m == 0 or rng.randrange(9) != 0:
            time += 1 + rng.randrange(gap)
        k = rng.randrange(len(symbols))
        book = books[k]
        prefix = f"{exchange},{symbols[k]},{time},{time + 1500}"

        def row(snapshot, bid, tenths, size):
            out.write(f"{prefix},{'true' if snapshot else 'false'},{'bid' if bid else 'ask'},{decimal(tenths)},{decimal(size)}\n")
            side = book["bids"] if bid else book["asks"]
            if size == 0:
                side.pop(tenths, None)
            else:
                side[tenths] = size

        book["messages"] += 1
        if not book["started"] and rng.randrange(3) == 0:
            out.write(f"{prefix},false,bid,{decimal(book['mid'] - 1)},1.0\n")
            continue
        if not book["started"] or book["messages"] % snapshot_every == 0:
            book.update(started=True, bids={}, asks={}, crossing=None)
            for i in range(1 + rng.randrange(8)):
                row(True, True, book["mid"] - 1 - i, 1 + rng.randrange(40))
            for i in range(1 + rng.randrange(8)):
                row(True, False, book["mid"] + 1 + i, 1 + rng.randrange(40))
            continue
        if book["crossing"] is not None:
            row(False, True, book["crossing"], 0)
            book["crossing"] = None
        book["mid"] += rng.randrange(7) - 3
        for price in sorted(book["bids"]):
            if price >= book["mid"]:
                row(False, True, price, 0)
        for price in sorted(book["asks"]):
            if price <= book["mid"]:
                row(False, False, price, 0)
        case = rng.randrange(200)
        if case == 0:
            for price in sorted(book["bids"]):
                row(False, True, price, 0)
            for price in sorted(book["asks"]):
                row(False, False, price, 0)
        elif case in (1, 2):
            if book["asks"]:
                best = min(book["asks"])
                row(False, True, best + 2, 1 + rng.randrange(40))
                book["crossing"] = best + 2
        else:
            for _ in range(1 + rng.randrange(4)):
                bid = rng.randrange(2) == 0
                depth = rng.randrange(6)
                size = 0 if rng.randrange(5) == 0 else 1 + rng.randrange(40)
                row(False, bid, book["mid"] - 1 - depth if bid else book["mid"] + 1 + depth, size)


if __name__ == "__main__":
    exchange, messages, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(path, "w", buffering=1 << 20) as out:
        out.write("exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount\n")
        write(out, exchange, ["BTCUSDT", "ETHUSDT"], messages, seed)
