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
    var legOptions = options
    // With a leg per core already, splitting files too would only cost memory.
    legOptions.splitLargeFiles = specs.count < ProcessInfo.processInfo.activeProcessorCount
    let options = legOptions
    let results = Mutex<[Result<LoadedLeg, any Error>?]>(Array(repeating: nil, count: specs.count))
    DispatchQueue.concurrentPerform(iterations: specs.count) { k in
      let result = Result { try specs[k].load(options: options, specOverrides: specOverrides) }
      results.withLock { $0[k] = result }
    }
    return try results.withLock { all in try all.map { try $0!.get() } }
  }
}
