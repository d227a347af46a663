import ArbCore
import ArbIngest
import Foundation
import TestSupport
import Testing

@testable import ArbRecord

@Suite("Recorder parts")
struct RecordPartsTests {
  @Test("targets: venue, market and symbols; bad ones are refused naming the text")
  func targets() throws {
    #expect(try RecordTarget.parse("upbit:spot").get() == RecordTarget(venue: .upbit, market: .spot, symbols: []))
    #expect(try RecordTarget.parse("binance:linear:BTCUSDT,ETHUSDT").get().symbols == ["BTCUSDT", "ETHUSDT"])
    for bad in ["kraken:spot", "upbit:linear", "upbit", "bybit:spot:", "bybit:spot:BTC,,ETH", "okx:spot:BTC/USDT", "binance:future"] {
      guard case .failure(let error) = RecordTarget.parse(bad) else {
        Issue.record("\(bad) was accepted")
        continue
      }
      #expect(error.message.contains("'\(bad)'") || error.message.contains(bad.split(separator: ":").last!), "\(error.message)")
    }
  }

  static let plans: [(target: String, books: Bool, symbols: [String], urls: [String])] = [
    ("upbit:spot", true, ["KRW-BTC", "KRW-ETH"], ["/v1/ticker?markets=KRW-BTC,KRW-ETH", "/v1/orderbook?markets=KRW-BTC,KRW-ETH"]),
    ("bithumb:spot", false, [], ["/public/ticker/ALL_KRW"]),
    ("bithumb:spot:BTC_KRW", true, ["BTC_KRW"], ["/public/ticker/BTC_KRW", "/public/orderbook/BTC_KRW"]),
    ("coinone:spot", false, [], ["/public/v2/ticker_new/KRW"]),
    ("coinone:spot:BTC", true, ["BTC"], ["/public/v2/ticker_new/KRW/BTC", "/public/v2/orderbook/KRW/BTC"]),
    ("bybit:inverse", false, [], ["/v5/market/tickers?category=inverse"]),
    (
      "bybit:spot:BTCUSDT", true, ["BTCUSDT"],
      ["/v5/market/tickers?category=spot&symbol=BTCUSDT", "/v5/market/orderbook?category=spot&symbol=BTCUSDT&limit=50"]
    ),
    ("binance:spot", false, [], ["/api/v3/ticker/bookTicker"]),
    ("binance:spot:BTCUSDT,ETHUSDT", false, ["BTCUSDT", "ETHUSDT"], ["/api/v3/ticker/bookTicker?symbols=%5B%22BTCUSDT%22,%22ETHUSDT%22%5D"]),
    ("binance:linear", false, [], ["/fapi/v1/ticker/bookTicker", "/fapi/v1/premiumIndex"]),
    ("binance:inverse:BTCUSD_PERP", false, ["BTCUSD_PERP"], ["/dapi/v1/ticker/bookTicker?symbol=BTCUSD_PERP", "/dapi/v1/premiumIndex?symbol=BTCUSD_PERP"]),
    ("okx:linear", false, [], ["/api/v5/market/tickers?instType=SWAP"]),
    ("okx:future", false, [], ["/api/v5/market/tickers?instType=FUTURES"]),
    ("okx:spot:BTC-USDT", true, ["BTC-USDT"], ["/api/v5/market/ticker?instId=BTC-USDT", "/api/v5/market/books?instId=BTC-USDT&sz=20"]),
  ]

  @Test("the requests of one poll per venue and market", arguments: plans)
  func requests(plan: (target: String, books: Bool, symbols: [String], urls: [String])) throws {
    let requests = VenueRequests(target: try RecordTarget.parse(plan.target).get(), books: plan.books)
    let urls = requests.poll(symbols: plan.symbols).map { $0.path + ($0.query.isEmpty ? "" : "?" + $0.queryString) }
    #expect(urls == plan.urls)
  }

  @Test("Upbit: every market from /v1/market/all (the real answer), at most 100 per request")
  func upbitDiscovery() throws {
    let requests = VenueRequests(target: RecordTarget(venue: .upbit, market: .spot, symbols: []), books: false)
    #expect(requests.discovery?.path == "/v1/market/all")
    let body = try Data(contentsOf: URL(fileURLWithPath: RecordFixtures.folder + "/upbit-market-all.json"))
    #expect(VenueRequests.discoveredSymbols(body) == ["KRW-BTC", "KRW-ETH", "BTC-ETH", "KRW-XRP", "KRW-WAVES"])
    #expect(VenueRequests.discoveredSymbols(Data("{\"error\":{}}".utf8)) == nil)
    let many = (1...250).map { "KRW-C\($0)" }
    #expect(requests.poll(symbols: many).map { $0.query[0].value.split(separator: ",").count } == [100, 100, 50])
    #expect(VenueRequests(target: RecordTarget(venue: .upbit, market: .spot, symbols: ["KRW-BTC"]), books: false).discovery == nil)
  }

