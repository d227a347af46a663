/// Lines over time, downsampled with min/max per pixel column, optionally over the
/// premium bands shaded as the board colours them (grey from the first band, orange
/// from the second, on both signs).
public struct TimeSeriesChart: Sendable {
  public struct Series: Sendable {
    public var name: String
    public var colour: String
    public var time: [Int64]
    public var values: [Double]
    public var valid: [Bool]

    public init(name: String, colour: String, time: [Int64], values: [Double], valid: [Bool]) {
      self.name = name
      self.colour = colour
      self.time = time
      self.values = values
      self.valid = valid
    }
  }

  public static let bandColours = ["#e9ecef", "#ffe8cc"]
  public static let bandLineColours = ["#9a9a9a", "#f08c00"]

  public var id: String
  public var title: String
  public var description: String
  public var yTitle: String
  public var series: [Series]
  /// Band levels to shade (ascending), on both signs when `signed`.
  public var bands: [Double] = []
  public var signed = true
  public var zone = ReportZone.utc
  /// A fixed y range: values beyond it are drawn at its edge (say so in `description`).
  public var yRange: (Double, Double)? = nil
  /// Fill the area between the line and zero (drawdowns).
  public var fillToZero: String? = nil
  public var width = 960.0
  public var height = 320.0

  public init(id: String, title: String, description: String, yTitle: String, series: [Series]) {
    self.id = id
    self.title = title
    self.description = description
    self.yTitle = yTitle
    self.series = series
  }

  public var svg: SVG {
    var svg = SVG(id: id, width: width, height: height, title: title, description: description)
    let times = series.flatMap { [$0.time.first, $0.time.last].compactMap { $0 } }
    guard let start = times.min(), let end = times.max() else {
      svg.text(width / 2, height / 2, "no data", anchor: .middle)
      return svg
    }
    var low = 0.0, high = 0.0
    if let yRange {
      (low, high) = yRange
    } else {
      for s in series {
        for i in s.values.indices where s.valid[i] {
          low = min(low, s.values[i])
          high = max(high, s.values[i])
        }
      }
      if let top = bands.last {
        high = max(high, top * 1.5)
        if signed { low = min(low, -top * 1.5) }
      }
    }
    let ticks = NiceTicks.numbers(low, high, count: 6)
    let yDomain = yRange ?? (ticks.values.first!, ticks.values.last!)
    let frame = PlotFrame(left: 64, top: 26, width: width - 84, height: height - 70, xDomain: (Double(start), Double(max(end, start + 1))), yDomain: yDomain)
    drawBands(&svg, frame)
    frame.drawYAxis(&svg, ticks: ticks, title: yTitle)
    frame.drawTimeAxis(&svg, start: start, end: max(end, start + 1), zone: zone)
    let columns = max(Int(frame.width), 1)
    for s in series {
      let runs = MinMaxDownsample.runs(time: s.time, values: s.values, valid: s.valid, start: start, end: max(end, start + 1), columns: columns)
      let points = runs.map { run in
        run.flatMap { c -> [(x: Double, y: Double)] in
          let x = frame.left + (Double(c.index) + 0.5) * frame.width / Double(columns)
          return [(x, frame.yClamped(c.first)), (x, frame.yClamped(c.second))]
        }
      }
      if let fill = fillToZero {
        for run in points where !run.isEmpty {
          let zero = frame.yClamped(0)
          svg.polyline([[(run.first!.x, zero)] + run + [(run.last!.x, zero)]], stroke: "none", width: 0, fill: fill)
        }
      }
      svg.polyline(points, stroke: s.colour, width: 0.8)
    }
    var legend = series.map { ($0.colour, $0.name) }
    for (k, band) in bands.enumerated() where k < Self.bandColours.count {
      legend.append((Self.bandColours[k], (signed ? "|x| ≥ " : "≥ ") + ReportNumber.fixed(band, 2) + " %"))
    }
    frame.drawLegend(&svg, legend)
    return svg
  }

  /// Shaded band regions and dashed lines at each band level.
  private func drawBands(_ svg: inout SVG, _ frame: PlotFrame) {
    for (k, band) in bands.enumerated() where k < Self.bandColours.count {
      for sign in signed ? [1.0, -1.0] : [1.0] {
        // Up to the next band, or to the edge of the plot on this side.
        let edge = sign > 0 ? frame.yDomain.1 : -frame.yDomain.0
        let upper = k + 1 < bands.count ? bands[k + 1] : max(edge, band)
        let a = frame.yClamped(sign * band), b = frame.yClamped(sign * upper)
        svg.rect(frame.left, min(a, b), frame.width, abs(a - b), fill: Self.bandColours[k])
        if a > frame.top && a < frame.bottom { svg.line(frame.left, a, frame.right, a, stroke: Self.bandLineColours[k], width: 0.8, dash: "4 3") }
      }
    }
  }
}
