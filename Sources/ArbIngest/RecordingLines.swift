import ArbCore

/// The latest price of one instrument as a line of a recording gives it: a book quote
/// (bid and ask) or a last price (`bid = ask`), stamped with the recorder's receive time.
public struct LiveQuote: Sendable, Equatable {
  public var instrument: Instrument
  /// The recorder's receive time (µs), the `local` clock.
  public var time: Int64
  public var bid: Double
  public var ask: Double

  public init(instrument: Instrument, time: Int64, bid: Double, ask: Double) {
    self.instrument = instrument
    self.time = time
    self.bid = bid
    self.ask = ask
  }

  /// (bid + ask) / 2.
  public var mid: Double { (bid + ask) / 2 }
}

/// Lines of a `rest.snapshots` recording read one at a time, for a reader that follows
/// a recording as it grows (`arbkit board --follow`) instead of reading files whole.
package enum RecordingLines {
  /// The prices of one `rest.snapshots` line (without its newline), read as every
  /// command reads them (`docs/sources.md` §11); `nil` for a line that holds none: an
  /// error record, a skipped kind of answer, a line that is not JSON or is rejected.
  ///
  /// - Complexity: O(line bytes).
  package static func quotes(line: UnsafeBufferPointer<UInt8>) -> [LiveQuote]? {
    var scanner = JSONScanner()
    do throws(JSONScanError) { try scanner.scan(line) } catch { return nil }
    var handler = RESTSnapshotHandler()
    var points: [JSONPoint] = []
    do throws(JSONFault) {
      guard try handler.read(JSONDocument(bytes: line, nodes: scanner.nodes), into: &points) == .points else { return nil }
    } catch {
      return nil
    }
    return points.filter { $0.field == .price && $0.bid.isFinite && $0.ask.isFinite }.map {
      LiveQuote(instrument: $0.instrument, time: $0.time, bid: $0.bid, ask: $0.ask)
    }
  }
}

/// A file's bytes as stored or decompressed (gzip, zstd, zip by their first bytes),
/// read in chunks within the usual decompression limit.
package final class DecompressedFile {
  private let source: ByteSource

  /// Opens `path`.
  ///
  /// - Throws: `FileError.missing` when it does not exist, `.unreadable` otherwise.
  package init(path: String) throws(FileError) {
    source = try Compression.open(path: path)
  }

  /// Fills as much of `buffer` as is available; 0 at the end of the file.
  ///
  /// - Throws: `IngestError` for bytes that do not decompress.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    try source.read(into: buffer)
  }
}
