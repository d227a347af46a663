import ArbCLI
import Foundation
import Testing
import TestSupport

@Suite("arbkit inspect on zstd")
struct InspectZstdTests {
  @Test func `inspect reads a zst path like the plain file`() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let source = Repository.root.appendingPathComponent("Tests/ArbIngestTests/Fixtures/binance-futures_book_snapshot_25_BTCUSDT.csv").path
    let plain = folder.write("book.csv", try Data(contentsOf: URL(fileURLWithPath: source)))
    let tool = FileManager.default.isExecutableFile(atPath: "/usr/bin/zstd") ? "/usr/bin/zstd" : "/bin/zstd"
    #expect(try runProgram(tool, ["-q", "-k", plain, "-o", plain + ".zst"]) == 0)
    let run = arbkit("inspect", plain + ".zst", "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    let object = run.object
    #expect(object["file"] as? String == plain + ".zst")
    #expect(object["format"] as? String == "tardis.book_snapshot_25")
    #expect(object["rows_read"] as? Int == 10 && object["rows_accepted"] as? Int == 10)
    #expect(object["first_ts_us"] as? Int == 1_598_918_403_810_979)
    #expect(object["last_ts_us"] as? Int == 1_598_918_404_009_468)
    let instrument = try #require((object["instruments"] as? [[String: Any]])?.first)
    #expect(instrument["venue"] as? String == "binance" && instrument["market"] as? String == "linear")
    // Everything but the file name matches the plain file's report.
    var plainObject = arbkit("inspect", plain, "--format", "json").object
    plainObject["file"] = plain + ".zst"
    #expect(NSDictionary(dictionary: plainObject).isEqual(to: object))
  }
}
