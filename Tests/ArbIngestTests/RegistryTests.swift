import ArbCore
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

// Data/exchanges.json is the source of truth; Sources/ArbCore/BuiltinRegistry.swift
// embeds the same bytes (scripts/embed-registry). Ingest resolves Tardis ids with it.

@Suite("Exchange registry")
struct RegistryTests {
  static let jsonPath = Repository.data("exchanges.json")
  static let swiftPath = Repository.root.appendingPathComponent("Sources/ArbCore/BuiltinRegistry.swift").path

  @Test("BuiltinRegistry.swift embeds exactly the bytes of Data/exchanges.json")
  func embeddedBytes() throws {
    let json = try String(contentsOfFile: Self.jsonPath, encoding: .utf8)
    let swift = try String(contentsOfFile: Self.swiftPath, encoding: .utf8)
    let opener = "let builtinRegistryJSON = #\"\"\"\n"
    let closer = "\"\"\"#\n"
    let start = try #require(swift.range(of: opener)).upperBound
    let end = try #require(swift.range(of: closer, options: .backwards)).lowerBound
    // The JSON file ends with a newline, which is the line break before the closing
    // delimiter: the text between the delimiters is the file, byte for byte.
    #expect(json.hasSuffix("\n"))
    #expect(Array(swift[start..<end].utf8) == Array(json.utf8))
    // And nothing else is in the generated file (what scripts/embed-registry writes).
    let generated = "// Generated from Data/exchanges.json by scripts/embed-registry. Do not edit.\n" + opener + json + closer
    #expect(swift == generated)
  }

  @Test("the builtin registry decodes and equals Data/exchanges.json")
  func builtinDecodes() throws {
    let builtin = ExchangeRegistry.builtin
    let file = try ExchangeRegistry.load(path: Self.jsonPath)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(try encoder.encode(builtin) == encoder.encode(file))
    #expect(builtin.venues.count >= 10)
    #expect(builtin.feesRead == "2026-12-02")
    #expect(Set(builtin.venues.map(\.id)).count == builtin.venues.count)
  }

  @Test("every Tardis id names one market")
  func tardisIDsUnique() {
    let ids = ExchangeRegistry.builtin.venues.flatMap { $0.markets.compactMap(\.tardis) }
    #expect(ids.count >= 10)
    #expect(Set(ids).count == ids.count)
    #expect(ExchangeRegistry.builtin.tardisMarket("no-such-exchange") == nil)
    let huobi = ExchangeRegistry.builtin.tardisMarket("huobi-dm-swap")
    #expect(huobi?.venue == "huobi" && huobi?.market == .inverse)
  }

  @Test("a registry file that is missing or malformed names its path")
  func loadErrors() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let missing = #expect(throws: RegistryError.self) { try ExchangeRegistry.load(path: folder.path + "/none.json") }
    #expect(missing?.message == "\(folder.path)/none.json: error: no such file")
    let bad = folder.write("bad.json", #"{"venues": []}"#)
    let malformed = #expect(throws: RegistryError.self) { try ExchangeRegistry.load(path: bad) }
    #expect(malformed?.message.hasPrefix("\(bad): error: not a valid exchange registry") == true)
  }

  @Test("ingest resolves Tardis ids through a user registry when given one")
  func userRegistry() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let json = #"""
      {"fees_read": "2026-01-01", "venues": [{"id": "acme", "name": "Acme", "region": "global", "markets": [
        {"kind": "linear", "venue_name": "perp", "example": "BTCUSDT", "quote": "USDT", "maker": 0, "taker": 0.001, "tardis": "binance"}]}]}
      """#
    var options = IngestOptions()
    options.registry = try ExchangeRegistry.load(path: folder.write("registry.json", json))
    let file = try ingest(tardisQuotesHeader + "\n" + tardisGoodRow + "\n", options: options)
    #expect(file.series.first?.instrument == Instrument(venue: "acme", market: .linear, symbol: "BTCUSDT"))
  }
}
