import ArbCore
import ArbIngest
import ArbResearch
import Foundation

/// The scenario file a command names: checked before it is parsed, its errors told
/// with the closest known key (backtest, sweep and report).
enum ScenarioFile {
  /// Refuses a scenario file that cannot be read with its own exit code (66: missing or
  /// not a file; 74: unreadable) before it is parsed.
  static func check(_ path: String) throws(UsageError) {
    do throws(FileError) { try InputFile.check(path) } catch { throw UsageError(file: error) }
  }

  /// The scenario error, with the closest known key for an unknown one.
  static func explain(_ error: ScenarioError, path: String) -> String {
    // An override came from --set.
    let text = error.path == nil ? "--set: error: \(error.message)" : "\(error)"
    guard let key = error.unknownKey else { return text }
    // Concrete keys: leg indexes and fee venues as the scenario could name them.
    let legs = (try? Scenario.load(path: path))?.legs ?? []
    var known: [String] = []
    for (pattern, _) in Scenario.keys {
      if pattern.hasPrefix("legs.*") {
        known += legs.indices.map { pattern.replacingOccurrences(of: "*", with: "\($0)") }
      } else if pattern.hasSuffix(".*") {
        known += Set(legs.map(\.venue)).sorted().map { pattern.dropLast() + $0 }
      } else {
        known.append(pattern)
      }
    }
    let suggestion = ArgumentCursor.closest(key, among: known)
    return text + (suggestion.map { ", did you mean '\($0)'?" } ?? "")
  }

  /// The XXH64 of the scenario file's bytes, as 16 hex digits: what a sweep's sidecar
  /// and a columnar ledger's metadata name the scenario by.
  static func checksum(_ path: String) throws -> String {
    guard let bytes = FileManager.default.contents(atPath: path) else { throw FileError.missing(path: path) }
    let checksum = String(bytes.withUnsafeBytes { XXHash64.hash($0) }, radix: 16)
    return String(repeating: "0", count: 16 - checksum.count) + checksum
  }
}
