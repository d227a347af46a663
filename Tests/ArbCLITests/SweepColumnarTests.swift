import ArbIngest
import ArbResearch
import Foundation
import TestSupport
import Testing

// `arbkit sweep --out` and `--pnl-matrix` as Arrow IPC or Parquet: the CSV's values,
// typed, read back by arbkit (Parquet) where the CSV is read; what cannot be made right
// (resume, shards, an Arrow file read back) is refused.

@Suite("arbkit sweep to Arrow and Parquet")
struct SweepColumnarTests {
  static let scenario = SweepCommandTests.scenario
  static let run = ["sweep", scenario, "--grid", "strategy.entry=0.6:1.4:0.4", "--grid", "costs.latency=0ms,50ms", "--quiet"]

  @Test("a Parquet sweep and matrix read back as the CSV of the same run: results, sidecar, validate")
  func parquetReadsBack() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let p = folder.path
    for ext in ["csv", "parquet", "arrow"] {
      let run = arbkit(Self.run + ["--out", "\(p)/sweep.\(ext)", "--pnl-matrix", "\(p)/pnl.\(ext)", "--period", "6h"])
      #expect(run.code == .success, "\(ext): \(run.errors)")
    }
    // Written whole, without the CSV's sidecar and lock.
    for name in ["sweep.parquet", "sweep.arrow"] {
      #expect(!FileManager.default.fileExists(atPath: "\(p)/\(name).meta.json") && !FileManager.default.fileExists(atPath: "\(p)/\(name).lock"))
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: "\(p)/sweep.arrow")).starts(with: Array("ARROW1".utf8)))
    let csv = try SweepResults.read("\(p)/sweep.csv"), parquet = try SweepResults.read("\(p)/sweep.parquet")
    #expect(parquet.rows == csv.rows && parquet.metrics == csv.metrics)
    #expect(parquet.grid.axes.map(\.key) == csv.grid.axes.map(\.key))
    // The entries are doubles, read back as the CSV writes them (1, not 1.0); the
    // latencies strings as given.
    #expect(parquet.grid.axes.map(\.values) == [["0.6", "1", "1.4"], ["0ms", "50ms"]])
    for metric in csv.metrics { #expect(parquet.values[metric]! == csv.values[metric]!, "\(metric)") }
    #expect(try SweepOutput.Meta.read("\(p)/sweep.parquet") == SweepOutput.Meta.read("\(p)/sweep.csv").with(pnlMatrix: "\(p)/pnl.parquet"))
    let matrix = try PnLMatrixFile.read(path: "\(p)/pnl.csv", cells: 6), columnar = try PnLMatrixFile.read(path: "\(p)/pnl.parquet", cells: 6)
    #expect(columnar.periodStarts == matrix.periodStarts && columnar.values == matrix.values)
    let fromCSV = arbkit("validate", "\(p)/sweep.csv", "--pnl-matrix", "\(p)/pnl.csv", "--blocks", "4", "--format", "json")
    let fromParquet = arbkit("validate", "\(p)/sweep.parquet", "--pnl-matrix", "\(p)/pnl.parquet", "--blocks", "4", "--format", "json")
    #expect(fromCSV.code == .success && fromParquet.code == .success, "\(fromCSV.errors) \(fromParquet.errors)")
    #expect(fromParquet.output == fromCSV.output)
  }

  @Test("--resume, --shard and merge refuse a columnar file; an Arrow sweep is not read back, exit 64")
  func refusals() throws {
    let folder = TemporaryFolder()
    defer { folder.cleanup() }
    let p = folder.path
    expectUsageError(Self.run + ["--out", "\(p)/s.parquet", "--resume"], "--resume: \(p)/s.parquet is parquet, written whole at the end of a run")
    expectUsageError(Self.run + ["--out", "\(p)/s.arrow", "--shard", "1/2"], "--shard: \(p)/s.arrow is arrow; arbkit merge joins CSV shards")
    expectUsageError(
      Self.run + ["--out", "\(p)/s.csv", "--pnl-matrix", "\(p)/m.parquet", "--shard", "1/2"],
      "--shard: \(p)/m.parquet is parquet; arbkit merge joins CSV shards")
    expectUsageError(Self.run + ["--out", "\(p)/s.csv", "--output-format", "parquet", "--shard", "2/2"], "--shard: \(p)/s.csv is parquet")
    #expect(!FileManager.default.fileExists(atPath: "\(p)/s.parquet") && !FileManager.default.fileExists(atPath: "\(p)/s.csv"))
    #expect(arbkit(Self.run + ["--out", "\(p)/s.parquet"]).code == .success)
    expectUsageError(["merge", "\(p)/s.parquet", "--out", "\(p)/m.csv"], "a Parquet sweep file is no shard")
    #expect(arbkit(Self.run + ["--out", "\(p)/s.arrow", "--pnl-matrix", "\(p)/m.csv"]).code == .success)
    let arrow = arbkit("validate", "\(p)/s.arrow", "--pnl-matrix", "\(p)/m.csv", "--blocks", "4")
    #expect(
      arrow.code == .usage
        && arrow.errors.contains("\(p)/s.arrow: error: is an Arrow IPC file, which this command does not read; write the table as CSV or Parquet"),
      "\(arrow.errors)")
  }
}

extension SweepOutput.Meta {
  fileprivate func with(pnlMatrix: String) -> Self {
    var meta = self
    meta.pnlMatrix = pnlMatrix
    return meta
  }
}
