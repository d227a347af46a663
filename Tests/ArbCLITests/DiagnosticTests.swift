import ArbAnalytics
@testable import ArbBacktest
@testable import ArbCLI
@testable import ArbCore
@testable import ArbIngest
@testable import ArbReport
@testable import ArbResearch
import Testing

/// Every error type a command can throw, reported through the CLI's one mapping: its
/// exit code and its single `…: error: …` line.
@Suite struct DiagnosticTests {
  static let here = SourcePosition(path: "a.csv", line: 3, column: 7)
  static let instrument = Instrument(venue: "upbit", market: .spot, symbol: "KRW-XYZ")

  static let cases: [(error: any Error, code: ExitCode, line: String)] = [
    (IngestError(.emptyFile, at: here), .dataError, "a.csv:3:7: error: "),
    (IngestError(.readFailed(detail: "Input/output error"), at: here), .ioError, "a.csv:3:7: error: "),
    (FileError.missing(path: "nope.csv"), .noInput, "nope.csv: error: no such file"),
    (FileError.unreadable(path: "a.csv", reason: "permission denied"), .ioError, "a.csv: error: cannot read, permission denied"),
    (StoreError.corrupt(file: "s/store.json", reason: "rows"), .dataError, "s/store.json: error: corrupt store, rows; convert into a new store"),
    (SpecError(path: "s.json", message: "bad"), .dataError, "s.json: error: bad"),
    (
      ParquetError(path: "q.parquet", rowGroup: 2, column: "bid", reason: "corrupt ZSTD page"), .dataError,
      "q.parquet: error: row group 2, column 'bid': corrupt ZSTD page"
    ),
    (LegSpecError(message: "bad leg"), .usage, "arbkit: error: bad leg"),
    (AlignmentError.tooFewLegs(count: 1), .dataError, "arbkit: error: need at least two legs, was 1"),
    (FundingError("no funding"), .dataError, "arbkit: error: no funding"),
    (RegistryError(message: "r.json: error: bad fee"), .dataError, "r.json: error: bad fee"),
    (SweepResultsError(path: "s.csv", line: 2, message: "torn row"), .dataError, "s.csv:2:1: error: torn row"),
    (ScenarioError(path: "s.json", message: "bad key"), .usage, "s.json: error: bad key"),
    (ScenarioError(path: nil, message: "unknown key 'x'"), .usage, "override: error: unknown key 'x'"),
    (SweepError("too many cells"), .usage, "arbkit: error: too many cells"),
    (SweepGridError(.axis(key: "x", "empty value in '1,'")), .usage, "arbkit: error: axis x: empty value in '1,'"),
    (BoardAlertError(rule: "BTC/KRW kimchi", reason: .tooFewWords), .usage, "arbkit: error: alert 'BTC/KRW kimchi': too few words"),
    (SweepFileError(path: "s.csv", reason: .header), .usage, "arbkit: error: s.csv does not start with this sweep's header"),
    (
      LookaheadCutsError(cuts: 5, span: 3), .usage,
      "arbkit: error: 5 cuts need data spanning more than 5 µs, the legs quote together for 3 µs"
    ),
    (ShardMatrixError(path: "m.csv", line: 2, reason: .header), .dataError, "m.csv:2:1: error: not a pnl matrix of arbkit sweep"),
    (ScenarioSettingError("no taker fee known for x spot; set costs.fees.x"), .usage, "arbkit: error: no taker fee known for x spot"),
    (ScenarioLegError(.badSpecSet(key: "fx", detail: "bad column")), .usage, "arbkit: error: fx.spec_set: bad column"),
    (
      ScenarioLegError(.oneClock(leg: 0, instrument: "kraken:spot:BTCUSDC")), .usage,
      "arbkit: error: legs.0 (kraken:spot:BTCUSDC): latency recorded reads the receive and the exchange time of each quote, "
        + "but the leg's source keeps one clock; use a source with both (Tardis, cryptofeed) or a latency distribution"
    ),
    (
      ScenarioLegError(.noDepth(leg: 1, instrument: "binance:spot:BTCUSDT")), .usage,
      "arbkit: error: legs.1 (binance:spot:BTCUSDT): costs.fill book walks the order book, but the leg's source has its top level only; "
        + "use a source with depth (Tardis book_snapshot_5/25, incremental_book_L2, order-book JSON lines) or costs.fill top"
    ),
    (GrammarError(grammar: "{X}", detail: "names no base"), .dataError, "arbkit: error: symbol grammar '{X}' names no base"),
    (ResolveError(instrument: instrument, reason: .notTradable), .usage, "arbkit: error: 'upbit:spot:KRW-XYZ' is an FX series"),
    (TimeError(.overflow(operation: .latency, time: 1_700_000_000_000_000, amount: .max)), .usage, "arbkit: error: fill latency +"),
    (TimeError(.spanOverflow(first: .min, last: .max)), .dataError, "arbkit: error: times span from"),
    (
      AlignmentError.time(TimeError(.tooManyPoints(step: 1, first: 0, last: 1 << 40, count: 1 << 40, limit: 20_000_000))), .usage,
      "arbkit: error: a grid of 1us"
    ),
    (TimeError(.lastInstant), .dataError, "arbkit: error: a quote at 9223372036854775807"),
  ]

  @Test(arguments: cases.indices)
  func mapsToItsExitCodeAndOneLine(_ index: Int) {
    let c = Self.cases[index]
    var terminal = Terminal()
    #expect(ArbCLI.report(c.error, sortSwitch: nil, terminal: &terminal) == c.code)
    #expect(terminal.errors.hasPrefix(c.line), "\(terminal.errors)")
    #expect(terminal.errors.split(separator: "\n").count == 1)
  }

  /// A failure that is no diagnostic is a defect of ours: exit 1, still one line.
  @Test func anythingElseIsAFailure() {
    struct Unexpected: Error {}
    var terminal = Terminal()
    #expect(ArbCLI.report(Unexpected(), sortSwitch: nil, terminal: &terminal) == .failure)
    #expect(terminal.errors.hasPrefix("arbkit: error: "))
  }

  @Test(arguments: DiagnosticKind.allCases)
  func everyKindHasADocumentedCode(_ kind: DiagnosticKind) {
    #expect([64, 65, 66, 74].contains(ExitCode(kind).rawValue))
    #expect(ExitCode(kind).rawValue == kind.exitCode)
  }
}
