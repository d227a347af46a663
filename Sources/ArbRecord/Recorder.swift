import ArbIngest
import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What `arbkit record` does: the targets, where their files go, how often and how
/// long it polls, how files rotate and are compressed.
public struct RecordOptions: Sendable {
  public var targets: [RecordTarget]
  public var folder: String
  /// The polling period of every target (µs).
  public var everyMicros: Int64 = 1_000_000
  /// Stop after this long (µs); `nil`: until SIGINT or SIGTERM.
  public var durationMicros: Int64?
  public var rotation: RecordRotation = .hour
  public var compression: RecordCompression = .zstd
  /// Also record order books (`--books`).
  public var books = false
  /// Replacement base URLs (`http://127.0.0.1:8080`) by venue.
  public var baseURLs: [RecordVenue: String] = [:]
  /// The longest a request may take, answer included.
  public var timeoutSeconds: Double = 10

  public init(targets: [RecordTarget], folder: String) {
    self.targets = targets
    self.folder = folder
  }

  /// Checks what cannot be recorded as asked: a polling period outside 1 ms–1 day, a
  /// timeout outside 1 ms–1 day, books on a venue whose books need named symbols, the
  /// same target twice, a base URL that is not http(s).
  public func validate() -> RecordProblem? {
    let day: Int64 = 86_400_000_000
    guard everyMicros >= 1000 && everyMicros <= day else { return .period(micros: everyMicros) }
    guard timeoutSeconds >= 0.001 && timeoutSeconds <= 86_400 else { return .timeout(seconds: timeoutSeconds) }
    for (k, target) in targets.enumerated() {
      if books && target.symbols.isEmpty && VenueRequests(target: target, books: true).booksNeedSymbols { return .booksNeedSymbols(target.label) }
      if targets[..<k].contains(where: { $0.venue == target.venue && $0.market == target.market }) { return .repeatedTarget(target.label) }
    }
    for (venue, url) in baseURLs.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil, parsed.query == nil else {
        return .baseURL(venue, url)
      }
    }
    return nil
  }
}

/// A recording that cannot be made as asked, found before any request (exit 64). The
/// messages name no flag: `arbkit record` words them with its own.
public enum RecordProblem: Equatable, Sendable, CustomStringConvertible {
  /// A polling period outside 1 ms – 1 day (µs).
  case period(micros: Int64)
  /// A request timeout outside 1 ms – 1 day.
  case timeout(seconds: Double)
  /// Order books asked for on a target without symbols, where each book is a request of its own.
  case booksNeedSymbols(String)
  /// A venue and market named twice.
  case repeatedTarget(String)
  /// A base URL that is not `http(s)://HOST[:PORT][/PATH]`.
  case baseURL(RecordVenue, String)

  public var description: String {
    switch self {
    case .period(let micros): "the polling period must be from 1ms to 1d, was \(micros) µs"
    case .timeout(let seconds): "the timeout must be from 1ms to 1d, was \(seconds) s"
    case .booksNeedSymbols(let label): "order books of \(label) need a symbol list (\(label):SYMBOL,…): its books are one request per symbol"
    case .repeatedTarget(let label): "\(label) is named twice; list its symbols once, separated by ','"
    case .baseURL(let venue, let url): "the base URL of \(venue.rawValue) must be http(s)://HOST[:PORT][/PATH], was '\(url)'"
    }
  }
}

/// Counters of one target, as the status line and the summary show them.
public struct TargetStats: Sendable {
  public var label: String
  public var requests = 0
  public var lines = 0
  public var errors = 0
  public var bytes = 0
  public var lastLatencyMicros: Int64?
  /// Set while the target backs off or waits for `Retry-After`.
  public var waitingUntil: Int64?
}

/// The counters of every target, shared by the pollers and the status line.
final class RecordStats: Sendable {
  private let targets: Mutex<[TargetStats]>
  private let notes = Mutex<[String]>([])

  init(_ labels: [String]) { targets = Mutex(labels.map { TargetStats(label: $0) }) }

  func update(_ index: Int, _ change: (inout TargetStats) -> Void) { targets.withLock { change(&$0[index]) } }
  var all: [TargetStats] { targets.withLock { $0 } }
  func note(_ text: String) { notes.withLock { $0.append(text) } }
  var allNotes: [String] { notes.withLock { $0 } }

  /// One line: `venue:market 120 req 2 err 1.2 MB 85 ms` per target.
  func statusLine(now: Int64) -> String {
    all.map { t in
      var text = "\(t.label) \(t.requests) req \(t.errors) err \(Self.size(t.bytes))"
      if let latency = t.lastLatencyMicros { text += " \(latency / 1000) ms" }
      if let until = t.waitingUntil, until > now { text += " (wait \((until - now + 999_999) / 1_000_000) s)" }
      return text
    }.joined(separator: " | ")
  }

