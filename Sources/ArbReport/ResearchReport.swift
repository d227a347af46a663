import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbResearch

/// Everything a research report shows about one scenario: what was read, the premium
/// and its bands, the time-of-day profile, an optional sweep, the backtest of the
/// chosen cell and the assumptions. `document` lays it out in eight sections, nine
/// with the out-of-sample evidence of a period PnL matrix (after the sweep).
public struct ResearchReport: Sendable {
  /// A backtest's printed figures (formatted as `arbkit backtest` prints them), its
  /// journal and, in mode convergence, its trades.
  public struct Backtest: Sendable {
    public var metrics: [(name: String, value: String)]
    public var journal: PnLJournal
    public var trades: [Trade]

    public init(metrics: [(name: String, value: String)], journal: PnLJournal, trades: [Trade]) {
      self.metrics = metrics
      self.journal = journal
      self.trades = trades
    }
  }

  /// The scenario file's name as given.
  public var scenarioName: String
  /// The scenario the backtest ran: the file's, with the best sweep cell's overrides.
  public var scenario: Scenario
  /// `KEY=VALUE` overrides taken from the best sweep cell (empty without a sweep).
  public var overrides: [String]
  public var coverage: [LegCoverage]
  /// Each leg's taker fee (fraction).
  public var fees: [Double]
  public var premium: PremiumSeries
  public var analysis: PremiumAnalysis
  public var bands: [Double]
  public var backtest: Backtest
  public var sweep: SweepResults?
  public var sweepName: String?
  /// The sweep metric mapped and ranked.
  public var metric = "pnl_bps"
  /// Zone of the time axes.
  public var zone = ReportZone.utc
  /// With a sweep's period PnL matrix: the section "Is the best threshold real?" after the sweep.
  public var outOfSample: OutOfSample?

  public init(
    scenarioName: String, scenario: Scenario, overrides: [String], coverage: [LegCoverage], fees: [Double], premium: PremiumSeries,
    analysis: PremiumAnalysis, bands: [Double], backtest: Backtest
  ) {
    self.scenarioName = scenarioName
    self.scenario = scenario
    self.overrides = overrides
    self.coverage = coverage
    self.fees = fees
    self.premium = premium
    self.analysis = analysis
    self.bands = bands
    self.backtest = backtest
  }

  /// Section titles, in order (the headings a reader and the tests look for); with
  /// `outOfSample`, `outOfSampleTitle` comes after "Sweep".
  public static let sectionTitles = [
    "Data coverage", "Premium over time", "Distribution", "Bands and episodes", "Time of day", "Sweep", "Backtest", "Assumptions",
  ]

  public var document: ReportDocument {
    let pair = coverage.map { $0.instrument.description }.joined(separator: " vs ")
    var span = ""
    if let first = premium.time.first, let last = premium.time.last { span = ", " + TimeText.iso8601(first) + " to " + TimeText.iso8601(last) }
    return ReportDocument(
      title: "ArbKit report: " + pair,
      subtitle: (scenario.description ?? scenarioName) + " (scenario " + scenarioName + span + ")",
      sections: [coverageSection, premiumSection, distributionSection, bandsSection, timeOfDaySection, sweepSection]
        + [outOfSampleSection].compactMap { $0 } + [backtestSection, assumptionsSection])
  }

  /// The premium's name in captions.
  var premiumName: String { coverage.count == 2 ? "mid premium of leg 1 over leg 2, %" : "max premium, %" }

  /// `leg K (venue:market:symbol)`.
  func legName(_ k: Int) -> String { "leg \(k + 1) (" + coverage[k].instrument.description + ")" }
}
