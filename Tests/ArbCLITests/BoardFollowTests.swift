import ArbCore
import ArbIngest
import ArbResearch
import Foundation
import TestSupport
import Testing

@testable import ArbCLI

/// `arbkit board --follow`: the alert grammar and the alerts' start, end and duration,
/// the folder followed as it grows (appended lines, a torn line, a rotation), the
/// board's figures against the static board, and a replay through the command line.
@Suite("Live board")
struct BoardFollowTests {
  /// 2026-01-01T00:00:00Z.
  static let t0: Int64 = 1_767_225_600_000_000
  static let second: Int64 = 1_000_000

  /// `rest.snapshots` lines as `arbkit record` writes them.
  enum Line {
    static func upbit(_ t: Int64, _ market: String, _ price: String) -> String {
      #"{"recv_ts_us":\#(t),"send_ts_us":\#(t - 1000),"venue":"upbit","endpoint":"/v1/ticker","params":{"markets":"\#(market)"},"status":200,"#
        + #""response":[{"market":"\#(market)","trade_price":\#(price)}]}"#
    }

    static func bithumb(_ t: Int64, _ coin: String, _ price: String) -> String {
      #"{"recv_ts_us":\#(t),"send_ts_us":\#(t - 1000),"venue":"bithumb","endpoint":"/public/ticker/\#(coin)_KRW","params":{},"status":200,"#
        + #""response":{"status":"0000","data":{"closing_price":"\#(price)"}}}"#
    }

    static func binance(_ t: Int64, _ symbol: String, _ bid: String, _ ask: String) -> String {
      #"{"recv_ts_us":\#(t),"send_ts_us":\#(t - 1000),"venue":"binance","endpoint":"/api/v3/ticker/bookTicker","params":{},"status":200,"#
        + #""response":[{"symbol":"\#(symbol)","bidPrice":"\#(bid)","bidQty":"1","askPrice":"\#(ask)","askQty":"1"}]}"#
    }

    static func bybit(_ t: Int64, _ symbol: String, _ bid: String, _ ask: String) -> String {
      #"{"recv_ts_us":\#(t),"send_ts_us":\#(t - 1000),"venue":"bybit","endpoint":"/v5/market/tickers","params":{"category":"spot"},"status":200,"#
        + #""response":{"retCode":0,"retMsg":"OK","result":{"category":"spot","list":[{"symbol":"\#(symbol)","bid1Price":"\#(bid)","ask1Price":"\#(ask)"}]}}}"#
    }

    static func bybitError(_ t: Int64) -> String {
      #"{"recv_ts_us":\#(t),"send_ts_us":\#(t - 1000),"venue":"bybit","endpoint":"/v5/market/tickers","params":{"category":"spot"},"status":200,"#
        + #""response":{"retCode":10006,"retMsg":"Too many visits!","result":{}}}"#
    }
  }

  /// One line per venue at t0: BTC/KRW on upbit (145,000,000) and bithumb (145,217,500),
  /// BTC/USDT on binance (mid 100,001) and bybit (mid 100,071), USDT/KRW on upbit (1,400).
  static let market: [(file: String, line: String)] = [
    ("upbit-spot-20260101T000000Z.jsonl", Line.upbit(t0, "KRW-BTC", "145000000")),
    ("upbit-spot-20260101T000000Z.jsonl", Line.upbit(t0, "KRW-USDT", "1400")),
    ("bithumb-spot-20260101T000000Z.jsonl", Line.bithumb(t0, "BTC", "145217500")),
    ("binance-spot-20260101T000000Z.jsonl", Line.binance(t0, "BTCUSDT", "100000", "100002")),
    ("bybit-spot-20260101T000000Z.jsonl", Line.bybit(t0, "BTCUSDT", "100070", "100072")),
  ]

  static func board(maxStale: Int64 = 60 * second) -> LiveBoard {
    LiveBoard(registry: .builtin, rate: .market(LiveBoard.upbitUSDT), maxStale: maxStale)
  }

  /// The rows as `(instrument, high venue, low venue or "-", premium, kimchi)`.
  static func summary(_ board: LiveBoard, at now: Int64) -> [String] {
    board.rows(now: now).map { row in
      "\(row.instrument) \(row.high.instrument.venue) \(row.venues.count >= 2 ? row.low.instrument.venue : "-") "
        + "\(NumberText.fixed(row.premium, 4)) \(NumberText.fixed(row.kimchi, 4))"
    }
  }

  static func append(_ path: String, _ text: String) {
    let handle = FileHandle(forWritingAtPath: path)!
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    try! handle.close()
  }

  // MARK: the alert grammar

