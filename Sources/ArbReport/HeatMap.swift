/// A grid of coloured cells (rows × columns) with labels, a colour legend and a
/// tooltip per cell; a missing value is drawn as a hatched grey cell, never as 0.
public struct HeatMap: Sendable {
  /// How values map to colours.
  public enum Scale: Sendable {
    /// White (low) to orange (high) over `low…high`.
    case sequential(low: Double, high: Double)
    /// Blue (negative, darkest at `low` < 0) through white (0) to red (positive,
    /// darkest at `high` > 0): each side scaled to its own extreme.
    case diverging(low: Double, high: Double)
  }

  public var id: String
  public var title: String
  public var description: String
  public var rowTitle: String
  public var columnTitle: String
  public var rows: [String]
  public var columns: [String]
  /// Row-major, `values[row][column]`.
  public var values: [[Double?]]
  public var scale: Scale
  /// Formats a value for its tooltip and the legend.
  public var format: @Sendable (Double) -> String
  /// A cell to outline (the best sweep cell).
  public var marked: (row: Int, column: Int)? = nil
  /// Print each value inside its cell (wide cells only).
  public var showValues = false
  public var cellWidth = 30.0
  public var cellHeight = 22.0

  public init(
    id: String, title: String, description: String, rowTitle: String, columnTitle: String, rows: [String], columns: [String],
    values: [[Double?]], scale: Scale, format: @escaping @Sendable (Double) -> String
  ) {
    precondition(values.count == rows.count && values.allSatisfy { $0.count == columns.count }, "HeatMap: values do not match the labels")
    self.id = id
    self.title = title
    self.description = description
    self.rowTitle = rowTitle
    self.columnTitle = columnTitle
    self.rows = rows
    self.columns = columns
    self.values = values
    self.scale = scale
    self.format = format
  }

  /// The fill of a value on `scale`.
  public static func colour(_ value: Double, _ scale: Scale) -> String {
    switch scale {
    case .sequential(let low, let high):
      let t = high > low ? min(max((value - low) / (high - low), 0), 1) : 0
      return mix((255, 255, 255), (232, 89, 12), t)
    case .diverging(let low, let high):
      if value < 0 { return mix((255, 255, 255), (25, 113, 194), low < 0 ? min(value / low, 1) : 0) }
      return mix((255, 255, 255), (201, 42, 42), high > 0 ? min(value / high, 1) : 0)
    }
  }

  private static func mix(_ a: (Int, Int, Int), _ b: (Int, Int, Int), _ t: Double) -> String {
    func channel(_ x: Int, _ y: Int) -> String {
      let v = Int((Double(x) + (Double(y) - Double(x)) * t).rounded())
      let hex = String(v, radix: 16)
      return hex.count == 1 ? "0" + hex : hex
    }
    return "#" + channel(a.0, b.0) + channel(a.1, b.1) + channel(a.2, b.2)
  }

  public var svg: SVG {
    let left = 20 + Double(rows.map(\.count).max() ?? 0) * 6.5 + 16
    let top = 44.0
    let width = left + Double(columns.count) * cellWidth + 24
    let height = top + Double(rows.count) * cellHeight + 78
    // Wide enough for the legend (ten swatches and "no data").
    var svg = SVG(id: id, width: max(width, left + 350), height: height, title: title, description: description)
    let every = max(1, Int((Double(columns.map(\.count).max() ?? 1) * 6.5 / cellWidth).rounded(.up)))
    for (c, label) in columns.enumerated() where c % every == 0 {
      svg.text(left + (Double(c) + 0.5) * cellWidth, top - 6, label, anchor: .middle, size: 10)
    }
    svg.text(left + Double(columns.count) * cellWidth / 2, top - 24, columnTitle, anchor: .middle, size: 11)
    for (r, label) in rows.enumerated() {
      let y = top + Double(r) * cellHeight
      svg.text(left - 6, y + cellHeight / 2 + 4, label, anchor: .end, size: 10)
      for (c, value) in values[r].enumerated() {
        let x = left + Double(c) * cellWidth
        let tooltip = rowTitle + " " + label + ", " + columnTitle + " " + columns[c] + ": " + (value.map(format) ?? "no data")
        svg.rect(x, y, cellWidth - 1, cellHeight - 1, fill: value.map { Self.colour($0, scale) } ?? "#f1f3f5", tooltip: tooltip)
        if value == nil { svg.line(x + 3, y + cellHeight - 4, x + cellWidth - 4, y + 3, stroke: "#ced4da") }
        if showValues, let value { svg.text(x + cellWidth / 2, y + cellHeight / 2 + 3.5, format(value), anchor: .middle, size: 9, fill: "#212529") }
      }
    }
    svg.text(12, top + Double(rows.count) * cellHeight / 2, rowTitle, anchor: .middle, size: 11, rotate: -90)
    if let marked {
      svg.element(
        "rect",
        [
          ("x", SVG.f(left + Double(marked.column) * cellWidth - 1)), ("y", SVG.f(top + Double(marked.row) * cellHeight - 1)),
          ("width", SVG.f(cellWidth + 1)), ("height", SVG.f(cellHeight + 1)), ("fill", "none"), ("stroke", "#000"), ("stroke-width", "2.5"),
        ])
    }
    drawLegend(&svg, x: left, y: top + Double(rows.count) * cellHeight + 22)
    return svg
  }

  /// Ten swatches across the scale with the end and middle values.
  private func drawLegend(_ svg: inout SVG, x: Double, y: Double) {
    let (low, high): (Double, Double)
    switch scale {
    case .sequential(let a, let b): (low, high) = (a, b)
    case .diverging(let a, let b): (low, high) = (min(a, 0), max(b, 0))
    }
    // Diverging: five swatches each side of 0, so the middle label is 0.
    let middle: Double
    if case .diverging = scale { middle = 0 } else { middle = (low + high) / 2 }
    for k in 0..<10 {
      let t = (Double(k) + 0.5) / 10
      let value = t < 0.5 ? low + (middle - low) * t * 2 : middle + (high - middle) * (t - 0.5) * 2
      svg.rect(x + Double(k) * 24, y, 24, 12, fill: Self.colour(value, scale))
    }
    svg.text(x, y + 26, format(low), size: 10)
    svg.text(x + 120, y + 26, format(middle), anchor: .middle, size: 10)
    svg.text(x + 240, y + 26, format(high), anchor: .end, size: 10)
    svg.rect(x + 260, y, 24, 12, fill: "#f1f3f5")
    svg.text(x + 290, y + 10, "no data", size: 10)
  }
}
