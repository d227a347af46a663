/// Lines over time, downsampled with min/max per pixel column, optionally over the
/// premium bands shaded as the board colours them (grey from the first band, orange
/// from the second, on both signs), with a band-occupancy strip under the time axis.
///
/// The shading covers only the zones near zero (each band up to the next, the last up to
/// twice its level), never everything beyond the last band: on a range of ±10 % that
/// would colour nearly the whole plot. The strip says at any range when the premium
/// was in each band: per pixel column, the colour of the highest band its first series
/// reached there (|x| when signed), carried over columns without points as the line is.
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
  /// Room under the time axis for the band-occupancy strip (when there are bands).
  static let stripRoom = 22.0

  public init(id: String, title: String, description: String, yTitle: String, series: [Series]) {
    self.id = id
    self.title = title
    self.description = description
    self.yTitle = yTitle
    self.series = series
  }

  public var svg: SVG {
    let strip = bands.isEmpty || series.isEmpty ? 0 : Self.stripRoom
    var svg = SVG(id: id, width: width, height: height + strip, title: title, description: description)
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
    if strip > 0, let first = series.first {
      drawOccupancy(
        &svg, frame,
        MinMaxDownsample.runs(
          time: first.time, values: first.values, valid: first.valid, start: start, end: max(end, start + 1), columns: columns), columns: columns)
    }
    var legend = series.map { ($0.colour, $0.name) }
    for (k, band) in bands.enumerated() where k < Self.bandColours.count {
      legend.append((Self.bandColours[k], (signed ? "|x| ≥ " : "≥ ") + ReportNumber.fixed(band, 2) + " %"))
    }
    frame.drawLegend(&svg, legend)
    return svg
  }

  /// Shaded band zones and dashed lines at each band level.
  private func drawBands(_ svg: inout SVG, _ frame: PlotFrame) {
    for (k, band) in bands.enumerated() where k < Self.bandColours.count {
      for sign in signed ? [1.0, -1.0] : [1.0] {
        // Up to the next band; the last one up to twice its level (clamped to the plot).
        let upper = k + 1 < bands.count ? bands[k + 1] : 2 * band
        let a = frame.yClamped(sign * band), b = frame.yClamped(sign * upper)
        svg.rect(frame.left, min(a, b), frame.width, abs(a - b), fill: Self.bandColours[k])
        if a > frame.top && a < frame.bottom { svg.line(frame.left, a, frame.right, a, stroke: Self.bandLineColours[k], width: 0.8, dash: "4 3") }
      }
    }
  }

  /// The band-occupancy strip under the time axis: a rect per stretch of pixel columns
  /// in the same band (`bandLineColours`, the highest band reached), nothing below the
  /// first band or where the series is invalid.
  private func drawOccupancy(_ svg: inout SVG, _ frame: PlotFrame, _ runs: [[MinMaxDownsample.Column]], columns: Int) {
    let y = frame.bottom + 40, height = 8.0, step = frame.width / Double(columns)
    svg.text(frame.left - 6, y + height - 1, "bands", anchor: .end, size: 9)
    svg.rect(frame.left, y, frame.width, height, fill: "none", stroke: "#ccc")
    let levels = bands.prefix(Self.bandLineColours.count)
    for run in runs {
      // Each column holds until the next column of its run (as the line does).
      var stretch: (from: Int, level: Int)? = nil
      func close(_ stretch: (from: Int, level: Int), before end: Int) {
        guard stretch.level >= 0 else { return }
        svg.rect(frame.left + Double(stretch.from) * step, y, Double(end - stretch.from) * step, height, fill: Self.bandLineColours[stretch.level])
      }
      for column in run {
        let reach = signed ? max(abs(column.low), abs(column.high)) : column.high
        let level = levels.lastIndex { reach >= $0 } ?? -1
        if let open = stretch, open.level != level {
          close(open, before: column.index)
          stretch = nil
        }
        if stretch == nil { stretch = (column.index, level) }
      }
      if let open = stretch, let last = run.last { close(open, before: last.index + 1) }
    }
  }
}
