import Testing
import TestSupport

@testable import ArbReport

/// The document renderers and the heat map: escaping in both formats, missing values.
@Suite("Report document")
struct ReportDocumentTests {
  static func document(cell: String) -> ReportDocument {
    var section = ReportDocument.Section(id: "s\"x", title: "Title <b>")
    section.paragraph("para & <i>")
    section.table(ReportDocument.Table(header: ["name", "value"], rows: [[cell, "1"]], numeric: [1], caption: "cap|tion"))
    section.figure(SVG(id: "f", width: 10, height: 10, title: "t", description: "d"), file: "f.svg", caption: "fig *x*")
    return ReportDocument(title: "T & <script>", subtitle: "sub", sections: [section])
  }

  @Test("Markdown: a pipe, a star or a tag in a cell cannot break the table or open a tag")
  func markdownTable() {
    let text = Self.document(cell: "a|b *c* <script>x</script>").markdown
    let row = text.split(separator: "\n").first { $0.hasPrefix("| a") }!
    // Unescaped pipes: the two borders and the one between the columns.
    var unescaped = 0
    var previous: Character = " "
    for c in row {
      if c == "|" && previous != "\\" { unescaped += 1 }
      previous = c
    }
    #expect(unescaped == 3)
    #expect(row == "| a\\|b \\*c\\* &lt;script&gt;x&lt;/script&gt; | 1 |")
    #expect(text.contains("\n## 1 Title &lt;b&gt;\n"))
    #expect(text.contains("![fig \\*x\\*](f.svg)"))
    #expect(text.contains("| --- | ---: |"))
  }

  @Test("HTML: every text is escaped, numeric cells align right, figures inline")
  func html() {
    let text = Self.document(cell: "\"quoted\" & 'single'").html
    #expect(text.contains("<title>T &amp; &lt;script&gt;</title>"))
    #expect(text.contains("<section id=\"s&quot;x\">"))
    #expect(text.contains("<h2>1 Title &lt;b&gt;</h2>"))
    #expect(text.contains("<p>para &amp; &lt;i&gt;</p>"))
    #expect(text.contains("<td>&quot;quoted&quot; &amp; &#39;single&#39;</td><td class=\"n\">1</td>"))
    #expect(text.contains("<figure>\n<svg xmlns=") && text.contains("<figcaption>fig *x*</figcaption>"))
    #expect(!text.contains("<script"))
  }

  @Test("heat map: a missing value is a hatched 'no data' cell, never a colour of 0")
  func heatMapMissing() {
    let map = HeatMap(
      id: "h", title: "t", description: "d", rowTitle: "row", columnTitle: "col", rows: ["a"], columns: ["x", "y"],
      values: [[nil, 0.5]], scale: .sequential(low: 0, high: 1), format: { ReportNumber.fixed($0, 2) })
    let svg = map.svg.rendered
    #expect(svg.contains("<title>row a, col x: no data</title>"))
    #expect(svg.contains("<title>row a, col y: 0.50</title>"))
    #expect(HeatMap.colour(0, .sequential(low: 0, high: 1)) == "#ffffff")
    #expect(HeatMap.colour(1, .sequential(low: 0, high: 1)) == "#e8590c")
    // Diverging: each side to its own extreme, 0 white.
    #expect(HeatMap.colour(0, .diverging(low: -100, high: 10)) == "#ffffff")
    #expect(HeatMap.colour(-100, .diverging(low: -100, high: 10)) == "#1971c2")
    #expect(HeatMap.colour(10, .diverging(low: -100, high: 10)) == "#c92a2a")
  }

  @Test("numbers: fixed decimals without -0, counts with separators, durations in units")
  func numbers() {
    #expect(ReportNumber.fixed(-0.0001, 2) == "0.00")
    #expect(ReportNumber.fixed(nil, 2) == "–")
    #expect(ReportNumber.count(30240) == "30,240" && ReportNumber.count(-1234567) == "-1,234,567" && ReportNumber.count(7) == "7")
    #expect(ReportNumber.percent(0.2594) == "25.94 %")
    // One formatter for every duration (TimeText.readableDuration): a minute is 1.0 min.
    #expect(ReportNumber.duration(60) == "1.0 min" && ReportNumber.duration(2040) == "34.0 min" && ReportNumber.duration(881_280) == "10.2 d")
    #expect(ReportNumber.duration(45) == "45.0 s" && ReportNumber.duration(nil) == "–")
  }
}
