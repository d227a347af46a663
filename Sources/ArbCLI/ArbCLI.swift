import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbReport
import ArbResearch
import Foundation

/// The `arbkit` command line as a library: `main` for the executable, `run` for tests.
public enum ArbCLI {
  public static let version = "0.1.0"

  static var commands: [any Command.Type] {
    [
      InspectCommand.self, PremiumCommand.self, BoardCommand.self, BasisCommand.self, KimchiCommand.self, ConvertCommand.self, BacktestCommand.self,
      SweepCommand.self, MergeCommand.self, ValidateCommand.self, ReportCommand.self, ProfileCommand.self, RollingCommand.self, CandlesCommand.self,
      CorrelateCommand.self, VenuesCommand.self, RecordCommand.self,
    ]
  }

  /// Runs `arguments` (program name first) against the real stdout/stderr.
  public static func main(_ arguments: [String]) -> Int32 {
    Analytics.configure()
    var terminal = Terminal(passthrough: true)
    return run(arguments, terminal: &terminal, cleansUpOnInterrupt: true).rawValue
  }

  /// Runs `arguments` (program name first), writing to `terminal`;
  /// `cleansUpOnInterrupt`: the process is the command's own, and a signal that ends it
  /// first removes the outputs in progress (`InterruptCleanup`), unless the command
  /// stops on signals itself.
  public static func run(_ arguments: [String], terminal: inout Terminal, cleansUpOnInterrupt: Bool = false) -> ExitCode {
    let words = Array(arguments.dropFirst())
    guard let first = words.first else {
      terminal.printError(overview)
      return .usage
    }
    switch first {
    case "--help", "-h", "help":
      if words.count > 1, let command = commands.first(where: { $0.name == words[1] }) {
        terminal.print(command.usage)
      } else {
        terminal.print(overview)
      }
      return .success
    case "--version":
      terminal.print("arbkit \(version)")
      return .success
    default: break
    }
    guard let type = commands.first(where: { $0.name == first }) else {
      let suggestion = ArgumentCursor.closest(first, among: commands.map { $0.name })
      terminal.printError("arbkit: error: unknown command '\(first)'" + (suggestion.map { ", did you mean '\($0)'?" } ?? ""))
      terminal.printError("Usage: arbkit <command> [options]")
      terminal.printError("See 'arbkit --help'.")
      return .usage
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      terminal.print(type.usage)
      return .success
    }
    do {
      // `board --follow` is the live board, a command of its own under the board's name.
      let chosen = type is BoardCommand.Type && BoardFollowCommand.isRequested(rest) ? BoardFollowCommand.self : type
      if cleansUpOnInterrupt && !chosen.stopsOnSignal { InterruptCleanup.install() }
      let command = try chosen.init(arguments: rest)
      let files = command.files
      try FileOutput.check(named: files.named, derived: files.derived, inputs: files.inputs)
      return try command.run(&terminal)
    } catch let error as UsageError where error.code != .usage {
      terminal.printError(error.message)
      return error.code
    } catch let error as UsageError {
      return usage(error.message, of: type, terminal: &terminal)
    } catch let error as ScenarioSettingError {
      // A value the scenario must set: told like a bad `--set`.
      return usage(error.message, of: type, terminal: &terminal)
    } catch let error as ScenarioLegError {
      // A scenario key that does not describe a readable input: told like a bad `--set`.
      return usage(error.description, of: type, terminal: &terminal)
    } catch {
      return report(error, sortSwitch: type.sortSwitch, terminal: &terminal)
    }
  }

  /// Prints a usage error with the command's usage lines (every form of it, up to the
  /// first blank line) and where its help is: exit 64.
  private static func usage(_ message: String, of type: any Command.Type, terminal: inout Terminal) -> ExitCode {
    terminal.printError("arbkit: error: \(message)")
    terminal.printError(type.usage.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.joined(separator: "\n"))
    terminal.printError("See 'arbkit \(type.name) --help'.")
    return .usage
  }

  /// Prints an error from running a command and maps it to its exit code: a
  /// `Diagnostic` by its kind, anything else (a defect of ours) as a failure, exit 1.
  /// Rows out of time order name the command's `sortSwitch`.
  static func report(_ error: any Error, sortSwitch: String?, terminal: inout Terminal) -> ExitCode {
    guard let diagnostic = error as? any Diagnostic else {
      terminal.printError("arbkit: error: \(error)")
      return .failure
    }
    var line = diagnostic.frame
    // The remedies that are flags: the library's messages name none.
    if let error = error as? IngestError {
      if error.reason.isOutOfOrder, let sortSwitch { line += " (use \(sortSwitch) to sort on ingest)" }
      if case .unknownFormat = error.reason { line += "; name the format with --input-format" }
    }
    if let error = error as? ResolveError, error.needsRegistryFile { line += "; --registry FILE extends the built-in registry" }
    terminal.printError(line)
    return ExitCode(diagnostic.kind)
  }

  static var overview: String {
    var text = """
      arbkit \(version): cross-venue crypto arbitrage research from recorded data

      Usage: arbkit <command> [options]

      Commands:

      """
    for command in commands {
      text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.abstract + "\n"
    }
    text += """

      Run 'arbkit <command> --help' for a command's options.
      Exit codes: 0 ok, 64 bad command line, 65 bad data, 66 missing file, 74 I/O error.
      """
    return text
  }
}
