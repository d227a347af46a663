import ArbCore
import Testing
import TestSupport

@testable import ArbAnalytics

/// The streamed premium (`PremiumStream` + `PremiumAnalyzer`) against the whole-series
/// `PremiumSeries` + `PremiumAnalysis`, with chunk sizes that put boundaries inside
/// episodes and between the points of one time.
@Suite("Streamed premium")
struct PremiumStreamTests {
  /// Every point of a stream, collected into columns.
  struct Collected {
    var time: [Int64] = [], duration: [Int64] = [], valid: [Bool] = []
    var mid: [Double] = [], exec: [Double] = []
    var rich: [Int8] = [], cheap: [Int8] = [], top: [Int8] = [], bottom: [Int8] = []
    var quotes: [Double] = []
  }

  static func collect(_ stream: PremiumStream) throws -> Collected {
    var c = Collected()
    while let chunk = try stream.next() {
      #expect(chunk.count > 0)
      c.time += chunk.time
      c.duration += chunk.duration
      c.valid += chunk.valid
      c.mid += chunk.mid
      c.exec += chunk.exec
      c.rich += chunk.rich
      c.cheap += chunk.cheap
      c.top += chunk.top
      c.bottom += chunk.bottom
      c.quotes += chunk.quotes
    }
    #expect(try stream.next() == nil)
    return c
  }

  static func stream(_ legs: [QuoteSeries], _ options: AlignmentOptions, chunk: Int, keepQuotes: Bool = false) throws -> PremiumStream {
    try PremiumStream(legs: legs.map(SeriesQuoteStream.init), options: options, chunkPoints: chunk, legChunkRows: max(1, chunk / 2 + 1), keepQuotes: keepQuotes)
  }

  static func same(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
  }

  static let cases: [(legs: Int, maxGap: Int, maxStale: Int64?, grid: Int64?)] = [
    (2, 3, nil, nil), (2, 1, 2, nil), (3, 5, 4, nil), (4, 2, nil, nil), (3, 40, 10, nil), (2, 4, 6, 3), (3, 6, nil, 5),
  ]

  @Test("random legs: the streamed points are the whole-series points", arguments: cases)
  func points(c: (legs: Int, maxGap: Int, maxStale: Int64?, grid: Int64?)) throws {
    var rng = SplitMix64(seed: UInt64(c.legs * 1000 + c.maxGap))
    for round in 0..<4 {
      let legs = (0..<c.legs).map { k in rng.leg("v\(k)", count: rng.int(50...400), start: Int64(rng.int(0...20)), maxGap: c.maxGap) }
      let options = AlignmentOptions(maxStale: c.maxStale, grid: c.grid)
      let whole = try PremiumSeries(legs: legs, options: options)
      let aligned = try AlignedLegs(legs: legs, options: options)
      for chunk in [1, 7, 300, 1 << 16] {
        let stream = try Self.stream(legs, options, chunk: chunk, keepQuotes: true)
        let got = try Self.collect(stream)
        let comment: Comment = "round \(round), chunk \(chunk)"
        #expect(got.time == whole.time, comment)
        #expect(got.duration == whole.duration, comment)
        #expect(got.valid == whole.valid, comment)
        #expect(Self.same(got.mid, whole.mid) && Self.same(got.exec, whole.exec), comment)
        #expect(got.rich == whole.rich && got.cheap == whole.cheap && got.top == whole.top && got.bottom == whole.bottom, comment)
        #expect(stream.points == whole.count && stream.validPoints == whole.validPoints, comment)
        #expect(stream.legRows == legs.map(\.count), comment)
        #expect(stream.legFirstTime == legs.map(\.time.first) && stream.legLastTime == legs.map(\.time.last), comment)
        // Each leg's quote in force, as the aligned states name it.
        var expected: [Double] = []
        for i in 0..<aligned.count {
          let states = (0..<c.legs).map { Int(aligned.state(leg: $0, point: i)) }
          expected += states.enumerated().map { $1 >= 0 ? legs[$0].bid[$1] : .nan }
          expected += states.enumerated().map { $1 >= 0 ? legs[$0].ask[$1] : .nan }
        }
        #expect(Self.same(got.quotes, expected), comment)
      }
    }
  }

