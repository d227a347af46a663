import ArbCore
import ArbIngest

/// `arbkit venues`: prints the exchange registry, or resolves symbols with it.
struct VenuesCommand: Command {
  static let name = "venues"
  static let abstract = "Print the exchange registry (venues, markets, symbol grammars, fees) or resolve symbols"
  static let usage = """
    Usage: arbkit venues [--resolve VENUE:MARKET:SYMBOL]… [--registry PATH] [--format table|csv|json]

    Prints every venue and market of the registry: the market kind (spot, linear =
    USDT-margined perpetual, inverse = coin-margined perpetual, future = dated), the
    venue's own name for it, its symbol grammars, an example symbol and the canonical
    instrument it names, quote and settle currencies, the face value of inverse
    contracts, default maker/taker fees in percent, the day they were read and the
    Tardis.dev exchange id.

    Options:
    \(HelpText.options([
      ("--resolve V:M:S", "print the canonical instrument of a venue's symbol instead (repeat for several), e.g. binance:inverse:BTCUSD_PERP"),
      ("--registry PATH", Self.registryHelp),
      ("--format table|csv|json", "output (default table)"),
    ]))
    """

  /// The `--registry` rule, shared with the commands that read data.
  static let registryHelp =
    "extend the built-in registry: a venue with a new id is added; one with a known id takes the file's name, region and aliases, adds its bases, and each of its markets replaces the market of the same kind and venue name or is added"

  let registry: ExchangeRegistry
  let resolve: [Instrument]
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--registry", "--format", "--resolve"], switches: [])
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)'") }
    registry = try Self.registry(cursor)
    resolve = try cursor.values("--resolve").map { text throws(UsageError) in
      let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 3, !parts[0].isEmpty, !parts[2].isEmpty, let market = MarketKind(rawValue: parts[1]) else {
        throw UsageError(
          "invalid value for '--resolve', expected VENUE:MARKET:SYMBOL with MARKET one of \(MarketKind.allCases.map(\.rawValue).joined(separator: ", ")), was '\(text)'"
        )
      }
      return Instrument(venue: parts[0], market: market, symbol: parts[2])
    }
    format = try OutputFormat.parse(cursor)
  }

  /// The registry of a command line: the built-in one, extended by `--registry PATH`.
  static func registry(_ cursor: ArgumentCursor) throws(UsageError) -> ExchangeRegistry {
    guard let path = cursor.value("--registry") else { return .builtin }
    do throws(FileError) { try InputFile.check(path) } catch { throw UsageError(file: error) }
    do { return try .builtin(extendedWith: path) } catch { throw UsageError(error.message) }
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    if !resolve.isEmpty { return try printResolved(&terminal) }
    let rows = registry.venues.flatMap { venue in venue.markets.map { Row(registry: registry, venue: venue, market: $0) } }
    switch format {
    case .json:
      terminal.print(
        JSONValue.object([
          ("fees_read", .string(registry.feesRead)),
          ("venues", .array(rows.map(\.json))),
        ]).rendered())
    case .csv:
      terminal.print(Row.csvHeader)
      for row in rows { terminal.print(row.csv) }
    case .table:
      var table = TextTable(
        ["venue", "market", "venue name", "symbols", "example", "canonical", "quote/settle", "contract", "maker %", "taker %", "fees read", "tardis"],
        rightAligned: [8, 9])
      for row in rows { table.add(row.tableCells) }
      terminal.print(table.rendered())
      terminal.print("\nDefault fees: fraction per fill, base tier; '*' marks values not read from the venue's own page.")
    }
    return .success
  }

  /// Resolves every `--resolve`; an unknown symbol is a bad command line.
  private func printResolved(_ terminal: inout Terminal) throws -> ExitCode {
    var resolved: [(Instrument, ExchangeRegistry.Resolution)] = []
    for instrument in resolve {
      do { resolved.append((instrument, try registry.resolution(instrument))) } catch {
        throw UsageError(error.description + (error.needsRegistryFile ? "; --registry FILE extends the built-in registry" : ""))
      }
    }
    switch format {
    case .json:
      terminal.print(
        JSONValue.array(
          resolved.map { instrument, r in
            .object(
              [("instrument", .string(instrument.description))] + Self.json(r.canonical) + [
                ("venue_name", .string(r.market.venueName)), ("grammar", .string(r.grammar.text)),
              ])
          }
        ).rendered())
    case .csv:
      terminal.print("instrument,canonical,base,quote,kind,settle,expiry,contract_size,venue_name,grammar")
      for (instrument, r) in resolved {
        let c = r.canonical
        terminal.print(
          [
            instrument.description, c.description, c.base, c.quote, c.kind.rawValue, c.settle ?? "", c.expiry?.description ?? "",
            c.contractSize.map(JSONValue.format) ?? "", CSV.field(r.market.venueName), r.grammar.text,
          ].joined(separator: ","))
      }
    case .table:
      var table = TextTable(["instrument", "canonical", "settle", "contract", "venue name", "grammar"], rightAligned: [])
      for (instrument, r) in resolved {
        let c = r.canonical
        table.add([
          instrument.description, c.description, c.settle ?? "-", c.contractSize.map { "\(JSONValue.format($0)) \(c.quote)" } ?? "-",
          r.market.venueName, r.grammar.text,
        ])
      }
      terminal.print(table.rendered())
    }
    return .success
  }

  /// The members that describe a canonical instrument in JSON.
  static func json(_ c: CanonicalInstrument) -> [(String, JSONValue)] {
    [
      ("canonical", .string(c.description)), ("base", .string(c.base)), ("quote", .string(c.quote)),
      ("kind", .string(c.kind.rawValue)), ("settle", c.settle.map(JSONValue.string) ?? .null),
      ("expiry", c.expiry.map { .string($0.description) } ?? .null), ("contract_size", .number(c.contractSize)),
    ]
  }
}

