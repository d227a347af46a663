import Testing

@testable import ArbResearch

@Suite("Sweep grids")
struct SweepGridTests {
  @Test("decimal ranges are exact and include STOP when it lands on the step")
  func decimalRanges() throws {
    let grid = try SweepGrid(parsing: ["strategy.entry=0.05:0.30:0.01", "strategy.exit=0:0.1:0.03"])
    #expect(grid.axes[0].values.count == 26)
    #expect(grid.axes[0].values.first == "0.05" && grid.axes[0].values[5] == "0.1" && grid.axes[0].values.last == "0.3")
    #expect(grid.axes[1].values == ["0", "0.03", "0.06", "0.09"])  // 0.12 is past STOP
    #expect(try SweepGrid(parsing: ["x=-1:1:0.5"]).axes[0].values == ["-1", "-0.5", "0", "0.5", "1"])
  }

  @Test("lists, duration ranges, and the cell order: first axis slowest")
  func cells() throws {
    let grid = try SweepGrid(parsing: ["a=1,2", "costs.latency=0ms:100ms:50ms", "c=x,y"])
    #expect(grid.axes[1].values == ["0s", "50ms", "100ms"])
    #expect(grid.cellCount == 12)
    #expect(grid.overrides(0) == ["a=1", "costs.latency=0s", "c=x"])
    #expect(grid.overrides(1) == ["a=1", "costs.latency=0s", "c=y"])
    #expect(grid.overrides(2) == ["a=1", "costs.latency=50ms", "c=x"])
    #expect(grid.overrides(11) == ["a=2", "costs.latency=100ms", "c=y"])
    for cell in 0..<grid.cellCount { #expect(grid.cell(grid.coordinates(cell)) == cell) }
    // Cell (1, 1, 0) = 8: neighbours (0,1,0)=2, (1,0,0)=6, (1,2,0)=10, (1,1,1)=9.
    #expect(grid.neighbours(8).sorted() == [2, 6, 9, 10])
  }

  static let bad: [(String, String)] = [
    ("strategy.entry", "is not KEY=SPEC"),
    ("x=1:2", "neither a list nor START:STOP:STEP"),
    ("x=2:1:0.5", "needs STEP > 0 and START ≤ STOP"),
    ("x=0:1:0", "needs STEP > 0"),
    ("x=0ms:1s:ten", "needs three numbers or three durations"),
    ("x=1,,2", "empty value"),
  ]

  @Test("bad axes are usage errors that say what is wrong", arguments: bad)
  func badAxes(c: (String, String)) {
    let error = #expect(throws: SweepGridError.self) { try SweepGrid(parsing: [c.0]) }
    #expect(error?.description.contains(c.1) == true, "\(error?.description ?? "")")
  }

  @Test("every scenario key has its type, a `*` matching one non-empty part; anything else is unknown")
  func keyTypes() {
    for (key, type) in Scenario.keys {
      #expect(Scenario.type(of: key.replacing("*", with: "1")) == type, "\(key)")
      #expect(Scenario.type(of: key.replacing("*", with: "binance")) == type, "\(key)")
    }
    for unknown in ["strategy", "strategy.entry.x", "legs..venue", "legs.0", "costs.fees", "costs.fees.", "Strategy.entry", ""] {
      #expect(Scenario.type(of: unknown) == nil, "\(unknown)")
    }
  }

  @Test("an axis given twice, or none")
  func axisCount() {
    #expect(throws: SweepGridError(.repeatedKey("a"))) { try SweepGrid(parsing: ["a=1", "a=2"]) }
    #expect(throws: SweepGridError(.noAxis)) { try SweepGrid(parsing: []) }
  }
}
