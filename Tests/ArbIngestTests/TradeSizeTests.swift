import ArbCore
import TestSupport
import Testing

@testable import ArbIngest

@Suite("Trade sizes: read for a maker leg, into both sizes, beside the price in both sides")
struct TradeSizeTests {
  static let cases: [(file: String, price: Double, size: Double)] = [
    ("bitmex_trades_XBTUSD.csv", 8531.5, 2152),
    ("BTCUSDT-aggTrades-2024-03-01-futures-header.csv", 61505.4, 0.020),
    ("BTCUSDT-aggTrades-2025-01-01-spot.csv", 93512.4, 0.015),
    ("BTCUSDT-trades-2024-03-01-futures-header.csv", 61505.4, 0.010),
    ("BTCUSDT-trades-2025-01-01-spot.csv", 93512.4, 0.010),
    ("BTCUSDT2025-01-01.csv", 93512.4, 0.010),
    ("BTCUSDT_2025-01-01.csv", 93512.41, 0.0021),
    ("parquet/btcusdt-trades.parquet", 39432.48, 0.000263),
  ]

  @Test("each trade format's first row: its price, its size with readsTradeSizes (every trade kept), no size without", arguments: cases)
  func firstRow(c: (file: String, price: Double, size: Double)) throws {
    var options = IngestOptions()
    options.readsTradeSizes = true
    let sizedFile = try Ingest.read(path: fixture(c.file), options: options)
    let sized = try #require(sizedFile.series.first)
    #expect(sized.priceSource == .last)
    #expect((sized.bid[0], sized.ask[0], sized.bidSize[0], sized.askSize[0]) == (c.price, c.price, c.size, c.size))
    #expect(sized.bidSize.allSatisfy { $0.isFinite })
    let plainFile = try Ingest.read(path: fixture(c.file), options: IngestOptions())
    let plain = try #require(plainFile.series.first)
    // Every trade is kept, those at one time too; read as prices, they collapse to the last.
    #expect(sized.count == sizedFile.report.rowsRead && sizedFile.report.rowsCollapsed == 0)
    #expect(plain.bidSize.allSatisfy { $0.isNaN } && plain.count == plainFile.report.rowsRead - plainFile.report.rowsCollapsed)
    #expect(Set(plain.time) == Set(sized.time))
  }
}
