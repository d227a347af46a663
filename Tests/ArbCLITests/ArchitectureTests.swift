import ArbResearch
import Foundation
import TestSupport
import Testing

// docs/architecture.md is the map of the tree: every file it names exists, and the
// layering it states holds (the CLI knows no backtest mode, the library modules below
// the CLI do not import it).

@Suite("The architecture page matches the tree")
struct ArchitectureTests {
  static let root = Repository.root.path

  /// The files of `folder` (relative to the repository) ending `.swift`, with their text.
  static func sources(_ folder: String) throws -> [(path: String, text: String)] {
    let base = root + "/" + folder
    let names = try FileManager.default.subpathsOfDirectory(atPath: base).filter { $0.hasSuffix(".swift") }
    return try names.sorted().map { ("\(folder)/\($0)", try String(contentsOfFile: base + "/" + $0, encoding: .utf8)) }
  }

  @Test("every path the page names under Sources/, Tests/, scripts/, docs/ or Data/ exists (but the test environment make test creates)")
  func namedPathsExist() throws {
    let page = try String(contentsOfFile: Self.root + "/docs/architecture.md", encoding: .utf8)
    let quoted = page.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    let paths = quoted.filter { text in
      ["Sources/", "Tests/", "scripts/", "docs/", "Data/"].contains { text.hasPrefix($0) } && !text.contains("<") && !text.contains("*")
        && !text.hasPrefix("Tests/.venv")
        && !text.contains(" ")
    }
    #expect(paths.count > 40, "the page names the files each change touches")
    let missing = paths.filter { !FileManager.default.fileExists(atPath: Self.root + "/" + $0) }
    #expect(missing.isEmpty, "named on docs/architecture.md but not in the tree: \(missing)")
  }

  @Test("no file of ArbCLI names a backtest mode: a new mode touches the CLI's help text only")
  func cliKnowsNoMode() throws {
    let modes = Strategy.Mode.allCases.map(\.rawValue).joined(separator: "|")
    // `.carry` as a case (`case .carry`, `== .carry`, `.carry(…)`), not a member (`result.carry`, `\.inventory`).
    let pattern = try Regex("(^|[^A-Za-z0-9_\\\\])\\.(" + modes + ")\\b")
    let files = try Self.sources("Sources/ArbCLI")
    #expect(files.count > 30)
    let naming = files.filter { $0.text.contains(pattern) }.map(\.path)
    #expect(naming.isEmpty, "these ArbCLI files switch over the modes, which belongs in ArbResearch: \(naming)")
  }

  @Test("no library module imports ArbCLI, and ArbBacktest reads no file")
  func layering() throws {
    for module in ["ArbCore", "ArbIngest", "ArbAnalytics", "ArbBacktest", "ArbResearch", "ArbReport", "ArbRecord"] {
      for file in try Self.sources("Sources/" + module) {
        #expect(!file.text.contains("import ArbCLI"), "\(file.path) imports ArbCLI")
      }
    }
    for file in try Self.sources("Sources/ArbBacktest") {
      for call in ["FileManager", "contentsOfFile", "fopen(", "FileHandle"] {
        #expect(!file.text.contains(call), "\(file.path) calls \(call): the engines are pure, no file I/O")
      }
    }
  }
}
