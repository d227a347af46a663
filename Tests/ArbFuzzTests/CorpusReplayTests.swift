import ArbFuzz
import Foundation
import Testing
import TestSupport

/// Every committed fuzz input (seeds from real fixtures, and inputs the fuzzer found)
/// replayed through its target: no crash, and a result or a clean error.
@Suite struct CorpusReplayTests {
  static let corpus = Repository.root.appendingPathComponent("Tests/FuzzCorpus").path

  static func files(_ target: String) -> [String] {
    let folder = corpus + "/" + target
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.sorted().map { folder + "/" + $0 }
  }

  @Test(arguments: FuzzTarget.all.map(\.name))
  func replaysCorpus(_ name: String) throws {
    let target = try #require(FuzzTarget.named(name))
    let files = Self.files(name)
    #expect(files.count >= 3, "seed corpus of \(name)")
    for file in files {
      let bytes = try #require(FileManager.default.contents(atPath: file))
      let problems = target.run(Array(bytes))
      #expect(problems.isEmpty, "\(file): \(problems)")
    }
  }

  @Test func everyCorpusFolderHasATarget() throws {
    let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
    #expect(folders == FuzzTarget.all.map(\.name).sorted())
  }
}
