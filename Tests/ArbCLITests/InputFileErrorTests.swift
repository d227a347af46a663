import ArbCLI
import ArbCore
import ArbIngest
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Input files named on the command line")
struct InputFileErrorTests {
  static let badInputs: [(arguments: [String], code: ExitCode, message: String)] = [
    (["merge", "/nonexist/nope.csv", "--out", "/tmp/never.csv"], .noInput, "/nonexist/nope.csv: error: no such file"),
    (["backtest", "/nonexist/nope.json"], .noInput, "/nonexist/nope.json: error: no such file"),
    (["sweep", "/nonexist/nope.json", "--grid", "strategy.entry=1,2"], .noInput, "/nonexist/nope.json: error: no such file"),
    (["report", "/nonexist/nope.json", "--out", "/tmp/never"], .noInput, "/nonexist/nope.json: error: no such file"),
    (["venues", "--registry", "/nonexist/nope.json"], .noInput, "/nonexist/nope.json: error: no such file"),
    (["backtest", Repository.data("scenarios")], .noInput, "scenarios: error: is a folder, not a file"),
    (["backtest", "/dev/zero"], .noInput, "/dev/zero: error: is a character device, not a file"),
  ]

  @Test("a scenario, registry or shard that is missing or no file says what it is, exit 66", arguments: badInputs)
  func badInputFiles(c: (arguments: [String], code: ExitCode, message: String)) {
    let run = arbkit(c.arguments)
    #expect(run.code == c.code, "\(run.errors)")
    #expect(run.errors.contains(c.message), "\(run.errors)")
  }

  @Test("an unreadable scenario is a permission error, exit 74", .disabled(if: geteuid() == 0, "root reads a file of any mode"))
  func unreadableScenario() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    chmod(f.scenario, 0)
    let run = arbkit("backtest", f.scenario)
    #expect(run.code == .ioError && run.errors.contains("\(f.scenario): error: cannot read, permission denied"), "\(run.errors)")
  }

  @Test("an existing file whose name holds ',' or '=' is read as that file")
  func existingPathWithComma() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let odd = f.folder.write("b,x=y.csv", fileText(f.b)!)
    let run = arbkit("inspect", odd, "--format", "json")
    #expect(run.code == .success, "\(run.errors)")
    #expect(run.object["rows_accepted"] as? Int == 2)
  }

  @Test("a leg file with a header and no rows, or with every row skipped as bad, says so, exit 65, streamed or whole")
  func legWithoutQuotes() throws {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let header = f.folder.write("h.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n")
    let rejected = f.folder.write(
      "r.csv", "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n1000000,a,spot,BTCUSD,bad,101,1,1,100\n2000000,a,spot,BTCUSD,-1,101,1,1,100\n")
    var options = IngestOptions()
    options.badRows = .skip
    for (leg, reason) in [(header, "no quotes: a header and no rows"), (rejected, "no quotes: all 2 rows were rejected")] {
      let run = arbkit("premium", "--leg", leg, "--leg", f.b, "--bad-rows", "skip", "--quarantine", f.folder.path + "/q.csv")
      #expect(run.code == .dataError && run.errors.contains("\(leg):1:1: error: \(reason)"), "\(run.errors)")
      #expect {
        _ = try LegSpec(instrument: nil, paths: [leg]).load(options: options)
      } throws: {
        ($0 as? IngestError)?.description == "\(leg):1:1: error: \(reason)"
      }
    }
  }
}