  @Test("refused: --books without symbols where books are one request per symbol, a target named twice, a bad period or URL")
  func validation() {
    var options = RecordOptions(targets: [RecordTarget(venue: .bybit, market: .linear, symbols: [])], folder: "x")
    options.books = true
    #expect(options.validate() == .booksNeedSymbols("bybit:linear"))
    options.targets = [RecordTarget(venue: .upbit, market: .spot, symbols: [])]
    #expect(options.validate() == nil)
    options.targets += [RecordTarget(venue: .upbit, market: .spot, symbols: ["KRW-BTC"])]
    #expect(options.validate() == .repeatedTarget("upbit:spot"))
    options.targets.removeLast()
    options.baseURLs[.upbit] = "ftp://127.0.0.1"
    #expect(options.validate() == .baseURL(.upbit, "ftp://127.0.0.1"))
    options.baseURLs = [:]
    for every: Int64 in [0, 999, 86_400_000_001] {
      options.everyMicros = every
      #expect(options.validate() == .period(micros: every))
    }
    options.everyMicros = 86_400_000_000
    #expect(options.validate() == nil)
  }

  @Test("Retry-After: seconds or an HTTP date, never negative")
  func retryAfter() {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(HTTPClient.retryAfterSeconds("2", now: now) == 2)
    #expect(HTTPClient.retryAfterSeconds(" 120 ", now: now) == 120)
    #expect(HTTPClient.retryAfterSeconds("Tue, 14 Nov 2023 22:13:50 GMT", now: now) == 30)
    #expect(HTTPClient.retryAfterSeconds("Tue, 14 Nov 2023 22:13:00 GMT", now: now) == 0)
    #expect(HTTPClient.retryAfterSeconds("-1", now: now) == nil)
    #expect(HTTPClient.retryAfterSeconds("soon", now: now) == nil)
  }