  /// Counts, extremes, quantiles, bands and episodes identical; moments and the
  /// half-life equal to 1e-12 relative.
  static func expectEquivalent(_ streamed: PremiumAnalysis, _ whole: PremiumAnalysis, _ comment: Comment) {
    for (s, w) in [(streamed.mid, whole.mid), (streamed.exec, whole.exec)] { expectEquivalent(s, w, comment) }
    #expect(streamed.topShare == whole.topShare && streamed.bottomShare == whole.bottomShare, comment)
  }

  /// One column's summary: as `expectEquivalent(_:_:_:)` of the analyses.
  static func expectEquivalent(_ s: SeriesSummary, _ w: SeriesSummary, _ comment: Comment) {
    #expect(s.statistics.count == w.statistics.count, comment)
    #expect(s.statistics.min == w.statistics.min && s.statistics.max == w.statistics.max, comment)
    #expect(s.statistics.quantiles == w.statistics.quantiles, comment)
    #expect(s.bands == w.bands, comment)
    let pairs: [(Double?, Double?)] = [
      (s.statistics.mean, w.statistics.mean), (s.statistics.std, w.statistics.std), (s.statistics.meanTW, w.statistics.meanTW),
      (s.statistics.stdTW, w.statistics.stdTW), (s.statistics.skew, w.statistics.skew), (s.statistics.kurtosis, w.statistics.kurtosis),
      (s.halfLife?.beta, w.halfLife?.beta), (s.halfLife?.points, w.halfLife?.points), (s.halfLife?.seconds, w.halfLife?.seconds),
    ]
    for (k, (a, b)) in pairs.enumerated() { #expect(isClose(a, b, rel: 1e-12, abs: 1e-15), "\(comment) figure \(k): \(a as Any) vs \(b as Any)") }
  }

  static func analyze(_ stream: PremiumStream, options: BandOptions, spill: Int) throws -> PremiumAnalysis {
    let analyzer = PremiumAnalyzer(legCount: stream.legCount, maxPremium: stream.maxPremium, options: options, spillMemoryLimit: spill)
    while let chunk = try stream.next() { try analyzer.add(chunk) }
    return try analyzer.finish()
  }

  @Test("random legs: the streamed analysis equals the whole-series analysis", arguments: cases)
  func analysis(c: (legs: Int, maxGap: Int, maxStale: Int64?, grid: Int64?)) throws {
    var rng = SplitMix64(seed: UInt64(c.legs * 77 + c.maxGap))
    // Narrow bands and a hysteresis make many episodes, which chunk boundaries cut.
    // The legs' mids wander apart: some of the bands are crossed often whatever the drift.
    let bands = BandOptions(bands: [0.02, 0.1, 0.3, 0.6, 1, 2, 4], hysteresis: 0.01, minEpisode: 2)
    for round in 0..<3 {
      let legs = (0..<c.legs).map { k in rng.leg("v\(k)", count: rng.int(200...800), start: Int64(rng.int(0...20)), maxGap: c.maxGap) }
      let options = AlignmentOptions(maxStale: c.maxStale, grid: c.grid)
      let whole = PremiumAnalysis(premium: try PremiumSeries(legs: legs, options: options), options: bands)
      #expect((whole.mid.bands + whole.exec.bands).contains { $0.episodes > 3 })
      for (chunk, spill) in [(1, 1), (7, 50), (300, 1 << 20), (1 << 16, 3)] {
        let streamed = try Self.analyze(try Self.stream(legs, options, chunk: chunk), options: bands, spill: spill)
        Self.expectEquivalent(streamed, whole, "round \(round), chunk \(chunk), spill \(spill)")
      }
    }
  }

  @Test func `a premium far from zero keeps its moments to 1e-12`() throws {
    // A constant offset of 1e4 % on top of small moves: the corrected two-pass matters.
    var rng = SplitMix64(seed: 5)
    let a = rng.leg("a", count: 3000, start: 0, maxGap: 3, level: 10_100)
    let b = rng.leg("b", count: 3000, start: 1, maxGap: 3, level: 100)
    let whole = PremiumAnalysis(premium: try PremiumSeries(legs: [a, b], options: AlignmentOptions()))
    for chunk in [5, 128, 4096] {
      let streamed = try Self.analyze(try Self.stream([a, b], AlignmentOptions(), chunk: chunk), options: BandOptions(), spill: 100)
      Self.expectEquivalent(streamed, whole, "chunk \(chunk)")
    }
  }

  @Test func `an empty leg, too few legs and legs that never overlap are refused`() throws {
    let a = QuoteSeries.leg("a", [1, 2, 3], price: [1, 1, 1])
    let empty = QuoteSeries.leg("e", [], price: [])
    let late = QuoteSeries.leg("late", [10, 11], price: [1, 1])
    #expect(throws: AlignmentError.emptyLeg(instrument: empty.instrument.description)) { try Self.stream([a, empty], AlignmentOptions(), chunk: 4) }
    #expect(throws: AlignmentError.tooFewLegs(count: 1)) { try Self.stream([a], AlignmentOptions(), chunk: 4) }
    #expect(throws: AlignmentError.noOverlap(lastEnd: 3, firstStart: 10)) { try Self.collect(try Self.stream([a, late], AlignmentOptions(), chunk: 2)) }
    // The whole-series alignment says the same.
    #expect(throws: AlignmentError.noOverlap(lastEnd: 3, firstStart: 10)) { try PremiumSeries(legs: [a, late]) }
  }

  @Test func `times spanning more than an Int64 are refused as they are read`() throws {
    let a = QuoteSeries.leg("a", [.min + 1, 0], price: [1, 1])
    let b = QuoteSeries.leg("b", [0, .max - 1], price: [1, 1])
    #expect(throws: AlignmentError.self) { try Self.collect(try Self.stream([a, b], AlignmentOptions(), chunk: 1)) }
    #expect(throws: AlignmentError.self) { try PremiumSeries(legs: [a, b]) }
  }
}

@Suite("Spilled quantiles")
struct ValueSpillTests {
  @Test("exact type-7 quantiles from memory and from the file, with ties", arguments: [1, 3, 64, 100_000])
  func quantiles(sortLimit: Int) throws {
    var rng = SplitMix64(seed: UInt64(sortLimit))
    for round in 0..<5 {
      let n = [1, 2, 17, 5_000, 70_000][round]
      // Few distinct values (ties), both signs, zero, and a wide spread.
      let values = (0..<n).map { _ -> Double in
        switch rng.int(0...3) {
        case 0: Double(rng.int(-3...3)) * 0.05
        case 1: rng.normal() * 1e-3
        case 2: rng.normal() * 1e6
        default: 0
        }
      }
      let probabilities = SeriesStatistics.quantileLevels.map { $0 / 100 } + [0, 1, 0.333]
      let expected = try #require(Quantiles.compute(values, probabilities: probabilities))
      for memoryLimit in [1, 1000, 1 << 20] {
        let spill = ValueSpill(memoryLimit: memoryLimit, sortLimit: sortLimit)
        var position = 0
        while position < n {
          let step = min(rng.int(1...900), n - position)
          try values[position..<(position + step)].withUnsafeBufferPointer { try spill.append($0) }
          position += step
        }
        #expect(spill.count == n)
        #expect(try spill.quantiles(probabilities) == expected, "n \(n), memory \(memoryLimit)")
      }
    }
    #expect(try ValueSpill(memoryLimit: 1).quantiles([0.5]) == nil)
  }

