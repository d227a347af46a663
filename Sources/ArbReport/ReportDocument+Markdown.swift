extension ReportDocument {
  /// Markdown: the same sections, tables as pipe tables, each figure a link to its
  /// SVG file (`Figure.file`, written beside the Markdown).
  public var markdown: String {
    var out = "# " + Markup.markdown(title) + "\n\n" + Markup.markdown(subtitle) + "\n"
    for (k, section) in sections.enumerated() {
      out += "\n## \(k + 1) " + Markup.markdown(section.title) + "\n"
      for block in section.blocks {
        switch block {
        case .paragraph(let text): out += "\n" + Markup.markdown(text) + "\n"
        case .heading(let text): out += "\n### " + Markup.markdown(text) + "\n"
        case .table(let table): out += "\n" + Self.markdown(table)
        case .figure(let figure):
          out += "\n![" + Markup.markdown(figure.caption) + "](" + figure.file + ")\n\n*" + Markup.markdown(figure.caption) + "*\n"
        }
      }
    }
    return out
  }

  static func markdown(_ table: Table) -> String {
    var out = "| " + table.header.map(Markup.markdown).joined(separator: " | ") + " |\n"
    out += "|" + table.header.indices.map { table.numeric.contains($0) ? " ---: |" : " --- |" }.joined() + "\n"
    for row in table.rows { out += "| " + row.map(Markup.markdown).joined(separator: " | ") + " |\n" }
    if let caption = table.caption { out += "\n" + Markup.markdown(caption) + "\n" }
    return out
  }
}
