import Foundation
import Testing
import TestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import ArbReport

/// The SVG writer and its pieces: nice ticks, time ticks, escaping, min/max downsampling.
@Suite("SVG writer")
struct SVGWriterTests {
  @Test(
    "nice ticks: the smallest 1, 2 or 5 × 10^k step ≥ range / count, covering the range, labels without noise",
    arguments: [
      (0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], 1),
      // 12.96 / 6 = 2.16 → the next nice step is 5.
      (-9.72799, 3.23464, [-10.0, -5, 0, 5], 0),
      (0.0, 0.3, [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3], 2),
      (-1638.17, 120.0, [-2000.0, -1500, -1000, -500, 0, 500], 0),
    ])
  func niceTicks(low: Double, high: Double, expected: [Double], decimals: Int) {
    let ticks = NiceTicks.numbers(low, high, count: 6)
    #expect(ticks.values.count == expected.count)
    #expect(zip(ticks.values, expected).allSatisfy { isClose($0, $1, rel: 1e-12) })
    #expect(ticks.decimals == decimals)
    #expect(ticks.values.first! <= low && ticks.values.last! >= high)
    // 0.1 + 0.2 style noise never reaches a label.
    #expect(ticks.values.map { NiceTicks.label($0, decimals: ticks.decimals) }.allSatisfy { $0.count <= 6 })
  }

  @Test("nice ticks: the step is 1, 2 or 5 times a power of ten on random ranges")
  func niceSteps() {
    var random = SplitMix64(seed: 7)
    for _ in 0..<500 {
      let a = (random.uniform() - 0.5) * pow(10, Double(Int(random.uniform() * 12) - 6))
      let b = a + random.uniform() * pow(10, Double(Int(random.uniform() * 12) - 6))
      let ticks = NiceTicks.numbers(a, b, count: 5)
      let mantissa = ticks.step / pow(10, floor(log10(ticks.step)))
      #expect([1.0, 2, 5, 10].contains { isClose(mantissa, $0, rel: 1e-9) })
      #expect(ticks.values.first! <= a + 1e-12 * abs(a) && ticks.values.last! >= b - 1e-12 * abs(b))
      #expect(ticks.values.count <= 12)
    }
  }

  @Test("time ticks fall on whole days of the zone, in UTC and in KST")
  func timeTicks() {
    // 2023-03-01T00:01Z … 2023-03-22T00:00Z: 21 days, at most 6 intervals → 7-day steps from Monday.
    let start: Int64 = 1_677_628_860_000_000, end: Int64 = 1_679_443_200_000_000
    let utc = NiceTicks.times(start, end, offset: 0, count: 6)
    #expect(utc.map(\.label) == ["03-06", "03-13", "03-20"])
    let kst = NiceTicks.times(start, end, offset: 9 * 3_600_000_000, count: 6)
    #expect(kst.map(\.label) == ["03-06", "03-13", "03-20"])
    #expect(kst[0].time == utc[0].time - 9 * 3_600_000_000)
    let hours = NiceTicks.times(start, start + 5 * 3_600_000_000, offset: 0, count: 6)
    #expect(hours.map(\.label) == ["03-01 01:00", "03-01 02:00", "03-01 03:00", "03-01 04:00", "03-01 05:00"])
  }

  static let hostile = "<script>alert(\"x\")</script> & 'q' \u{7}"

  @Test("every string is escaped in text, attributes and the title")
  func escaping() {
    var svg = SVG(id: "a\"b", width: 100, height: 50, title: Self.hostile, description: Self.hostile)
    svg.text(1, 2, Self.hostile)
    svg.rect(0, 0, 1, 1, fill: "#fff\" onload=\"x", tooltip: Self.hostile)
    let text = svg.rendered
    #expect(!text.contains("<script"))
    #expect(!text.contains("\"x\")"))
    #expect(!text.contains("onload=\""))
    #expect(!text.contains("\u{7}"))
    #expect(text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"))
    // Well-formed XML whatever the strings.
    #expect((try? XMLDocument(xmlString: text)) != nil)
    #expect(Markup.markdown("a|b *c* <i>") == "a\\|b \\*c\\* &lt;i&gt;")
  }

  @Test("min/max downsampling keeps a single-point spike")
  func spikeKept() {
    let n = 100_000
    let time = (0..<n).map { Int64($0) * 1_000_000 }
    var values = [Double](repeating: 0, count: n)
    values[54_321] = 5
    values[77_777] = -3
    let runs = MinMaxDownsample.runs(time: time, values: values, valid: [Bool](repeating: true, count: n), start: 0, end: time.last!, columns: 400)
    #expect(runs.count == 1 && runs[0].count == 400)
    #expect(runs[0].map(\.high).max() == 5)
    #expect(runs[0].map(\.low).min() == -3)
    #expect(runs[0].filter { $0.high == 5 }.count == 1)
    // The spike also reaches the drawing: its column's path goes to the top of the range.
    let chart = TimeSeriesChart(
      id: "t", title: "t", description: "d", yTitle: "y",
      series: [TimeSeriesChart.Series(name: "s", colour: "#000", time: time, values: values, valid: [Bool](repeating: true, count: n))])
    let svg = chart.svg.rendered
    #expect(svg.components(separatedBy: "<path").count == 2)
  }

  @Test("downsampling keeps the order of extremes, breaks at invalid points, bridges empty columns")
  func downsampleOrder() {
    let time: [Int64] = [0, 1, 2, 3, 10, 11, 40, 41]
    let values: [Double] = [3, 1, 2, 4, 9, 7, 5, 6]
    let valid = [true, true, true, true, false, true, true, true]
    let runs = MinMaxDownsample.runs(time: time, values: values, valid: valid, start: 0, end: 40, columns: 4)
    // Columns of width 10: [0,10) holds 3 1 2 4 → low 1 first, then high 4; 10 is invalid (a break);
    // [10,20) holds 11 → 7; column 2 is empty (the value holds: no break); column 3 holds 40 and 41 (clamped).
    #expect(runs.count == 2)
    #expect(runs[0] == [.init(index: 0, first: 1, second: 4)])
    #expect(runs[1] == [.init(index: 1, first: 7, second: 7), .init(index: 3, first: 5, second: 6)])
  }

  @Test("coordinates print with at most one decimal")
  func coordinates() {
    #expect(SVG.f(12) == "12")
    #expect(SVG.f(12.25) == "12.3")
    #expect(SVG.f(-0.04) == "0")
    #expect(SVG.f(-0.25) == "-0.3")
    #expect(SVG.f(-3.5) == "-3.5")
  }
}
