/// A small SVG writer: elements with escaped attributes and text, an accessible
/// `<title>`/`<desc>` and `role="img"`, coordinates rounded to 0.1 px.
public struct SVG: Sendable {
  public let width: Double
  public let height: Double
  /// Prefix of the ids inside this drawing (unique per page).
  public let id: String
  public let title: String
  public let description: String
  private var body = ""

  public init(id: String, width: Double, height: Double, title: String, description: String) {
    self.id = id
    self.width = width
    self.height = height
    self.title = title
    self.description = description
  }

  /// One element; `attributes` values are escaped, `content` (if any) is escaped text
  /// unless `raw` (for nested elements this writer made).
  public mutating func element(_ name: String, _ attributes: [(String, String)], text: String? = nil, tooltip: String? = nil) {
    body += "<" + name
    for (key, value) in attributes { body += " \(key)=\"\(Markup.escape(value))\"" }
    if text == nil && tooltip == nil {
      body += "/>"
      return
    }
    body += ">"
    if let tooltip { body += "<title>" + Markup.escape(tooltip) + "</title>" }
    if let text { body += Markup.escape(text) }
    body += "</\(name)>"
  }

  public mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, stroke: String? = nil, tooltip: String? = nil) {
    var attributes = [("x", Self.f(x)), ("y", Self.f(y)), ("width", Self.f(max(w, 0))), ("height", Self.f(max(h, 0))), ("fill", fill)]
    if let stroke { attributes.append(("stroke", stroke)) }
    element("rect", attributes, tooltip: tooltip)
  }

  public mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
    var attributes = [("x1", Self.f(x1)), ("y1", Self.f(y1)), ("x2", Self.f(x2)), ("y2", Self.f(y2)), ("stroke", stroke), ("stroke-width", Self.f(width))]
    if let dash { attributes.append(("stroke-dasharray", dash)) }
    element("line", attributes)
  }

  /// A path through runs of points: each run is one connected stroke.
  public mutating func polyline(_ runs: [[(x: Double, y: Double)]], stroke: String, width: Double = 1.2, fill: String = "none") {
    var d = ""
    for run in runs where !run.isEmpty {
      for (k, point) in run.enumerated() { d += (k == 0 ? "M" : "L") + Self.f(point.x) + " " + Self.f(point.y) }
    }
    guard !d.isEmpty else { return }
    element("path", [("d", d), ("fill", fill), ("stroke", stroke), ("stroke-width", Self.f(width)), ("stroke-linejoin", "round")])
  }

  public enum Anchor: String, Sendable { case start, middle, end }

  public mutating func text(
    _ x: Double, _ y: Double, _ text: String, anchor: Anchor = .start, size: Double = 11, bold: Bool = false, rotate: Double? = nil, fill: String = "#333"
  ) {
    var attributes = [("x", Self.f(x)), ("y", Self.f(y)), ("font-size", Self.f(size)), ("text-anchor", anchor.rawValue), ("fill", fill)]
    if bold { attributes.append(("font-weight", "bold")) }
    if let rotate { attributes.append(("transform", "rotate(\(Self.f(rotate)) \(Self.f(x)) \(Self.f(y)))")) }
    element("text", attributes, text: text)
  }

  /// The whole drawing: standalone (with `xmlns`) and fit to embed in HTML.
  public var rendered: String {
    let titleID = id + "-title", descID = id + "-desc"
    var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Self.f(width)) \(Self.f(height))\" "
    out += "width=\"\(Self.f(width))\" height=\"\(Self.f(height))\" role=\"img\" "
    out += "aria-labelledby=\"\(Markup.escape(titleID)) \(Markup.escape(descID))\" font-family=\"sans-serif\">"
    out += "<title id=\"\(Markup.escape(titleID))\">\(Markup.escape(title))</title>"
    out += "<desc id=\"\(Markup.escape(descID))\">\(Markup.escape(description))</desc>"
    out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
    return out + body + "</svg>\n"
  }

  /// A coordinate with at most one decimal.
  static func f(_ value: Double) -> String {
    precondition(value.isFinite, "non-finite coordinate in a chart")
    let tenths = (value * 10).rounded()
    if tenths == (tenths / 10).rounded() * 10 { return String(Int64(tenths / 10)) }
    return String(Int64(tenths) / 10 == 0 && tenths < 0 ? "-0" : String(Int64(tenths) / 10)) + "." + String(abs(Int64(tenths)) % 10)
  }
}
