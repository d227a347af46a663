import ArbCore
import Foundation

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
  public static func concurrentOptions(_ options: IngestOptions, inputs: Int) -> IngestOptions {
    var legOptions = options
    legOptions.splitLargeFiles = inputs < ProcessInfo.processInfo.activeProcessorCount
    return legOptions
  }
}
