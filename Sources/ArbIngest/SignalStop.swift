#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Dispatch
import Synchronization

/// SIGINT and SIGTERM as a request to stop, for a command that runs until it is told to
/// (`record`, `board --follow`): from `init` until `restore()`, each sets `isSet` and
/// calls `onSignal` instead of ending the process; then their default actions return.
/// (Other commands end at once and leave nothing behind: `InterruptCleanup`.)
public final class SignalStop: Sendable {
  private static let numbers = [SIGINT, SIGTERM]

  private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
  }

  private let flag = Flag()
  /// Made in `init`, cancelled by `restore`: the owner's thread alone touches them.
  nonisolated(unsafe) private let sources: [DispatchSourceSignal]

  /// Starts catching the signals; `onSignal` runs on a dispatch thread at each. (They
  /// are not set to be ignored first: one that came before dispatch listens for it would
  /// be lost, and the command would not stop. It ends the process, as it would have.)
  public init(onSignal: @escaping @Sendable () -> Void = {}) {
    let flag = flag
    sources = Self.numbers.map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        flag.value.store(true, ordering: .releasing)
        onSignal()
      }
      source.resume()
      return source
    }
  }

  /// Whether a signal has come.
  public var isSet: Bool { flag.value.load(ordering: .acquiring) }

  /// Stops catching the signals: their default actions again.
  public func restore() {
    for (source, number) in zip(sources, Self.numbers) {
      source.cancel()
      signal(number, SIG_DFL)
    }
  }
}
