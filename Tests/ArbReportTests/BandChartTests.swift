import Foundation
import Testing

@testable import ArbReport

/// The premium chart's bands at a wide range: the shading stays near zero instead of
/// colouring nearly the whole plot, and the band strip under the time axis says when
/// the premium was in each band.
@Suite("Premium chart bands")
struct BandChartTests {
  /// Every `<rect …/>` of `svg` as its attributes.
  static func rects(_ svg: String) -> [[String: String]] {
    let element = try! NSRegularExpression(pattern: "<rect ([^>]*?)/?>")
    let attribute = try! NSRegularExpression(pattern: "([a-z-]+)=\"([^\"]*)\"")
    return element.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { match in
      let body = String(svg[Range(match.range(at: 1), in: svg)!])
      var out: [String: String] = [:]
      for a in attribute.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
        out[String(body[Range(a.range(at: 1), in: body)!])] = String(body[Range(a.range(at: 2), in: body)!])
      }
      return out
    }
  }

  /// 1000 points, one per second: 0.01 % for 400 s, 0.07 % for 100 s (the grey band),
  /// 8 % for 300 s, −9 % for 200 s (both orange).
  static var chart: TimeSeriesChart {
    let values = (0..<1000).map { i -> Double in i < 400 ? 0.01 : i < 500 ? 0.07 : i < 800 ? 8 : -9 }
    var chart = TimeSeriesChart(
      id: "p", title: "t", description: "d", yTitle: "premium, %",
      series: [
        .init(name: "mid", colour: "#1c7ed6", time: (0..<1000).map { Int64($0) * 1_000_000 }, values: values, valid: Array(repeating: true, count: 1000))
      ])
    chart.bands = [0.05, 0.1]
    return chart
  }

  @Test("at ±10 % the orange shading is a thin zone near zero, not half the plot")
  func shadingNearZero() throws {
    let chart = Self.chart
    // The band zones span the plot's width (the legend's swatch does not).
    let orange = Self.rects(chart.svg.rendered).filter { $0["fill"] == TimeSeriesChart.bandColours[1] && Double($0["width"]!) == chart.width - 84 }
    #expect(orange.count == 2)
    // The plot is 250 px high over about 20 points of range: 0.1 % to 0.2 % is ~1 px.
    #expect(orange.allSatisfy { Double($0["height"]!)! <= 5 }, "\(orange)")
  }

  @Test("the band strip marks when the premium was in each band, in proportion to time")
  func occupancyStrip() throws {
    let chart = Self.chart
    let rects = Self.rects(chart.svg.rendered)
    #expect(chart.svg.height == chart.height + TimeSeriesChart.stripRoom)
    let plotWidth = chart.width - 84
    func strip(_ colour: String) -> [(x: Double, width: Double)] {
      rects.filter { $0["fill"] == colour }.map { (Double($0["x"]!)!, Double($0["width"]!)!) }
    }
    // Grey from 400 s to 500 s, orange from 500 s to the end (8 % and −9 % in one stretch).
    let grey = strip(TimeSeriesChart.bandLineColours[0]), orange = strip(TimeSeriesChart.bandLineColours[1])
    #expect(grey.count == 1 && orange.count == 1)
    #expect(abs(grey[0].x - (64 + 0.4 * plotWidth)) <= 2 && abs(grey[0].width - 0.1 * plotWidth) <= 2, "\(grey)")
    #expect(abs(orange[0].x - (64 + 0.5 * plotWidth)) <= 2 && abs(orange[0].width - 0.5 * plotWidth) <= 2, "\(orange)")
  }

  @Test("without bands there is no strip and the drawing keeps its height")
  func noBands() {
    var chart = Self.chart
    chart.bands = []
    #expect(chart.svg.height == chart.height)
    #expect(!chart.svg.rendered.contains(">bands<"))
  }
}
