import Foundation

/// Runs `bench/peers.py` (pandas/polars/numpy doing the same work) and returns its JSON.
enum PeerMeasurement {
  static func run(python: String, files: [String], repeats: Int) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["bench/peers.py", "--files"] + files + ["--repeat", "\(repeats)", "--max-stale-us", "5000000"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw BenchError("bench/peers.py failed with status \(process.terminationStatus)")
    }
    return object
  }
}

extension PeerMeasurement {
  /// Runs `bench/formats.py`: polars/pandas reading each venue file, numpy.memmap
  /// scanning each cache.
  static func runFormats(python: String, measurements: [FormatMeasurement], repeats: Int) throws -> [String: Any] {
    let files = measurements.flatMap { m in [m.plain, m.gzip].flatMap { ["--file", m.kind.rawValue, $0] } }
    let caches = measurements.flatMap { ["--cache", $0.cache] }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["bench/formats.py"] + files + caches + ["--repeat", "\(repeats)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw BenchError("bench/formats.py failed with status \(process.terminationStatus)")
    }
    return object
  }
}
