import Dispatch
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one GET gave: an HTTP answer, or the reason none came.
enum FetchOutcome: Sendable {
  /// The status, the `Retry-After` header as sent (if any) and the whole body.
  case answer(status: Int, retryAfter: String?, body: Data)
  /// No answer: refused, timed out, the connection dropped before the body ended.
  case failed(String)
}

/// GETs over `URLSession` (libcurl underneath on Linux: plain http and https, no
/// websockets). No cookies, no cache, no proxy from the environment. One deadline
/// covers the whole exchange, body included: libcurl's own timeouts only notice a
/// connection that goes silent, not a body that trickles in.
final class HTTPClient: Sendable {
  private let session: URLSession
  private let timeoutSeconds: Double

  init(timeoutSeconds: Double) {
    self.timeoutSeconds = timeoutSeconds
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeoutSeconds
    configuration.timeoutIntervalForResource = timeoutSeconds
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.connectionProxyDictionary = [:]
    configuration.httpAdditionalHeaders = ["Accept": "application/json", "User-Agent": "arbkit-record"]
    session = URLSession(configuration: configuration)
  }

  /// GETs `url` and waits for the whole answer, or the deadline (the request is then
  /// cancelled).
  func get(_ url: URL) async -> FetchOutcome {
    let once = FirstOutcome()
    return await withCheckedContinuation { continuation in
      once.start(continuation)
      let task = session.dataTask(with: url) { body, response, error in
        if let error = error as? URLError {
          once.finish(.failed(Self.describe(error)))
        } else if let error {
          once.finish(.failed("\(error)"))
        } else if let http = response as? HTTPURLResponse {
          once.finish(.answer(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: body ?? Data()))
        } else {
          once.finish(.failed("not an HTTP response"))
        }
      }
      task.resume()
      DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) {
        if once.finish(.failed("timed out")) { task.cancel() }
      }
    }
  }

  private static func describe(_ error: URLError) -> String {
    switch error.code {
    case .timedOut: "timed out"
    case .cannotConnectToHost: "connection refused"
    case .networkConnectionLost: "connection lost"
    case .cannotFindHost: "host not found"
    case .notConnectedToInternet: "not connected"
    case .badServerResponse: "bad server response"
    default: "request failed (url error \(error.code.rawValue))"
    }
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

/// Resumes a continuation with the first outcome given, ignoring later ones.
private final class FirstOutcome: Sendable {
  private let continuation = Mutex<CheckedContinuation<FetchOutcome, Never>?>(nil)

  func start(_ waiting: CheckedContinuation<FetchOutcome, Never>) { continuation.withLock { $0 = waiting } }

  /// Resumes with `outcome` unless an earlier one did; whether this one did.
  @discardableResult
  func finish(_ outcome: FetchOutcome) -> Bool {
    guard
      let waiting = continuation.withLock({ value in
        defer { value = nil }; return value
      })
    else { return false }
    waiting.resume(returning: outcome)
    return true
  }
}
