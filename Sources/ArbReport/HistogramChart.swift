/// Counts of values in equal bins over a range, values beyond the range counted in
/// the edge bins (and said so), with vertical markers at the bands.
public struct HistogramChart: Sendable {
  public var id: String
  public var title: String
  public var description: String
  public var xTitle: String
  /// Bin edges, ascending (one more than `counts`).
  public var edges: [Double]
  public var counts: [Int]
  public var bands: [Double] = []
  public var signed = true
  /// What a bin counts (the y axis and the legend).
  public var countTitle = "points"
  public var colour = "#4c6ef5"
  public var width = 960.0
  public var height = 300.0

  public init(id: String, title: String, description: String, xTitle: String, edges: [Double], counts: [Int]) {
    precondition(edges.count == counts.count + 1, "HistogramChart: \(edges.count) edges for \(counts.count) bins")
    self.id = id
    self.title = title
    self.description = description
    self.xTitle = xTitle
    self.edges = edges
    self.counts = counts
  }

  /// Bins `values` into `bins` equal bins over `low…high`; values outside go to the
  /// first and last bin.
  public static func bin(_ values: [Double], low: Double, high: Double, bins: Int) -> (edges: [Double], counts: [Int]) {
    precondition(high > low && bins > 0, "HistogramChart.bin: bad range")
    let step = (high - low) / Double(bins)
    var counts = [Int](repeating: 0, count: bins)
    for x in values { counts[min(max(Int(((x - low) / step).rounded(.down)), 0), bins - 1)] += 1 }
    return ((0...bins).map { low + Double($0) * step }, counts)
  }

  public var svg: SVG {
    var svg = SVG(id: id, width: width, height: height, title: title, description: description)
    let top = Double(counts.max() ?? 0)
    let yTicks = NiceTicks.numbers(0, max(top, 1), count: 5)
    let frame = PlotFrame(
      left: 64, top: 26, width: width - 84, height: height - 70, xDomain: (edges.first!, edges.last!), yDomain: (0, yTicks.values.last!))
    frame.drawYAxis(&svg, ticks: yTicks, title: countTitle)
    for (k, count) in counts.enumerated() where count > 0 {
      let x0 = frame.x(edges[k]), x1 = frame.x(edges[k + 1])
      let tooltip = ReportNumber.fixed(edges[k], 4) + " … " + ReportNumber.fixed(edges[k + 1], 4) + ": " + ReportNumber.count(count)
      svg.rect(x0 + 0.5, frame.y(Double(count)), max(x1 - x0 - 1, 0.5), frame.bottom - frame.y(Double(count)), fill: colour, tooltip: tooltip)
    }
    for (k, band) in bands.enumerated() {
      for level in signed ? [band, -band] : [band] where level >= edges.first! && level <= edges.last! {
        let x = frame.x(level)
        svg.line(x, frame.top, x, frame.bottom, stroke: TimeSeriesChart.bandLineColours[min(k, 1)], width: 1.5, dash: "5 3")
      }
    }
    frame.drawXAxis(&svg, ticks: NiceTicks.numbers(edges.first!, edges.last!, count: 8), title: xTitle)
    frame.drawLegend(
      &svg,
      [(colour, countTitle + " per bin")]
        + bands.enumerated().map { (TimeSeriesChart.bandLineColours[min($0.offset, 1)], "band " + ReportNumber.fixed($0.element, 2) + " %") })
    return svg
  }
}