  @Test func `a folder the file cannot be made in is an I/O error naming it, once memory is full`() throws {
    let spill = ValueSpill(memoryLimit: 4, folder: "/nonexistent-folder")
    let values: [Double] = [1, 2, 3]
    try values.withUnsafeBufferPointer { try spill.append($0) }
    #expect(throws: SpillError.self) { try values.withUnsafeBufferPointer { try spill.append($0) } }
    do {
      try values.withUnsafeBufferPointer { try spill.append($0) }
      Issue.record("a spill past memory in a missing folder was written")
    } catch let error as SpillError {
      #expect(error.description.contains("in /nonexistent-folder (set TMPDIR to another folder): No such file or directory"))
      #expect(error.kind == .io)
    } catch {
      Issue.record("not a SpillError: \(error)")
    }
  }

  @Test func `a long series, steady or drifting far past its first values either way, is answered in one pass over its file`() throws {
    var rng = SplitMix64(seed: 7)
    let probabilities = SeriesStatistics.quantileLevels.map { $0 / 100 } + [0, 1]
    // A premium around zero, both signs: its first 20,000 values span nearly all of it.
    let steady = (0..<300_000).map { _ in rng.normal() * 1e-3 }
    // Premiums that climb, or fall, then turn: most values lie far past the first ones
    // spilled, so that the buckets widen, both ways.
    let climbing = (0..<300_000).map { Double($0) * 1e-6 + rng.normal() * 1e-4 }
    let turning = (0..<300_000).map { Double(150_000 - abs($0 - 150_000)) * -2e-6 + rng.normal() * 1e-5 }
    for values in [steady, climbing, turning, climbing.map { -$0 * 1e6 }] {
      let spill = ValueSpill(memoryLimit: 20_000, sortLimit: 1_000)
      for start in stride(from: 0, to: values.count, by: 1_000) {
        try values[start..<(start + 1_000)].withUnsafeBufferPointer { try spill.append($0) }
      }
      #expect(try spill.quantiles(probabilities) == Quantiles.compute(values, probabilities: probabilities))
      #expect(spill.passes == 1)
    }
  }

