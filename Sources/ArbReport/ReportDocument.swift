/// A report as numbered sections of paragraphs, tables and figures, rendered to one
/// self-contained HTML page (`html`) or to Markdown with the figures as SVG files
/// beside it (`markdown`). Every string is plain text here; the renderers escape it.
public struct ReportDocument: Sendable {
  public struct Table: Sendable {
    public var header: [String]
    public var rows: [[String]]
    /// Columns aligned right (numbers).
    public var numeric: Set<Int>
    public var caption: String?

    public init(header: [String], rows: [[String]], numeric: Set<Int> = [], caption: String? = nil) {
      precondition(rows.allSatisfy { $0.count == header.count }, "ReportDocument.Table: a row's width differs from the header's")
      self.header = header
      self.rows = rows
      self.numeric = numeric
      self.caption = caption
    }
  }

  public struct Figure: Sendable {
    /// File name of the SVG beside the Markdown (`premium.svg`).
    public var file: String
    public var svg: SVG
    public var caption: String
  }

  public enum Block: Sendable {
    case paragraph(String)
    case table(Table)
    case figure(Figure)
    /// A subheading inside a section.
    case heading(String)
  }

  public struct Section: Sendable {
    /// Anchor id (`coverage`).
    public var id: String
    public var title: String
    public var blocks: [Block]

    public init(id: String, title: String, blocks: [Block] = []) {
      self.id = id
      self.title = title
      self.blocks = blocks
    }

    public mutating func paragraph(_ text: String) { blocks.append(.paragraph(text)) }
    public mutating func heading(_ text: String) { blocks.append(.heading(text)) }
    public mutating func table(_ table: Table) { blocks.append(.table(table)) }
    public mutating func figure(_ svg: SVG, file: String, caption: String) { blocks.append(.figure(Figure(file: file, svg: svg, caption: caption))) }
  }

  public var title: String
  public var subtitle: String
  public var sections: [Section]

  public init(title: String, subtitle: String, sections: [Section]) {
    self.title = title
    self.subtitle = subtitle
    self.sections = sections
  }

  /// The figures of every section, in order (each written as its own SVG file).
  public var figures: [Figure] {
    sections.flatMap { section in
      section.blocks.compactMap { block -> Figure? in
        if case .figure(let figure) = block { return figure }
        return nil
      }
    }
  }
}
