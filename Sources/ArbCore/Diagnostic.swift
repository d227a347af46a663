/// What kind of problem a `Diagnostic` reports; it decides the exit code (sysexits).
public enum DiagnosticKind: Sendable, Equatable, CaseIterable {
  /// A flag, a `--set` or a scenario value that cannot be used (64).
  case usage
  /// Input data that cannot be read as what it claims to be (65).
  case data
  /// A named input that does not exist (66).
  case missingInput
  /// A file that exists but cannot be read or written (74).
  case io

  /// The process exit code of this kind.
  public var exitCode: Int32 {
    switch self {
    case .usage: 64
    case .data: 65
    case .missingInput: 66
    case .io: 74
    }
  }
}

/// The one shape of every error a user can act on: its kind and its text.
///
/// A framed diagnostic's `description` already starts with its place, as
/// `path: error: reason` or `path:line:column: error: reason`; an unframed one is a
/// bare reason, printed as `arbkit: error: reason`. `frame` is the line to print.
public protocol Diagnostic: Error, Sendable, CustomStringConvertible {
  var kind: DiagnosticKind { get }
  /// Whether `description` carries its own `…: error:` frame.
  var isFramed: Bool { get }
}

extension Diagnostic {
  /// The line printed on stderr for this diagnostic.
  public var frame: String { isFramed ? description : "arbkit: error: \(description)" }
}

extension IngestError: Diagnostic {
  /// Bad data, except a read that fails: an I/O error of the device, not the data's fault.
  public var kind: DiagnosticKind {
    if case .readFailed = reason { return .io }
    return .data
  }
  public var isFramed: Bool { true }
}

extension RegistryError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { true }
}

extension GrammarError: Diagnostic {
  public var kind: DiagnosticKind { .data }
  public var isFramed: Bool { false }
}

extension ResolveError: Diagnostic {
  public var kind: DiagnosticKind { .usage }
  public var isFramed: Bool { false }
}

extension TimeError: Diagnostic {
  /// A setting at fault (a grid too fine, a duration that moves a calendar time out of
  /// range) is a usage error; the data's own times, span or day count are bad data.
  public var kind: DiagnosticKind { isCausedBySetting ? .usage : .data }
  public var isFramed: Bool { false }
}
