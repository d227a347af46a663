import ArbCore

/// What the `rest.snapshots` reader makes of one line, for a recorder that wants to
/// count error records the way every command will read them.
public enum RESTSnapshotVerdict: Sendable, Equatable {
  /// The line holds prices (or an answer that changed nothing read here).
  case prices
  /// A kind of answer not read as a series (`upbit /v1/market/all`).
  case skipped(kind: String)
  /// A venue's error response: counted apart, never read as prices.
  case errorRecord(detail: String)
  /// The line is not JSON (a body that is an HTML page, a cut-off answer).
  case notJSON(reason: String)
  /// The line is JSON the reader would reject, for the reason given.
  case rejected(reason: String)
}

extension RESTSnapshotVerdict {
  /// Reads `line` (one JSON object, without its newline) as the `rest.snapshots`
  /// reader does, with the `local` clock.
  ///
  /// - Complexity: O(line bytes).
  public static func of(line: [UInt8]) -> RESTSnapshotVerdict {
    line.withUnsafeBufferPointer { bytes in
      var scanner = JSONScanner()
      do throws(JSONScanError) {
        try scanner.scan(bytes)
      } catch {
        return .notJSON(reason: IngestError.Reason.malformedJSON(expected: error.expected, found: error.found).message)
      }
      var handler = RESTSnapshotHandler()
      var points: [JSONPoint] = []
      do throws(JSONFault) {
        let outcome = try handler.read(JSONDocument(bytes: bytes, nodes: scanner.nodes), into: &points)
        var sink = JSONSeriesSink(clock: .local, sort: false, keepsOtherTime: true)
        var builders: [SeriesBuilder] = []
        try sink.append(points, at: 0, to: &builders)
        switch outcome {
        case .points: return .prices
        case .skipped(let kind): return .skipped(kind: kind)
        case .errorRecord(let detail): return .errorRecord(detail: detail)
        }
      } catch {
        return .rejected(reason: error.reason.message)
      }
    }
  }
}
