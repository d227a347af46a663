import ArbCore

/// The axes of a parameter sweep (`--grid KEY=SPEC`) and the cells they span.
///
/// `SPEC` is a list (`0,0.02,0.05`, `0ms,50ms`) or a range `START:STOP:STEP`, of
/// numbers or of durations with units, inclusive of `STOP` when it lands on the
/// step. Range values are computed on scaled integers, so `0.05:0.30:0.01` gives
/// exactly `0.05 … 0.3`, never `0.30000000000000004`. Cells run in grid order: the
/// first axis slowest.
public struct SweepGrid: Sendable, Equatable {
  public struct Axis: Sendable, Equatable {
    /// A scenario key (`strategy.entry`).
    public var key: String
    /// The values as `--set` text.
    public var values: [String]
  }

  public var axes: [Axis]

  /// The `KEY=SPEC` texts, as given (for the sidecar that shards are checked with).
  public var specs: [String]

  /// Parses `KEY=SPEC` axes; the error is a usage message. Every axis's size is
  /// known from its `SPEC` before any value is built, and the grid is refused when
  /// it has more than `maximumCells` cells.
  public init(parsing texts: [String]) throws(SweepGridError) {
    var specs: [(key: String, values: Values)] = []
    for text in texts {
      guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { throw SweepGridError(.notKeySpec(text)) }
      let key = String(text[..<eq])
      if specs.contains(where: { $0.key == key }) { throw SweepGridError(.repeatedKey(key)) }
      specs.append((key, try Self.values(String(text[text.index(after: eq)...]), key: key)))
    }
    guard !specs.isEmpty else { throw SweepGridError(.noAxis) }
    var cells = 1
    for spec in specs {
      let (product, overflow) = cells.multipliedReportingOverflow(by: spec.values.count)
      guard !overflow, product <= Self.maximumCells else {
        let sizes = specs.map { String($0.values.count) }.joined(separator: " × ")
        throw SweepGridError(.tooManyCells(sizes: sizes))
      }
      cells = product
    }
    axes = specs.map { Axis(key: $0.key, values: (0..<$0.values.count).map($0.values.value)) }
    self.specs = texts
  }

  /// The most cells a grid may have.
  public static let maximumCells = 10_000_000

  /// Number of cells: the product of the axes' sizes.
  public var cellCount: Int { axes.reduce(1) { $0 * $1.values.count } }

  /// The value index on each axis of cell `cell` (first axis slowest).
  public func coordinates(_ cell: Int) -> [Int] {
    var rest = cell
    var coordinates = [Int](repeating: 0, count: axes.count)
    for k in axes.indices.reversed() {
      coordinates[k] = rest % axes[k].values.count
      rest /= axes[k].values.count
    }
    return coordinates
  }

  /// The cell at these value indexes.
  public func cell(_ coordinates: [Int]) -> Int {
    zip(axes, coordinates).reduce(0) { $0 * $1.0.values.count + $1.1 }
  }

  /// The `KEY=VALUE` overrides of cell `cell`.
  public func overrides(_ cell: Int) -> [String] {
    zip(axes, coordinates(cell)).map { "\($0.key)=\($0.values[$1])" }
  }

  /// The cells next to `cell`: one step either way along each axis.
  public func neighbours(_ cell: Int) -> [Int] {
    let here = coordinates(cell)
    var result: [Int] = []
    for k in axes.indices {
      for step in [-1, 1] where (0..<axes[k].values.count).contains(here[k] + step) {
        var there = here
        there[k] += step
        result.append(self.cell(there))
      }
    }
    return result
  }

  /// An axis's values before they are built: how many, and the text of the k-th.
  private struct Values {
    var count: Int
    var value: (Int) -> String
  }

