import ArbCLI
import Foundation

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Targets that run whole `arbkit` commands, in process, on arguments and small files
/// taken from the input: what a user types, checked as a user would check it.
///
/// An input is NUL-separated: the first part is the command line, one word a line;
/// each later part is a file, its name on the first line and its bytes after it. The
/// files are written to a folder of their own, which is the working folder while the
/// command runs, so the command line names them as a user would (`a.csv`). A word
/// with a `/` or `..`, the word `-`, or a file name that is not a plain name makes the
/// input out of scope: the command never reaches a file outside its folder.
enum CommandFamilies {
  /// The commands that read data files.
  static let dataCommands: Set<String> = [
    "inspect", "premium", "board", "basis", "kimchi", "candles", "rolling", "profile", "correlate", "venues", "convert",
  ]
  /// The commands that read a scenario or a sweep's results.
  static let scenarioCommands: Set<String> = ["backtest", "sweep", "merge", "report", "validate"]

  static func data(_ bytes: [UInt8]) -> [String] { run(bytes, allowed: dataCommands) }
  static func scenario(_ bytes: [UInt8]) -> [String] { run(bytes, allowed: scenarioCommands) }

  /// The most files an input may carry and the longest word or file name.
  static let maxFiles = 6
  static let maxName = 40

  /// One command run on one input, as a user would judge it.
  static func run(_ bytes: [UInt8], allowed: Set<String>) -> [String] {
    guard let input = CommandInput(bytes), let command = input.words.first, allowed.contains(command) else { return [] }
    // The live board (`board --follow`) runs until a signal or its --duration: out of scope.
    guard !input.words.contains(where: { $0.hasPrefix("--follow") }) else { return [] }
    return Sandbox.shared.withFolder(input.files) { folder in
      var terminal = Terminal()
      let code = ArbCLI.run(["arbkit"] + input.words, terminal: &terminal)
      return check(code: code, terminal: terminal, input: input, folder: folder)
    }
  }

  /// The exit code is one of the documented ones; a failure says `error:`; a success
  /// prints no `nan`/`inf` (unless the input itself spelled one); inputs are untouched.
  static func check(code: ExitCode, terminal: Terminal, input: CommandInput, folder: String) -> [String] {
    var problems: [String] = []
    let documented: [ExitCode] = [.success, .usage, .dataError, .noInput, .ioError]
    if !documented.contains(code) { problems.append("exit \(code.rawValue): \(terminal.errors.suffix(300))") }
    if code != .success && !terminal.errors.contains("error:") { problems.append("exit \(code.rawValue) without an error line") }
    if code == .success && !input.spellsNonFinite {
      for (name, text) in [("stdout", terminal.output)] + writtenFiles(folder, except: input.files) {
        if let token = nonFiniteToken(in: text) { problems.append("\(name) holds '\(token)'") }
      }
    }
    for file in input.files where readFile(folder + "/" + file.name) != file.bytes {
      problems.append("input \(file.name) was changed")
    }
    return problems
  }

  /// The text files the command wrote into `folder` (recursively), by name.
  static func writtenFiles(_ folder: String, except inputs: [CommandInput.File]) -> [(String, String)] {
    let names = Set(inputs.map(\.name))
    let found = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return found.sorted().filter { !names.contains($0) }.compactMap { name in
      guard let bytes = readFile(folder + "/" + name), bytes.count < 1 << 22 else { return nil }
      return String(validating: bytes, as: UTF8.self).map { (name, $0) }
    }
  }

  /// The bytes of the regular file at `path`, read with POSIX calls (Foundation's
  /// reader leaks a buffer on empty files, which the leak checker would report).
  static func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard n > 0 else { return n == 0 ? bytes : nil }
      bytes += chunk[..<n]
    }
  }

  /// The first `nan`/`inf` that stands as a number in `text` (a whole token between
  /// separators, spelled as Swift prints a non-finite `Double`), if any.
  static func nonFiniteToken(in text: String) -> String? {
    let separators = CharacterSet(charactersIn: " \t\n\r,;:|[]{}()\"'=")
    for token in text.components(separatedBy: separators) {
      let bare = token.trimmingCharacters(in: CharacterSet(charactersIn: "+-%"))
      if bare == "nan" || bare == "inf" { return token }
    }
    return nil
  }
}

/// A fuzz input of the command targets, split into its words and files.
struct CommandInput {
  struct File {
    var name: String
    var bytes: [UInt8]
  }

  var words: [String]
  var files: [File]

  /// Whether the input itself contains a `nan`/`inf` token, which a command may echo.
  var spellsNonFinite: Bool {
    (words + files.map { String(decoding: $0.bytes, as: UTF8.self) }).contains { CommandFamilies.nonFiniteToken(in: $0) != nil }
  }

  /// `nil` when the input is out of scope (see `CommandFamilies`).
  init?(_ bytes: [UInt8]) {
    let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
    guard let first = parts.first, parts.count <= CommandFamilies.maxFiles + 1 else { return nil }
    words = String(decoding: first, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if words.last == "" { words.removeLast() }
    guard !words.isEmpty, words.allSatisfy(Self.isContained) else { return nil }
    files = []
    for part in parts.dropFirst() {
      let cut = part.firstIndex(of: 10) ?? part.endIndex
      let name = String(decoding: part[part.startIndex..<cut], as: UTF8.self)
      guard Self.isPlainName(name), !files.contains(where: { $0.name == name }) else { return nil }
      files.append(File(name: name, bytes: Array(part[min(cut + 1, part.endIndex)...])))
    }
  }

  /// A word that cannot name anything outside the working folder.
  static func isContained(_ word: String) -> Bool {
    !word.contains("/") && !word.contains("..") && word != "-" && !word.hasPrefix("~")
  }

  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= CommandFamilies.maxName && isContained(name) && name != "." && !name.hasPrefix(".")
      && name.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 }
  }
}

/// The folder the command targets run in: emptied and filled for each input, the working
/// folder while the command runs (the previous one is restored after), removed at exit.
final class Sandbox: @unchecked Sendable {
  static let shared = Sandbox()
  private let lock = NSLock()
  /// `nil` when no folder could be made: no command runs then.
  let root: String?

  private init() {
    var template = Array((NSTemporaryDirectory() + "arbkit-fuzz-XXXXXX").utf8CString)
    root = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
    // The folder lives as long as the process.
    if root != nil {
      atexit {
        if let root = Sandbox.shared.root { try? FileManager.default.removeItem(atPath: root) }
      }
    }
  }

  func withFolder(_ files: [CommandInput.File], _ body: (String) -> [String]) -> [String] {
    guard let root else { return ["cannot make a temporary folder"] }
    lock.lock()
    defer { lock.unlock() }
    let manager = FileManager.default
    for name in (try? manager.contentsOfDirectory(atPath: root)) ?? [] { try? manager.removeItem(atPath: root + "/" + name) }
    for file in files { _ = manager.createFile(atPath: root + "/" + file.name, contents: Data(file.bytes)) }
    let previous = manager.currentDirectoryPath
    guard manager.changeCurrentDirectoryPath(root) else { return ["cannot enter \(root)"] }
    defer { _ = manager.changeCurrentDirectoryPath(previous) }
    return body(root)
  }
}
