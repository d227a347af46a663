import ArbCore
import ArbIngest
import Foundation

/// One recorded request as a `rest.snapshots` line (docs/sources.md §11.1): the
/// envelope, the times the request left and its answer arrived, the HTTP status, and
/// the body — as received when it is JSON, else kept as the string `body` beside an
/// `error` that makes the line an error record.
struct SnapshotLine {
  /// The line, without its newline.
  var bytes: [UInt8]
  /// How the `rest.snapshots` reader reads the line.
  var verdict: RESTSnapshotVerdict

  /// Whether the line is an error record (as every command will count it).
  var isError: Bool {
    if case .errorRecord = verdict { true } else { false }
  }

  /// The longest line the readers accept (`IngestOptions.maxLineBytes`), less room
  /// for the envelope.
  static let maxBodyBytes = IngestOptions().maxLineBytes - (64 << 10)

  init(venue: RecordVenue, request: VenueRequest, sendMicros: Int64, recvMicros: Int64, outcome: FetchOutcome) {
    var head = "{\"recv_ts_us\":\(recvMicros),\"send_ts_us\":\(sendMicros),\"venue\":\"\(venue.rawValue)\","
    head += "\"endpoint\":\(Self.quoted(request.path)),\"params\":{"
    head += request.query.map { "\(Self.quoted($0.name)):\(Self.quoted($0.value))" }.joined(separator: ",") + "}"
    switch outcome {
    case .failed(let reason):
      self.init(Array((head + ",\"error\":\(Self.quoted(reason))}").utf8))
    case .answer(let status, _, let body):
      head += ",\"status\":\(status)"
      guard body.count <= Self.maxBodyBytes else {
        self.init(Array((head + ",\"error\":\"body of \(body.count) bytes is longer than a line may be\"}").utf8))
        return
      }
      var line = Array((head + ",\"response\":").utf8)
      line.append(contentsOf: body)
      line.append(UInt8(ascii: "}"))
      let verdict = RESTSnapshotVerdict.of(line: line)
      switch verdict {
      case .prices, .skipped, .errorRecord:
        // The body is JSON: a CR or LF in it can only be whitespace between tokens
        // (the scanner refuses raw control bytes in strings), so a space keeps one line.
        for k in line.indices where line[k] == 10 || line[k] == 13 { line[k] = 32 }
        self.init(bytes: line, verdict: verdict)
      case .notJSON:
        let text = String(decoding: body, as: UTF8.self)
        self.init(Array((head + ",\"error\":\"body is not JSON\",\"body\":\(Self.quoted(text))}").utf8))
      case .rejected(let reason):
        line.removeLast()
        line.append(contentsOf: Array(",\"error\":\(Self.quoted("answer not readable: " + reason))}".utf8))
        for k in line.indices where line[k] == 10 || line[k] == 13 { line[k] = 32 }
        self.init(bytes: line, verdict: RESTSnapshotVerdict.of(line: line))
      }
    }
  }

  private init(_ bytes: [UInt8]) {
    self.init(bytes: bytes, verdict: RESTSnapshotVerdict.of(line: bytes))
  }

  private init(bytes: [UInt8], verdict: RESTSnapshotVerdict) {
    self.bytes = bytes
    self.verdict = verdict
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func quoted(_ text: String) -> String { JSONValue.string(text).rendered(indent: 0) }
}