  @Test("a GET to a port nobody listens on is a failure that says the connection was refused")
  func refused() async throws {
    // A port the system gave and took back: nothing listens on it.
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(socket >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
    }
    close(socket)
    try #require(bound)
    let port = UInt16(bigEndian: address.sin_port)
    let client = try HTTPClient(timeoutSeconds: 5)
    let outcome = await client.get(try #require(URL(string: "http://127.0.0.1:\(port)/v1/ticker")))
    guard case .failed(let reason) = outcome else {
      Issue.record("an answer from a closed port: \(outcome)")
      return
    }
    #expect(reason == "connection refused")
  }

  static let request = VenueRequest(path: "/v5/market/tickers", query: [QueryParameter(name: "category", value: "linear")])

  static func line(_ outcome: FetchOutcome) -> SnapshotLine {
    SnapshotLine(venue: .bybit, request: request, sendMicros: 1_000_000, recvMicros: 1_020_000, outcome: outcome)
  }

  static func fixture(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: RecordFixtures.folder + "/" + name)) }

  @Test("a line per answer: the envelope with both times and the status; JSON kept as received on one line")
  func answerLine() throws {
    var body = try Self.fixture("bybit-linear-tickers.json")
    body.insert(contentsOf: Data("\r\n  ".utf8), at: 1)
    let line = Self.line(.answer(status: 200, retryAfter: nil, body: body))
    #expect(line.verdict == .prices && !line.isError && !line.bytes.contains(10))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.bytes)) as? [String: Any])
    #expect(object["recv_ts_us"] as? Int == 1_020_000 && object["send_ts_us"] as? Int == 1_000_000 && object["status"] as? Int == 200)
    #expect(object["venue"] as? String == "bybit" && object["endpoint"] as? String == "/v5/market/tickers")
    #expect(object["params"] as? [String: String] == ["category": "linear"])
    #expect(String(decoding: line.bytes, as: UTF8.self).hasPrefix("{\"recv_ts_us\":1020000,"), "detected as rest.snapshots from its first key")
  }

  @Test("error records: no answer, HTTP errors, venue codes, bodies that are not JSON or not readable")
  func errorLines() throws {
    let failed = Self.line(.failed("timed out"))
    #expect(failed.isError && String(decoding: failed.bytes, as: UTF8.self).hasSuffix(",\"error\":\"timed out\"}"))
    #expect(Self.line(.answer(status: 429, retryAfter: "2", body: Data("{\"retCode\":0}".utf8))).isError)
    #expect(
      Self.line(.answer(status: 200, retryAfter: nil, body: try Self.fixture("bybit-error.json"))).verdict
        == .errorRecord(detail: "bybit retCode 10006: Too many visits!"))
    let html = Self.line(.answer(status: 502, retryAfter: nil, body: Data("<html>\n\"x\"\u{1}</html>".utf8)))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(html.bytes)) as? [String: Any])
    #expect(html.isError && object["body"] as? String == "<html>\n\"x\"\u{1}</html>" && object["error"] as? String == "body is not JSON")
    let cut = try Self.fixture("bybit-linear-tickers.json").prefix(200)
    #expect(Self.line(.answer(status: 200, retryAfter: nil, body: cut)).isError)
    let negative = #"{"retCode":0,"result":{"list":[{"symbol":"X","bid1Price":"-1","ask1Price":"1"}]},"time":1}"#
    let unreadable = Self.line(.answer(status: 200, retryAfter: nil, body: Data(negative.utf8)))
    #expect(unreadable.isError && String(decoding: unreadable.bytes, as: UTF8.self).contains("\"error\":\"answer not readable: "))
  }

  @Test("periods start on UTC hour and day boundaries; file names are the first line's UTC second")
  func rotation() {
    let micros: Int64 = 1_735_693_199_999_999  // 2025-01-01T00:59:59.999999Z
    #expect(RecordRotation.hour.periodStart(micros) == 1_735_689_600_000_000)
    #expect(RecordRotation.hour.periodStart(micros + 1) == 1_735_693_200_000_000)
    #expect(RecordRotation.day.periodStart(micros) == 1_735_689_600_000_000)
    #expect(RecordingFile.stamp(micros) == "20250101T005959Z")
    #expect(RecordFolder.isRecordingName("upbit-spot-20250101T005959Z.jsonl") && RecordFolder.isRecordingName("okx-linear-20250101T005959Z-2.jsonl"))
    #expect(!RecordFolder.isRecordingName("notes.jsonl") && !RecordFolder.isRecordingName("upbit-spot-20250101T005959Z.jsonl.zst"))
  }

  @Test("files rotate at the boundary, are compressed whole and read back line for line", arguments: RecordCompression.allCases)
  func filesRotateAndCompress(compression: RecordCompression) async throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let file = RecordingFile(folder: folder.path, stem: "bybit-linear", rotation: .hour, compression: compression)
    let hour: Int64 = 1_735_689_600_000_000
    let times = [hour + 1_000_000, hour + 2_000_000, hour + 3_600_000_000, hour + 3_601_000_000]
    let body = try Self.fixture("bybit-linear-tickers.json")
    for time in times {
      let answer = FetchOutcome.answer(status: 200, retryAfter: nil, body: body)
      let line = SnapshotLine(venue: .bybit, request: Self.request, sendMicros: time - 1000, recvMicros: time, outcome: answer)
      try file.append(line.bytes, at: time)
    }
    await file.close()
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names == ["bybit-linear-20250101T000001Z.jsonl" + compression.suffix, "bybit-linear-20250101T010000Z.jsonl" + compression.suffix])
    for name in names {
      let read = try Ingest.read(path: folder.path + "/" + name)
      #expect(read.report.format == "rest.snapshots" && read.report.rowsRead == 2 && read.report.rowsAccepted == 2)
      #expect(try lines(recordedText(folder.path + "/" + name)).count == 2)
    }
  }

  @Test("a second recorder into the same folder is refused; a file in the folder's place too")
  func folderLock() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let lock = try RecordFolder.prepare(folder.path + "/rec")
    defer { close(lock) }
    #expect(throws: RecordError("\(folder.path)/rec: error: another arbkit record writes to this folder", isIO: true)) {
      try RecordFolder.prepare(folder.path + "/rec")
    }
    let file = folder.write("plain", "x")
    #expect(throws: RecordError("\(file): error: is not a folder", isIO: true)) { try RecordFolder.prepare(file) }
  }

  @Test("a killed recorder's files are put in order: whole hidden files kept, partial ones and temporaries removed, plain files compressed")
  func recovery() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let line = String(decoding: Self.line(.failed("timed out")).bytes, as: UTF8.self)
    folder.write("upbit-spot-20250101T000000Z.jsonl", line + "\n" + line.prefix(40))
    folder.write(".upbit-spot-20250101T000100Z.jsonl.new", line + "\n")
    folder.write(".upbit-spot-20250101T000200Z.jsonl.new", String(line.prefix(30)))
    folder.write("bybit-linear-20250101T000000Z.jsonl", line + "\n")
    folder.write("bybit-linear-20250101T000000Z.jsonl.zst", "")
    folder.write(".okx-spot-20250101T000000Z.jsonl.gz.tmp", "partial")
    folder.write("notes.jsonl", "mine\n")
    let notes = try RecordFolder.recover(folder.path, compression: .gzip)
    #expect(notes.count == 4)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let expected = ["bybit-linear-20250101T000000Z.jsonl.zst", "notes.jsonl", "upbit-spot-20250101T000000Z.jsonl.gz", "upbit-spot-20250101T000100Z.jsonl.gz"]
    #expect(names == expected)
    let recovered = try Ingest.read(path: folder.path + "/upbit-spot-20250101T000000Z.jsonl.gz")
    #expect(recovered.report.rowsRead == 2 && recovered.report.errorRecords == 1 && recovered.report.skippedByKind.first?.kind == "torn last line")
  }
}
