import Foundation
import Synchronization

/// Polls one target on its own schedule and appends every answer to its files.
///
/// Polls start on multiples of `every` (UTC); the requests of one poll go one after
/// another. A poll with an error record stops at it: an HTTP 429 or 418 waits what
/// `Retry-After` says (or backs off when it says nothing), any other error backs off
/// exponentially — `every` × 2ⁿ after the n-th failure in a row, at most 5 minutes or
/// `every`, whichever is longer, a uniformly drawn half to whole of it (jitter). A
/// clean poll ends the backoff.
struct Poller {
  let index: Int
  let target: RecordTarget
  let requests: VenueRequests
  let baseURL: String
  let client: HTTPClient
  let file: RecordingFile
  let stats: RecordStats
  let every: Int64
  let end: Int64?
  let stop: StopFlag

  /// The longest backoff, unless `every` is longer.
  static let maxBackoff: Int64 = 300_000_000

  /// Polls until stopped or `end`, then closes (and compresses) the files.
  func run() async throws(RecordError) {
    var symbols = target.symbols
    var listedPeriod: Int64?
    var failures = 0
    var next = wallMicros()
    var generator = SystemRandomNumberGenerator()
    do {
      while await sleep(until: next) {
        var failure: (retryAfter: Double?, limited: Bool)?
        if let discovery = requests.discovery, listedPeriod != file.rotation.periodStart(wallMicros()) {
          let (line, outcome) = try await fetch(discovery)
          if !line.isError, case .answer(_, _, let body) = outcome, let listed = VenueRequests.discoveredSymbols(body) {
            symbols = listed
            listedPeriod = file.rotation.periodStart(line.recvMicros)
          } else {
            failure = (nil, false)
          }
        }
        if failure == nil {
          for request in requests.poll(symbols: symbols) where !stopping {
            let (line, outcome) = try await fetch(request)
            guard line.isError else { continue }
            failure = (nil, false)
            if case .answer(let status, let retryAfter, _) = outcome, status == 429 || status == 418 {
              failure = (retryAfter.flatMap { HTTPClient.retryAfterSeconds($0, now: Date()) }, true)
            }
            break
          }
        }
        let now = wallMicros()
        if let failure {
          failures += 1
          if let seconds = failure.retryAfter {
            next = now + Int64(min(seconds, 86_400) * 1_000_000)
            stats.update(index) { $0.waitingUntil = next }
          } else {
            let cap = max(Self.maxBackoff, every)
            let delay = failures >= 20 ? cap : min(cap, every << Int64(failures))
            next = now + delay / 2 + Int64.random(in: 0...(delay / 2), using: &generator)
            stats.update(index) { $0.waitingUntil = next }
          }
        } else {
          failures = 0
          next = (now / every + 1) * every
          stats.update(index) { $0.waitingUntil = nil }
        }
      }
    } catch {
      await file.close()
      throw error
    }
    await file.close()
    for problem in file.problems.all { stats.note(problem) }
  }

  /// The line written for one request and what the request gave.
  private func fetch(_ request: VenueRequest) async throws(RecordError) -> (line: WrittenLine, outcome: FetchOutcome) {
    let query = request.query.isEmpty ? "" : "?" + request.queryString
    let send = wallMicros()
    let outcome: FetchOutcome
    if let url = URL(string: baseURL + request.path + query) {
      outcome = await client.get(url)
    } else {
      outcome = .failed("invalid url \(baseURL + request.path + query)")
    }
    let recv = max(wallMicros(), send)
    let line = SnapshotLine(venue: target.venue, request: request, sendMicros: send, recvMicros: recv, outcome: outcome)
    try file.append(line.bytes, at: recv)
    stats.update(index) {
      $0.requests += 1
      $0.lines += 1
      $0.errors += line.isError ? 1 : 0
      $0.bytes += line.bytes.count + 1
      $0.lastLatencyMicros = recv - send
    }
    return (WrittenLine(isError: line.isError, recvMicros: recv), outcome)
  }

  /// Whether recording is to stop now (a signal, a failure elsewhere, the end).
  private var stopping: Bool { stop.isSet || (end.map { wallMicros() >= $0 } ?? false) }

  /// Sleeps until `micros` (wall clock) in steps of at most 100 ms, syncing the file
  /// on the way; `false` when recording is to stop first.
  private func sleep(until micros: Int64) async -> Bool {
    while true {
      if stopping { return false }
      let now = wallMicros()
      file.syncIfDue(now: now)
      if now >= micros { return true }
      let step = min(micros - now, 100_000, end.map { $0 - now } ?? .max)
      try? await Task.sleep(for: .microseconds(step))
    }
  }
}

/// What the poll loop needs to know of a written line.
struct WrittenLine {
  var isError: Bool
  var recvMicros: Int64
}

/// The wall clock in µs since the epoch (UTC).
func wallMicros() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

/// Set once, by a signal or a failure, to stop every poller.
final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  var isSet: Bool { flag.load(ordering: .acquiring) }
  func set() { flag.store(true, ordering: .releasing) }
}
