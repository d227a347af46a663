"""Writes a `rest.snapshots` recording of Binance BTCUSDT and ETHUSDT as `arbkit record`
writes one (its measurements: docs/performance.md, "JSON recordings"): a poll every
100 ms, each a book-ticker response for both symbols and, with `--books`, a depth
response of BTCUSDT (20 levels a side), the mid on a random walk.

    python3 bench/recording.py spot|linear POLLS SEED OUT.jsonl [--books]
    python3 bench/recording.py spot 2000000 3 spot.jsonl --books
"""
import json
import random
import sys


def write(out, market, polls, seed, books, start=1_735_689_600_000_000):
    rng = random.Random(seed)
    api = "/api/v3" if market == "spot" else "/fapi/v1"
    mid = 9_400_000 + (0 if market == "spot" else 3_000)  # cents
    for k in range(polls):
        time = start + k * 100_000 + rng.randrange(20_000)
        mid += rng.randrange(-40, 41)
        bid, ask = mid - 1, mid + 1
        millis = time // 1000 - 30

        def price(cents):
            return f"{cents // 100}.{cents % 100:02d}"

        def ticker(symbol, b, a, size):
            item = {"symbol": symbol, "bidPrice": price(b), "bidQty": size, "askPrice": price(a), "askQty": "0.750"}
            if market == "linear":
                item["time"] = millis
            return item

        response = [ticker("BTCUSDT", bid, ask, f"{rng.randrange(1, 4000) / 1000:.3f}"), ticker("ETHUSDT", bid // 28, bid // 28 + 1, "5.000")]
        line = {"recv_ts_us": time, "venue": "binance", "endpoint": f"{api}/ticker/bookTicker", "params": {}, "status": 200, "response": response}
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
        if books:
            depth = {
                "lastUpdateId": k,
                "bids": [[price(bid - 2 * i), f"{rng.randrange(1, 900) / 100:.2f}"] for i in range(20)],
                "asks": [[price(ask + 2 * i), f"{rng.randrange(1, 900) / 100:.2f}"] for i in range(20)],
            }
            if market == "linear":
                depth["T"] = millis
            params = {"symbol": "BTCUSDT", "limit": "20"}
            line = {"recv_ts_us": time + 900, "venue": "binance", "endpoint": f"{api}/depth", "params": params, "status": 200, "response": depth}
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    market, polls, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(path, "w") as out:
        write(out, market, polls, seed, "--books" in sys.argv[5:])
