/// The plot area of a chart inside its drawing, with the linear maps from data to
/// pixels and the axes drawn with nice ticks and light grid lines.
public struct PlotFrame: Sendable {
  public var left: Double, top: Double, width: Double, height: Double
  public var xDomain: (Double, Double)
  public var yDomain: (Double, Double)

  public var right: Double { left + width }
  public var bottom: Double { top + height }

  public func x(_ value: Double) -> Double {
    left + (value - xDomain.0) / max(xDomain.1 - xDomain.0, .leastNormalMagnitude) * width
  }

  public func y(_ value: Double) -> Double {
    bottom - (value - yDomain.0) / max(yDomain.1 - yDomain.0, .leastNormalMagnitude) * height
  }

  /// A y value kept inside the plot area.
  public func yClamped(_ value: Double) -> Double { min(max(y(value), top), bottom) }

  /// Left axis with nice ticks (and their grid lines) and a rotated title.
  public func drawYAxis(_ svg: inout SVG, ticks: (values: [Double], step: Double, decimals: Int), title: String) {
    for value in ticks.values where value >= yDomain.0 - 1e-12 && value <= yDomain.1 + 1e-12 {
      let y = self.y(value)
      svg.line(left, y, right, y, stroke: value == 0 ? "#999" : "#e6e6e6", width: value == 0 ? 1 : 0.8)
      svg.text(left - 6, y + 4, NiceTicks.label(value, decimals: ticks.decimals), anchor: .end, size: 10)
    }
    svg.line(left, top, left, bottom, stroke: "#666")
    svg.text(14, top + height / 2, title, anchor: .middle, size: 11, rotate: -90)
  }

  /// Bottom time axis: ticks in the zone, labels under them, the title below.
  public func drawTimeAxis(_ svg: inout SVG, start: Int64, end: Int64, zone: ReportZone) {
    for tick in NiceTicks.times(start, end, offset: zone.offset, count: max(Int(width / 110), 2)) where tick.time >= start && tick.time <= end {
      let x = self.x(Double(tick.time))
      svg.line(x, top, x, bottom, stroke: "#eeeeee", width: 0.8)
      svg.line(x, bottom, x, bottom + 4, stroke: "#666")
      svg.text(x, bottom + 16, tick.label, anchor: .middle, size: 10)
    }
    svg.line(left, bottom, right, bottom, stroke: "#666")
    svg.text(left + width / 2, bottom + 32, "time (\(zone.label))", anchor: .middle, size: 11)
  }

  /// Bottom numeric axis with nice ticks.
  public func drawXAxis(_ svg: inout SVG, ticks: (values: [Double], step: Double, decimals: Int), title: String) {
    for value in ticks.values where value >= xDomain.0 - 1e-12 && value <= xDomain.1 + 1e-12 {
      let x = self.x(value)
      svg.line(x, bottom, x, bottom + 4, stroke: "#666")
      svg.text(x, bottom + 16, NiceTicks.label(value, decimals: ticks.decimals), anchor: .middle, size: 10)
    }
    svg.line(left, bottom, right, bottom, stroke: "#666")
    svg.text(left + width / 2, bottom + 32, title, anchor: .middle, size: 11)
  }

  /// A legend row at the top right: a swatch and a label per entry.
  public func drawLegend(_ svg: inout SVG, _ entries: [(colour: String, label: String)]) {
    var x = right
    for entry in entries.reversed() {
      let width = Double(entry.label.count) * 6 + 22
      x -= width
      svg.rect(x, top - 16, 12, 10, fill: entry.colour)
      svg.text(x + 16, top - 7, entry.label, size: 10)
    }
  }
}

/// The time zone of a report's time axes and time-of-day tables.
public struct ReportZone: Sendable, Equatable {
  public var name: String
  /// Offset from UTC, µs.
  public var offset: Int64

  public static let utc = ReportZone(name: "UTC", offset: 0)
  public static let seoul = ReportZone(name: "Asia/Seoul", offset: 9 * 3_600_000_000)

  /// `UTC` or `KST, UTC+9`.
  public var label: String { offset == 0 ? "UTC" : "KST, UTC+9" }
}
