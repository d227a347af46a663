"""A stand-in for the venues' public REST APIs on 127.0.0.1, for the recorder's tests.

Usage: venue_server.py FIXTURES_DIR SCENARIO_JSON LOG_PATH

Answers each known path with its fixture body. SCENARIO_JSON maps a path to a list of
behaviours for its first requests, in order (then "ok"):
  ok             200 and the fixture
  429:S, 418:S   that status with Retry-After: S (429 alone: no Retry-After)
  500            500 with an HTML page
  not-json       200 with an HTML page
  cut            200 with the first half of the fixture (JSON cut short)
  slow:S         200 with the fixture sent a byte at a time over S seconds
  drop           200 announcing the whole fixture, half of it sent, connection closed
  redirect:URL   302 to URL
  endless        200 without a length, a JSON array whose elements never end (until the
                 client hangs up)
  venue-error    200 with a Bybit error (retCode 10006)
Prints the port on stdout, then logs "EPOCH_SECONDS PATH BEHAVIOUR" per request to LOG_PATH.
"""
import http.server
import json
import sys
import threading
import time

ROUTES = {
    "/v1/market/all": "upbit-market-all.json",
    "/v1/ticker": "upbit-ticker.json",
    "/v1/orderbook": "upbit-orderbook.json",
    "/public/ticker/ALL_KRW": "bithumb-ticker-all-krw.json",
    "/api/v3/ticker/bookTicker": "binance-spot-bookticker.json",
    "/v5/market/tickers": "bybit-linear-tickers.json",
    "/api/v5/market/tickers": "okx-swap-tickers.json",
    "/public/v2/ticker_new/KRW": "coinone-ticker-krw.json",
    "/public/orderbook/ALL_KRW": "bithumb-orderbook-all-krw.json",
    "/public/orderbook/BTC_KRW": "bithumb-orderbook-btc-krw.json",
    "/public/v2/ticker_new/KRW/BTC": "coinone-ticker-krw.json",
    "/api/v5/market/ticker": "okx-swap-tickers.json",
    "/public/v2/orderbook/KRW/BTC": "coinone-orderbook-btc.json",
    "/v5/market/orderbook": "bybit-linear-orderbook.json",
    "/api/v3/depth": "binance-spot-depth.json",
    "/fapi/v1/depth": "binance-linear-depth.json",
    "/api/v5/market/books": "okx-swap-books.json",
}
HTML = b"<html><body><h1>502 Bad Gateway</h1></body></html>\n"

fixtures, scenario, log_path = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
counts = {}
lock = threading.Lock()
log = open(log_path, "a", buffering=1)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        with lock:
            n = counts.get(path, 0)
            counts[path] = n + 1
            plan = scenario.get(path, [])
            behaviour = plan[n] if n < len(plan) else "ok"
            log.write(f"{time.time():.6f} {path} {behaviour}\n")
        if path not in ROUTES:
            return self.answer(404, b'{"error":{"name":"not_found","message":"no such path"}}')
        body = open(f"{fixtures}/{ROUTES[path]}", "rb").read()
        kind, _, arg = behaviour.partition(":")
        if kind == "ok":
            self.answer(200, body)
        elif kind in ("429", "418"):
            self.answer(int(kind), b'{"code":-1003,"msg":"Too many requests."}', {"Retry-After": arg} if arg else {})
        elif kind == "500":
            self.answer(500, HTML, content_type="text/html")
        elif kind == "not-json":
            self.answer(200, HTML, content_type="text/html")
        elif kind == "cut":
            self.answer(200, body[: len(body) // 2])
        elif kind == "venue-error":
            self.answer(200, open(f"{fixtures}/bybit-error.json", "rb").read())
        elif kind == "slow":
            self.head(200, len(body))
            pause = float(arg) / len(body)
            try:
                for k in range(len(body)):
                    self.wfile.write(body[k : k + 1])
                    self.wfile.flush()
                    time.sleep(pause)
            except OSError:
                pass
            self.close_connection = True
        elif kind == "redirect":
            self.answer(302, b"", {"Location": arg})
        elif kind == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.close_connection = True
            block = b"1234567," * 8192
            try:
                self.wfile.write(b"[")
                while True:
                    self.wfile.write(block)
            except OSError:
                pass
        elif kind == "drop":
            self.head(200, len(body))
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.answer(400, b"unknown behaviour")

    def head(self, status, length, headers={}, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def answer(self, status, body, headers={}, content_type="application/json"):
        self.head(status, len(body), headers, content_type)
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