  static let valid: [(text: String, instrument: String, field: BoardAlert.Field, comparison: BoardAlert.Operator, threshold: Double)] = [
    ("BTC/KRW kimchi >= 3", "BTC/KRW spot", .kimchi, .atLeast, 3),
    ("  btc/krw   premium < -0.5 ", "BTC/KRW spot", .premium, .below, -0.5),
    ("BTC/USDT linear perp premium > 0.1", "BTC/USDT linear perp", .premium, .above, 0.1),
    ("BTC/USD inverse future 2025-03-28 premium <= 1e-1", "BTC/USD inverse future 2025-03-28", .premium, .atMost, 0.1),
  ]

  @Test("alert conditions are read", arguments: valid)
  func alertGrammar(c: (text: String, instrument: String, field: BoardAlert.Field, comparison: BoardAlert.Operator, threshold: Double)) throws {
    let alert = try BoardAlert(parsing: c.text)
    #expect(alert.instrument.description == c.instrument)
    #expect(alert.field == c.field)
    #expect(alert.comparison == c.comparison)
    #expect(alert.threshold == c.threshold)
  }

  static let invalid: [(text: String, reason: String)] = [
    ("BTC/KRW kimchi >=", "too few words"),
    ("BTC/KRW spread >= 3", "unknown field 'spread'"),
    ("BTC/KRW kimchi => 3", "unknown operator '=>'"),
    ("BTC/KRW kimchi >= three", "'three' is not a number"),
    ("BTC/KRW kimchi >= nan", "'nan' is not a number"),
    ("BTCKRW kimchi >= 3", "'BTCKRW' is not an instrument"),
    ("BTC/USDT linear future premium >= 3", "'BTC/USDT linear future' is not an instrument"),
    ("BTC/USDT perp premium >= 3", "'BTC/USDT perp' is not an instrument"),
  ]

