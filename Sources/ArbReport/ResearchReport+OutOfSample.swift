import ArbAnalytics
import ArbCore

/// The section after the sweep, with a period PnL matrix: how much of the best cell
/// survives out of sample (the figures of `arbkit validate`).
extension ResearchReport {
  /// The out-of-sample evidence from a sweep's period PnL matrix, and what the report says about it.
  public struct OutOfSample: Sendable {
    public var evidence: OutOfSampleEvidence
    /// The start of each period (row) of the matrix, microseconds since the epoch.
    public var periodStarts: [Int64]
    /// The matrix file's name as given.
    public var matrixName: String
    /// Set when the default of 16 blocks was lowered to fit fewer periods.
    public var blocksLowered: Bool

    public init(evidence: OutOfSampleEvidence, periodStarts: [Int64], matrixName: String, blocksLowered: Bool) {
      precondition(
        periodStarts.count == evidence.matrix.periods,
        "ResearchReport.OutOfSample: \(periodStarts.count) period starts for \(evidence.matrix.periods) periods")
      self.evidence = evidence
      self.periodStarts = periodStarts
      self.matrixName = matrixName
      self.blocksLowered = blocksLowered
    }

    /// The one sentence that says what survives: the rule of `OutOfSampleEvidence.survives`,
    /// with the figures that decide it (those that fail, when it does not survive).
    public var verdict: String {
      let e = evidence
      let pbo = "PBO " + ReportNumber.fixed(e.cscv.pbo, 2)
      let dsr = "deflated Sharpe " + ReportNumber.fixed(e.deflated.deflated, 2)
      let walk = e.walkForward.map { "walk-forward out-of-sample PnL " + ReportNumber.fixed($0.outOfSamplePnL, 2) }
      if e.survives { return "The best cell's edge survives out of sample: " + ([pbo, dsr] + [walk].compactMap { $0 }).joined(separator: ", ") + "." }
      var failing: [String] = []
      if e.cscv.pbo >= 0.5 { failing.append(pbo) }
      if (e.deflated.deflated ?? 0) < 0.95 { failing.append(dsr) }
      if let walk, (e.walkForward?.outOfSamplePnL ?? 0) <= 0 { failing.append(walk) }
      return "The best cell's edge does not survive out of sample: " + failing.joined(separator: ", ") + "."
    }
  }

  static let outOfSampleTitle = "Is the best threshold real?"