/// One market of the registry as `arbkit venues` prints it.
private struct Row {
  let venue: ExchangeRegistry.Venue
  let market: ExchangeRegistry.Market
  /// The canonical instrument of the market's example, when the registry reads it.
  let example: CanonicalInstrument?
  let feesRead: String

  init(registry: ExchangeRegistry, venue: ExchangeRegistry.Venue, market: ExchangeRegistry.Market) {
    self.venue = venue
    self.market = market
    example = try? registry.resolve(Instrument(venue: venue.id, market: market.kind, symbol: market.example))
    feesRead = market.feesRead ?? registry.feesRead
  }

  var symbols: String { (market.symbols ?? []).map(\.text).joined(separator: " ") }
  var settle: String? {
    switch market.contractMargin {
    case nil: nil
    case .linear: market.quote
    case .inverse: "base"
    }
  }

  /// `BTC:100 *:10`, the specific bases first.
  var contract: String? {
    guard let sizes = market.contractSize else { return nil }
    return sizes.sorted { ($0.key == "*" ? 1 : 0, $0.key) < ($1.key == "*" ? 1 : 0, $1.key) }
      .map { "\($0.key):\(JSONValue.format($0.value))" }.joined(separator: " ")
  }

  var json: JSONValue {
    .object([
      ("venue", .string(venue.id)), ("name", .string(venue.name)), ("region", .string(venue.region)),
      ("market", .string(market.kind.rawValue)), ("venue_name", .string(market.venueName)),
      ("symbols", .array((market.symbols ?? []).map { .string($0.text) })),
      ("example", .string(market.example)), ("canonical", example.map { .string($0.description) } ?? .null),
      ("quote", .string(market.quote)), ("quotes", .array(market.quoteList.map(JSONValue.string))),
      ("settle", settle.map(JSONValue.string) ?? .null),
      ("contract_size", market.contractSize.map { sizes in .object(sizes.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) }) } ?? .null),
      ("maker", .number(market.maker)), ("taker", .number(market.taker)), ("fees_read", .string(feesRead)),
      ("verified", .bool(market.verified ?? false)), ("source", market.source.map(JSONValue.string) ?? .null),
      ("tardis", market.tardis.map(JSONValue.string) ?? .null),
    ])
  }

  static let csvHeader = "venue,name,region,market,venue_name,symbols,example,canonical,quote,settle,contract_size,maker,taker,fees_read,verified,tardis"

  var csv: String {
    [
      venue.id, CSV.field(venue.name), venue.region, market.kind.rawValue, CSV.field(market.venueName), CSV.field(symbols),
      CSV.field(market.example), example?.description ?? "", market.quote, settle ?? "", contract ?? "",
      JSONValue.format(market.maker), JSONValue.format(market.taker), feesRead, market.verified == true ? "true" : "false",
      market.tardis ?? "",
    ].joined(separator: ",")
  }

  var tableCells: [String] {
    let mark = market.verified == true ? "" : "*"
    return [
      venue.id, market.kind.rawValue, market.venueName, symbols, market.example, example?.description ?? "-",
      settle.map { market.quote + "/" + $0 } ?? market.quote, contract ?? "-",
      NumberText.fixed(market.maker * 100, 3) + mark, NumberText.fixed(market.taker * 100, 3) + mark, feesRead, market.tardis ?? "-",
    ]
  }
}
