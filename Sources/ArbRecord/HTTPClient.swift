import CCurl
import Foundation

/// What one GET gave: an HTTP answer, or the reason none came.
enum FetchOutcome: Sendable {
  /// The status, the `Retry-After` header as sent (if any) and the whole body.
  case answer(status: Int, retryAfter: String?, body: Data)
  /// No answer: refused, timed out, the connection dropped before the body ended.
  case failed(String)
}

/// GETs over libcurl (plain http and https), loaded the first time a client is made, so
/// that a command that records nothing never loads it and the TLS libraries under it.
/// No cookies, no cache, no proxy from the environment. One deadline covers the whole
/// exchange, body included.
final class HTTPClient: Sendable {
  private let timeoutMilliseconds: Int
  private static let headers = ["Accept: application/json", "User-Agent: arbkit-record"]
  /// Set by `cancelAll`; read by every transfer, atomically (C11 atomics in `CCurl`).
  nonisolated(unsafe) private let cancelled: UnsafeMutablePointer<Int32>

  /// A client whose requests each end within `timeoutSeconds`; throws when libcurl
  /// cannot be loaded.
  init(timeoutSeconds: Double) throws(RecordError) {
    timeoutMilliseconds = max(1, Int((timeoutSeconds * 1000).rounded(.up)))
    cancelled = .allocate(capacity: 1)
    cancelled.initialize(to: 0)
    if let problem = arb_curl_load() { throw RecordError(String(cString: problem), isIO: true) }
  }

  deinit { cancelled.deallocate() }

  /// Ends the transfers in flight (within about a second: each then fails as
  /// "cancelled") and every later one at once.
  func cancelAll() { arb_curl_cancel(cancelled) }

  /// GETs `url` and waits for the whole answer, or the deadline.
  func get(_ url: URL) async -> FetchOutcome {
    // A thread of its own per transfer: a pool sized to the cores would let slow
    // venues hold up the requests of the others.
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(returning: self.fetch(url.absoluteString))
      }
    }
  }

  /// A body no line could hold is not read to its end.
  private func fetch(_ url: String) -> FetchOutcome {
    var result = arb_curl_result()
    defer { arb_curl_result_free(&result) }
    let lines = Self.headers.map { strdup($0) }
    defer { lines.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = lines.map { UnsafePointer($0) } + [nil]
    pointers.withUnsafeMutableBufferPointer { headerList in
      arb_curl_get(url, headerList.baseAddress, timeoutMilliseconds, SnapshotLine.maxBodyBytes, cancelled, &result)
    }
    guard result.status != 0 else {
      return .failed(withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
    }
    let body = result.body.map { Data(bytes: $0, count: result.body_length) } ?? Data()
    return .answer(status: result.status, retryAfter: result.retry_after.map { String(cString: $0) }, body: body)
  }

  /// Seconds to wait from a `Retry-After` value: delta-seconds or an HTTP date
  /// (RFC 9110 §10.2.3), never negative; `nil` when it is neither.
  static func retryAfterSeconds(_ value: String, now: Date) -> Double? {
    let text = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(text), seconds >= 0 { return Double(seconds) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: text) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }
}
