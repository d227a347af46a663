import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit inspect")
struct InspectCommandTests {
  @Test func `an unknown format is exit 65 with its first line, and the flag that names a format`() {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    folder.write("odd.csv", "1735689600000,93490.1,93540.0,93470.2,93505.4,210.532\n")
    let run = arbkit("inspect", folder.path + "/odd.csv")
    #expect(run.code == .dataError)
    #expect(
      run.errors.contains(
        "odd.csv:1:1: error: unknown format, first line was '1735689600000,93490.1,93540.0,93470.2,93505.4,210.532'; name the format with --input-format"),
      "\(run.errors)")
  }

  @Test func `json has the keys of the contract and accounts every row`() throws {
    let run = arbkit("inspect", DemoPair.kraken.split(separator: "=", maxSplits: 1).last.map(String.init)!, "--format", "json")
    #expect(run.code == .success)
    let object = run.object
    for key in ["file", "format", "rows_read", "rows_accepted", "rows_rejected", "first_ts_us", "last_ts_us", "instruments"] {
      #expect(object[key] != nil, "missing key \(key)")
    }
    #expect(object["format"] as? String == "columns")
    #expect(object["rows_read"] as? Int == 15719)
    #expect(object["rows_accepted"] as? Int == 15719)
    #expect(object["rows_rejected"] as? Int == 0)
    // 2023-03-01T00:00:00Z is 1677628800 s; the first Kraken minute of March, stamped at its end.
    #expect(object["first_ts_us"] as? Int == 1_677_628_860_000_000)
    let instruments = try #require(object["instruments"] as? [[String: Any]])
    #expect(instruments.count == 1)
    #expect(instruments[0]["venue"] as? String == "kraken")
    #expect(instruments[0]["market"] as? String == "spot")
    #expect(instruments[0]["rows"] as? Int == 15719)
  }

  @Test func `an incremental L2 file also reports rows before the snapshot and crossed instants`() throws {
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    let run = arbkit("inspect", "\(fixtures)/deribit_incremental_book_L2_BTC-PERPETUAL.csv", "--format", "json")
    #expect(run.code == .success)
    let object = run.object
    #expect(object["format"] as? String == "tardis.incremental_book_L2")
    #expect(object["rows_read"] as? Int == 15 && object["rows_accepted"] as? Int == 15)
    #expect(object["rows_before_snapshot"] as? Int == 0 && object["crossed_states"] as? Int == 0)
    #expect((object["instruments"] as? [[String: Any]])?.first?["rows"] as? Int == 1)
    // Other formats do not carry the two keys.
    let quotes = arbkit("inspect", "\(fixtures)/huobi-dm-swap_quotes_BTC-USD.csv", "--format", "json").object
    #expect(quotes["rows_before_snapshot"] == nil && quotes["crossed_states"] == nil)
  }

  @Test func `several files give an array in the order given`() throws {
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    let run = arbkit("inspect", "\(fixtures)/huobi-dm-swap_quotes_BTC-USD.csv", "\(fixtures)/bitmex_trades_XBTUSD.csv", "--format", "json")
    #expect(run.code == .success)
    let array = try #require(run.json as? [[String: Any]])
    #expect(array.map { $0["format"] as? String } == ["tardis.quotes", "tardis.trades"])
    #expect(array.map { $0["rows_read"] as? Int } == [10, 10])
    let huobi = try #require((array[0]["instruments"] as? [[String: Any]])?.first)
    #expect(huobi["venue"] as? String == "huobi")
    #expect(huobi["market"] as? String == "inverse")
    #expect(huobi["symbol"] as? String == "BTC-USD")
  }

  @Test func `skipping bad rows reports them, writes the quarantine and still accounts every row`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let good1 = "bybit,BTCUSDT,1,10,1,100.5,100.4,2\n"
    let crossed = "bybit,BTCUSDT,2,20,1,100.3,100.4,2\n"
    let good2 = "bybit,BTCUSDT,3,30,1,100.6,100.5,2\n"
    let zero = "bybit,BTCUSDT,4,40,1,0,100.5,2\n"
    let path = folder.write("q.csv", header + good1 + crossed + good2 + zero)
    let quarantine = folder.path + "/rejected.csv"
    let run = arbkit("inspect", path, "--bad-rows", "skip", "--quarantine", quarantine, "--format", "json")
    #expect(run.code == .success)
    #expect(run.object["rows_read"] as? Int == 4)
    #expect(run.object["rows_accepted"] as? Int == 2)
    #expect(run.object["rows_rejected"] as? Int == 2)
    #expect((run.object["rejected"] as? [String: Int]) == ["crossed_book": 1, "non_positive_price": 1])
    #expect(try String(contentsOfFile: quarantine, encoding: .utf8) == header + crossed + zero)
    #expect(run.errors.contains("\(path):3:"))
    #expect(run.errors.contains("2 of 4 rows rejected"))
  }

  /// A pipe's default quarantine was named by its descriptor's number alone (`63.rejected.csv`).
  @Test func `the standard input's default quarantine is stdin.rejected.csv in the current folder`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    let (good, bad) = ("bybit,BTCUSDT,1,10,1,100.5,100.4,2\n", "bybit,BTCUSDT,2,20,1,x,100.4,2\n")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit")
    process.arguments = ["inspect", "/dev/stdin", "--bad-rows", "skip", "--format", "json"]
    process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
    let (input, output) = (Pipe(), Pipe())
    (process.standardInput, process.standardOutput, process.standardError) = (input, output, FileHandle.nullDevice)
    try process.run()
    input.fileHandleForWriting.write(Data((header + good + bad).utf8))
    try input.fileHandleForWriting.close()
    _ = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(try String(contentsOfFile: folder.path + "/stdin.rejected.csv", encoding: .utf8) == header + bad)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["stdin.rejected.csv"])
  }

  /// Each input's lines used to replace the file: the first input's were lost.
  @Test func `inputs that share a quarantine file keep every rejected line in it, a command reading them twice writes them once`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    func quotes(_ venue: String, start: Int, bad: [Int]) -> (text: String, rejected: String) {
      var (text, rejected) = (header, "")
      for k in 0..<40 {
        let line = "\(venue),BTCUSDT,\(start + k),\(start + k * 1000),1,\(bad.contains(k) ? "x" : "100.5"),100.4,2\n"
        text += line
        if bad.contains(k) { rejected += line }
      }
      return (text, rejected)
    }
    let (a, b) = (quotes("binance", start: 1_000_000, bad: [3, 17]), quotes("bybit", start: 1_000_500, bad: [0, 8, 39]))
    // The same file name in two folders: their default quarantine names are one too.
    try FileManager.default.createDirectory(atPath: folder.path + "/one", withIntermediateDirectories: false)
    try FileManager.default.createDirectory(atPath: folder.path + "/two", withIntermediateDirectories: false)
    let (pathA, pathB) = (folder.write("one/day.csv", a.text), folder.write("two/day.csv", b.text))
    let quarantine = folder.path + "/rejected.csv"
    let runs: [[String]] = [
      ["inspect", pathA, pathB], ["board", pathA, pathB, "--max-stale", "1h"],
      ["premium", "--leg", "binance:linear:BTCUSDT=" + pathA, "--leg", "bybit:linear:BTCUSDT=" + pathB, "--max-stale", "1h"],
      ["basis", "--spot", "binance:spot:BTCUSDT=" + pathA, "--perp", "bybit:linear:BTCUSDT=" + pathB, "--max-stale", "1h"],
    ]
    for arguments in runs {
      try? FileManager.default.removeItem(atPath: quarantine)
      let run = arbkit(arguments + ["--bad-rows", "skip", "--quarantine", quarantine, "--format", "json"])
      #expect(run.code == .success, "\(arguments[0]): \(run.errors)")
      let written = try String(contentsOfFile: quarantine, encoding: .utf8)
      // In the order the inputs finished (board reads its files at once).
      #expect(written == header + a.rejected + b.rejected || written == header + b.rejected + a.rejected, "\(arguments[0]): \(written)")
      #expect(run.errors.components(separatedBy: "raw lines in \(quarantine)").count == 3, "\(arguments[0]): \(run.errors)")
    }
  }

  @Test func `csv and table outputs name the instrument`() {
    let fixtures = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures").path
    let csv = arbkit("inspect", "\(fixtures)/bitmex_trades_XBTUSD.csv", "--format", "csv")
    #expect(
      csv.output.split(separator: "\n").first
        == "file,format,rows_read,rows_accepted,rows_rejected,rows_collapsed,first_ts_us,last_ts_us,venue,market,symbol,field,rows")
    #expect(csv.output.contains(",bitmex,inverse,XBTUSD,price,2\n"), "10 trades in 2 distinct instants")
    let table = arbkit("inspect", "\(fixtures)/bitmex_trades_XBTUSD.csv")
    #expect(table.output.contains("rows read 10 = accepted 10 + rejected 0"))
  }

  @Test func `a derivative ticker lists one series per instrument and field in table, csv and json`() throws {
    let path = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/tardis_derivative_ticker_hand-made.csv").path
    let fields = ["price", "mark", "index", "funding_rate"]
    let json = arbkit("inspect", path, "--format", "json")
    #expect(json.code == .success && json.object["rows_read"] as? Int == 7)
    let instruments = try #require(json.object["instruments"] as? [[String: Any]])
    #expect(instruments.map { $0["field"] as? String } == fields + fields)
    #expect(instruments.map { $0["rows"] as? Int } == [3, 3, 3, 3, 2, 2, 1, 2])
    #expect(instruments.map { $0["symbol"] as? String } == Array(repeating: "BTCUSDT", count: 4) + Array(repeating: "BTC-USDT-SWAP", count: 4))
    let csv = arbkit("inspect", path, "--format", "csv").output.split(separator: "\n").map(String.init)
    #expect(csv.count == 9)
    #expect(csv[1].hasSuffix(",binance,linear,BTCUSDT,price,3") && csv[8].hasSuffix(",okx,linear,BTC-USDT-SWAP,funding_rate,2"))
    let table = arbkit("inspect", path).output
    #expect(table.contains("(tardis.derivative_ticker)"))
    #expect(table.contains("venue    market  symbol         field         rows  price"))
    #expect(table.contains("okx      linear  BTC-USDT-SWAP  index            1  last"))
  }
}
