extension ReportDocument {
  /// Inline CSS: readable without JavaScript or any network resource.
  static let style = """
    body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1000px;padding:16px 24px;color:#212529;line-height:1.45}
    h1{font-size:1.7em;margin-bottom:0}h2{border-bottom:2px solid #dee2e6;padding-bottom:4px;margin-top:2em}h3{margin-bottom:.3em}
    .subtitle{color:#495057;margin-top:4px}nav ol{columns:2;font-size:.95em}
    table{border-collapse:collapse;margin:8px 0 16px;font-size:.9em;display:block;overflow-x:auto}th,td{padding:3px 10px;border-bottom:1px solid #dee2e6;text-align:left;vertical-align:top}
    th{background:#f1f3f5}td{white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}caption{caption-side:bottom;text-align:left;color:#495057;font-size:.9em;padding-top:4px}
    figure{margin:12px 0 20px}figure svg{max-width:100%;height:auto;border:1px solid #e9ecef}figcaption{color:#495057;font-size:.9em}
    """

  /// One HTML page: inline CSS and SVG, no script, a content security policy that
  /// forbids any load from elsewhere.
  public var html: String {
    var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    out += "<title>" + Markup.escape(title) + "</title>\n<style>\n" + Self.style + "\n</style>\n</head>\n<body>\n"
    out += "<header>\n<h1>" + Markup.escape(title) + "</h1>\n<p class=\"subtitle\">" + Markup.escape(subtitle) + "</p>\n"
    out += "<nav aria-label=\"Sections\"><ol>\n"
    for section in sections { out += "<li><a href=\"#\(Markup.escape(section.id))\">" + Markup.escape(section.title) + "</a></li>\n" }
    out += "</ol></nav>\n</header>\n<main>\n"
    for (k, section) in sections.enumerated() {
      out += "<section id=\"\(Markup.escape(section.id))\">\n<h2>\(k + 1) " + Markup.escape(section.title) + "</h2>\n"
      for block in section.blocks {
        switch block {
        case .paragraph(let text): out += "<p>" + Markup.escape(text) + "</p>\n"
        case .heading(let text): out += "<h3>" + Markup.escape(text) + "</h3>\n"
        case .table(let table): out += Self.html(table)
        case .figure(let figure):
          out += "<figure>\n" + figure.svg.rendered + "<figcaption>" + Markup.escape(figure.caption) + "</figcaption>\n</figure>\n"
        }
      }
      out += "</section>\n"
    }
    return out + "</main>\n</body>\n</html>\n"
  }

  static func html(_ table: Table) -> String {
    var out = "<table>\n"
    if let caption = table.caption { out += "<caption>" + Markup.escape(caption) + "</caption>\n" }
    out += "<thead><tr>" + table.header.map { "<th scope=\"col\">" + Markup.escape($0) + "</th>" }.joined() + "</tr></thead>\n<tbody>\n"
    for row in table.rows {
      out +=
        "<tr>"
        + row.enumerated().map {
          table.numeric.contains($0.offset) ? "<td class=\"n\">" + Markup.escape($0.element) + "</td>" : "<td>" + Markup.escape($0.element) + "</td>"
        }.joined() + "</tr>\n"
    }
    return out + "</tbody>\n</table>\n"
  }
}
