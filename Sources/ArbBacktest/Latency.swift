import ArbAnalytics
import ArbCore
import Foundation

/// How long after a signal a leg fills (`costs.latency`, `costs.venue_latency.VENUE`;
/// `docs/definitions.md`, "Latency distributions"): fixed, or drawn per fill from the
/// scenario's seed and the fill's identity, or read from the leg's own two clocks.
public enum Latency: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
  /// The same latency for every fill (µs).
  case fixed(Int64)
  /// Uniform on [low, high) µs, whole microseconds.
  case uniform(low: Int64, high: Int64)
  /// `median × exp(sigma × z)` µs, z standard normal.
  case lognormal(median: Int64, sigma: Double)
  /// The leg's receive time minus its exchange time at the quote in force at the signal.
  case recorded

  /// The largest `sigma` of a lognormal latency: beyond it a draw spans years.
  public static let maximumSigma = 3.0
  /// The largest |z| a draw reaches: that of the largest `offEnds` value, 1 − 2^-53
  /// (finite: 1 − 2^-54 would round to 1).
  static let maximumZ = NormalDistribution.quantile(1 - 0x1p-53)

  /// A fixed latency of `value` µs (`0`: none).
  public init(integerLiteral value: Int64) { self = .fixed(value) }

  /// `20ms` or `fixed:20ms`, `uniform:10ms:40ms`, `lognormal:20ms:0.5`, `recorded`; `nil`
  /// for any other text, a negative duration, `low > high` or a sigma outside [0, 3].
  public init?(parsing text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    func duration(_ text: String) -> Int64? { TimeText.parseDuration(text).flatMap { $0 >= 0 ? $0 : nil } }
    switch (parts.first, parts.count) {
    case ("recorded", 1): self = .recorded
    case (_, 1):
      guard let value = duration(text) else { return nil }
      self = .fixed(value)
    case ("fixed", 2):
      guard let value = duration(parts[1]) else { return nil }
      self = .fixed(value)
    case ("uniform", 3):
      guard let low = duration(parts[1]), let high = duration(parts[2]), low <= high else { return nil }
      self = .uniform(low: low, high: high)
    case ("lognormal", 3):
      guard let median = duration(parts[1]), let sigma = Double(parts[2]), (0...Self.maximumSigma).contains(sigma) else { return nil }
      self = .lognormal(median: median, sigma: sigma)
    default: return nil
    }
  }

  /// A fixed latency as a duration (`50ms`), the others in the form they are written in.
  public var description: String {
    switch self {
    case .fixed(let value): TimeText.durationText(value)
    case .uniform(let low, let high): "uniform:\(TimeText.durationText(low)):\(TimeText.durationText(high))"
    case .lognormal(let median, let sigma): "lognormal:\(TimeText.durationText(median)):\(sigma)"
    case .recorded: "recorded"
    }
  }

  /// The largest latency a fill can have (µs), `recordedMaximum` for `recorded`.
  public func maximum(recordedMaximum: Int64) -> Int64 {
    switch self {
    case .fixed(let value): value
    case .uniform(_, let high): high
    case .lognormal(let median, let sigma): Self.clamped(Double(median) * exp(sigma * Self.maximumZ))
    case .recorded: recordedMaximum
    }
  }

  /// A latency no fill's is below (µs): the fixed one, a uniform's low end, else 0.
  var least: Int64 {
    switch self {
    case .fixed(let value): value
    case .uniform(let low, _): low
    case .lognormal, .recorded: 0
    }
  }

  /// The latency of leg `leg`'s fill after the signal at `time`: drawn from `seed`,
  /// `purpose` (a rebalance's transfer delay draws as `.transfer`) and (`time`, `leg`)
  /// alone; `recorded` is the leg's recorded delay at the signal.
  @inline(__always)
  func delay(seed: UInt64, _ purpose: SeededDraw.Purpose = .latency, time: Int64, leg: Int, recorded: @autoclosure () -> Int64) -> Int64 {
    switch self {
    case .fixed(let value): return value
    case .recorded: return recorded()
    case .uniform(let low, let high):
      let u = SeededDraw.uniform(seed: seed, purpose, UInt64(bitPattern: time), UInt64(leg))
      return low + Int64((u * Double(high - low)).rounded(.down))
    case .lognormal(let median, let sigma):
      let u = Self.offEnds(SeededDraw.uniform(seed: seed, purpose, UInt64(bitPattern: time), UInt64(leg)))
      return Self.clamped(Double(median) * exp(sigma * NormalDistribution.quantile(u)))
    }
  }

  /// A uniform draw `u` in [0, 1) moved off both ends: (⌊u × 2^52⌋ + 1/2) × 2^-52, in
  /// [2^-53, 1 − 2^-53], every value exact, so that its normal quantile is finite.
  static func offEnds(_ u: Double) -> Double { ((u * 0x1p52).rounded(.down) + 0.5) * 0x1p-52 }

  /// `value` rounded down to whole µs, at most `Int64.max / 2` (a time plus it stays checked).
  private static func clamped(_ value: Double) -> Int64 { Int64(min(value, Double(Int64.max / 2)).rounded(.down)) }
}
