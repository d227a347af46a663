import Testing
import TestSupport

@testable import ArbAnalytics

/// Type-7 quantiles (multi-target quickselect) against a full sort and numpy.
@Suite("Quantiles")
struct QuantileTests {
  static let levels: [Double] = [0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1]

  /// `numpy.quantile(np.array(x), [0, .01, .05, .25, .5, .75, .95, .99, 1])`, printed with repr.
  static let numpyCases: [(values: [Double], expected: [Double])] = [
    ([7.0], [7, 7, 7, 7, 7, 7, 7, 7, 7]),
    ([2.0, -1.0], [-1.0, -0.97, -0.85, -0.25, 0.5, 1.25, 1.8499999999999999, 1.97, 2.0]),
    ([3.0, 1.0, 2.0], [1.0, 1.02, 1.1, 1.5, 2.0, 2.5, 2.9, 2.98, 3.0]),
    ([0.3, -1.2, 5.5, 2.25, -0.75, 1.0], [-1.2, -1.1775, -1.0875, -0.4875, 0.65, 1.9375, 4.6875, 5.3375, 5.5]),
    // Sorted: 1 1 2 3 4 5 6 9; q = .95 → h = 6.65, 6 + 0.65 · (9 − 6).
    ([3, 1, 4, 1, 5, 9, 2, 6], [1.0, 1.0, 1.0, 1.75, 3.5, 5.25, 7.949999999999998, 8.79, 9.0]),
  ]

  @Test("numpy's values", arguments: numpyCases)
  func numpy(c: (values: [Double], expected: [Double])) throws {
    let got = try #require(Quantiles.compute(c.values, probabilities: Self.levels))
    // numpy interpolates from the upper neighbour when the fraction is ≥ ½: last-ulp differences.
    #expect(zip(got, c.expected).allSatisfy { isClose($0, $1, rel: 1e-15, abs: 1e-15) }, "\(got)")
  }

  @Test("empty input has no quantiles")
  func empty() {
    #expect(Quantiles.compute([], probabilities: [0.5]) == nil)
  }

  /// Same order statistics, same interpolation formula: equal to the last bit.
  func expectMatchesSort(_ x: [Double], _ q: [Double], _ comment: Comment? = nil) {
    let got = Quantiles.compute(x, probabilities: q)
    #expect(got == q.map { Oracle.quantile(x, $0)! }, comment)
  }

  static let sizes: [Int] = [1, 2, 3, 4, 5, 23, 24, 25, 26, 100, 1000, 4097]

  @Test("random data with many duplicates", arguments: sizes)
  func randomDuplicates(n: Int) {
    var rng = SplitMix64(seed: UInt64(n))
    for round in 0..<20 {
      // At most 7 distinct values: long runs of equal keys stress the partition.
      let x = (0..<n).map { _ in Double(rng.int(0...6)) * 0.25 - 0.5 }
      var q = Self.levels
      for _ in 0..<5 { q.append(rng.uniform()) }
      expectMatchesSort(x, q, "round \(round)")
    }
  }

  /// Inputs of 2¹⁶ values and more take the radix path (histogram of the top 16 key
  /// bits, then quickselect on the wanted buckets): clustered, signed, duplicated and
  /// single-bucket data against the full sort.
  static let largeShapes: [(name: String, make: @Sendable (inout SplitMix64, Int) -> Double)] = [
    ("normal", { rng, _ in rng.normal() }),
    ("premium-like cluster", { rng, _ in 0.07 + 0.01 * rng.normal() }),
    ("signed with zeros", { rng, i in i % 5 == 0 ? 0 : (i % 2 == 0 ? -1 : 1) * rng.uniform() * 1e-3 }),
    ("seven values", { rng, _ in Double(rng.int(0...6)) - 3 }),
    ("one bucket", { rng, _ in 1 + rng.uniform() * 1e-9 }),
    ("negative zero and zero", { _, i in i % 2 == 0 ? -0.0 : 0.0 }),
  ]

  @Test("large inputs (radix path)", arguments: largeShapes.indices)
  func largeInputs(shape: Int) {
    var rng = SplitMix64(seed: 77 + UInt64(shape))
    for n in [1 << 16, 200_003] {
      let x = (0..<n).map { Self.largeShapes[shape].make(&rng, $0) }
      expectMatchesSort(x, Self.levels + [0, 1, 0.5, rng.uniform()], "\(Self.largeShapes[shape].name) n=\(n)")
    }
  }

  @Test("random continuous data", arguments: sizes)
  func randomContinuous(n: Int) {
    var rng = SplitMix64(seed: 1000 + UInt64(n))
    for _ in 0..<10 {
      let x = (0..<n).map { _ in rng.normal() }
      expectMatchesSort(x, Self.levels + (0..<5).map { _ in rng.uniform() })
    }
  }

  static let shapes: [(name: String, values: [Double])] = {
    let n = 1001
    let ascending = (0..<n).map(Double.init)
    var organ = ascending.prefix(500).map { $0 }
    organ += ascending.prefix(501).reversed()
    var sawtooth: [Double] = []
    for i in 0..<n { sawtooth.append(Double(i % 17)) }
    return [
      ("all equal", [Double](repeating: 3.25, count: n)),
      ("all equal, n = 2", [-1, -1]),
      ("sorted", ascending),
      ("reverse sorted", ascending.reversed()),
      ("organ pipe", organ),
      ("sawtooth", sawtooth),
      ("two values", (0..<n).map { Double($0 % 2) }),
      ("max at index 0", [1e9] + ascending.dropFirst()),
      ("max at the last index", ascending.dropLast() + [1e9]),
      ("min at the last index", ascending.dropLast() + [-1e9]),
      ("min at index 0, n = 3", [-5, 2, 1]),
      ("max at the last index, n = 2", [0, 8]),
    ]
  }()

  @Test("structured inputs", arguments: shapes)
  func structured(c: (name: String, values: [Double])) {
    expectMatchesSort(c.values, Self.levels + [0.1, 0.333, 0.5001, 0.9999], Comment(rawValue: c.name))
  }

  @Test("q = 0 and q = 1 are the minimum and the maximum")
  func extremes() throws {
    var rng = SplitMix64(seed: 99)
    let x = (0..<500).map { _ in rng.normal() }
    let got = try #require(Quantiles.compute(x, probabilities: [1, 0]))
    #expect(got == [x.max()!, x.min()!])
  }

  @Test("the input is not reordered")
  func inputUntouched() {
    let x: [Double] = [5, 4, 3, 2, 1]
    _ = Quantiles.compute(x, probabilities: [0.5])
    #expect(x == [5, 4, 3, 2, 1])
  }

  @Test func `a probability outside 0…1 traps`() async {
    await #expect(processExitsWith: .failure) { _ = Quantiles.compute([1, 2], probabilities: [1.5]) }
  }
}
