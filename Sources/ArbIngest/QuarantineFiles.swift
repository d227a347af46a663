import Synchronization

extension IngestOptions {
  /// Writes the rejected raw `lines` of the input at `path` (under `header`, its header
  /// line with its line break, or nothing) to its quarantine file: `quarantinePath`, else
  /// `<file name><suffix>` in the current folder (`stdin<suffix>` for the standard input,
  /// `fd-N<suffix>` for another descriptor named by its path, as a shell's `<(…)` names a
  /// pipe); after the lines of the run's other inputs written there (`quarantineFiles`).
  /// Returns the file's path.
  func writeQuarantine(of path: String, suffix: String, header: [UInt8], lines: [UInt8]) throws -> String {
    let target = quarantinePath ?? Self.quarantineStem(of: path) + suffix
    let named = quarantinePath != nil
    if let quarantineFiles {
      try quarantineFiles.write(target, input: path, header: header, lines: lines, named: named)
    } else {
      try QuarantineFiles.replace(target, with: header + lines, named: named)
    }
    return target
  }

  /// The name a quarantine file of the input at `path` is made from, without its suffix.
  static func quarantineStem(of path: String) -> String {
    let parts = path.split(separator: "/").map(String.init)
    guard let name = parts.last else { return "input" }
    // /dev/stdin, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N.
    let descriptor = parts.count >= 2 && parts[parts.count - 2] == "fd" && (parts.first == "dev" || parts.first == "proc") ? Int(name) : nil
    if path == "/dev/stdin" || descriptor == 0 { return "stdin" }
    return descriptor.map { "fd-\($0)" } ?? name
  }
}

/// The quarantine files one run writes. Several inputs whose rejected lines go to one
/// file (one `--quarantine PATH`, or inputs of one name in different folders) keep
/// them all in it, in the order the inputs finish: each input's lines under its own
/// header line unless the lines before were under the same one. The first input's lines
/// replace the file, written whole; each later input's are appended in one step that a
/// signal waits for (`FileOutput.append`). An input read again (a command that makes
/// several passes) adds nothing: its lines are there.
public final class QuarantineFiles: Sendable {
  /// Per file written: the inputs whose lines it holds, and the header line of the last.
  private let written = Mutex<[String: (inputs: Set<String>, header: [UInt8])]>([:])

  public init() {}

  /// Writes the rejected `lines` of `input` under `header` to the quarantine file
  /// `target` (`named`: the user named it), after the other inputs' lines written there.
  func write(_ target: String, input: String, header: [UInt8], lines: [UInt8], named: Bool) throws {
    // An input by its file (one file named two ways is one input), else by its name.
    let key = FileIdentity(path: input).map { "\($0.device):\($0.inode)" } ?? input
    try written.withLock { written in
      guard let file = written[target] else {
        try Self.replace(target, with: header + lines, named: named)
        written[target] = ([key], header)
        return
      }
      guard !file.inputs.contains(key) else { return }
      let bytes = (file.header == header ? [] : header) + lines
      try bytes.withUnsafeBytes { try FileOutput.append(target, bytes: $0, named: named) }
      written[target] = (file.inputs.union([key]), header)
    }
  }

  /// Writes `bytes` to `target`, replacing it; `named`: the user gave `target`.
  static func replace(_ target: String, with bytes: [UInt8], named: Bool) throws {
    try bytes.withUnsafeBytes { try FileOutput.write(target, bytes: $0, named: named) }
  }
}