  @Test func `first values a few ulps apart, of any magnitude, then values far from them`() throws {
    var rng = SplitMix64(seed: 11)
    let probabilities = SeriesStatistics.quantileLevels.map { $0 / 100 } + [0, 1]
    for center in [-1.0, 1.0, -5e15, 3e300, -1e-300] {
      let first = (0..<2_000).map { _ in rng.int(0...3) == 0 ? center.nextUp : center }
      let values = first + (0..<20_000).map { _ in center * (1 + rng.normal()) + rng.normal() }
      let spill = ValueSpill(memoryLimit: 1_000, sortLimit: 64)
      for start in stride(from: 0, to: values.count, by: 500) {
        try values[start..<(start + 500)].withUnsafeBufferPointer { try spill.append($0) }
      }
      #expect(try spill.quantiles(probabilities) == Quantiles.compute(values, probabilities: probabilities), "\(center)")
    }
  }

  @Test func `an oracle sort agrees on a spilled file`() throws {
    var rng = SplitMix64(seed: 42)
    let values = (0..<20_001).map { _ in (rng.normal() * 1000).rounded() / 1000 }
    let spill = ValueSpill(memoryLimit: 10, sortLimit: 2)
    try values.withUnsafeBufferPointer { try spill.append($0) }
    let sorted = values.sorted()
    // n − 1 = 20 000: q = 0.25 falls on rank 5 000 exactly; 0.3333 between ranks.
    let got = try #require(try spill.quantiles([0.25, 0.3333]))
    #expect(got[0] == sorted[5000])
    let h = 20_000 * 0.3333, low = Int(h)
    #expect(got[1] == sorted[low] + (h - Double(low)) * (sorted[low + 1] - sorted[low]))
  }
}
