import ArbAnalytics
import ArbBacktest
import ArbCore
import ArbIngest
import ArbReport
import Foundation

/// The `arbkit` command line as a library: `main` for the executable, `run` for tests.
public enum ArbCLI {
  public static let version = "0.1.0"

  static var commands: [any Command.Type] {
    [InspectCommand.self, PremiumCommand.self, BoardCommand.self, BasisCommand.self, KimchiCommand.self, ConvertCommand.self, BacktestCommand.self,
     SweepCommand.self, MergeCommand.self, ReportCommand.self, ProfileCommand.self, RollingCommand.self, CandlesCommand.self, CorrelateCommand.self,
     VenuesCommand.self]
  }

  /// Runs `arguments` (program name first) against the real stdout/stderr.
  public static func main(_ arguments: [String]) -> Int32 {
    Analytics.configure()
    var terminal = Terminal(passthrough: true)
    return run(arguments, terminal: &terminal).rawValue
  }

  /// Runs `arguments` (program name first), writing to `terminal`.
  public static func run(_ arguments: [String], terminal: inout Terminal) -> ExitCode {
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
      let command = try type.init(arguments: rest)
      return try command.run(&terminal)
    } catch let error as UsageError {
      terminal.printError("arbkit: error: \(error.message)")
      terminal.printError(type.usage.split(separator: "\n").first.map(String.init) ?? "")
      terminal.printError("See 'arbkit \(type.name) --help'.")
      return .usage
    } catch {
      return report(error, terminal: &terminal)
    }
  }

  /// Prints an error from running a command and maps it to its exit code.
  static func report(_ error: any Error, terminal: inout Terminal) -> ExitCode {
    switch error {
    case let error as IngestError:
      terminal.printError("\(error)")
      return .dataError
    case let error as FileError:
      terminal.printError("\(error)")
      if case .missing = error { return .noInput }
      return .ioError
    case let error as CacheError:
      terminal.printError("\(error)")
      return .dataError
    case let error as SpecError:
      terminal.printError("\(error)")
      return .dataError
    case let error as AlignmentError:
      terminal.printError("arbkit: error: \(error)")
      if case .time(let error) = error, error.isCausedBySetting { return .usage }
      return .dataError
    case let error as TimeError:
      terminal.printError("arbkit: error: \(error)")
      return error.isCausedBySetting ? .usage : .dataError
    case let error as FundingError:
      terminal.printError("arbkit: error: \(error)")
      return .dataError
    case let error as LegSpecError:
      terminal.printError("arbkit: error: \(error)")
      return .usage
    case let error as RegistryError:
      terminal.printError("\(error)")
      return .dataError
    case let error as SweepResultsError:
      terminal.printError("\(error)")
      return .dataError
    default:
      terminal.printError("arbkit: error: \(error)")
      return .failure
    }
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
