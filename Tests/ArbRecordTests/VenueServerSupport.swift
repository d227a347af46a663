import Foundation
import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The fixtures of the recorder's tests: real and documented venue answers, and the
/// stand-in server that replays them (`venue_server.py`).
enum RecordFixtures {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
}

/// `venue_server.py` on 127.0.0.1: replays the fixtures per path, with the scripted
/// failures, and logs every request with its time.
final class VenueServer {
  let process = Process()
  let port: Int
  let logPath: String

  /// Starts the server with `scenario` (path → behaviours of its first requests).
  init(scenario: [String: [String]], logIn folder: TemporaryFolder) throws {
    logPath = folder.path + "/server.log"
    let script = String(data: try JSONSerialization.data(withJSONObject: scenario), encoding: .utf8)!
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", RecordFixtures.folder + "/venue_server.py", RecordFixtures.folder, script, logPath]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      kill(process.processIdentifier, SIGKILL)
      throw ServerError(message: "venue_server.py printed '\(text)', not a port")
    }
    self.port = port
  }

  /// `--base-url` flags sending every venue to this server.
  var baseURLFlags: [String] {
    ["upbit", "bithumb", "coinone", "bybit", "binance", "okx"].flatMap { ["--base-url", "\($0)=http://127.0.0.1:\(port)"] }
  }

  /// The requests so far: time (s), path and the behaviour served.
  func requests() throws -> [(time: Double, path: String, behaviour: String)] {
    try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map { line in
      let fields = line.split(separator: " ").map(String.init)
      return (Double(fields[0])!, fields[1], fields[2])
    }
  }

  /// Kills the server (SIGKILL, which no inherited signal disposition can ignore).
  func stop() {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  struct ServerError: Error {
    var message: String
  }
}

/// The `arbkit` executable built beside the test bundle.
func arbkitExecutable() -> String {
  let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  return URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("arbkit").path
}

/// Runs a program to its end; its exit status and stdout.
func runToEnd(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  process.standardOutput = output
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The text of a recording file, decompressed by the `zstd` or `gzip` tool.
func recordedText(_ path: String) throws -> String {
  if path.hasSuffix(".zst") { return try runToEnd("/usr/bin/zstd", ["-dc", path]).output }
  if path.hasSuffix(".gz") { return try runToEnd("/usr/bin/gzip", ["-dc", path]).output }
  return try String(contentsOfFile: path, encoding: .utf8)
}

/// The lines of a recording's text, the last one kept when it has no newline.
func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: true) }

/// Whether a recorded line is an error record, by the rule written in docs/sources.md
/// §11 (an oracle independent of the reader): an `error` key, an HTTP status outside
/// 200–299, or a venue's error code in the response.
func isErrorRecord(_ line: Substring) -> Bool {
  guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return false }
  if object["error"] != nil { return true }
  if let status = object["status"] as? Int, !(200..<300).contains(status) { return true }
  guard let response = object["response"] as? [String: Any] else { return false }
  if let code = response["retCode"] as? Int, code != 0 { return true }
  if let code = response["code"] as? String, code != "0" { return true }
  if let status = response["status"] as? String, status != "0000" { return true }
  return response["error"] != nil || (response["code"] is Int && response["msg"] != nil)
}
