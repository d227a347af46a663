/// Where a value came from, 1-based. Printed as `path:line:column`.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
  public var path: String
  public var line: Int
  public var column: Int

  public init(path: String, line: Int, column: Int) {
    self.path = path
    self.line = line
    self.column = column
  }

  public var description: String { "\(path):\(line):\(column)" }
}
