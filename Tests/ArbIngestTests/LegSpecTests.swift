import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// `--leg [VENUE:MARKET:SYMBOL=]PATH[,PATH…][@FORMAT]`: parsing, joining consecutive
// files of one leg, and picking one instrument from a multi-instrument file.

@Suite("LegSpec")
struct LegSpecTests {
  static let parsed: [(text: String, leg: LegSpec)] = [
    ("binance:linear:BTCUSDT=a.csv,b.csv@tardis.quotes",
     LegSpec(instrument: Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"), paths: ["a.csv", "b.csv"], format: "tardis.quotes")),
    ("a.csv", LegSpec(instrument: nil, paths: ["a.csv"])),
    ("a.csv.gz@tardis.trades", LegSpec(instrument: nil, paths: ["a.csv.gz"], format: "tardis.trades")),
    ("kraken:spot:BTCUSDC=k.csv.gz@Data/formats/kraken-ohlcvt-1m.json",
     LegSpec(instrument: Instrument(venue: "kraken", market: .spot, symbol: "BTCUSDC"), paths: ["k.csv.gz"], format: "Data/formats/kraken-ohlcvt-1m.json")),
    ("fx:fx:USDKRW=usd.csv@arbkit.fx", LegSpec(instrument: Instrument(venue: "fx", market: .fx, symbol: "USDKRW"), paths: ["usd.csv"], format: "arbkit.fx")),
    // an @ that names no format is part of the path
    ("data/a@b.csv", LegSpec(instrument: nil, paths: ["data/a@b.csv"])),
    ("okx:future:BTC-USD-250328=x.csv", LegSpec(instrument: Instrument(venue: "okx", market: .future, symbol: "BTC-USD-250328"), paths: ["x.csv"])),
  ]

  @Test("a leg text parses", arguments: parsed)
  func parse(c: (text: String, leg: LegSpec)) throws {
    #expect(try LegSpec(parsing: c.text) == c.leg)
  }

  static let kinds = "spot, linear, inverse, future, fx"
  static let invalid: [(text: String, message: String)] = [
    ("binance:BTCUSDT=a.csv", "leg prefix 'binance:BTCUSDT' is not VENUE:MARKET:SYMBOL"),
    ("binance=a.csv", "leg prefix 'binance' is not VENUE:MARKET:SYMBOL"),
    (":linear:BTCUSDT=a.csv", "leg prefix ':linear:BTCUSDT' is not VENUE:MARKET:SYMBOL"),
    ("binance:linear:=a.csv", "leg prefix 'binance:linear:' is not VENUE:MARKET:SYMBOL"),
    ("binance:linear:BTC:USDT=a.csv", "leg prefix 'binance:linear:BTC:USDT' is not VENUE:MARKET:SYMBOL"),
    ("binance:perp:BTCUSDT=a.csv", "unknown market 'perp' in leg 'binance:perp:BTCUSDT=a.csv', expected one of \(kinds)"),
    ("binance:Linear:BTCUSDT=a.csv", "unknown market 'Linear' in leg 'binance:Linear:BTCUSDT=a.csv', expected one of \(kinds)"),
    ("binance:linear:BTCUSDT=", "leg 'binance:linear:BTCUSDT=' names no file"),
    ("binance:linear:BTCUSDT=@tardis.quotes", "leg 'binance:linear:BTCUSDT=@tardis.quotes' names no file"),
    ("", "leg '' names no file"),
  ]

  @Test("a bad leg text is a usage error that says what is wrong", arguments: invalid)
  func rejects(c: (text: String, message: String)) {
    let error = #expect(throws: LegSpecError.self) { try LegSpec(parsing: c.text) }
    #expect(error?.message == c.message)
  }

  // MARK: Loading

  static func quotes(_ rows: [(local: Int64, bid: Double)]) -> String {
    let lines = rows.map { "binance-futures,BTCUSDT,\($0.local - 5),\($0.local),1,20,\($0.bid),2" }
    return ([tardisQuotesHeader] + lines).joined(separator: "\n") + "\n"
  }

  /// Loads a leg of two Tardis files written to a fresh folder.
  static func loadTwo(_ a: String, _ b: String, sort: Bool = false) throws -> (LoadedLeg, [String]) {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let paths = [folder.write("day1.csv", a), folder.write("day2.csv", b)]
    let leg = try LegSpec(parsing: "binance:linear:BTCUSDT=\(paths.joined(separator: ","))@tardis.quotes")
    var options = IngestOptions()
    options.sort = sort
    return (try leg.load(options: options), paths)
  }

  @Test("two consecutive files join into one series")
  func joinConsecutive() throws {
    let (loaded, paths) = try Self.loadTwo(Self.quotes([(100, 1), (200, 2)]), Self.quotes([(300, 3), (400, 4)]))
    #expect(loaded.series.instrument == Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"))
    #expect(loaded.series.time == [100, 200, 300, 400])
    #expect(loaded.series.otherTime == [95, 195, 295, 395])
    #expect(loaded.series.bid == [1, 2, 3, 4])
    #expect(loaded.reports.map(\.path) == paths)
    #expect(loaded.reports.map(\.rowsAccepted) == [2, 2])
  }

  @Test("a boundary row at the same time as the next file's first keeps the later file's row")
  func joinBoundaryDuplicate() throws {
    let (loaded, _) = try Self.loadTwo(Self.quotes([(100, 1), (200, 2)]), Self.quotes([(200, 5), (300, 3)]))
    #expect(loaded.series.time == [100, 200, 300])
    #expect(loaded.series.bid == [1, 5, 3])
  }

  @Test("overlapping files are rejected without sort")
  func joinOverlapRejected() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let a = folder.write("day1.csv", Self.quotes([(100, 1), (300, 3)]))
    let b = folder.write("day2.csv", Self.quotes([(200, 2), (400, 4)]))
    let leg = try LegSpec(parsing: "binance:linear:BTCUSDT=\(a),\(b)@tardis.quotes")
    let error = #expect(throws: IngestError.self) { try leg.load(options: IngestOptions()) }
    #expect(error?.reason == .timestampNotIncreasing(previous: 300, found: 200))
    #expect(error?.position == SourcePosition(path: b, line: 2, column: 1))
  }

  @Test("overlapping files are merged in time order with sort, ties to the later file")
  func joinOverlapSorted() throws {
    let (loaded, _) = try Self.loadTwo(Self.quotes([(100, 1), (300, 3)]), Self.quotes([(200, 2), (300, 6), (400, 4)]), sort: true)
    #expect(loaded.series.time == [100, 200, 300, 400])
    #expect(loaded.series.bid == [1, 2, 6, 4])
    #expect(loaded.series.otherTime == [95, 195, 295, 395])
  }

  // MARK: Picking an instrument from an ArbKit native file

  static let native = """
    ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last
    1000,binance,spot,BTCUSDT,100,101,1,1,
    1000,binance,linear,BTCUSDT,102,103,2,2,
    2000,bybit,linear,BTCUSDT,104,105,3,3,
    2000,binance,spot,BTCUSDT,100.5,101.5,4,4,
    3000,binance,linear,BTCUSDT,,,,,102.5

    """

  static let picks: [(leg: String, time: [Int64], bid: [Double])] = [
    ("binance:spot:BTCUSDT", [1000, 2000], [100, 100.5]),
    ("binance:linear:BTCUSDT", [1000, 3000], [102, 102.5]),  // same venue and symbol as spot
    ("bybit:linear:BTCUSDT", [2000], [104]),
  ]

  @Test("a leg picks its instrument from a multi-instrument native file", arguments: picks)
  func pick(c: (leg: String, time: [Int64], bid: [Double])) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("native.csv", Self.native)
    let loaded = try LegSpec(parsing: "\(c.leg)=\(path)").load(options: IngestOptions())
    #expect(loaded.series.instrument.description == c.leg)
    #expect(loaded.series.time == c.time)
    #expect(loaded.series.bid == c.bid)
  }

