import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// `--leg [VENUE:MARKET:SYMBOL=]PATH[,PATH…][#FIELD][@FORMAT]`: parsing, joining
// consecutive files of one leg, and picking one series (instrument and field) from a
// file that holds several.

@Suite("LegSpec")
struct LegSpecTests {
  static let parsed: [(text: String, leg: LegSpec)] = [
    (
      "binance:linear:BTCUSDT=a.csv,b.csv@tardis.quotes",
      LegSpec(instrument: Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"), paths: ["a.csv", "b.csv"], format: "tardis.quotes")
    ),
    ("a.csv", LegSpec(instrument: nil, paths: ["a.csv"])),
    ("a.csv.gz@tardis.trades", LegSpec(instrument: nil, paths: ["a.csv.gz"], format: "tardis.trades")),
    (
      "kraken:spot:BTCUSDC=k.csv.gz@Data/formats/kraken-ohlcvt-1m.json",
      LegSpec(instrument: Instrument(venue: "kraken", market: .spot, symbol: "BTCUSDC"), paths: ["k.csv.gz"], format: "Data/formats/kraken-ohlcvt-1m.json")
    ),
    ("fx:fx:USDKRW=usd.csv@arbkit.fx", LegSpec(instrument: Instrument(venue: "fx", market: .fx, symbol: "USDKRW"), paths: ["usd.csv"], format: "arbkit.fx")),
    // an @ that names no format is part of the path
    ("data/a@b.csv", LegSpec(instrument: nil, paths: ["data/a@b.csv"])),
    ("okx:future:BTC-USD-250328=x.csv", LegSpec(instrument: Instrument(venue: "okx", market: .future, symbol: "BTC-USD-250328"), paths: ["x.csv"])),
    (
      "binance:linear:BTCUSDT=deriv.csv.gz#mark",
      LegSpec(instrument: Instrument(venue: "binance", market: .linear, symbol: "BTCUSDT"), paths: ["deriv.csv.gz"], field: .mark)
    ),
    (
      "a.csv,b.csv#funding_rate@tardis.derivative_ticker",
      LegSpec(instrument: nil, paths: ["a.csv", "b.csv"], format: "tardis.derivative_ticker", field: .fundingRate)
    ),
    ("p.csv#premium_index", LegSpec(instrument: nil, paths: ["p.csv"], field: .premiumIndex)),
    // a # followed by a path or a file name is part of the path
    ("data/#1/a.csv", LegSpec(instrument: nil, paths: ["data/#1/a.csv"])),
    ("a#b.csv", LegSpec(instrument: nil, paths: ["a#b.csv"])),
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
    ("a.csv#last", "unknown field 'last' in leg 'a.csv#last', expected one of price, mark, index, funding_rate, premium_index"),
    (
      "a.csv#Mark@tardis.derivative_ticker",
      "unknown field 'Mark' in leg 'a.csv#Mark@tardis.derivative_ticker', expected one of price, mark, index, funding_rate, premium_index"
    ),
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
    let leg = try LegSpec(
      parsing: "upbit:spot:KRW-BTC=\(Repository.data("samples/investing/upbit_BTC_KRW_daily.csv"))@\(Repository.data("formats/investing-daily-ko.json"))")
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

  // MARK: Fields

  static let ticker = fixture("tardis_derivative_ticker_hand-made.csv")

  @Test(
    "#FIELD picks a series of a derivative ticker; without it the leg takes price",
    arguments: [
      ("binance:linear:BTCUSDT", "", SeriesField.price, [93510.1, 93512.3, 93509.0]),
      ("binance:linear:BTCUSDT", "#price", .price, [93510.1, 93512.3, 93509.0]),
      ("binance:linear:BTCUSDT", "#mark", .mark, [93505.43, 93505.80, 93504.9]),
      ("binance:linear:BTCUSDT", "#index", .index, [93498.76, 93499.01, 93497.5]),
      ("okx:linear:BTC-USDT-SWAP", "#funding_rate", .fundingRate, [-0.00003127, 0]),
    ])
  func pickField(c: (leg: String, suffix: String, field: SeriesField, values: [Double])) throws {
    let loaded = try LegSpec(parsing: "\(c.leg)=\(Self.ticker)\(c.suffix)").load(options: IngestOptions())
    #expect(loaded.series.field == c.field && loaded.series.instrument.description == c.leg)
    #expect(loaded.series.bid == c.values)
  }

  @Test("field errors list the file's series with their fields")
  func fieldErrors() throws {
    let all = [
      "binance:linear:BTCUSDT (price)", "binance:linear:BTCUSDT (mark)", "binance:linear:BTCUSDT (index)",
      "binance:linear:BTCUSDT (funding_rate)", "okx:linear:BTC-USDT-SWAP (price)", "okx:linear:BTC-USDT-SWAP (mark)",
      "okx:linear:BTC-USDT-SWAP (index)", "okx:linear:BTC-USDT-SWAP (funding_rate)",
    ].joined(separator: ", ")
    let several = #expect(throws: LegSpecError.self) { try LegSpec(parsing: Self.ticker + "#mark").load(options: IngestOptions()) }
    #expect(several?.message == "\(Self.ticker) holds several instruments (\(all)); name one with VENUE:MARKET:SYMBOL=\(Self.ticker)")
    let none = #expect(throws: LegSpecError.self) {
      try LegSpec(parsing: "binance:linear:BTCUSDT=\(Self.ticker)#premium_index").load(options: IngestOptions())
    }
    #expect(none?.message == "\(Self.ticker) holds no premium_index series (found \(all)); name one with \(Self.ticker)#FIELD")
    // A file of one field needs no #FIELD, and a wrong one is refused.
    let funding = fixture("XRP_USDT_USDT-8h-funding_rate.json")
    #expect(try LegSpec(parsing: funding).load(options: IngestOptions()).series.field == .fundingRate)
    let wrong = #expect(throws: LegSpecError.self) { try LegSpec(parsing: funding + "#price").load(options: IngestOptions()) }
    #expect(wrong?.message == "\(funding) holds no price series (found unknown:linear:XRPUSDT (funding_rate)); name one with \(funding)#FIELD")
  }

  @Test("two files of a funding leg join with their funding intervals")
  func joinKeepsIntervals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let header = "calc_time,funding_interval_hours,last_funding_rate\n"
    let a = folder.write("BTCUSDT-fundingRate-2025-01.csv", header + "1735689600000,8,0.0001\n")
    let b = folder.write("BTCUSDT-fundingRate-2025-02.csv", header + "1738368000002,4,-0.0002\n")
    let loaded = try LegSpec(parsing: "\(a),\(b)").load(options: IngestOptions())
    #expect(loaded.series.time == [1_735_689_600_000_000, 1_738_368_000_000_000])
    #expect(loaded.series.bid == [0.0001, -0.0002])
    #expect(loaded.series.fundingInterval == [8 * 3_600_000_000, 4 * 3_600_000_000])
  }
}
