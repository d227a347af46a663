#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where a command writes: stdout for results, stderr for diagnostics and progress.
///
/// In tests both go to strings; from `main` they go straight to the file descriptors
/// with `write(2)` (Swift 6 forbids touching the global `stderr` from Swift code).
public struct Terminal: Sendable {
  public var output = ""
  public var errors = ""
  /// Write through to the process's descriptors instead of collecting.
  let passthrough: Bool
  /// Whether stdout is a terminal (colours and progress may be used).
  public let isTTY: Bool
  /// Whether tables may colour cells: stdout is a terminal, `NO_COLOR` is unset (or
  /// empty) and `TERM` is not `dumb`; tests may set it.
  public let colour: Bool

  public init(passthrough: Bool = false, colour: Bool? = nil) {
    self.passthrough = passthrough
    isTTY = passthrough && isatty(STDOUT_FILENO) == 1
    self.colour = colour ?? (isTTY && Self.environmentAllowsColour)
  }

  private static var environmentAllowsColour: Bool {
    let noColour = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
    let term = getenv("TERM").map { String(cString: $0) } ?? ""
    return noColour.isEmpty && term != "dumb"
  }

  /// Writes `text` to stdout.
  public mutating func print(_ text: String, terminator: String = "\n") {
    if passthrough { Self.write(STDOUT_FILENO, text + terminator) } else { output += text + terminator }
  }

  /// Writes `text` to stderr.
  public mutating func printError(_ text: String, terminator: String = "\n") {
    if passthrough { Self.write(STDERR_FILENO, text + terminator) } else { errors += text + terminator }
  }

  private static func write(_ descriptor: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if n <= 0 { return }
        offset += n
      }
    }
  }
}