  var outOfSampleSection: ReportDocument.Section? {
    guard let outOfSample else { return nil }
    let e = outOfSample.evidence, matrix = e.matrix
    var section = ReportDocument.Section(id: "out-of-sample", title: Self.outOfSampleTitle)
    section.paragraph(outOfSample.verdict)
    section.paragraph(
      outOfSample.matrixName + ": " + ReportNumber.count(matrix.cells) + " cells over " + ReportNumber.count(matrix.periods)
        + " periods. The best cell here is cell " + ReportNumber.count(e.deflated.bestCell)
        + " (0-based, grid order), the one with the best Sharpe ratio of period PnL over all periods (per period, not annualised),"
        + " which may differ from the best cell by " + metric + " above. It survives when PBO < 0.5, the deflated Sharpe ≥ 0.95 and the"
        + " walk-forward out-of-sample PnL > 0 (docs/definitions.md). Recompute with arbkit validate.")

    section.heading("Probability of backtest overfitting (CSCV)")
    section.paragraph(
      "PBO " + ReportNumber.fixed(e.cscv.pbo, 4) + ": the share of the " + ReportNumber.count(e.cscv.combinations) + " combinations of "
        + "\(e.cscv.blocks / 2) of \(e.cscv.blocks) blocks in which the cell best in sample ranks in the lower half out of sample (logit ≤ 0)."
        + (outOfSample.blocksLowered ? " " + "\(e.cscv.blocks) blocks, not 16: the matrix has only \(matrix.periods) periods." : ""))
    let low = e.cscv.logits.min() ?? 0, high = e.cscv.logits.max() ?? 0
    let (edges, counts) = HistogramChart.bin(e.cscv.logits, low: min(low, -1), high: max(high, 1), bins: 24)
    var histogram = HistogramChart(
      id: "cscv-logits", title: "CSCV logits",
      description: "Histogram of the " + ReportNumber.count(e.cscv.combinations)
        + " logits λ = ln(ω / (1 − ω)); at or below 0 the in-sample best is in the lower half out of sample.",
      xTitle: "logit of the in-sample best's out-of-sample rank", edges: edges, counts: counts)
    histogram.countTitle = "combinations"
    section.figure(histogram.svg, file: "cscv-logits.svg", caption: "CSCV logits (PBO " + ReportNumber.fixed(e.cscv.pbo, 4) + ")")

    section.heading("Deflated Sharpe ratio")
    let d = e.deflated
    section.table(
      ReportDocument.Table(
        header: ["figure", "value"],
        rows: [
          ["SR, the best cell's Sharpe ratio (per period)", ReportNumber.fixed(d.sharpe.isFinite ? d.sharpe : nil, 4)],
          ["SR0, the expected maximum Sharpe ratio of N' trials", ReportNumber.fixed(d.expectedMaximum, 4)],
          ["N', cells with a finite Sharpe ratio", ReportNumber.count(d.trials)],
          ["V, variance of their Sharpe ratios", ReportNumber.fixed(d.variance, 6)],
          ["skewness of the best cell's period PnL", ReportNumber.fixed(d.skewness, 4)],
          ["kurtosis (not excess)", ReportNumber.fixed(d.kurtosis, 4)],
          ["T, periods", ReportNumber.count(matrix.periods)],
          ["deflated Sharpe ratio", ReportNumber.fixed(d.deflated, 4)],
        ], numeric: [1], caption: "The deflated Sharpe ratio is the probability that the best cell's true Sharpe ratio exceeds SR0."))

    if let walk = e.walkForward {
      section.heading("Walk-forward")
      section.paragraph(
        "\(walk.windows.count) windows of \(walk.train) train and \(walk.test) test periods" + (walk.anchored ? " (anchored)" : "")
          + ": out-of-sample PnL " + ReportNumber.fixed(walk.outOfSamplePnL, 2)
          + " (Sharpe " + ReportNumber.fixed(walk.outOfSampleSharpe.flatMap { $0.isFinite ? $0 : nil }, 4)
          + "), against " + ReportNumber.fixed(walk.inSamplePnL, 2) + " for the all-periods best cell over the same test periods."
          + (walk.windows.isEmpty ? " No window fits: train + test is more than the \(matrix.periods) periods." : ""))
      if !walk.windows.isEmpty {
        var time: [Int64] = [], outOfSampleEquity: [Double] = [], inSampleEquity: [Double] = []
        var outCumulative = 0.0, inCumulative = 0.0
        for window in walk.windows {
          for row in window.test {
            outCumulative += matrix.values[window.bestCell * matrix.periods + row]
            inCumulative += matrix.values[e.deflated.bestCell * matrix.periods + row]
            time.append(outOfSample.periodStarts[row])
            outOfSampleEquity.append(outCumulative)
            inSampleEquity.append(inCumulative)
          }
        }
        let valid = [Bool](repeating: true, count: time.count)
        var chart = TimeSeriesChart(
          id: "walk-forward", title: "Walk-forward equity",
          description: "Cumulative PnL over the test periods: each window's train-best cell (out of sample) against the all-periods best cell"
            + " (in sample); each point at its period's start.",
          yTitle: "cumulative PnL",
          series: [
            TimeSeriesChart.Series(name: "out of sample (walk-forward)", colour: "#2b8a3e", time: time, values: outOfSampleEquity, valid: valid),
            TimeSeriesChart.Series(name: "in-sample best cell", colour: "#868e96", time: time, values: inSampleEquity, valid: valid),
          ])
        chart.zone = zone
        chart.height = 260
        section.figure(chart.svg, file: "walk-forward.svg", caption: "Walk-forward out-of-sample equity against the in-sample best cell's")
        section.table(
          ReportDocument.Table(
            header: ["train periods", "test periods", "best cell", "train Sharpe", "test PnL"],
            rows: walk.windows.map {
              [
                "\($0.train.lowerBound)..<\($0.train.upperBound)", "\($0.test.lowerBound)..<\($0.test.upperBound)", ReportNumber.count($0.bestCell),
                ReportNumber.fixed($0.trainSharpe.isFinite ? $0.trainSharpe : nil, 4), ReportNumber.fixed($0.testPnL, 2),
              ]
            }, numeric: [2, 3, 4], caption: "Period indices are 0-based, half-open."))
      }
    }

    if let bootstrap = e.bootstrap {
      section.heading("Bootstrap")
      let pnl = bootstrap.pnlQuantiles, sharpe = bootstrap.sharpeQuantiles
      section.table(
        ReportDocument.Table(
          header: ["", "2.5 %", "50 %", "97.5 %"],
          rows: [
            ["total PnL"] + pnl.map { ReportNumber.fixed($0, 2) },
            ["Sharpe ratio (per period)"] + sharpe.map { ReportNumber.fixed($0, 4) },
          ], numeric: [1, 2, 3],
          caption: "Stationary block bootstrap of the best cell's period PnL: " + ReportNumber.count(bootstrap.resamples) + " resamples, mean block "
            + "\(bootstrap.blockLength) periods, seed \(bootstrap.seed)."))
      section.paragraph("Resamples with total PnL ≤ 0: " + ReportNumber.percent(bootstrap.sharePnLAtMostZero) + ".")
    }
    return section
  }
}