  static func size(_ bytes: Int) -> String {
    bytes < 1 << 20 ? String(format: "%.1f kB", Double(bytes) / 1024) : String(format: "%.1f MB", Double(bytes) / 1_048_576)
  }
}

/// What a finished recording reports.
public struct RecordSummary: Sendable {
  public var targets: [TargetStats]
  /// What was put in order at the start (files of a killed recorder) and problems
  /// met on the way (a file left uncompressed).
  public var notes: [String]
}

/// Runs a recording to its end.
public enum Recorder {
  /// Records until `options.durationMicros` has passed, SIGINT or SIGTERM arrives, or a
  /// file cannot be written; then closes and compresses every file. `status` (a
  /// terminal's stderr) gets a status line once a second, redrawn in place. Blocks the
  /// calling thread: call it from a thread of its own (the command line's main thread),
  /// never from a task.
  public static func runBlocking(_ options: RecordOptions, status: (@Sendable (String) -> Void)?) throws(RecordError) -> RecordSummary {
    let result = BlockingResult()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      do throws(RecordError) {
        result.set(.success(try await run(options, status: status)))
      } catch {
        result.set(.failure(error))
      }
      done.signal()
    }
    done.wait()
    return try result.get()
  }

  /// Records as `runBlocking` does, in the calling task.
  public static func run(_ options: RecordOptions, status: (@Sendable (String) -> Void)?) async throws(RecordError) -> RecordSummary {
    if let problem = options.validate() { throw RecordError(problem.description) }
    let client = try HTTPClient(timeoutSeconds: options.timeoutSeconds)
    let lock = try RecordFolder.prepare(options.folder)
    defer { close(lock) }
    let recovered = try RecordFolder.recover(options.folder, compression: options.compression)
    let stats = RecordStats(options.targets.map(\.label))
    let stop = StopFlag()
    let failure = FirstFailure()
    let signals = SignalStop { stop.set() }
    defer { signals.restore() }
    let start = wallMicros()
    // A duration past the end of time is no end.
    let end = options.durationMicros.flatMap { start.addingReportingOverflow($0).overflow ? nil : start + $0 }
    let statusTask = status.map { print in
      Task {
        while !Task.isCancelled {
          print(stats.statusLine(now: wallMicros()))
          try? await Task.sleep(for: .seconds(1))
        }
      }
    }
    // At the end a request in flight gets a second to finish, then is cancelled: a
    // transfer is never waited for to its own timeout.
    let canceller = Task {
      while !Task.isCancelled && !stop.isSet && (end.map { wallMicros() < $0 } ?? true) { try? await Task.sleep(for: .milliseconds(50)) }
      guard !Task.isCancelled else { return }
      try? await Task.sleep(for: .seconds(1))
      client.cancelAll()
    }
    await withTaskGroup(of: Void.self) { group in
      for (index, target) in options.targets.enumerated() {
        group.addTask {
          let poller = Poller(
            index: index, target: target, requests: VenueRequests(target: target, books: options.books),
            baseURL: Self.baseURL(options.baseURLs[target.venue] ?? target.venue.defaultBaseURL(target.market)), client: client,
            file: RecordingFile(folder: options.folder, stem: target.stem, rotation: options.rotation, compression: options.compression),
            stats: stats, every: options.everyMicros, end: end, stop: stop)
          do throws(RecordError) {
            try await poller.run()
          } catch {
            failure.keep(error)
            stop.set()
          }
        }
      }
    }
    canceller.cancel()
    _ = await canceller.value
    statusTask?.cancel()
    _ = await statusTask?.value
    if let error = failure.error { throw error }
    return RecordSummary(targets: stats.all, notes: recovered + stats.allNotes)
  }

  /// `url` without a trailing `/`, so that endpoint paths can follow it.
  private static func baseURL(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}

/// The first error of any poller.
private final class FirstFailure: Sendable {
  private let first = Mutex<RecordError?>(nil)
  func keep(_ error: RecordError) { first.withLock { $0 = $0 ?? error } }
  var error: RecordError? { first.withLock { $0 } }
}

/// The result `runBlocking` waits for.
private final class BlockingResult: Sendable {
  private let value = Mutex<Result<RecordSummary, RecordError>?>(nil)
  func set(_ result: Result<RecordSummary, RecordError>) { value.withLock { $0 = result } }
  func get() throws(RecordError) -> RecordSummary { try value.withLock { $0! }.get() }
}
