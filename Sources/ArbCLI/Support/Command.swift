import ArbCore
import ArbIngest

/// Exit codes, following sysexits as swift-argument-parser does.
public enum ExitCode: Int32, Sendable {
  case success = 0, failure = 1, usage = 64, dataError = 65, noInput = 66, ioError = 74

  /// The exit code of a diagnostic of `kind`.
  public init(_ kind: DiagnosticKind) {
    self = ExitCode(rawValue: kind.exitCode) ?? .failure
  }
}

/// One `arbkit` subcommand: parsing (`init`) is separate from running (`run`).
protocol Command {
  static var name: String { get }
  /// One line for `arbkit --help`.
  static var abstract: String { get }
  /// The full help text for `arbkit NAME --help`.
  static var usage: String { get }
  /// The switch that sorts rows on ingest, named in the error of rows out of time
  /// order; `nil` for a command without one.
  static var sortSwitch: String? { get }
  /// The command ends cleanly on SIGINT and SIGTERM itself (a recording, the live
  /// board); any other is ended by them, its outputs in progress removed.
  static var stopsOnSignal: Bool { get }
  init(arguments: [String]) throws(UsageError)
  /// The files the run reads and writes, checked before it starts (`FileOutput.check`).
  var files: RunFiles { get }
  func run(_ terminal: inout Terminal) throws -> ExitCode
}

extension Command {
  static var sortSwitch: String? { "--sort" }
  static var stopsOnSignal: Bool { false }
  var files: RunFiles { RunFiles() }
}

/// The files of one run: its inputs, the outputs the user named and the outputs
/// whose names the command makes (a sidecar, the files in a report folder).
struct RunFiles {
  var inputs: [String] = []
  var named: [String] = []
  var derived: [String] = []

  /// These files with `derived` outputs added.
  func adding(derived more: [String]) -> RunFiles {
    RunFiles(inputs: inputs, named: named, derived: derived + more)
  }
}

/// How a result is printed.
enum OutputFormat: String, CaseIterable {
  case table, csv, json
}

/// The ingest flags shared by every command that reads data.
struct IngestFlags {
  static let flags = ["--bad-rows", "--quarantine", "--clock", "--input-format", "--spec-set", "--registry", "--from", "--to"]
  static let switches = ["--sort"]
  static let help = help(sortSwitch: "--sort")

  /// The options' help, with the row-sorting switch named `sortSwitch` (`board` has a
  /// `--sort COLUMN` of its own); `window`: with `--from`/`--to`.
  static func help(sortSwitch: String, window: Bool = true) -> String {
    let windowHelp = [
      (
        "--from TIME",
        "read only quotes at or after TIME (a date such as 2025-01-01, midnight UTC, or an ISO-8601 time, UTC unless it "
          + "names a zone); from a store only the days needed are opened"
      ),
      ("--to TIME", "read only quotes before TIME (half-open: [--from, --to)); the quotes of a file outside are counted as outside the window"),
    ]
    return HelpText.options(
      [
        (
          "--bad-rows fail|skip",
          "fail (default): stop at the first bad row with its position (exit 65); skip: go on, count rejections by reason and keep their raw lines"
        ),
        ("--quarantine PATH", "where skipped raw lines go (default: FILE.rejected.csv in the current folder)"),
        ("--clock local|exchange", "the recorded time that orders rows and aligns legs (default local: the recorder's receive time)"),
        (sortSwitch, "sort rows by time (stable) instead of rejecting rows that go backwards"),
        (
          "--input-format F",
          "a named format (\(RecordFormat.namedIDs.joined(separator: ", "))) or a column spec JSON; default: detected from the header (a Binance file without one: from its first row; Binance premium index, mark and index price klines: also from their folder)"
        ),
        ("--spec-set KEY=VALUE", "set a column-spec field, e.g. time.column=open_time, time.form=iso8601, price=close, header=false"),
        ("--registry PATH", "extend the built-in exchange registry with a file; merge rule: arbkit venues --help"),
      ] + (window ? windowHelp : []))
  }

  var options = IngestOptions()
  var specOverrides: [String]
  var inputFormat: String?
  var registryPath: String?

  /// - Parameter sortSwitch: the name of the row-sorting switch.
  init(_ cursor: ArgumentCursor, sortSwitch: String = "--sort") throws(UsageError) {
    options.badRows = try cursor.value("--bad-rows", "fail or skip", BadRowPolicy.init(rawValue:)) ?? .fail
    options.quarantinePath = cursor.value("--quarantine")
    options.quarantineFiles = QuarantineFiles()
    options.clock = try cursor.value("--clock", "local or exchange", Clock.init(rawValue:)) ?? .local
    options.sort = cursor.flag(sortSwitch)
    specOverrides = cursor.values("--spec-set")
    inputFormat = cursor.value("--input-format")
    options.registry = try VenuesCommand.registry(cursor)
    registryPath = cursor.value("--registry")
    let from = try cursor.value("--from", "a date such as 2025-01-01 or an ISO-8601 time", Self.parseTime)
    let to = try cursor.value("--to", "a date such as 2025-01-02 or an ISO-8601 time", Self.parseTime)
    if let from, let to, from >= to {
      throw UsageError("--from \(TimeText.iso8601(from)) is not before --to \(TimeText.iso8601(to)): the window [from, to) is empty")
    }
    if from != nil || to != nil { options.window = TimeWindow(from: from, to: to) }
  }

  /// `YYYY-MM-DD` (midnight UTC) or an ISO-8601 time (UTC unless it names a zone).
  static func parseTime(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { p -> Int64? in
      guard let base = p.baseAddress else { return nil }
      if bytes.count == 10, let day = TimeParser.parse(base, p.count, form: .date, defaultOffset: 0) { return day }
      return TimeParser.parse(base, p.count, form: .iso8601, defaultOffset: 0)
    }
  }

  /// The files of a run reading `inputs` with these flags (the registry file, `--quarantine`), and `outputs`.
  func files(inputs: [String], outputs: [String?] = []) -> RunFiles {
    RunFiles(inputs: inputs + [registryPath].compactMap { $0 }, named: ([options.quarantinePath] + outputs).compactMap { $0 })
  }

  /// Applies the global `--input-format` to a leg that names no format of its own.
  func leg(_ spec: LegSpec) -> LegSpec {
    var spec = spec
    if spec.format == nil { spec.format = inputFormat }
    return spec
  }
}

extension OutputFormat {
  static func parse(_ cursor: ArgumentCursor) throws(UsageError) -> OutputFormat {
    try cursor.value("--format", "table, csv or json", OutputFormat.init(rawValue:)) ?? .table
  }
}
