import Foundation
import TestSupport
import Testing

/// `arbkit sweep` and `arbkit merge` bound their work before it starts (threads, shards,
/// the rows a merge reads), and `--resume` keeps only rows of its sweep.
@Suite("Sweep and merge bounds")
struct SweepBoundsTests {
  static let scenario = Repository.data("scenarios/binanceus-kraken-btcusdc.json")
  static let grid = ["--grid", "strategy.entry=1:3:1", "--grid", "strategy.notional=1000:3000:1000", "--quiet"]

  @Test("integer ranges sweep, and --jobs far above the cells gives the same bytes as --jobs 1")
  func integerRangesAndJobs() throws {
    let one = arbkit(["sweep", Self.scenario] + Self.grid + ["--jobs", "1"])
    #expect(one.code == .success, "\(one.errors)")
    let lines = one.output.split(separator: "\n")
    #expect(lines.count == 10 && lines[1].hasPrefix("1,1000,") && lines[9].hasPrefix("3,3000,"))
    let many = arbkit(["sweep", Self.scenario] + Self.grid + ["--jobs", "9223372036854775807"])
    #expect(many.code == .success && many.output == one.output, "\(many.errors)")
  }

  @Test("--shard N above the grid's cells is refused")
  func shardCount() {
    expectUsageError(
      ["sweep", Self.scenario, "--grid", "strategy.entry=0.5,0.6", "--shard", "1/9223372036854775807"],
      "--shard 1/9223372036854775807: N must be at most the grid's 2 cells")
    expectUsageError(["sweep", Self.scenario, "--grid", "strategy.entry=0.5,0.6", "--shard", "3/3"], "N must be at most the grid's 2 cells")
  }

  static let forgedSidecars: [(key: String, from: String, to: String)] = [
    ("shard", "\"1\\/2\"", "\"1\\/9223372036854775807\""),
    ("shard", "\"1\\/2\"", "\"1\\/x\""),
    ("total_cells", "\"total_cells\" : 2", "\"total_cells\" : 9223372036854775807"),
  ]

  @Test("merge refuses a sidecar whose shard or cells do not add up, before any loop over them", .timeLimit(.minutes(1)), arguments: forgedSidecars)
  func forgedSidecar(c: (key: String, from: String, to: String)) throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    for i in 1...2 {
      let run = arbkit("sweep", Self.scenario, "--grid", "strategy.entry=0.5,0.6", "--shard", "\(i)/2", "--quiet", "--out", folder.path + "/s\(i).csv")
      #expect(run.code == .success, "\(run.errors)")
    }
    let meta = folder.path + "/s1.csv.meta.json"
    let text = try String(contentsOfFile: meta, encoding: .utf8)
    #expect(text.contains(c.from), "\(text)")
    try text.replacing(c.from, with: c.to).write(toFile: meta, atomically: true, encoding: .utf8)
    let run = arbkit("merge", folder.path + "/s1.csv", folder.path + "/s2.csv", "--out", folder.path + "/m.csv")
    #expect(run.code == .usage, "\(run.errors)")
    #expect(run.errors.contains("s1.csv.meta.json: not a sweep sidecar") || run.errors.contains("is a shard of another sweep"), "\(run.errors)")
  }

  @Test("merge of shards of 1000 names the first missing ones, not all")
  func manyMissing() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let out = folder.path + "/s.csv"
    let run = arbkit("sweep", Self.scenario, "--grid", "strategy.notional=1:1000:1", "--shard", "1/1000", "--quiet", "--out", out)
    #expect(run.code == .success, "\(run.errors)")
    let merge = arbkit("merge", out, "--out", folder.path + "/m.csv")
    #expect(merge.code == .usage && merge.errors.contains("missing shard(s) 2/1000, 3/1000,") && merge.errors.contains("11/1000, …"), "\(merge.errors)")
  }

  @Test("--resume drops a garbage last row and redoes it, and refuses a garbage row before the last")
  func garbageRows() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let whole = folder.path + "/whole.csv"
    #expect(arbkit(["sweep", Self.scenario] + Self.grid + ["--out", whole]).code == .success)
    let bytes = try String(contentsOfFile: whole, encoding: .utf8)
    var lines = bytes.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let resumed = folder.path + "/resumed.csv"
    try FileManager.default.copyItem(atPath: whole + ".meta.json", toPath: resumed + ".meta.json")
    for garbage in ["garbage", "3,3000,1,2", "3,3000,x,,,,,,,,,,", "3,3000," + String(repeating: ",", count: 10) + "nan"] {
      lines[lines.count - 2] = garbage
      try lines.joined(separator: "\n").write(toFile: resumed, atomically: true, encoding: .utf8)
      let run = arbkit(["sweep", Self.scenario] + Self.grid + ["--out", resumed, "--resume"])
      #expect(run.code == .success, "\(run.errors)")
      #expect(try String(contentsOfFile: resumed, encoding: .utf8) == bytes, "\(garbage)")
    }
    lines[3] = "garbage"
    try lines.joined(separator: "\n").write(toFile: resumed, atomically: true, encoding: .utf8)
    expectUsageError(
      ["sweep", Self.scenario] + Self.grid + ["--out", resumed, "--resume"], "--resume: line 4 of \(resumed) is not row 3 of this sweep")
  }

  @Test("a grid value with a line break is refused, so that every reader reads what the sweep writes")
  func lineBreakValue() {
    expectUsageError(["sweep", Self.scenario, "--grid", "description=a\nb,c", "--quiet"], "--grid description: a value holds a line break")
  }
}
