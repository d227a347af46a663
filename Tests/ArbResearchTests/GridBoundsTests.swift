import Testing

@testable import ArbResearch

/// Grid axes whose size is known from `START:STOP:STEP` before any value is built, integer
/// ranges, and values the sweep's CSV can hold.
@Suite("Sweep grid bounds")
struct GridBoundsTests {
  @Test("integer ranges give integer values")
  func integerRanges() throws {
    #expect(try SweepGrid(parsing: ["strategy.entry=1:3:1"]).axes[0].values == ["1", "2", "3"])
    let notional = try SweepGrid(parsing: ["strategy.notional=1000:10000:1000"]).axes[0].values
    #expect(notional.count == 10 && notional.first == "1000" && notional.last == "10000")
    #expect(try SweepGrid(parsing: ["x=-2:2:2"]).axes[0].values == ["-2", "0", "2"])
    #expect(SweepGrid.format(-120, scale: 0) == "-120")
  }

  static let tooLarge: [(axes: [String], sizes: String)] = [
    (["costs.latency=0s:1d:1us"], "(86400000001)"),
    (["strategy.entry=0:1000000000:1"], "(1000000001)"),
    (["x=0:9000000000000000000:1"], "(9000000000000000001)"),
    (["a=1:4000:1", "b=1:4000:1"], "(4000 × 4000)"),
    (["a=1:3000:1", "b=1:3000:1", "c=1:3000:1"], "(3000 × 3000 × 3000)"),
    // The product overflows Int.
    (["a=1:2:1", "x=0:9000000000000000000:1"], "(2 × 9000000000000000001)"),
  ]

  @Test("a grid of more than 10,000,000 cells is refused from its specs, before a value is built", .timeLimit(.minutes(1)), arguments: tooLarge)
  func tooManyCells(c: (axes: [String], sizes: String)) {
    let error = #expect(throws: SweepGridError.self) { try SweepGrid(parsing: c.axes) }
    #expect(error?.description == "the grid has more than 10,000,000 cells \(c.sizes)")
  }

  static let bad: [(axis: String, message: String)] = [
    ("strategy.entry=0:1e6:1", "axis strategy.entry: '0:1e6:1' needs three plain decimals such as 0.05:0.30:0.01 (no exponent)"),
    ("x=0:99999999999999999999:1", "axis x: '0:99999999999999999999:1' is out of range (at most 18 digits)"),
    ("x=-9000000000000000000:9000000000000000000:1", "is out of range"),
    ("x=a\nb,c", "axis x: a value holds a line break"),
    ("x=a,b\r", "axis x: a value holds a line break"),
  ]

  @Test("number ranges need plain decimals in range; values hold no line break", arguments: bad)
  func badAxes(c: (axis: String, message: String)) {
    let error = #expect(throws: SweepGridError.self) { try SweepGrid(parsing: [c.axis]) }
    #expect(error?.description.contains(c.message) == true, "\(error?.description ?? "")")
  }

  @Test("a duration key still takes plain numbers as seconds")
  func durationNumbers() throws {
    #expect(try SweepGrid(parsing: ["costs.latency=0:2:1"]).axes[0].values == ["0", "1", "2"])
  }
}
