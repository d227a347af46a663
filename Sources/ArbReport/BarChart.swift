/// Bars for labelled categories (days, duration classes), positive and negative
/// values in two colours, labels thinned to fit.
public struct BarChart: Sendable {
  public var id: String
  public var title: String
  public var description: String
  public var xTitle: String
  public var yTitle: String
  public var labels: [String]
  public var values: [Double]
  public var positive = "#2f9e44"
  public var negative = "#e03131"
  public var width = 960.0
  public var height = 280.0

  public init(id: String, title: String, description: String, xTitle: String, yTitle: String, labels: [String], values: [Double]) {
    precondition(labels.count == values.count, "BarChart: \(labels.count) labels for \(values.count) values")
    self.id = id
    self.title = title
    self.description = description
    self.xTitle = xTitle
    self.yTitle = yTitle
    self.labels = labels
    self.values = values
  }

  public var svg: SVG {
    var svg = SVG(id: id, width: width, height: height, title: title, description: description)
    let ticks = NiceTicks.numbers(min(values.min() ?? 0, 0), max(values.max() ?? 0, 0), count: 5)
    let frame = PlotFrame(
      left: 72, top: 20, width: width - 92, height: height - 64, xDomain: (0, Double(max(labels.count, 1))),
      yDomain: (ticks.values.first!, ticks.values.last!))
    frame.drawYAxis(&svg, ticks: ticks, title: yTitle)
    let slot = frame.width / Double(max(labels.count, 1))
    let every = max(1, Int((60 / slot).rounded(.up)))
    for (k, value) in values.enumerated() {
      let x = frame.x(Double(k)), zero = frame.y(0), y = frame.y(value)
      let tooltip = labels[k] + ": " + ReportNumber.fixed(value, 2)
      svg.rect(x + slot * 0.1, min(y, zero), slot * 0.8, max(abs(zero - y), value == 0 ? 0 : 0.5), fill: value < 0 ? negative : positive, tooltip: tooltip)
      if k % every == 0 { svg.text(x + slot / 2, frame.bottom + 16, labels[k], anchor: .middle, size: 10) }
    }
    svg.line(frame.left, frame.bottom, frame.right, frame.bottom, stroke: "#666")
    svg.text(frame.left + frame.width / 2, frame.bottom + 34, xTitle, anchor: .middle, size: 11)
    return svg
  }
}
