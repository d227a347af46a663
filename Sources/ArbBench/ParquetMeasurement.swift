import Foundation

/// A pyarrow-written quotes Parquet file (snappy or zstd) read and written, as a user runs
/// it: `arbkit inspect FILE --format json` (read into columns) and `arbkit convert FILE
/// --out X.parquet` (read, then write the quotes table), each timed from spawn to exit;
/// interleaved run by run with `bench/parquet.py`, which times pyarrow's and polars' read
/// and pyarrow's write of the same table in process.
struct ParquetMeasurement {
  var file: String
  var codec: String
  var bytes: Int
  var inspect: [Double] = []
  var convert: [Double] = []
  var pyarrowRead: [Double] = []
  var polarsRead: [Double] = []
  var pyarrowWrite: [Double] = []
  var versions: [String: Any] = [:]

  /// Generates the files (`bench/parquet.py --generate`) when missing, then runs every
  /// side once per round, `repeats` rounds.
  static func run(rows: Int, folder: String, python: String, peers: Bool, arbkit: String, repeats: Int) throws -> [ParquetMeasurement] {
    FileHandle.standardError.write(Data("generating (pyarrow) \(rows)-row quotes Parquet files in \(folder) when missing\n".utf8))
    _ = try PeerMeasurement.parquet(python: python, ["--generate", folder, "--rows", "\(rows)"])
    var measurements = try ["snappy", "zstd"].map { codec in
      let file = "\(folder)/quotes_\(rows).\(codec).parquet"
      let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
      return ParquetMeasurement(file: file, codec: codec, bytes: bytes)
    }
    let out = "\(folder)/parquet-out.parquet"
    defer { unlink(out) }
    for round in 1...repeats {
      for k in measurements.indices {
        FileHandle.standardError.write(Data("round \(round)/\(repeats): \(measurements[k].file)\n".utf8))
        let file = measurements[k].file
        measurements[k].inspect.append(try timed { _ = try spawn([arbkit, "inspect", file, "--format", "json"], stdout: "/dev/null") })
        measurements[k].convert.append(try timed { _ = try spawn([arbkit, "convert", file, "--out", out], stdout: "/dev/null") })
        guard peers else { continue }
        let peer = try PeerMeasurement.parquet(python: python, ["--read", file, "--write", out, "--repeat", "1"])
        func seconds(_ key: String) -> Double { ((peer[key] as? [String: Any])?["median"] as? Double) ?? .nan }
        measurements[k].pyarrowRead.append(seconds("pyarrow_read_s"))
        measurements[k].polarsRead.append(seconds("polars_read_s"))
        measurements[k].pyarrowWrite.append(seconds("pyarrow_write_s"))
        measurements[k].versions = peer["versions"] as? [String: Any] ?? [:]
      }
    }
    return measurements
  }
}
