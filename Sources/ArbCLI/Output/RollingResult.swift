import ArbAnalytics
import ArbCore

/// What `arbkit rolling` computes and prints: the per-point series (for `--out`) and a
/// summary as JSON, long-form CSV or a table.
struct RollingResult {
  let points: Int
  let analysis: RollingAnalysis
  let window: RollingWindow
  let ewmaHalfLife: EWMAHalfLife?
  let exec: Bool

  init(points: Int, analysis: RollingAnalysis, window: RollingWindow, ewma: EWMAHalfLife?, exec: Bool) {
    self.points = points
    self.analysis = analysis
    self.window = window
    ewmaHalfLife = ewma
    self.exec = exec
  }

  static func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }

  /// Appends a chunk's rows of `ts_us,value,mean,std,z,ewma_mean,ewma_std,half_life_s`,
  /// one per valid point.
  static func write(values: [Double], time: [Int64], figures: RollingPoints, to out: inout RowWriter) throws {
    let ewma = !figures.ewmaMean.isEmpty
    for i in values.indices {
      try out.appendRow { row in
        row.append(time[i])
        row.appendField(values[i])
        row.appendField(finite(figures.mean[i]))
        row.appendField(finite(figures.std[i]))
        row.appendField(finite(figures.z[i]))
        row.appendField(ewma ? finite(figures.ewmaMean[i]) : nil)
        row.appendField(ewma ? finite(figures.ewmaStd[i]) : nil)
        row.appendField(finite(figures.halfLifeSeconds[i]))
        row.append(ascii: "\n")
      }
    }
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

  /// Share of the defined z-scores with |z| ≥ 2 or 3 (`count`).
  func zShare(_ count: Int) -> Double? {
    analysis.zDefined > 0 ? Double(count) / Double(analysis.zDefined) : nil
  }

  var json: JSONValue {
    let levels = RollingCommand.quantileLevels.map { JSONValue.format($0) }
    func quantileObject(_ quantiles: [Double]?) -> JSONValue {
      .object(quantiles.map { zip(levels, $0).map { ($0, .number($1)) } } ?? [])
    }
    let last = analysis.last
    return .object([
      ("series", .string(exec ? "exec" : "premium")),
      ("window", .string(windowText)),
      ("ewma_half_life", ewmaText.map { .string($0) } ?? .null),
      ("points", .int(points)),
      ("valid_points", .int(analysis.count)),
      ("z_defined", .int(analysis.zDefined)),
      ("z_share_abs_ge_2", .number(zShare(analysis.zAtLeast2))),
      ("z_share_abs_ge_3", .number(zShare(analysis.zAtLeast3))),
      (
        "last",
        .object([
          ("ts_us", .int(last?.time)),
          ("value", .number(last?.value)),
          ("mean", .number(Self.finite(last?.mean))),
          ("std", .number(Self.finite(last?.std))),
          ("z", .number(Self.finite(last?.z))),
          ("ewma_mean", .number(Self.finite(last?.ewmaMean))),
          ("ewma_std", .number(Self.finite(last?.ewmaStd))),
        ])
      ),
      ("half_life_s", .number(analysis.halfLife?.seconds)),
      ("half_life_points", .number(analysis.halfLife?.points)),
      (
        "rolling_half_life",
        .object([
          ("windows", .int(analysis.windows)),
          ("mean_reverting", .int(analysis.meanReverting)),
          ("seconds", quantileObject(analysis.halfLifeSeconds)),
          ("points", quantileObject(analysis.halfLifePoints)),
        ])
      ),
      (
        "variance_ratios",
        .array(
          analysis.varianceRatios.map { q, vr in
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
    text += "\nPoints \(points): valid \(analysis.count), z defined at \(analysis.zDefined)\n\n"
    var summary = TextTable(["", "value"])
    summary.add(["share |z| ≥ 2", NumberText.percent(zShare(analysis.zAtLeast2))])
    summary.add(["share |z| ≥ 3", NumberText.percent(zShare(analysis.zAtLeast3))])
    summary.add(["last z", NumberText.fixed(Self.finite(analysis.last?.z), 3)])
    summary.add(["half-life (whole series)", NumberText.duration(analysis.halfLife?.seconds)])
    text += summary.rendered(indent: "  ") + "\n\nRolling half-life (windows with −1 < β < 0)\n"
    var halfLives = TextTable(["quantile %", "half-life", "points"])
    let seconds = analysis.halfLifeSeconds, pointsQ = analysis.halfLifePoints
    for (k, level) in RollingCommand.quantileLevels.enumerated() {
      halfLives.add([JSONValue.format(level), NumberText.duration(seconds?[k]), NumberText.fixed(pointsQ?[k], 1)])
    }
    text += halfLives.rendered(indent: "  ") + "\n\nVariance ratios (1 = random walk, < 1 mean-reverting)\n"
    var vr = TextTable(["q", "VR(q)", "z"])
    for (q, ratio) in analysis.varianceRatios { vr.add(["\(q)", NumberText.fixed(ratio?.ratio, 4), NumberText.fixed(ratio?.z, 2)]) }
    return text + vr.rendered(indent: "  ")
  }
}
