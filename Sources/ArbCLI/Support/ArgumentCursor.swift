import ArbCore
import ArbIngest

/// A command line misused: printed as `arbkit: error: …`, the usage line and a pointer
/// to `--help`, exit 64.
public struct UsageError: Error, Sendable, Equatable {
  public var message: String
  /// `.usage`, or the exit code of a file the command line names (`init(file:)`).
  public var code: ExitCode = .usage
  public init(_ message: String) { self.message = message }

  /// A file named on the command line that cannot be read: its message and exit code.
  init(file error: FileError) {
    message = "\(error)"
    code = ExitCode(error.kind)
  }
}

/// Walks the arguments of one command: `--flag value`, `--flag=value`, switches,
/// positionals, and `--` ending the options.
public struct ArgumentCursor: Sendable {
  private var remaining: [String]
  /// Every flag the command accepts, for "did you mean" suggestions.
  private let known: [String]
  private var positionals: [String] = []

  /// - Parameters:
  ///   - arguments: the arguments after the command name.
  ///   - flags: flags that take a value; `switches`: flags that do not.
  public init(_ arguments: [String], flags: [String], switches: [String]) {
    remaining = arguments
    known = flags + switches + ["--help"]
    var values: [String: [String]] = [:]
    var seen: Set<String> = []
    var rest: [String] = []
    var index = 0
    var error: String? = nil
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--" {
        rest += arguments[index...]
        break
      }
      guard argument.hasPrefix("--") else {
        rest.append(argument)
        continue
      }
      var name = argument
      var inline: String? = nil
      if let eq = argument.firstIndex(of: "=") {
        name = String(argument[..<eq])
        inline = String(argument[argument.index(after: eq)...])
      }
      if switches.contains(name) || name == "--help" {
        if inline != nil { error = error ?? "flag '\(name)' takes no value" }
        seen.insert(name)
      } else if flags.contains(name) {
        if let inline {
          values[name, default: []].append(inline)
        } else if index < arguments.count {
          values[name, default: []].append(arguments[index])
          index += 1
        } else {
          error = error ?? "missing value for '\(name)'"
        }
      } else {
        let suggestion = Self.closest(name, among: flags + switches)
        error = error ?? "unknown option '\(name)'" + (suggestion.map { ", did you mean '\($0)'?" } ?? "")
      }
    }
    self.values = values
    self.switchesSeen = seen
    self.positionals = rest
    self.error = error
  }

  private let values: [String: [String]]
  private let switchesSeen: Set<String>
  private let error: String?

  /// Whether `--help` was given (checked before anything else).
  public var wantsHelp: Bool { switchesSeen.contains("--help") }

  /// Throws the first problem found while scanning (unknown flag, missing value).
  public func validate() throws(UsageError) {
    if let error { throw UsageError(error) }
  }

  /// The positional arguments in order.
  public var arguments: [String] { positionals }

  /// Whether a switch was given.
  public func flag(_ name: String) -> Bool { switchesSeen.contains(name) }

  /// The last value of a flag, or `nil`.
  public func value(_ name: String) -> String? { values[name]?.last }

  /// Every value of a repeatable flag, in order.
  public func values(_ name: String) -> [String] { values[name] ?? [] }

  /// A value parsed by `parse`, or a usage error naming the flag and the value.
  public func value<T>(_ name: String, _ what: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
    guard let text = value(name) else { return nil }
    guard let parsed = parse(text) else { throw UsageError("invalid value for '\(name)', expected \(what), was '\(text)'") }
    return parsed
  }

  /// The closest known word within edit distance 3, for suggestions.
  public static func closest(_ word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, EditDistance.between(word, $0)) }.filter { $0.1 <= 3 }
    return scored.min { $0.1 < $1.1 }?.0
  }
}

extension ArgumentCursor {
  /// The most rows `--chunk-rows` takes: a chunk's buffers stay allocatable.
  static let chunkRowsLimit = 1 << 24

  /// `--chunk-rows N`: rows, and points, worked on at a time, from `atLeast` to
  /// `chunkRowsLimit` (default 65,536).
  func chunkRows(atLeast minimum: Int = 1) throws(UsageError) -> Int {
    let what = "a number of rows from \(minimum) to \(Self.chunkRowsLimit)"
    return try value("--chunk-rows", what, { Int($0).flatMap { (minimum...Self.chunkRowsLimit).contains($0) ? $0 : nil } }) ?? 1 << 16
  }
}
