import ArbFuzz
import Foundation

#if FUZZING
/// libFuzzer's driver (from the fuzzer runtime linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target chosen by `ARBKIT_FUZZ_TARGET`, set before the driver starts.
nonisolated(unsafe) var current: FuzzTarget! = nil

/// libFuzzer's entry: one input; a broken invariant aborts, which libFuzzer reports
/// as a crash with the input saved.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let problems = current.run(bytes)
  if !problems.isEmpty { fatalError("\(current.name): \(problems.joined(separator: "; "))") }
  return 0
}
#endif

/// `arbkit-fuzz`: built with `-sanitize=fuzzer` and `-DFUZZING` (`make fuzz`) it is a
/// libFuzzer binary running the target named by `ARBKIT_FUZZ_TARGET`, with libFuzzer's
/// own flags; built normally it replays files: `arbkit-fuzz TARGET FILE…`.
@main
enum FuzzMain {
  /// The target names, for usage messages.
  static var names: String { FuzzTarget.all.map(\.name).joined(separator: ", ") }

  static func main() {
    #if FUZZING
    guard let name = ProcessInfo.processInfo.environment["ARBKIT_FUZZ_TARGET"], let target = FuzzTarget.named(name) else {
      FileHandle.standardError.write(Data("arbkit-fuzz: error: set ARBKIT_FUZZ_TARGET to one of \(names)\n".utf8))
      exit(64)
    }
    current = target
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
    #else
    let arguments = CommandLine.arguments.dropFirst()
    guard let name = arguments.first, let target = FuzzTarget.named(name) else {
      FileHandle.standardError.write(Data("usage: arbkit-fuzz TARGET FILE...  (targets: \(names))\n".utf8))
      exit(64)
    }
    var failed = false
    for file in arguments.dropFirst() {
      guard let data = FileManager.default.contents(atPath: file) else {
        print("\(file): error: cannot read")
        failed = true
        continue
      }
      let problems = target.run(Array(data))
      print(problems.isEmpty ? "\(file): ok" : "\(file): error: \(problems.joined(separator: "; "))")
      failed = failed || !problems.isEmpty
    }
    exit(failed ? 1 : 0)
    #endif
  }
}
