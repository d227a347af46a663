import ArbAnalytics
import ArbCore

/// What `arbkit rolling` computes and prints: the per-point series (for `--out`) and a
/// summary as JSON, long-form CSV or a table.
struct RollingResult {
  let points: Int
  let values: [Double]
  let time: [Int64]
  let window: RollingWindow
  let ewmaHalfLife: EWMAHalfLife?
  let exec: Bool
  let rolling: RollingStatistics
  let ewma: EWMA?
  let halfLife: RollingHalfLife
  let wholeHalfLife: HalfLife?
  let ratios: [(q: Int, ratio: VarianceRatio?)]

  /// - Throws: `TimeError` when a window would start before the first time there is.
  init(points: Int, values: [Double], time: [Int64], window: RollingWindow, ewma: EWMAHalfLife?, exec: Bool) throws(TimeError) {
    if let first = time.first, let last = time.last { try window.checkRange(first...last) }
    self.points = points
    self.values = values
    self.time = time
    self.window = window
    ewmaHalfLife = ewma
    self.exec = exec
    rolling = RollingStatistics(values: values, time: time, window: window)
    self.ewma = ewma.map { EWMA(values: values, time: time, halfLife: $0) }
    halfLife = RollingHalfLife(values: values, time: time, window: window)
    let durations = time.indices.map { $0 + 1 < time.count ? Double(time[$0 + 1] - time[$0]) : 0 }
    wholeHalfLife = HalfLife(values: values, durations: durations)
    ratios = RollingCommand.varianceRatioLags.map { ($0, VarianceRatio(values: values, q: $0)) }
  }

  static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

  /// Writes `ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s`, one row per valid point.
  func writeSeries(to output: TableOutput) throws {
    var out = try RowWriter(output, types: [.timestampMicros] + Array(repeating: .float64, count: 7))
    try out.append("ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s\n")
    for i in values.indices {
      var line = String(time[i]) + "," + NumberText.csv(values[i])
      for column in [rolling.mean, rolling.std, rolling.z] { line += "," + NumberText.csv(Self.finite(column[i])) }
      line += "," + NumberText.csv(ewma.flatMap { Self.finite($0.mean[i]) })
      line += "," + NumberText.csv(ewma.flatMap { Self.finite($0.std[i]) })
      line += "," + NumberText.csv(Self.finite(halfLife.seconds[i])) + "\n"
      try out.append(line)
    }
    _ = try out.finish()
  }

  var windowText: String {
    switch window {
    case .points(let n): "\(n) points"
    case .time(let span): TimeText.durationText(span)
    }
  }

  var ewmaText: String? {
    switch ewmaHalfLife {
    case .points(let h): "\(JSONValue.format(h)) points"
    case .time(let span): TimeText.durationText(span)
    case nil: nil
    }
  }

  /// Quantiles of the defined values of `column` at `RollingCommand.quantileLevels`.
  static func quantiles(_ column: [Double]) -> [Double]? {
    var defined = column.filter(\.isFinite)
    return Quantiles.computeInPlace(&defined, probabilities: RollingCommand.quantileLevels.map { $0 / 100 })
  }

  var zDefined: Int { rolling.z.reduce(0) { $0 + ($1.isFinite ? 1 : 0) } }

  /// Share of the defined z-scores with |z| ≥ `level`.
  func zShare(_ level: Double) -> Double? {
    let defined = zDefined
    guard defined > 0 else { return nil }
    return Double(rolling.z.reduce(0) { $0 + (abs($1) >= level ? 1 : 0) }) / Double(defined)
  }

