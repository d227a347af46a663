import ArbCore

/// `arbkit venues`: prints the exchange registry.
struct VenuesCommand: Command {
  static let name = "venues"
  static let abstract = "Print the exchange registry: venues, markets, naming, default fees"
  static let usage = """
    Usage: arbkit venues [--registry PATH] [--format table|csv|json]

    Prints every venue and market of the registry (built in, or the file given with
    --registry): the market kind (spot, linear = USDT-margined perpetual, inverse =
    coin-margined perpetual, future = dated), the venue's own name for it, a symbol
    in the venue's grammar, the quote currency, default maker/taker fees in percent
    and the Tardis.dev exchange id.
    """

  let registry: ExchangeRegistry
  let format: OutputFormat

  init(arguments: [String]) throws(UsageError) {
    let cursor = ArgumentCursor(arguments, flags: ["--registry", "--format"], switches: [])
    try cursor.validate()
    if let stray = cursor.arguments.first { throw UsageError("unexpected argument '\(stray)'") }
    if let path = cursor.value("--registry") {
      do { registry = try ExchangeRegistry.load(path: path) } catch { throw UsageError("\(error)") }
    } else {
      registry = .builtin
    }
    format = try OutputFormat.parse(cursor)
  }

  func run(_ terminal: inout Terminal) throws -> ExitCode {
    let rows = registry.venues.flatMap { venue in venue.markets.map { (venue, $0) } }
    switch format {
    case .json:
      terminal.print(JSONValue.object([
        ("fees_read", .string(registry.feesRead)),
        ("venues", .array(rows.map { venue, market in
          .object([
            ("venue", .string(venue.id)), ("name", .string(venue.name)), ("region", .string(venue.region)),
            ("market", .string(market.kind.rawValue)), ("venue_name", .string(market.venueName)),
            ("example", .string(market.example)), ("quote", .string(market.quote)),
            ("maker", .number(market.maker)), ("taker", .number(market.taker)),
            ("tardis", market.tardis.map(JSONValue.string) ?? .null),
          ])
        })),
      ]).rendered())
    case .csv:
      terminal.print("venue,name,region,market,venue_name,example,quote,maker,taker,tardis")
      for (venue, market) in rows {
        terminal.print([venue.id, CSV.field(venue.name), venue.region, market.kind.rawValue, CSV.field(market.venueName),
          market.example, market.quote, JSONValue.format(market.maker), JSONValue.format(market.taker), market.tardis ?? ""].joined(separator: ","))
      }
    case .table:
      var table = TextTable(["venue", "name", "market", "venue name", "example", "quote", "maker %", "taker %", "tardis"], rightAligned: [6, 7])
      for (venue, market) in rows {
        table.add([venue.id, venue.name, market.kind.rawValue, market.venueName, market.example, market.quote,
          NumberText.fixed(market.maker * 100, 3), NumberText.fixed(market.taker * 100, 3), market.tardis ?? "-"])
      }
      terminal.print(table.rendered())
      terminal.print("\nDefault fees read \(registry.feesRead); fraction per fill, base tier.")
    }
    return .success
  }
}
