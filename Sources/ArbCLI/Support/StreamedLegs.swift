import ArbCore
import ArbIngest

/// The legs of a command that streams them: a store leg from its mapped partitions, a
/// leg of files in time order as they are read (`FileQuoteStream`, parsed ahead on a
/// thread of its own), any other leg read whole (concurrently, as `LoadedLegs`) and
/// streamed from memory.
struct StreamedLegs {
  struct Leg {
    var stream: any QuoteStream
    /// As the leg names it.
    var instrument: Instrument
    /// The series of a leg read whole (a pipe, a JSON source, a book), from which a later
    /// pass streams it again.
    var series: QuoteSeries? = nil
    /// The leg's row accounting; for a leg read as it streams, complete once the stream has ended.
    var reports: [IngestReport] { readReports() }
    fileprivate let readReports: () -> [IngestReport]
  }

  var legs: [Leg]

  /// Opens `specs`, a file leg parsed ahead `chunkRows` quotes at a time; with `sizes`,
  /// streams yield the quotes' sizes.
  static func open(_ specs: [LegSpec], ingest: IngestFlags, sizes: Bool = false, chunkRows: Int) throws -> StreamedLegs {
    var options = ingest.options
    options.storeColumns = sizes ? .all : .skippingSizesAndOtherClock
    var streamed: [Leg?] = []
    for spec in specs {
      if spec.isStore {
        let leg = try spec.stream(options: options)
        streamed.append(Leg(stream: leg.stream, instrument: leg.instrument, readReports: { [leg.report] }))
      } else if let stream = try FileQuoteStream.open(spec, options: options, specOverrides: ingest.specOverrides) {
        let ahead = PrefetchedQuoteStream(stream, rows: chunkRows)
        streamed.append(Leg(stream: ahead, instrument: stream.instrument, readReports: { stream.reports }))
      } else {
        streamed.append(nil)
      }
    }
    let loadedSpecs = specs.indices.filter { streamed[$0] == nil }.map { specs[$0] }
    let loaded = try LoadedLegs.load(loadedSpecs, options: ingest.options, specOverrides: ingest.specOverrides)
    var rest = loaded[...]
    let legs = streamed.map { leg in
      leg ?? rest.popFirst().map { loaded in
        Leg(stream: SeriesQuoteStream(loaded.series), instrument: loaded.series.instrument, series: loaded.series, readReports: { loaded.reports })
      }!
    }
    return StreamedLegs(legs: legs)
  }

  /// Counts the quotes read on `terminal` as they go: a bar and the time left when every
  /// leg knows its length (a store, a leg read whole).
  mutating func counted(on terminal: Terminal) -> Progress {
    let counts = legs.map(\.stream.expectedRows)
    let total = counts.contains(nil) ? nil : counts.reduce(0) { $0 + $1! }
    let progress = Progress(total: total, unit: "quotes", show: Progress.onTerminal(terminal), every: 0.2)
    if Progress.onTerminal(terminal) {
      for k in legs.indices { legs[k].stream = CountingQuoteStream(legs[k].stream, counted: progress.advance) }
    }
    return progress
  }

  /// Prints the rejected-row warnings of every leg: deferred by the commands to their
  /// end, so that they are printed when the run fails too (a leg's accounting is
  /// complete for the files it finished).
  func warn(_ terminal: inout Terminal) {
    for leg in legs { for report in leg.reports { IngestSummary.warn(report, terminal: &terminal) } }
  }
}

/// The legs of a command that reads them in several passes (`basis`, `kimchi`): the
/// first stream of a leg is the one opened at the start (whose row accounting the
/// command reports), every later one opens the leg anew, or streams again the series of a
/// leg read whole (a pipe can be read once). Each stream is counted on `progress` (on a
/// terminal) and moved by its venue's clock offset.
final class LegPasses {
  /// The clock offset of each leg (µs).
  let micros: [Int64]
  private var unused: [(any QuoteStream)?]
  private let series: [QuoteSeries?]
  private let specs: [LegSpec]
  private let ingest: IngestFlags
  /// Whether the streams yield the quotes' sizes.
  private let sizes: Bool
  private let chunkRows: Int
  private let progress: Progress?

  init(
    _ first: StreamedLegs, specs: [LegSpec], ingest: IngestFlags, sizes: Bool = false, chunkRows: Int, offsets: [(venue: String, micros: Int64)],
    progress: Progress?
  ) {
    micros = first.legs.map { leg in offsets.first { $0.venue == leg.instrument.venue }?.micros ?? 0 }
    unused = first.legs.map(\.stream)
    series = first.legs.map(\.series)
    (self.specs, self.ingest, self.sizes, self.chunkRows, self.progress) = (specs, ingest, sizes, chunkRows, progress)
  }

  /// A stream of leg `k` for the next pass over it.
  func open(_ k: Int) throws -> any QuoteStream {
    var stream =
      try unused[k] ?? series[k].map(SeriesQuoteStream.init)
      ?? StreamedLegs.open([specs[k]], ingest: ingest, sizes: sizes, chunkRows: chunkRows).legs[0].stream
    unused[k] = nil
    if let progress { stream = CountingQuoteStream(stream, counted: progress.advance) }
    return micros[k] == 0 ? stream : ShiftedQuoteStream(stream, by: micros[k])
  }
}
