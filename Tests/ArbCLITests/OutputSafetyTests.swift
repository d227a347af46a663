import ArbCLI
import Foundation
import TestSupport
import Testing

@testable import ArbIngest

#if canImport(Glibc)
import Glibc
#endif

/// Two small native legs, one with a bad row (`a.csv`), and the demo scenario copied
/// with its Binance.US leg beside it (`leg.csv`), in a fresh folder.
struct OutputFixture {
  let folder = TemporaryFolder()
  var a: String { folder.path + "/a.csv" }
  var b: String { folder.path + "/b.csv" }
  var scenario: String { folder.path + "/s.json" }
  var leg: String { folder.path + "/leg.csv" }
  /// A column spec a leg names as its format.
  var spec: String { folder.path + "/spec.json" }
  static let aText =
    "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n1000000,a,spot,BTCUSD,100,101,1,1,100\n2000000,a,spot,BTCUSD,bad,101,1,1,100\n3000000,a,spot,BTCUSD,100,101,1,1,100\n"

  static let bText = "ts_us,venue,market,symbol,bid,ask,bid_size,ask_size,last\n1000000,b,spot,BTCUSD,102,103,1,1,102\n3000000,b,spot,BTCUSD,102,103,1,1,102\n"

  init() {
    folder.write("a.csv", Self.aText)
    folder.write("b.csv", Self.bText)
    let demo = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
    try? FileManager.default.copyItem(atPath: Repository.data("samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv"), toPath: leg)
    try? FileManager.default.copyItem(atPath: Repository.data("formats/binanceus-kline-1m.json"), toPath: spec)
    let text = fileText(demo)!.replacingOccurrences(of: "../samples/binanceus_BTCUSDC_1m_2023-03-01_21.csv", with: leg)
      .replacingOccurrences(of: "\"../", with: "\"" + Repository.data("") + "/")
    folder.write("s.json", text)
  }

  /// The bytes of every file in the folder by name, hidden ones included (a folder: no bytes).
  var snapshot: [String: Data] {
    Dictionary(
      uniqueKeysWithValues: folderNames(folder.path).map { name in
        (name, FileManager.default.contents(atPath: folder.path + "/" + name) ?? Data())
      })
  }
}

