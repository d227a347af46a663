#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Synchronization

/// What an interrupted run leaves behind: nothing of its own.
///
/// Once `install()` ran, SIGINT, SIGTERM or SIGHUP removes the temporary files and
/// staging folders of outputs not yet committed (each registered with `registering` while
/// it exists), then ends the process by the same signal, as the default action would.
/// A commit holds the registry (`committing`) so that a signal waits until every file
/// of it is in place: outputs that belong together land together or not at all. A
/// signal the process was started with ignored (a background job's SIGINT) stays
/// ignored. SIGKILL cannot be caught: it still leaves the hidden temporary files.
public enum InterruptCleanup {
  /// The removals of the outputs in progress, by token.
  private static let pending = Mutex<[UInt64: @Sendable () -> Void]>([:])
  private static let nextToken = Atomic<UInt64>(0)
  private static let sources = Mutex<[DispatchSourceSignal]>([])

  /// Catches SIGINT, SIGTERM and SIGHUP for the rest of the process (once; later calls
  /// do nothing). Call it from the main thread before the process starts threads of its
  /// own: the signals are blocked there first, so that the threads started later block
  /// them too and none that comes before dispatch listens for it is lost.
  public static func install() {
    sources.withLock { sources in
      guard sources.isEmpty else { return }
      // All of them blocked before the first source starts dispatch's threads, which
      // block what this thread blocks, so that every one stays pending until dispatch
      // reads it. (Not set to be ignored: that would discard one already pending, as
      // when the process was started with the signals blocked.)
      let numbers = [SIGINT, SIGTERM, SIGHUP].filter { !ignored($0) }
      var set = sigset_t()
      sigemptyset(&set)
      for number in numbers { sigaddset(&set, number) }
      pthread_sigmask(SIG_BLOCK, &set, nil)
      for number in numbers {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { end(by: number) }
        source.resume()
        sources.append(source)
      }
    }
  }

  /// Whether the process was started with signal `number` ignored.
  private static func ignored(_ number: Int32) -> Bool {
    var current = sigaction()
    sigaction(number, nil, &current)
    guard let handler = current.__sigaction_handler.sa_handler else { return false }
    return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  /// Makes an output with `make`, which returns it and its removal, and registers the
  /// removal to run if the process is interrupted before `unregister(token)`: one step
  /// that a signal cannot come between, so that nothing is made and left unregistered.
  /// `make` must be short (it holds up a signal) and not register or unregister.
  static func registering<Made, Failure: Error>(
    _ make: () throws(Failure) -> (made: Made, removal: @Sendable () -> Void)
  ) throws(Failure) -> (made: Made, token: UInt64) {
    try pending.withLock { pending throws(Failure) in
      let (made, removal) = try make()
      let token = nextToken.add(1, ordering: .relaxed).newValue
      pending[token] = removal
      return (made, token)
    }
  }

  static func unregister(_ token: UInt64) {
    _ = pending.withLock { $0.removeValue(forKey: token) }
  }

  /// Runs `body` (renames that put outputs in place) with no interruption between its
  /// steps: a signal waits for it. `body` must not register or unregister.
  static func committing<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
    try pending.withLock { _ throws(Failure) in try body() }
  }

  /// Removes what is registered and ends the process by `number`.
  private static func end(by number: Int32) {
    pending.withLock { removals in
      for removal in removals.values { removal() }
      removals.removeAll()
      // Dispatch reads signals from a signalfd, every thread blocking them: this
      // thread unblocks its own and raises it, holding the registry so that no
      // commit starts before the signal ends the process.
      signal(number, SIG_DFL)
      var set = sigset_t()
      sigemptyset(&set)
      sigaddset(&set, number)
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      raise(number)
      while true { pause() }
    }
  }
}