  @Test("bad alert conditions are usage errors naming the problem", arguments: invalid)
  func alertGrammarErrors(c: (text: String, reason: String)) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectUsageError(["board", "--follow", folder.path, "--alert", c.text], "invalid value for '--alert', \(c.reason)")
  }

  @Test("alerts start, end with their duration, and are open when the board stops")
  func alertStartEnd() throws {
    var tracker = AlertTracker([try BoardAlert(parsing: "BTC/KRW kimchi >= 3")])
    // Seconds after t0 and the figure: below, at (start), above, gone (end after 2 s),
    // above (start), still above when the board stops 2.5 s later.
    let steps: [(Int64, Double?)] = [(0, 2.9), (1, 3), (2, 3.5), (3, nil), (4, 3.1), (5, 4)]
    var lines: [String] = []
    for (s, value) in steps { lines += tracker.update(at: Self.t0 + s * Self.second, value: { _ in value }).map(\.line) }
    lines += tracker.open(at: Self.t0 + 6_500_000, value: { _ in 4 }).map(\.line)
    #expect(
      lines == [
        "2026-01-01T00:00:01Z alert start BTC/KRW spot kimchi >= 3 value=3.0000",
        "2026-01-01T00:00:03Z alert end BTC/KRW spot kimchi >= 3 value=- duration_s=2.000",
        "2026-01-01T00:00:04Z alert start BTC/KRW spot kimchi >= 3 value=3.1000",
        "2026-01-01T00:00:06.500000Z alert open BTC/KRW spot kimchi >= 3 value=4.0000 duration_s=2.500",
      ])
  }

  @Test("a strict operator does not hold at the threshold; alerts are independent")
  func alertOperators() throws {
    var tracker = AlertTracker([try BoardAlert(parsing: "BTC/KRW premium > 0.1"), try BoardAlert(parsing: "BTC/KRW premium <= 0.1")])
    let first = tracker.update(at: Self.t0, value: { _ in 0.1 })
    #expect(first.map(\.kind) == [.start] && first[0].alert.comparison == .atMost)
    let second = tracker.update(at: Self.t0 + Self.second, value: { _ in 0.2 })
    #expect(second.map(\.kind) == [.start, .end] && second[1].duration == Self.second)
  }

  // MARK: the folder followed as it grows

  @Test("lines split across reads come out whole, once")
  func lineSplitter() {
    var splitter = LineSplitter()
    var lines: [String] = []
    var consumed = 0
    for chunk in ["ab", "c\nde", "f\n\ng", "h"] {
      consumed += Array(chunk.utf8).withUnsafeBytes { splitter.feed($0) { lines.append(String(decoding: $0, as: UTF8.self)) } }
    }
    #expect(lines == ["abc", "def", ""])
    #expect(consumed == 9 && splitter.unfinished == 2)
    let torn = splitter.dropTorn()
    #expect(torn)
    #expect(splitter.unfinished == 0)
  }

  @Test("the follower reads appended lines, waits for a torn line, and follows a rotation")
  func growingFolder() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var follower = RecordingFollower(folder: folder.path)
    var board = Self.board()
    func poll() throws {
      try follower.poll { line in for quote in RecordingLines.quotes(line: line) ?? [] { board.apply(quote) } }
    }
    let upbit = folder.path + "/upbit-spot-20260101T000000Z.jsonl"
    let usdt = Line.upbit(Self.t0, "KRW-USDT", "1400")
    // Upbit's KRW-BTC, then half of its KRW-USDT line: the half is not read yet.
    _ = folder.write("upbit-spot-20260101T000000Z.jsonl", Line.upbit(Self.t0, "KRW-BTC", "145000000") + "\n" + usdt.prefix(40))
    _ = folder.write(".upbit-spot-20260101T010000Z.jsonl.new", Line.upbit(Self.t0, "KRW-BTC", "1") + "\n")
    _ = folder.write("notes.txt", "not a recording\n")
    try poll()
    #expect(follower.lines == 1 && board.quotes.count == 1)
    #expect(Self.summary(board, at: Self.t0).isEmpty)

    // The rest of the torn line, bithumb, binance and bybit (one error record).
    Self.append(upbit, usdt.dropFirst(40) + "\n")
    _ = folder.write("bithumb-spot-20260101T000000Z.jsonl", Line.bithumb(Self.t0, "BTC", "145217500") + "\n")
    _ = folder.write("binance-spot-20260101T000000Z.jsonl", Line.binance(Self.t0, "BTCUSDT", "100000", "100002") + "\n")
    _ = folder.write(
      "bybit-spot-20260101T000000Z.jsonl", Line.bybitError(Self.t0) + "\n" + Line.bybit(Self.t0, "BTCUSDT", "100070", "100072") + "\n")
    try poll()
    #expect(follower.lines == 6 && board.quotes.count == 5)
    // BTC/KRW: 145,217,500 / 145,000,000 − 1 = 0.15 %; kimchi (145,108,750 / (100,036 × 1,400) − 1) = 3.6118 %.
    // BTC/USDT: 100,071 / 100,001 − 1 = 0.0700 %.
    #expect(Self.summary(board, at: Self.t0) == ["BTC/KRW spot bithumb upbit 0.1500 3.6118", "BTC/USDT spot bybit binance 0.0700 -"])

    // Nothing new: nothing is read again.
    try poll()
    #expect(follower.lines == 6 && board.quotesRead == 5)

    // The live file gets one more line and a torn one, then is rotated: compressed
    // beside it and removed; the compressed copy is read past what was read.
    Self.append(upbit, Line.upbit(Self.t0 + Self.second, "KRW-BTC", "145435000") + "\n" + "{\"recv_ts_us\":17")
    let gzip = try runProgram("/bin/sh", ["-c", "gzip -c '\(upbit)' > '\(upbit).gz' && rm '\(upbit)'"])
    #expect(gzip == 0)
    _ = folder.write("upbit-spot-20260101T010000Z.jsonl", Line.upbit(Self.t0 + 2 * Self.second, "KRW-USDT", "1450") + "\n")
    try poll()
    #expect(follower.lines == 8 && follower.tornLines == 1)
    // BTC/KRW: upbit 145,435,000 over bithumb 145,217,500: 0.1498 %; rate 1,450:
    // (145,326,250 / (100,036 × 1,450) − 1) × 100 = 0.1889 %.
    #expect(Self.summary(board, at: Self.t0 + 2 * Self.second) == ["BTC/KRW spot upbit bithumb 0.1498 0.1889", "BTC/USDT spot bybit binance 0.0700 -"])

    // A venue older than --max-stale leaves its row.
    var stale = Self.board(maxStale: Self.second)
    for (_, line) in Self.market { for quote in Array(line.utf8).withUnsafeBufferPointer({ RecordingLines.quotes(line: $0) }) ?? [] { stale.apply(quote) } }
    #expect(Self.summary(stale, at: Self.t0 + 2 * Self.second).isEmpty)
  }

  // MARK: the figures against the static board

  @Test("the live board's premium equals the static board's on the same lines, and its kimchi the definition's")
  func againstStaticBoard() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var files: [String: String] = [:]
    for (file, line) in Self.market { files[file, default: ""] += line + "\n" }
    for (file, text) in files { _ = folder.write(file, text) }
    var board = Self.board()
    var follower = RecordingFollower(folder: folder.path)
    try follower.poll { line in for quote in RecordingLines.quotes(line: line) ?? [] { board.apply(quote) } }
    let rows = board.rows(now: Self.t0)
    let run = arbkit("board", folder.path, "--format", "json", "--max-stale", "none")
    #expect(run.code == .success, "\(run.errors)")
    let instruments = run.object["instruments"] as? [[String: Any]] ?? []
    #expect(instruments.count == 2)
    for row in rows {
      let match = instruments.first { $0["instrument"] as? String == row.instrument.description }
      let staticMax = (match?["max_premium"] as? [String: Any])?["max"] as? Double
      #expect(isClose(row.premium, staticMax, rel: 1e-9), "\(row.instrument)")
    }
    let kimchi = rows.first { $0.instrument.quote == "KRW" }?.kimchi
    #expect(isClose(kimchi, ((145_000_000.0 + 145_217_500) / 2 / ((100_001.0 + 100_071) / 2 * 1400) - 1) * 100))
  }

  // MARK: the command line

  @Test("a replay prints alert lines, appends them to --alerts and prints the board at its end")
  func replay() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let recording = folder.path + "/rec"
    try FileManager.default.createDirectory(atPath: recording, withIntermediateDirectories: false)
    // Bithumb over Upbit: 0.15 % from t0 + 1 s, 0.0203 % from t0 + 2 s, 0.2004 % from t0 + 3 s.
    var upbit = Line.upbit(Self.t0, "KRW-BTC", "145000000") + "\n" + Line.upbit(Self.t0, "KRW-USDT", "1400") + "\n"
    upbit += Line.upbit(Self.t0 + 2 * Self.second, "KRW-BTC", "145188000") + "\n" + Line.upbit(Self.t0 + 3 * Self.second, "KRW-BTC", "144927000") + "\n"
    _ = folder.write("rec/upbit-spot-20260101T000000Z.jsonl", upbit)
    _ = folder.write("rec/bithumb-spot-20260101T000000Z.jsonl", Line.bithumb(Self.t0 + Self.second, "BTC", "145217500") + "\n")
    let alerts = folder.write("alerts.log", "kept\n")
    let run = arbkit(
      "board", "--follow", recording, "--speed", "1000x", "--alert", "BTC/KRW premium >= 0.1", "--alerts", alerts, "--sort", "instrument")
    #expect(run.code == .success, "\(run.errors)")
    let expected = [
      "2026-01-01T00:00:01Z alert start BTC/KRW spot premium >= 0.1 value=0.1500",
      "2026-01-01T00:00:02Z alert end BTC/KRW spot premium >= 0.1 value=0.0203 duration_s=1.000",
      "2026-01-01T00:00:03Z alert start BTC/KRW spot premium >= 0.1 value=0.2004",
      "2026-01-01T00:00:03Z alert open BTC/KRW spot premium >= 0.1 value=0.2004 duration_s=0.000",
    ]
    let printed = run.output.split(separator: "\n").map(String.init)
    #expect(Array(printed.prefix(4)) == expected)
    #expect(run.output.contains("UTC 2026-01-01 00:00:03   KST 2026-01-01 09:00:03"))
    #expect(printed.contains { $0.hasPrefix("  BTC/KRW spot") && $0.contains("bithumb") && $0.contains("0.2004") })
    #expect(try String(contentsOfFile: alerts, encoding: .utf8) == "kept\n" + expected.joined(separator: "\n") + "\n")

    // The same recording converted to a store replays to the same alert lines.
    let store = folder.path + "/store"
    let files = try FileManager.default.contentsOfDirectory(atPath: recording).sorted().map { recording + "/" + $0 }
    let convert = arbkit(["convert"] + files + ["--out", store])
    #expect(convert.code == .success, "\(convert.errors)")
    let fromStore = arbkit("board", "--follow", store, "--speed", "1000x", "--alert", "BTC/KRW premium >= 0.1")
    #expect(fromStore.code == .success, "\(fromStore.errors)")
    #expect(Array(fromStore.output.split(separator: "\n").map(String.init).prefix(4)) == expected)
    expectUsageError(["board", "--follow", store], "is a store, a finished recording: replay it with --speed")
  }

  @Test("--follow refuses inputs, a missing folder, an unknown sort column, and --alerts without --alert")
  func usageErrors() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    expectUsageError(["board", "--follow", folder.path, "x.csv"], "unexpected argument 'x.csv' with --follow")
    expectUsageError(["board", "--follow", folder.path, "--sort", "spread"], "invalid value for '--sort'")
    expectUsageError(["board", "--follow", folder.path, "--alerts", folder.path + "/a.log"], "--alerts PATH needs at least one --alert")
    expectUsageError(["board", "--follow", folder.path, "--speed", "0x"], "invalid value for '--speed'")
    #expect(arbkit("board", "--follow", folder.path + "/missing").code == .noInput)
  }
}