  @Test("a multi-instrument file needs the leg to name one")
  func pickNeedsName() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("native.csv", Self.native)
    let error = #expect(throws: LegSpecError.self) { try LegSpec(parsing: path).load(options: IngestOptions()) }
    let found = "binance:spot:BTCUSDT (price), binance:linear:BTCUSDT (price), bybit:linear:BTCUSDT (price)"
    #expect(error?.message == "\(path) holds several instruments (\(found)); name one with VENUE:MARKET:SYMBOL=\(path)")
  }

  @Test("a leg naming an instrument the file lacks is symbolNotInFile")
  func pickMissing() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("native.csv", Self.native)
    let error = #expect(throws: IngestError.self) { try LegSpec(parsing: "okx:spot:BTCUSDT=\(path)").load(options: IngestOptions()) }
    let found = ["binance:spot:BTCUSDT (price)", "binance:linear:BTCUSDT (price)", "bybit:linear:BTCUSDT (price)"]
    #expect(error?.reason == .symbolNotInFile(symbol: "okx:spot:BTCUSDT", found: found))
    #expect(error?.position == SourcePosition(path: path, line: 1, column: 1))
  }

  @Test("a leg prefix names the instrument of a file that names none")
  func prefixNamesSpecFile() throws {
    let leg = try LegSpec(parsing: "upbit:spot:KRW-BTC=\(Repository.data("samples/investing/upbit_BTC_KRW_daily.csv"))@\(Repository.data("formats/investing-daily-ko.json"))")
    let loaded = try leg.load(options: IngestOptions())
    #expect(loaded.series.instrument == Instrument(venue: "upbit", market: .spot, symbol: "KRW-BTC"))
    #expect(loaded.series.count == 2720)
  }

  @Test("--spec-set overrides apply to the leg's column spec")
  func specOverrides() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let path = folder.write("ms.csv", "1677628800000,1.5\n1677628860000,2.5\n")
    let leg = try LegSpec(parsing: "kraken:spot:BTCUSDC=\(path)@\(Repository.data("formats/kraken-ohlcvt-1m.json"))")
    let loaded = try leg.load(options: IngestOptions(), specOverrides: ["time.form=ms", "time.shift=0s", "price=2"])
    #expect(loaded.series.time == [1_677_628_800_000_000, 1_677_628_860_000_000])
    #expect(loaded.series.bid == [1.5, 2.5])
  }
}
