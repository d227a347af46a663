import Foundation
import TestSupport
import Testing

// `arbkit record` against `venue_server.py` on 127.0.0.1, which replays real and
// documented venue answers with scripted failures. Times are checked from the
// server's own log of requests.

@Suite("arbkit record against a local stand-in of the venues", .serialized)
struct RecordEndToEndTests {
  /// Runs `arbkit record` (the built executable, so that the recorder has threads of
  /// its own) for `seconds`, polling every 100 ms; its summary line on stdout.
  static func record(_ targets: [String], server: VenueServer, into folder: String, seconds: Double) throws -> String {
    let run = try runToEnd(
      arbkitExecutable(),
      ["record"] + targets + ["--out", folder, "--every", "100ms", "--duration", "\(seconds)s", "--timeout", "1s"] + server.baseURLFlags)
    #expect(run.status == 0)
    return run.output.split(separator: "\n").first.map(String.init) ?? ""
  }

  /// Every line of every file in `folder`, by file.
  static func recordedLines(_ folder: String) throws -> [String: [Substring]] {
    var result: [String: [Substring]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
      result[name] = lines(try recordedText(folder + "/" + name))
    }
    return result
  }

  @Test("HTTP 429 waits for Retry-After while the other venues go on")
  func retryAfterIsObeyed() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let server = try VenueServer(scenario: ["/v1/ticker": ["ok", "429:2"]], logIn: folder)
    defer { server.stop() }
    let targets = ["upbit:spot:KRW-BTC", "binance:spot:BTCUSDT"]
    let summary = try Self.record(targets, server: server, into: folder.path + "/rec", seconds: 3.5)
    let log = try server.requests()
    let upbit = log.filter { $0.path == "/v1/ticker" }
    let limited = try #require(upbit.firstIndex { $0.behaviour == "429:2" })
    let next = try #require(upbit.indices.contains(limited + 1) ? upbit[limited + 1] : nil, "upbit polled again after the wait")
    #expect(next.time - upbit[limited].time >= 2.0, "waited \(next.time - upbit[limited].time) s")
    let during = log.filter { $0.path == "/api/v3/ticker/bookTicker" && $0.time > upbit[limited].time && $0.time < next.time }
    #expect(during.count >= 5, "binance polled \(during.count) times during upbit's wait (every 100 ms)")
    #expect(summary.hasSuffix(", 1 error records"), "\(summary)")
    let recorded = try Self.recordedLines(folder.path + "/rec")
    #expect(recorded.filter { $0.key.hasPrefix("upbit-") }.flatMap(\.value).filter(isErrorRecord).count == 1)
  }

  @Test("answers that trickle in from three venues hold up no request of a fourth")
  func slowVenuesHoldUpNoOther() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // Each slow answer takes 0.8 s, under --timeout 1s: three requests are in flight almost all the time.
    let slow = Array(repeating: "slow:0.8", count: 5)
    let slowPaths = ["/v1/ticker", "/public/ticker/ALL_KRW", "/public/v2/ticker_new/KRW/BTC"]
    let server = try VenueServer(scenario: Dictionary(uniqueKeysWithValues: slowPaths.map { ($0, slow) }), logIn: folder)
    defer { server.stop() }
    let targets = ["upbit:spot:KRW-BTC", "bithumb:spot", "coinone:spot:BTC", "binance:spot:BTCUSDT"]
    _ = try Self.record(targets, server: server, into: folder.path + "/rec", seconds: 4)
    let log = try server.requests()
    let slowTimes = log.filter { slowPaths.contains($0.path) && $0.behaviour.hasPrefix("slow") }.map(\.time)
    let (start, end) = (try #require(slowTimes.min()), try #require(slowTimes.max()))
    try #require(end - start > 2, "the slow answers span \(end - start) s")
    let during = log.filter { $0.path == "/api/v3/ticker/bookTicker" && $0.time > start && $0.time < end }
    // Every 100 ms: about 10 a second; a binance poll waiting on a slow venue's transfer gets a few.
    #expect(Double(during.count) >= 5 * (end - start), "binance polled \(during.count) times in \(end - start) s of slow answers")
  }

  @Test("other failures back off exponentially with jitter; slow, dropped and cut answers are error records")
  func backoff() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let plan = ["500", "500", "500", "500", "ok", "slow:3", "ok", "drop", "ok", "cut", "ok", "not-json"]
    let failures = plan.filter { $0 != "ok" }
    let server = try VenueServer(scenario: ["/v1/ticker": plan], logIn: folder)
    defer { server.stop() }
    let summary = try Self.record(["upbit:spot:KRW-BTC"], server: server, into: folder.path + "/rec", seconds: 9)
    let times = try server.requests().filter { $0.path == "/v1/ticker" }.map(\.time)
    try #require(times.count > plan.count + 2)
    let gaps = (1...4).map { times[$0] - times[$0 - 1] }
    // After the n-th failure in a row: 100 ms × 2ⁿ, drawn in its upper half.
    for (n, gap) in gaps.enumerated() {
      let delay = 0.1 * Double(1 << (n + 1))
      // The upper bound leaves room for a loaded machine; the lower one is the rule.
      #expect(gap >= delay / 2 - 0.01 && gap <= delay + 0.5, "gap \(n + 1) was \(gap) s, expected \(delay / 2)–\(delay) s")
    }
    let recorded = try Self.recordedLines(folder.path + "/rec").values.flatMap { $0 }
    let errors = recorded.filter(isErrorRecord)
    #expect(errors.count == failures.count && summary.hasSuffix(", \(failures.count) error records"), "\(summary)")
    let timedOut = try #require(errors.first { $0.contains("\"error\":\"timed out\"") })
    let object = try #require(try JSONSerialization.jsonObject(with: Data(timedOut.utf8)) as? [String: Any])
    let took = Double((object["recv_ts_us"] as! Int) - (object["send_ts_us"] as! Int)) / 1e6
    #expect(took >= 0.9 && took < 2, "the slow answer was given up after \(took) s (--timeout 1s)")
    #expect(errors.filter { $0.contains("\"error\":\"body is not JSON\"") }.count == 6, "four HTML 500 pages, the cut answer, an HTML 200 page")
    #expect(errors.filter { $0.contains("\"status\":500,") }.count == 4)
    #expect(recorded.count == times.count, "one line per request")
  }

  @Test("killed with SIGKILL, restarted: every line is accounted, errors counted, premium and kimchi read the recording")
  func killAndRestart() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let scenario = ["/v1/ticker": ["ok", "ok", "cut"], "/v5/market/tickers": ["ok", "venue-error"], "/public/ticker/ALL_KRW": ["ok", "500"]]
    let server = try VenueServer(scenario: scenario, logIn: folder)
    defer { server.stop() }
    let out = folder.path + "/rec"
    let arguments =
      ["record", "upbit:spot", "bithumb:spot", "coinone:spot", "binance:spot:BTCUSDT,ETHUSDT", "bybit:linear"]
      + ["--out", out, "--every", "200ms", "--timeout", "1s"]
      + server.baseURLFlags
    let first = Process()
    first.executableURL = URL(fileURLWithPath: arbkitExecutable())
    first.arguments = arguments
    first.standardOutput = FileHandle.nullDevice
    first.standardError = FileHandle.nullDevice
    try first.run()
    Thread.sleep(forTimeInterval: 2.5)
    kill(first.processIdentifier, SIGKILL)
    first.waitUntilExit()
    #expect(first.terminationReason == .uncaughtSignal)
    // The killed run's files are plain; a write cut by the kill is made by hand, as
    // one that stopped in the middle of a line.
    let plain = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".jsonl") }.sorted()
    #expect(plain.count == 5, "\(plain)")
    let upbitFile = try #require(plain.first { $0.hasPrefix("upbit-spot-") })
    let handle = try #require(FileHandle(forWritingAtPath: out + "/" + upbitFile))
    handle.seekToEndOfFile()
    handle.write(Data(#"{"recv_ts_us":1796525133229474,"send_ts_us":1796525130079045,"venue":"upbit","endpoint":"/v1/ti"#.utf8))
    handle.closeFile()

    let second = try runToEnd(arbkitExecutable(), arguments + ["--duration", "2s"])
    #expect(second.status == 0 && second.output.hasPrefix("wrote \(out): "), "\(second.output)")
    let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(names.filter { $0.hasSuffix(".jsonl.zst") }.count == 10 && names.filter { !$0.hasSuffix(".zst") } == [".arbkit-record.lock"], "\(names)")

    let recorded = try Self.recordedLines(out)
    let paths = recorded.keys.sorted().map { out + "/" + $0 }
    let inspect = try runToEnd(arbkitExecutable(), ["inspect", "--format", "json"] + paths)
    #expect(inspect.status == 0)
    let reports = try #require(try JSONSerialization.jsonObject(with: Data(inspect.output.utf8)) as? [[String: Any]])
    var torn = 0
    for report in reports {
      let name = (report["file"] as! String).split(separator: "/").last.map(String.init)!
      let lines = recorded[name]!
      #expect(report["rows_read"] as? Int == lines.count && report["rows_rejected"] as? Int == 0, "\(name)")
      let expectedErrors = lines.filter(isErrorRecord).count
      #expect(report["error_records"] as? Int == expectedErrors, "\(name): \(report["error_records"] ?? "-") vs \(expectedErrors)")
      torn += (report["skipped_messages"] as? [String: Int])?["torn last line"] ?? 0
    }
    #expect(torn == 1)
    let allErrors = recorded.values.flatMap { $0 }.filter(isErrorRecord).count
    #expect(allErrors >= 3, "the cut ticker, the Bybit error code and the HTTP 500 at least")

    func leg(_ instrument: String, _ stem: String) -> String {
      instrument + "=" + paths.filter { $0.contains("/\(stem)-") }.joined(separator: ",")
    }
    let premium = try runToEnd(
      arbkitExecutable(),
      [
        "premium", "--leg", leg("upbit:spot:KRW-BTC", "upbit-spot"), "--leg", leg("bithumb:spot:BTC_KRW", "bithumb-spot"),
        "--max-stale", "5s", "--format", "json",
      ])
    #expect(premium.status == 0 && premium.output.contains("\"count\""), "\(premium.output.prefix(300))")
    let korean = try runToEnd(
      arbkitExecutable(),
      [
        "premium", "--leg", leg("upbit:spot:KRW-BTC", "upbit-spot"), "--leg", leg("coinone:spot:BTC", "coinone-spot"),
        "--max-stale", "5s", "--format", "json",
      ])
    #expect(korean.status == 0 && korean.output.contains("\"count\""), "\(korean.output.prefix(300))")
    let kimchi = try runToEnd(
      arbkitExecutable(),
      [
        "kimchi", "--krw", leg("upbit:spot:KRW-BTC", "upbit-spot"), "--usd", leg("binance:spot:BTCUSDT", "binance-spot"),
        "--fx-market", leg("upbit:spot:KRW-USDT", "upbit-spot"), "--max-stale", "5s", "--format", "json",
      ])
    #expect(kimchi.status == 0 && kimchi.output.contains("upbit"), "\(kimchi.output.prefix(300))")
  }

  @Test("--books on every venue: each book answer is read as a book series, no line rejected, skipped or an error")
  func recordsBooks() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let server = try VenueServer(scenario: [:], logIn: folder)
    defer { server.stop() }
    let targets = [
      "upbit:spot:KRW-BTC", "bithumb:spot", "coinone:spot:BTC", "bybit:linear:BTCUSDT", "binance:spot:BTCUSDT", "okx:linear:BTC-USDT-SWAP",
    ]
    let out = folder.path + "/rec"
    _ = try Self.record(targets + ["--books"], server: server, into: out, seconds: 1.5)
    let symbols = ["upbit": "KRW-BTC", "bithumb": "BTC_KRW", "coinone": "BTC", "bybit": "BTCUSDT", "binance": "BTCUSDT", "okx": "BTC-USDT-SWAP"]
    let recorded = try Self.recordedLines(out)
    #expect(recorded.count == 6, "\(recorded.keys.sorted())")
    for (name, lines) in recorded {
      let venue = String(name.prefix { $0 != "-" })
      let inspect = try runToEnd(arbkitExecutable(), ["inspect", "--format", "json", out + "/" + name])
      let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.output.utf8)) as? [String: Any])
      #expect(report["rows_read"] as? Int == lines.count && report["rows_rejected"] as? Int == 0, "\(name)")
      #expect(report["error_records"] as? Int == 0, "\(name): \(report["error_record_samples"] ?? "-")")
      #expect((report["skipped_messages"] as? [String: Int])?.isEmpty == true, "\(name): \(report["skipped_messages"] ?? "-")")
      let books = (report["instruments"] as? [[String: Any]] ?? []).filter {
        $0["venue"] as? String == venue && $0["symbol"] as? String == symbols[venue] && $0["price_source"] as? String == "book"
      }
      #expect(books.first.map { ($0["rows"] as? Int ?? 0) >= 2 } == true, "\(name): the books of every poll")
    }
  }

  /// `arbkit record` of `targets` into `out` with `arguments`, stopped by SIGTERM after
  /// `signalAfter` seconds when given: its exit status and how long it ran.
  static func timedRecord(
    _ targets: [String], _ arguments: [String], server: VenueServer, out: String, signalAfter: Double? = nil
  ) throws -> (
    status: Int32, seconds: Double
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arbkitExecutable())
    process.arguments = ["record"] + targets + ["--out", out, "--every", "100ms"] + arguments + server.baseURLFlags
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let start = Date()
    try process.run()
    if let signalAfter {
      Thread.sleep(forTimeInterval: signalAfter)
      kill(process.processIdentifier, SIGTERM)
    }
    process.waitUntilExit()
    return (process.terminationReason == .exit ? process.terminationStatus : -1, Date().timeIntervalSince(start))
  }

  @Test("a request still in flight when recording stops is cancelled a second later, not waited for to its timeout", arguments: ["SIGTERM", "--duration"])
  func inFlightRequestIsCancelledAtStop(_ stop: String) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    // The answer trickles in over 60 s; the timeout would allow it 120 s.
    let server = try VenueServer(scenario: ["/v1/ticker": ["slow:60"]], logIn: folder)
    defer { server.stop() }
    let out = folder.path + "/rec"
    let run = try Self.timedRecord(
      ["upbit:spot:KRW-BTC"], ["--timeout", "120s"] + (stop == "--duration" ? ["--duration", "1s"] : []), server: server, out: out,
      signalAfter: stop == "SIGTERM" ? 1 : nil)
    #expect(run.status == 0 && run.seconds < 10, "ended after \(run.seconds) s, status \(run.status)")
    let errors = try Self.recordedLines(out).values.flatMap { $0 }.filter(isErrorRecord)
    #expect(errors.count == 1 && errors[0].contains("\"error\":\"cancelled\""), "\(errors)")
  }

  @Test("a body longer than a line may be ends its transfer there: an error record, and the recording goes on")
  func endlessBodyIsCutOff() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let server = try VenueServer(scenario: ["/v1/ticker": ["endless"]], logIn: folder)
    defer { server.stop() }
    let out = folder.path + "/rec"
    let run = try Self.timedRecord(["upbit:spot:KRW-BTC"], ["--timeout", "60s", "--duration", "3s"], server: server, out: out)
    #expect(run.status == 0 && run.seconds < 10, "ended after \(run.seconds) s, status \(run.status)")
    let lines = try Self.recordedLines(out).values.flatMap { $0 }
    let errors = lines.filter(isErrorRecord)
    #expect(errors.count == 1 && errors[0].contains("\"error\":\"body longer than ") && errors[0].count < 1_000, "\(errors)")
    #expect(lines.count > errors.count, "answers after the endless one are recorded")
  }

  @Test("redirects are followed to http, never to another protocol")
  func redirectsStayOnHTTP() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let server = try VenueServer(scenario: ["/v1/ticker": ["redirect:ftp://127.0.0.1:9/x"]], logIn: folder)
    defer { server.stop() }
    // Another server sends its second request on to the first server, whose answer is recorded.
    let server2 = try VenueServer(scenario: ["/v1/ticker": ["ok", "redirect:http://127.0.0.1:\(server.port)/v1/ticker"]], logIn: folder)
    defer { server2.stop() }
    let out = folder.path + "/rec"
    _ = try Self.record(["upbit:spot:KRW-BTC"], server: server, into: out, seconds: 1)
    let errors = try Self.recordedLines(out).values.flatMap { $0 }.filter(isErrorRecord)
    #expect(errors.count == 1 && errors[0].contains("\"error\":\"not http or https\""), "\(errors)")
    let followed = folder.path + "/followed"
    _ = try Self.record(["upbit:spot:KRW-BTC"], server: server2, into: followed, seconds: 1)
    let lines = try Self.recordedLines(followed).values.flatMap { $0 }
    #expect(lines.count >= 3 && !lines.contains(where: isErrorRecord), "\(lines.count) lines")
  }

  @Test("SIGTERM ends recording cleanly: every file closed and compressed, exit 0")
  func stopsOnSigterm() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let server = try VenueServer(scenario: [:], logIn: folder)
    defer { server.stop() }
    let out = folder.path + "/rec"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arbkitExecutable())
    process.arguments = ["record", "upbit:spot:KRW-BTC", "okx:linear", "--out", out, "--every", "100ms", "--compress", "gzip"] + server.baseURLFlags
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    Thread.sleep(forTimeInterval: 1.5)
    kill(process.processIdentifier, SIGTERM)
    let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    #expect(summary.hasPrefix("wrote \(out): ") && summary.contains("upbit:spot") && summary.contains("okx:linear"), "\(summary)")
    let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(names.count == 3 && names.filter { $0.hasSuffix(".jsonl.gz") }.count == 2, "\(names)")
    for (name, lines) in try Self.recordedLines(out) {
      let inspect = try runToEnd(arbkitExecutable(), ["inspect", "--format", "json", out + "/" + name])
      let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.output.utf8)) as? [String: Any])
      #expect(report["rows_read"] as? Int == lines.count && lines.count >= 5 && report["error_records"] as? Int == 0, "\(name)")
    }
  }
}
