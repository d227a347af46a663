import ArbIngest
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
  static func concurrentOptions(_ options: IngestOptions, inputs: Int) -> IngestOptions {
    var legOptions = options
    legOptions.splitLargeFiles = inputs < ProcessInfo.processInfo.activeProcessorCount
    return legOptions
  }
}

/// The legs of a command that streams them: a store leg as a stream over its mapped
/// partitions, any other leg read whole (concurrently, as `LoadedLegs`) and streamed
/// from memory.
struct StreamedLegs {
  struct Leg {
    var stream: any QuoteStream
    /// As the leg names it.
    var instrument: Instrument
    var reports: [IngestReport]
  }

  var legs: [Leg]
  /// With `whole`: every leg's series, read into memory.
  var whole: [QuoteSeries]?

  /// Opens `specs`; with `whole`, reads every leg (stores too) into memory.
  static func open(_ specs: [LegSpec], ingest: IngestFlags, whole: Bool) throws -> StreamedLegs {
    let streamed = specs.map { !whole && $0.isStore }
    let loadedSpecs = specs.indices.filter { !streamed[$0] }.map { specs[$0] }
    var loaded = try LoadedLegs.load(loadedSpecs, options: ingest.options, specOverrides: ingest.specOverrides)[...]
    var options = ingest.options
    options.storeColumns = .skippingSizesAndOtherClock
    var legs: [Leg] = []
    for (spec, isStreamed) in zip(specs, streamed) {
      if isStreamed {
        let leg = try spec.stream(options: options)
        legs.append(Leg(stream: leg.stream, instrument: leg.instrument, reports: [leg.report]))
      } else {
        let leg = loaded.removeFirst()
        legs.append(Leg(stream: SeriesQuoteStream(leg.series), instrument: leg.series.instrument, reports: leg.reports))
      }
    }
    let series = legs.compactMap { ($0.stream as? SeriesQuoteStream)?.series }
    return StreamedLegs(legs: legs, whole: whole ? series : nil)
  }
}
