import Foundation

/// A small deterministic generator (SplitMix64) for seeded random test data.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform double in [0, 1).
  public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

  /// A uniform integer in `range`.
  public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

  /// A standard normal draw (Box–Muller).
  public mutating func normal() -> Double {
    let u = max(uniform(), 1e-300), v = uniform()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}

/// `a` and `b` are equal within a relative tolerance (and an absolute floor near 0).
public func isClose(_ a: Double?, _ b: Double?, rel: Double = 1e-12, abs floor: Double = 1e-12) -> Bool {
  guard let a, let b else { return a == nil && b == nil }
  if a == b { return true }
  return Swift.abs(a - b) <= Swift.max(rel * Swift.max(Swift.abs(a), Swift.abs(b)), floor)
}

/// Paths inside the repository, found from this file's location.
public enum Repository {
  public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// `Data/…` path as a string.
  public static func data(_ relative: String) -> String { root.appendingPathComponent("Data").appendingPathComponent(relative).path }
}

/// A fresh temporary folder, removed by the caller with `cleanup()`.
public struct TemporaryFolder: Sendable {
  public let path: String

  public init() {
    path = NSTemporaryDirectory() + "arbkit-test-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes `text` to `name` in the folder and returns its path.
  @discardableResult
  public func write(_ name: String, _ text: String) -> String { write(name, Data(text.utf8)) }

  @discardableResult
  public func write(_ name: String, _ bytes: Data) -> String {
    let file = path + "/" + name
    _ = FileManager.default.createFile(atPath: file, contents: bytes)
    return file
  }

  public func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs a program and returns its exit status (for `gzip` in tests).
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String]) throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  try process.run()
  process.waitUntilExit()
  return process.terminationStatus
}
