import ArbIngest
import Dispatch
import Foundation
import Synchronization

/// Loads several legs at once, one per core: legs are independent files, so reading
/// them concurrently uses both cores of a small machine without splitting a file.
public enum LoadedLegs {
  /// Loads `specs` concurrently; results keep the order of `specs`. The first error
  /// (in leg order) is rethrown.
  public static func load(_ specs: [LegSpec], options: IngestOptions, specOverrides: [String] = []) throws -> [LoadedLeg] {
    let options = concurrentOptions(options, inputs: specs.count)
    return try concurrently(specs.count) { k in try specs[k].load(options: options, specOverrides: specOverrides) }
  }

  /// `options` for reading `inputs` files at once: with a file per core already,
  /// splitting files too would only cost memory.
  static func concurrentOptions(_ options: IngestOptions, inputs: Int) -> IngestOptions {
    var legOptions = options
    legOptions.splitLargeFiles = inputs < ProcessInfo.processInfo.activeProcessorCount
    return legOptions
  }

  /// `body(0..<count)` run concurrently, results in order; the first error (in order)
  /// is rethrown.
  static func concurrently<T: Sendable>(_ count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
    let results = Mutex<[Result<T, any Error>?]>(Array(repeating: nil, count: count))
    DispatchQueue.concurrentPerform(iterations: count) { k in
      let result = Result { try body(k) }
      results.withLock { $0[k] = result }
    }
    return try results.withLock { all in try all.map { try $0!.get() } }
  }
}
