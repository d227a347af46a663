import Synchronization

extension IngestOptions {
  /// Writes the rejected raw `lines` of the input at `path` (under `header`, its header
  /// line with its line break, or nothing) to its quarantine file: `quarantinePath`, else
  /// `<file name><suffix>` in the current folder; after the lines of the run's other
  /// inputs written there (`quarantineFiles`). Returns the file's path.
  func writeQuarantine(of path: String, suffix: String, header: [UInt8], lines: [UInt8]) throws -> String {
    let target = quarantinePath ?? (path.split(separator: "/").last.map(String.init) ?? "input") + suffix
    let named = quarantinePath != nil
    if let quarantineFiles {
      try quarantineFiles.write(target, input: path, header: header, lines: lines, named: named)
    } else {
      try QuarantineFiles.replace(target, with: header + lines, named: named)
    }
    return target
  }
}

/// The quarantine files one run writes. Several inputs whose rejected lines go to one
/// file (one `--quarantine PATH`, or inputs of one name in different folders) keep
/// them all in it, in the order the inputs first finished: each input's lines under its
/// own header line unless the lines before were under the same one. An input read again
/// (a command that makes several passes) replaces its own lines. The file is written
/// whole each time, as every output is.
public final class QuarantineFiles: Sendable {
  /// Per file, the lines of each input written to it, in order.
  private let written = Mutex<[String: [(input: String, header: [UInt8], lines: [UInt8])]]>([:])

  public init() {}

  /// Writes the rejected `lines` of `input` under `header` to the quarantine file
  /// `target` (`named`: the user named it), with the other inputs' lines written there.
  func write(_ target: String, input: String, header: [UInt8], lines: [UInt8], named: Bool) throws {
    try written.withLock { written in
      var entries = written[target] ?? []
      if let k = entries.firstIndex(where: { $0.input == input }) {
        entries[k] = (input, header, lines)
      } else {
        entries.append((input, header, lines))
      }
      var bytes: [UInt8] = []
      for (k, entry) in entries.enumerated() {
        if k == 0 || entry.header != entries[k - 1].header { bytes += entry.header }
        bytes += entry.lines
      }
      try Self.replace(target, with: bytes, named: named)
      written[target] = entries
    }
  }

  /// Writes `bytes` to `target`, replacing it; `named`: the user gave `target`.
  static func replace(_ target: String, with bytes: [UInt8], named: Bool) throws {
    try bytes.withUnsafeBytes { try FileOutput.write(target, bytes: $0, named: named) }
  }
}
