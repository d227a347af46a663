import ArbCore
import ArbResearch

/// The flags of `premium`, `board` and `basis` that change what is traded and when it
/// was seen: `--size` (the executable premium at a trade size, from the books' depth)
/// and `--offset` (a venue's clock correction, also on `kimchi`).
struct ExecutionFlags {
  static let flags = ["--size", "--offset"]
  static let offsetHelp = (
    "--offset VENUE=±DURATION",
    "add this to the timestamps of every leg on VENUE before alignment (repeat per venue), e.g. binance=+35ms to correct a clock that runs 35 ms behind"
  )
  static let help: [(String, String)] = [
    (
      "--size Q",
      "also the executable premium at trade size Q (base units) from the books' depth, and the capacity at each band; "
        + "refused for an inverse leg (its book counts contracts); a source with the top level only says so"
    ),
    offsetHelp,
  ]

  /// `--size`: the trade size in base units.
  var size: Double?
  /// `--offset`: µs added to the times of each venue's legs, by venue id.
  var offsets: [(venue: String, micros: Int64)] = []

  /// Parses `--size` and `--offset`; with `--size`, `ingest` keeps the books' depth.
  init(_ cursor: ArgumentCursor, ingest: inout IngestFlags) throws(UsageError) {
    try self.init(cursor)
    ingest.options.keepDepth = size != nil
  }

  init(_ cursor: ArgumentCursor) throws(UsageError) {
    size = try cursor.value("--size", "a positive size such as 0.5", { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } })
    for text in cursor.values("--offset") {
      guard let offset = Self.offset(text) else {
        throw UsageError("invalid value for '--offset', expected VENUE=±DURATION such as binance=+35ms, was '\(text)'")
      }
      if offsets.contains(where: { $0.venue == offset.venue }) { throw UsageError("--offset names venue '\(offset.venue)' twice") }
      offsets.append(offset)
    }
  }

  /// `--size` is in base units, which an inverse contract's book does not count (its sizes
  /// are contracts of a fixed quote value): a leg that is one is refused, named with its
  /// contract size when the registry knows it.
  static func refuseContractBooks(_ legs: [(instrument: Instrument, canonical: CanonicalInstrument?)]) throws(UsageError) {
    for (instrument, canonical) in legs where canonical?.kind.isInverse ?? (instrument.market == .inverse) {
      let contract = canonical?.contractSize.map { " (one contract is \(JSONValue.format($0)) \(canonical!.quote))" } ?? ""
      throw UsageError(
        "--size is in base units, but \(instrument) is an inverse contract whose book counts contracts: --size is refused for an inverse leg\(contract)")
    }
  }

  /// `Clock offsets: binance +35ms, okx -1s` for tables, or nothing.
  static func offsetsLine(_ offsets: [(venue: String, micros: Int64)]) -> String {
    guard !offsets.isEmpty else { return "" }
    let items = offsets.map { "\($0.venue) \($0.micros < 0 ? "-" : "+")\(TimeText.durationText(abs($0.micros)))" }
    return "Clock offsets (added before alignment): " + items.joined(separator: ", ") + "\n"
  }

  /// `VENUE=+35ms`, `VENUE=-1.5s` or `VENUE=35ms`.
  static func offset(_ text: String) -> (venue: String, micros: Int64)? {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let micros = ClockOffset.parse(parts[1]) else { return nil }
    return (parts[0].lowercased(), micros)
  }

  /// `legs` with each `--offset` added to the times of the legs on its venue (the clock
  /// they are aligned on).
  ///
  /// - Throws: `UsageError` for an offset whose venue has no leg, `TimeError` for one
  ///   that moves a time out of range.
  func shifted(_ legs: [QuoteSeries]) throws -> [QuoteSeries] {
    try checkOffsets(venues: legs.map(\.instrument.venue))
    return try ClockOffset.shifted(legs, by: offsets)
  }

  /// Every `--offset` names the venue of a leg.
  func checkOffsets(venues: [String]) throws(UsageError) {
    for (venue, _) in offsets where !venues.contains(venue) {
      throw UsageError("--offset names venue '\(venue)', which has no leg (legs are on \(Set(venues).sorted().joined(separator: ", ")))")
    }
  }

  /// How deep a leg's books are, for the output of `--size`.
  static func depthText(_ depth: LegDepth) -> String {
    switch depth {
    case .book(let levels): "book, up to \(levels) levels"
    case .topLevel: "level 1 only"
    case .noSizes: "none: no sizes"
    }
  }
}