  var json: JSONValue {
    let halfLives = halfLife.seconds.reduce(0) { $0 + ($1.isFinite ? 1 : 0) }
    let levels = RollingCommand.quantileLevels.map { JSONValue.format($0) }
    func quantileObject(_ column: [Double]) -> JSONValue {
      .object(Self.quantiles(column).map { zip(levels, $0).map { ($0, .number($1)) } } ?? [])
    }
    return .object([
      ("series", .string(exec ? "exec" : "premium")),
      ("window", .string(windowText)),
      ("ewma_half_life", ewmaText.map { .string($0) } ?? .null),
      ("points", .int(points)),
      ("valid_points", .int(values.count)),
      ("z_defined", .int(zDefined)),
      ("z_share_abs_ge_2", .number(zShare(2))),
      ("z_share_abs_ge_3", .number(zShare(3))),
      (
        "last",
        .object([
          ("ts_us", .int(time.last)),
          ("value", .number(values.last)),
          ("mean", .number(rolling.mean.last.flatMap(Self.finite))),
          ("std", .number(rolling.std.last.flatMap(Self.finite))),
          ("z", .number(rolling.z.last.flatMap(Self.finite))),
          ("ewma_mean", .number(ewma?.mean.last.flatMap(Self.finite))),
          ("ewma_std", .number(ewma?.std.last.flatMap(Self.finite))),
        ])
      ),
      ("half_life_s", .number(wholeHalfLife?.seconds)),
      ("half_life_points", .number(wholeHalfLife?.points)),
      (
        "rolling_half_life",
        .object([
          ("windows", .int(halfLife.beta.reduce(0) { $0 + ($1.isFinite ? 1 : 0) })),
          ("mean_reverting", .int(halfLives)),
          ("seconds", quantileObject(halfLife.seconds)),
          ("points", quantileObject(halfLife.points)),
        ])
      ),
      (
        "variance_ratios",
        .array(
          ratios.map { q, vr in
            .object([("q", .int(q)), ("vr", .number(vr?.ratio)), ("z", .number(vr?.z))])
          })
      ),
    ])
  }

  /// Long-form CSV: `metric,value`, nested keys joined with `_`.
  var csv: String {
    var text = "metric,value\n"
    func add(_ prefix: String, _ value: JSONValue) {
      switch value {
      case .object(let members): for (key, member) in members { add(prefix.isEmpty ? key : prefix + "_" + key, member) }
      case .array(let items):
        for case .object(let item) in items {
          let q = item[0].1.rendered(indent: 0)
          for (key, member) in item.dropFirst() { add("\(prefix)_q\(q)_\(key)", member) }
        }
      case .null: text += "\(prefix),\n"
      case .string(let s): text += "\(prefix),\(s)\n"
      default: text += "\(prefix),\(value.rendered(indent: 0))\n"
      }
    }
    add("", json)
    return text
  }

  var table: String {
    var text = "Rolling \(exec ? "executable" : "mid") premium, window \(windowText)"
    text += ewmaText.map { ", EWMA half-life \($0)" } ?? ""
    text += "\nPoints \(points): valid \(values.count), z defined at \(zDefined)\n\n"
    var summary = TextTable(["", "value"])
    summary.add(["share |z| ≥ 2", NumberText.percent(zShare(2))])
    summary.add(["share |z| ≥ 3", NumberText.percent(zShare(3))])
    summary.add(["last z", NumberText.fixed(rolling.z.last.flatMap(Self.finite), 3)])
    summary.add(["half-life (whole series)", NumberText.duration(wholeHalfLife?.seconds)])
    text += summary.rendered(indent: "  ") + "\n\nRolling half-life (windows with −1 < β < 0)\n"
    var halfLives = TextTable(["quantile %", "half-life", "points"])
    let seconds = Self.quantiles(halfLife.seconds), pointsQ = Self.quantiles(halfLife.points)
    for (k, level) in RollingCommand.quantileLevels.enumerated() {
      halfLives.add([JSONValue.format(level), NumberText.duration(seconds?[k]), NumberText.fixed(pointsQ?[k], 1)])
    }
    text += halfLives.rendered(indent: "  ") + "\n\nVariance ratios (1 = random walk, < 1 mean-reverting)\n"
    var vr = TextTable(["q", "VR(q)", "z"])
    for (q, ratio) in ratios { vr.add(["\(q)", NumberText.fixed(ratio?.ratio, 4), NumberText.fixed(ratio?.z, 2)]) }
    return text + vr.rendered(indent: "  ")
  }
}
