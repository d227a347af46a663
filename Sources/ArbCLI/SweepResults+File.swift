import ArbIngest
import ArbReport
import Foundation

extension SweepResults {
  /// The sweep results in the file at `path`: a sweep CSV (`arbkit sweep --out`,
  /// `arbkit merge`) or the output of `arbkit sweep --format json`, told apart by the
  /// first byte that is not white space (`{`).
  ///
  /// - Throws: `FileError.missing`; `SweepResultsError` for a file that is neither.
  static func read(_ path: String) throws -> SweepResults {
    guard let bytes = FileManager.default.contents(atPath: path) else { throw FileError.missing(path: path) }
    if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
      return try SweepResults(json: [UInt8](bytes), path: path)
    }
    return try SweepResults(csv: String(decoding: bytes, as: UTF8.self), path: path)
  }
}
