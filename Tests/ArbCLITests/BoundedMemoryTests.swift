import Foundation
import TestSupport
import Testing

// `arbkit premium` streams its legs: its peak memory does not grow with the length of
// the history, from CSV files or from a store. Eight times the rows must not cost more
// than a fixed allowance, far below what keeping the columns would add.
@Suite("Bounded memory")
struct BoundedMemoryTests {
  static let venues = [("binance", "BTCUSDT", "binance:spot:BTCUSDT"), ("bybit", "BTCUSDT", "bybit:linear:BTCUSDT"), ("okex", "BTC-USDT", "okx:spot:BTC-USDT")]
  /// What the peak may grow by from the small to the large input (the columns of the
  /// large input alone would add about 50 MiB).
  static let allowance = 8 << 20

  /// Writes Tardis quote files of `rows` quotes per venue, prices on independent walks.
  static func quotes(_ folder: TemporaryFolder, rows: Int) -> [String] {
    venues.enumerated().map { k, venue in
      var random = SplitMix64(seed: UInt64(k + 1))
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      text.reserveCapacity(rows * 80)
      var time: Int64 = 1_709_251_200_000_000 + Int64(k) * 137
      var tenths = 620_000
      for _ in 0..<rows {
        time += 50_000 + Int64(random.next() % 1_150_000)
        tenths += Int(random.next() % 41) - 20
        text += "\(venue.0),\(venue.1),\(time),\(time + 900),1.5,\(decimal(tenths)),\(decimal(tenths - 1)),2.0\n"
      }
      return folder.write("\(venue.0)-\(rows).csv", text)
    }
  }

  /// `tenths` / 10 with one decimal.
  static func decimal(_ tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }

  /// Runs the arbkit beside the tests with `arguments` under GNU time (a child of the
  /// test process would inherit the test's own peak); its exit status and peak resident
  /// memory in bytes.
  static func peak(_ arguments: [String], folder: TemporaryFolder) throws -> (status: Int32, bytes: Int) {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "the arbkit binary is built beside the tests")
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is installed (make test installs it)")
    let report = folder.path + "/peak.txt"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    process.arguments = ["-f", "%M", "-o", report, binary] + arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let kilobytes = try #require(Int(try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").last ?? ""))
    return (process.terminationStatus, kilobytes * 1024)
  }

  @Test func `premium's peak memory does not grow with the rows, from CSV and from a store`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    var peaks: [String: [Int]] = [:]
    for rows in [40_000, 320_000] {
      let files = Self.quotes(folder, rows: rows)
      let store = folder.path + "/store-\(rows)"
      #expect(try Self.peak(["convert"] + files + ["--out", store], folder: folder).status == 0)
      let legs: [String: [String]] = [
        "csv": files.flatMap { ["--leg", $0] },
        "store": Self.venues.flatMap { ["--leg", "\($0.2)=\(store)"] },
      ]
      for (source, legArguments) in legs {
        let run = try Self.peak(["premium"] + legArguments + ["--max-stale", "5s", "--chunk-rows", "256", "--format", "json"], folder: folder)
        #expect(run.status == 0, "\(source) \(rows)")
        peaks[source, default: []].append(run.bytes)
      }
    }
    for (source, bytes) in peaks {
      #expect(bytes[1] - bytes[0] <= Self.allowance, "\(source): peak \(bytes[0] >> 10) KiB at 40 K rows a leg, \(bytes[1] >> 10) KiB at 320 K")
    }
  }
}
