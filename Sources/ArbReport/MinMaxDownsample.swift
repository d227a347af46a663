/// A series reduced to what a chart can draw: for each pixel column, the lowest and
/// the highest value of the points that fall in it, in the order they occurred, so a
/// spike of a single point is always drawn. Invalid points break the line; columns
/// without points do not (the value in force holds until the next point, as-of).
public enum MinMaxDownsample {
  /// One pixel column's extremes (`first` is the one that occurred first).
  public struct Column: Sendable, Equatable {
    public var index: Int
    public var first: Double
    public var second: Double
    public var low: Double { Swift.min(first, second) }
    public var high: Double { Swift.max(first, second) }
  }

  /// Connected runs of columns over `columns` equal slices of `start…end`: a run
  /// breaks at an invalid point.
  ///
  /// - Complexity: O(points).
  public static func runs(time: [Int64], values: [Double], valid: [Bool], start: Int64, end: Int64, columns: Int) -> [[Column]] {
    precondition(time.count == values.count && time.count == valid.count && columns > 0, "MinMaxDownsample: bad input")
    let span = Double(max(end - start, 1))
    var runs: [[Column]] = []
    var run: [Column] = []
    var current: (index: Int, low: Double, lowAt: Int, high: Double, highAt: Int)? = nil
    func flush() {
      guard let c = current else { return }
      let (first, second) = c.lowAt <= c.highAt ? (c.low, c.high) : (c.high, c.low)
      run.append(Column(index: c.index, first: first, second: second))
      current = nil
    }
    for i in time.indices {
      guard valid[i] else {
        flush()
        if !run.isEmpty { runs.append(run); run = [] }
        continue
      }
      let column = Swift.min(Swift.max(Int(Double(time[i] - start) / span * Double(columns)), 0), columns - 1)
      let x = values[i]
      if let c = current, c.index == column {
        if x < c.low { current!.low = x; current!.lowAt = i }
        if x > c.high { current!.high = x; current!.highAt = i }
      } else {
        flush()
        current = (column, x, i, x, i)
      }
    }
    flush()
    if !run.isEmpty { runs.append(run) }
    return runs
  }
}