  private static func values(_ spec: String, key: String) throws(SweepGridError) -> Values {
    let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    // A latency's and a queue model's own forms hold ':' (uniform:10ms:40ms,
    // probabilistic:2): a list of them, unless the SPEC is a range of three durations.
    let type = Scenario.type(of: key)
    let formList = type == .queue || (type == .latency && !(parts.count == 3 && parts.allSatisfy { TimeText.parseDuration($0) != nil }))
    if parts.count == 1 || formList {
      let list = spec.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard !list.contains(where: \.isEmpty) else { throw SweepGridError(.axis(key: key, "empty value in '\(spec)'")) }
      // A value is one CSV field of the sweep's output, which is read back line by line.
      guard !list.contains(where: { $0.contains(where: \.isNewline) }) else { throw SweepGridError(.axis(key: key, "a value holds a line break")) }
      return Values(count: list.count) { list[$0] }
    }
    guard parts.count == 3 else { throw SweepGridError(.axis(key: key, "'\(spec)' is neither a list nor START:STOP:STEP")) }
    if let numbers = try decimalRange(parts, key: key) { return numbers }
    if Scenario.type(of: key) == .number {
      throw SweepGridError(.axis(key: key, "'\(spec)' needs three plain decimals such as 0.05:0.30:0.01 (no exponent)"))
    }
    guard let start = TimeText.parseDuration(parts[0]), let stop = TimeText.parseDuration(parts[1]), let step = TimeText.parseDuration(parts[2])
    else { throw SweepGridError(.axis(key: key, "'\(spec)' needs three numbers or three durations")) }
    guard step > 0, start <= stop else { throw SweepGridError(.axis(key: key, "'\(spec)' needs STEP > 0 and START ≤ STOP")) }
    // Durations are ≥ 0, so stop − start cannot overflow.
    return Values(count: Int((stop - start) / step) + 1) { TimeText.durationText(start + Int64($0) * step) }
  }

  /// `START:STOP:STEP` of plain decimals on integers scaled by the most decimals any
  /// of the three has; `nil` when they are not plain decimals.
  private static func decimalRange(_ parts: [String], key: String) throws(SweepGridError) -> Values? {
    func decimals(_ text: String) -> Int? {
      guard Double(text) != nil, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
      return text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? 0
    }
    let places = parts.map(decimals)
    guard places.allSatisfy({ $0 != nil }) else { return nil }
    let scale = places.map { $0! }.max()!
    let spec = parts.joined(separator: ":")
    guard scale <= 12 else { throw SweepGridError(.axis(key: key, "more than 12 decimals")) }
    func scaled(_ text: String) throws(SweepGridError) -> Int64 {
      let negative = text.hasPrefix("-")
      let body = negative ? String(text.dropFirst()) : text
      let pieces = body.split(separator: ".", omittingEmptySubsequences: false)
      let fraction = pieces.count > 1 ? String(pieces[1]) : ""
      guard let digits = Int64(String(pieces[0]) + fraction + String(repeating: "0", count: scale - fraction.count)) else {
        throw SweepGridError(.axis(key: key, "'\(spec)' is out of range (at most 18 digits)"))
      }
      return negative ? -digits : digits
    }
    let start = try scaled(parts[0]), stop = try scaled(parts[1]), step = try scaled(parts[2])
    guard step > 0, start <= stop else { throw SweepGridError(.axis(key: key, "'\(spec)' needs STEP > 0 and START ≤ STOP")) }
    let (span, overflow) = stop.subtractingReportingOverflow(start)
    guard !overflow else { throw SweepGridError(.axis(key: key, "'\(spec)' is out of range (at most 18 digits)")) }
    return Values(count: Int(span / step) + 1) { format(start + Int64($0) * step, scale: scale) }
  }

  /// A scaled integer as the shortest decimal text (`5` at scale 2 is `0.05`).
  static func format(_ value: Int64, scale: Int) -> String {
    var divisor: Int64 = 1
    for _ in 0..<scale { divisor *= 10 }
    let magnitude = value.magnitude
    let remainder = String(magnitude % UInt64(divisor))
    var fraction = scale > 0 ? String(repeating: "0", count: scale - remainder.count) + remainder : ""
    while fraction.last == "0" { fraction.removeLast() }
    return (value < 0 ? "-" : "") + String(magnitude / UInt64(divisor)) + (fraction.isEmpty ? "" : "." + fraction)
  }
}

/// A sweep that cannot run, as a usage message.
/// A grid axis that cannot be read (exit 64). The messages name no flag: `arbkit sweep`
/// says which flag gave the axis.
public struct SweepGridError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Reason: Equatable, Sendable {
    /// An axis that is not `KEY=SPEC`.
    case notKeySpec(String)
    /// A key given twice.
    case repeatedKey(String)
    case noAxis
    /// More than `SweepGrid.maximumCells` cells; the axes' sizes as `a × b × …`.
    case tooManyCells(sizes: String)
    /// An axis whose SPEC is not a list or a range of its key's values.
    case axis(key: String, String)
  }

  public var reason: Reason

  public init(_ reason: Reason) { self.reason = reason }

  public var description: String {
    switch reason {
    case .notKeySpec(let text): "axis '\(text)' is not KEY=SPEC"
    case .repeatedKey(let key): "the grid names \(key) twice"
    case .noAxis: "the grid has no axis"
    case .tooManyCells(let sizes): "the grid has more than 10,000,000 cells (\(sizes))"
    case .axis(let key, let problem): "axis \(key): \(problem)"
    }
  }
}

public struct SweepError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