func fileText(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }
func folderNames(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

@Suite("Output files of every command")
struct OutputSafetyTests {
  /// Commands whose output names one of their inputs, as `(arguments, output, input)`
  /// in a fixture's folder.
  static func clobbering(_ f: OutputFixture) -> [(arguments: [String], output: String, input: String)] {
    [
      (["inspect", f.a, "--bad-rows", "skip", "--quarantine", f.a], f.a, f.a),
      (["premium", "--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--series", f.b], f.b, f.b),
      (["rolling", "--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--window", "2", "--out", f.a], f.a, f.a),
      (["candles", "--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--every", "1m", "--out", f.b], f.b, f.b),
      (["basis", "--spot", f.a, "--perp", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--series", f.a], f.a, f.a),
      (["kimchi", "--krw", f.a, "--usd", f.b, "--fx", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--series", f.b], f.b, f.b),
      (["premium", "--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--output-format", "parquet", "--series", f.a], f.a, f.a),
      (["backtest", f.scenario, "--trades", f.folder.path + "/t.csv", "--equity", f.scenario], f.scenario, f.scenario),
      (["backtest", f.scenario, "--trades", f.leg], f.leg, f.leg),
      (["premium", "--leg", "binanceus:spot:BTCUSDC=\(f.leg)@\(f.spec)", "--leg", f.b, "--series", f.spec], f.spec, f.spec),
      (["sweep", f.scenario, "--grid", "strategy.entry=0.5,0.8", "--quiet", "--out", f.leg], f.leg, f.leg),
      (["sweep", f.scenario, "--grid", "strategy.entry=0.5,0.8", "--quiet", "--out", f.scenario], f.scenario, f.scenario),
    ]
  }

  @Test("an output that is an input of the run is refused before any work, exit 64 naming both, every file intact")
  func outputOntoInput() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let before = f.snapshot
    for c in Self.clobbering(f) {
      let run = arbkit(c.arguments)
      #expect(run.code == .usage, "\(c.arguments[0]): \(run.errors)")
      #expect(run.errors.contains("\(c.output): error: would overwrite \(c.input), an input of this run"), "\(run.errors)")
      #expect(f.snapshot == before, "\(c.arguments[0])")
    }
  }

  @Test("an output reached through a link or a hard link to an input is refused too")
  func outputOntoInputThroughLinks() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let soft = f.folder.path + "/soft.csv"
    let hard = f.folder.path + "/hard.csv"
    #expect(symlink(f.b, soft) == 0 && link(f.b, hard) == 0)
    for output in [soft, hard] {
      let run = arbkit("premium", "--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null", "--series", output)
      #expect(run.code == .usage && run.errors.contains("would overwrite \(f.b)"), "\(run.errors)")
    }
    #expect(fileText(f.b) == OutputFixture.bText)
  }

  @Test("convert leaves a folder it did not create alone: a user's DIR.partial, a user's file in a store, a folder not a store")
  func convertDeletesNothingOfTheUser() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let mine = f.folder.path + "/out.partial/mine.txt"
    try? FileManager.default.createDirectory(atPath: f.folder.path + "/out.partial", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: mine, contents: Data("mine\n".utf8))
    let converted = arbkit("convert", f.b, "--out", f.folder.path + "/out")
    #expect(converted.code == .success, "\(converted.errors)")
    #expect(fileText(mine) == "mine\n")
    #expect(!folderNames(f.folder.path).contains { $0.hasPrefix(".") })
    // Adding to the store keeps a file of the user in it, and leaves no staging folder.
    _ = FileManager.default.createFile(atPath: f.folder.path + "/out/notes.txt", contents: Data("notes\n".utf8))
    let c = f.folder.write("c.csv", OutputFixture.bText.replacingOccurrences(of: ",b,", with: ",c,"))
    let added = arbkit("convert", c, "--out", f.folder.path + "/out")
    #expect(added.code == .success, "\(added.errors)")
    #expect(fileText(f.folder.path + "/out/notes.txt") == "notes\n")
    #expect(!folderNames(f.folder.path + "/out").contains { $0.hasPrefix(".") })

    let other = f.folder.path + "/other"
    try? FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: other + "/manifest.json", contents: Data("{}".utf8))
    _ = FileManager.default.createFile(atPath: other + "/precious.csv", contents: Data("keep\n".utf8))
    let refused = arbkit("convert", f.b, "--out", other)
    #expect(refused.code == .ioError && refused.errors.contains("\(other): error: cannot write, exists and is not a store"), "\(refused.errors)")
    #expect(folderNames(other) == ["manifest.json", "precious.csv"])
  }

  @Test("a symbolic link in a name the command makes is not written through: report's files, the default quarantine")
  func symbolicLinksInMadeNames() throws {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let report = f.folder.path + "/report"
    try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: true)
    #expect(symlink(f.b, report + "/report.md") == 0)
    let run = arbkit("report", f.scenario, "--out", report)
    #expect(run.code == .ioError && run.errors.contains("report.md: error: cannot write, is a symbolic link"), "\(run.errors)")
    #expect(fileText(f.b) == OutputFixture.bText)

    // The default quarantine FILE.rejected.csv is made in the current folder.
    let previous = FileManager.default.currentDirectoryPath
    let named = FileManager.default.currentDirectoryPath + "/a.csv.rejected.csv"
    guard !FileManager.default.fileExists(atPath: named) else { return }
    #expect(symlink(f.b, named) == 0)
    defer { unlink(named) }
    let inspect = arbkit("inspect", f.a, "--bad-rows", "skip")
    #expect(inspect.code == .ioError && inspect.errors.contains("is a symbolic link"), "\(inspect.errors)")
    #expect(fileText(f.b) == OutputFixture.bText)
    #expect(FileManager.default.currentDirectoryPath == previous)
  }

  @Test("a second sweep into an --out that another is writing is refused; a lock file left by a killed sweep is no lock")
  func sweepLock() throws {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let out = f.folder.path + "/sweep.csv"
    let arguments = ["sweep", f.scenario, "--grid", "strategy.entry=0.5,0.8", "--quiet", "--out", out]
    let holder = open(out + ".lock", O_RDWR | O_CREAT, 0o644)
    #expect(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
    let refused = arbkit(arguments)
    #expect(refused.code == .ioError, "\(refused.errors)")
    #expect(refused.errors.contains("\(out): error: cannot write, another arbkit sweep is writing it (\(out).lock is locked)"), "\(refused.errors)")
    #expect(!FileManager.default.fileExists(atPath: out))
    // The holder's process ends: the kernel drops the lock, the file stays.
    close(holder)
    let run = arbkit(arguments)
    #expect(run.code == .success, "\(run.errors)")
    #expect(fileText(out)?.split(separator: "\n").count == 3)
    #expect(!FileManager.default.fileExists(atPath: out + ".lock"))
  }

  /// Commands each writing `output` (under a full disk), as `(arguments, output)`.
  static func writers(_ f: OutputFixture) -> [(arguments: [String], output: String)] {
    let out = f.folder.path + "/out.csv"
    let legs = ["--leg", f.a, "--leg", f.b, "--bad-rows", "skip", "--quarantine", "/dev/null"]
    return [
      (["premium"] + legs + ["--series", out], out),
      (["rolling"] + legs + ["--window", "2", "--out", out], out),
      (["candles"] + legs + ["--every", "1m", "--out", out], out),
      (["inspect", f.a, "--bad-rows", "skip", "--quarantine", out], out),
      (["backtest", f.scenario, "--trades", f.folder.path + "/trades.csv", "--equity", out], out),
      (["report", f.scenario, "--out", f.folder.path + "/report"], f.folder.path + "/report/report.md"),
      (["convert", f.b, "--out", f.folder.path + "/cache"], f.folder.path + "/cache/manifest.json"),
      (["convert", f.b, "--out", f.folder.path + "/table.parquet"], f.folder.path + "/table.parquet"),
    ]
  }

  @Test("on a full disk every output keeps its old bytes and no temporary file is left")
  func fullDisk() throws {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    try FileManager.default.createDirectory(atPath: f.folder.path + "/report", withIntermediateDirectories: true)
    for c in Self.writers(f) {
      let old = c.arguments[0] == "convert" ? nil : "old\n"
      if let old { _ = FileManager.default.createFile(atPath: c.output, contents: Data(old.utf8)) }
      let before = f.snapshot
      // A cache's files are written in a new folder of a random name beside it; a
      // table's, first in a temporary store in another such folder.
      let limited =
        c.output.hasSuffix(".parquet")
        ? f.folder.path + "/.table.parquet.spill-" : c.arguments[0] == "convert" ? f.folder.path + "/.cache.partial-" : c.output
      FileOutput.diskLimits.withLock { $0[limited] = 2 }
      let run = arbkit(c.arguments)
      FileOutput.diskLimits.withLock { _ = $0.removeValue(forKey: limited) }
      #expect(run.code == .ioError, "\(c.arguments[0]): \(run.errors)")
      #expect(run.errors.contains("No space left on device"), "\(c.arguments[0]): \(run.errors)")
      // Named by the output given, not by a file of the hidden store.
      if c.output.hasSuffix(".parquet") { #expect(run.errors.hasPrefix(c.output + ": error: cannot write, in its temporary store"), "\(run.errors)") }
      #expect(f.snapshot == before, "\(c.arguments[0]): \(folderNames(f.folder.path))")
      #expect(!folderNames(f.folder.path + "/report").contains { $0.hasPrefix(".") }, "\(c.arguments[0])")
    }
  }

  /// The quarantine is written while the table's temporary store is: its error is its own.
  @Test("a quarantine that cannot be written while convert makes a table is told by its own name")
  func quarantineOfATable() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let quarantine = f.folder.path + "/q.csv"
    FileOutput.diskLimits.withLock { $0[quarantine] = 2 }
    defer { FileOutput.diskLimits.withLock { _ = $0.removeValue(forKey: quarantine) } }
    let run = arbkit("convert", f.a, "--bad-rows", "skip", "--quarantine", quarantine, "--out", f.folder.path + "/t.parquet")
    #expect(run.code == .ioError)
    #expect(run.errors.hasPrefix(quarantine + ": error: cannot write, write failed: No space left on device"), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: f.folder.path + "/t.parquet"))
  }

  @Test("outputs of one run are checked before it starts and written together: a missing folder writes none")
  func missingFolder() {
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    let ok = f.folder.path + "/ok.csv"
    let run = arbkit("backtest", f.scenario, "--trades", ok, "--equity", "/nonexist/e.csv")
    #expect(run.code == .ioError)
    #expect(run.errors.contains("/nonexist/e.csv: error: cannot write, no such folder '/nonexist'"), "\(run.errors)")
    #expect(!FileManager.default.fileExists(atPath: ok))
    let quarantine = arbkit("inspect", f.a, "--bad-rows", "skip", "--quarantine", "/nonexist/d/q.csv")
    #expect(quarantine.code == .ioError && quarantine.errors.contains("/nonexist/d/q.csv: error: cannot write, no such folder '/nonexist/d'"))
    let convert = arbkit("convert", f.b, "--out", "/nonexist/d/x")
    #expect(convert.code == .ioError && convert.errors.contains("/nonexist/d/x: error: cannot write, no such folder '/nonexist/d'"), "\(convert.errors)")
  }

  @Test(
    "a run ended by SIGTERM or SIGHUP while writing removes its temporary file and dies by that signal",
    arguments: [SIGTERM, SIGHUP])
  func interruptRemovesTemporaryFile(signalNumber: Int32) throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    try #require(FileManager.default.isExecutableFile(atPath: binary), "the arbkit binary is built beside the tests")
    let f = OutputFixture()
    defer { f.folder.cleanup() }
    // A pipe as the first input: `convert` opens its output, then waits for the rest of it.
    let pipe = f.folder.path + "/pipe"
    try #require(mkfifo(pipe, 0o600) == 0)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["convert", pipe, f.b, "--out", f.folder.path + "/x.parquet"]
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Opened once the run opened it to read (no wait on a run that failed first).
    var writer: Int32 = -1
    for _ in 0..<6_000 where writer < 0 && process.isRunning {
      writer = open(pipe, O_WRONLY | O_NONBLOCK)
      if writer < 0 { usleep(10_000) }
    }
    try #require(writer >= 0, "the run opens its input")
    _ = OutputFixture.bText.withCString { write(writer, $0, strlen($0)) }
    func temporaryFiles() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: f.folder.path)) ?? []).filter { $0.hasPrefix(".x.parquet.tmp-") }
    }
    var waited = 0
    while waited < 6_000, temporaryFiles().isEmpty {
      usleep(10_000)
      waited += 1
    }
    #expect(temporaryFiles().count == 1, "the output's temporary file exists while the input is open")
    kill(process.processIdentifier, signalNumber)
    // The signal is handled on a thread of its own: the input stays open until the run
    // ends (or 20 s have passed), so that it cannot end by reading the end of its input.
    for _ in 0..<2_000 where process.isRunning { usleep(10_000) }
    // The end of the input: a run the signal did not end finishes (and fails below).
    close(writer)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signalNumber)
    #expect(temporaryFiles().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: f.folder.path + "/x.parquet"))
  }

  /// The moments just after start: a signal that came while the handlers were being set
  /// up was lost (the run went on and exited 0), and one that came between the making of
  /// a temporary file or folder and its registration left it behind.
  @Test("a signal in the first milliseconds of a run ends it, and leaves no temporary file or folder", arguments: ["store", "quotes.parquet"])
  func earlySignal(output: String) throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    let inputs = TemporaryFolder(), outputs = TemporaryFolder()
    defer {
      inputs.cleanup()
      outputs.cleanup()
    }
    var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
    for k in 0..<100_000 {
      text += "binance,BTCUSDT,\(1_700_000_000_000_000 + Int64(k) * 2_000_000),\(1_700_000_000_000_100 + Int64(k) * 2_000_000),1.5,100.1,100,2\n"
    }
    let file = inputs.write("binance.csv", text)
    var random = SplitMix64(seed: 5)
    for run in 0..<40 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = ["convert", file, "--out", outputs.path + "/" + output]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      usleep(UInt32(60_000 * random.uniform()))
      let signalNumber = [SIGTERM, SIGHUP, SIGINT][run % 3]
      kill(process.processIdentifier, signalNumber)
      process.waitUntilExit()
      let left = (try? FileManager.default.contentsOfDirectory(atPath: outputs.path)) ?? []
      #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signalNumber, "run \(run): exit \(process.terminationStatus)")
      #expect(left.isEmpty, "run \(run): \(left)")
      for name in left { try? FileManager.default.removeItem(atPath: outputs.path + "/" + name) }
    }
  }

  /// A table is written through a temporary store beside it (`SourceSpill`): that too is gone.
  @Test("convert into a new store or table, interrupted at random moments, leaves no staging folder", arguments: ["store", "quotes.parquet"])
  func interruptedConvert(output: String) throws {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbkit").path
    let inputs = TemporaryFolder(), outputs = TemporaryFolder()
    defer {
      inputs.cleanup()
      outputs.cleanup()
    }
    // Two venues' quotes over four days: several partitions written while the run goes on.
    let files = ["binance", "bybit"].map { venue in
      var text = "exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\n"
      for k in 0..<150_000 {
        text += "\(venue),BTCUSDT,\(1_700_000_000_000_000 + Int64(k) * 2_000_000),\(1_700_000_000_000_100 + Int64(k) * 2_000_000),1.5,100.1,100,2\n"
      }
      return inputs.write("\(venue).csv", text)
    }
    var random = SplitMix64(seed: 11)
    var interrupted = 0
    for run in 0..<20 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = ["convert"] + files + ["--out", outputs.path + "/" + output]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      usleep(UInt32(150_000 + 1_000_000 * random.uniform()))
      kill(process.processIdentifier, [SIGTERM, SIGINT, SIGHUP][run % 3])
      process.waitUntilExit()
      let left = (try? FileManager.default.contentsOfDirectory(atPath: outputs.path)) ?? []
      let interruptedRun = process.terminationReason == .uncaughtSignal
      if interruptedRun { interrupted += 1 }
      // Nothing, or (a run ended after its commit, or by the signal just after it) the whole output.
      #expect(left.isEmpty ? interruptedRun : left == [output], "run \(run): \(left)")
      #expect(interruptedRun || process.terminationStatus == 0, "run \(run)")
      if left == [output] {
        let inspect = arbkit("inspect", outputs.path + "/" + output, "--format", "json")
        #expect(inspect.code == .success && inspect.object["rows_read"] as? Int == 300_000, "run \(run): \(inspect.errors)")
      }
      try? FileManager.default.removeItem(atPath: outputs.path + "/" + output)
    }
    #expect(interrupted >= 8, "\(interrupted) of 20 runs were interrupted")
  }

}
