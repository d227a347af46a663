import Foundation
import ArbCore

/// Axis ticks at "nice" values: 1, 2 or 5 times a power of ten for numbers, whole
/// minutes, hours or days for times.
public enum NiceTicks {
  /// Ticks covering `low…high` with about `count` intervals: the step is 1, 2 or 5 ×
  /// 10^k, the ticks are whole multiples of it (computed as `k × step`, so no drift),
  /// and `decimals` is what their labels need.
  public static func numbers(_ low: Double, _ high: Double, count: Int = 5) -> (values: [Double], step: Double, decimals: Int) {
    precondition(low.isFinite && high.isFinite && count > 0, "NiceTicks: bad range \(low)…\(high)")
    var (low, high) = (min(low, high), max(low, high))
    if high - low < 1e-12 * max(abs(low), 1) {
      // A flat range: one unit around it.
      let pad = max(abs(low) * 0.1, 1e-9)
      low -= pad
      high += pad
    }
    let raw = (high - low) / Double(count)
    let magnitude = pow10(Int(log10(raw).rounded(.down)))
    let fraction = raw / magnitude
    let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
    let step = nice * magnitude
    let first = (low / step).rounded(.down), last = (high / step).rounded(.up)
    let values = stride(from: first, through: last, by: 1).map { $0 * step }
    let decimals = max(0, -Int(log10(step).rounded(.down)))
    return (values, step, decimals)
  }

  /// A tick label of a value from `numbers` (`decimals` from the same call).
  public static func label(_ value: Double, decimals: Int) -> String { ReportNumber.fixed(value, decimals) }

  /// Time steps a time axis may use, µs.
  static let timeSteps: [Int64] = {
    let minutes: [Int64] = [1, 5, 15, 30, 60, 180, 360, 720, 1440, 2880, 10_080, 20_160, 40_320, 131_040, 525_600]
    return minutes.map { $0 * 60_000_000 }
  }()

  /// Ticks on a time axis from `start` to `end` (µs UTC) at a whole number of minutes,
  /// hours or days of the zone `offset` from UTC, at most `count` + 1 of them inside
  /// the range; labels `MM-DD` for day steps, `MM-DD HH:mm` otherwise. Ticks that
  /// would be no `Int64` (a range at the ends of the times) are left out.
  public static func times(_ start: Int64, _ end: Int64, offset: Int64, count: Int = 6) -> [(time: Int64, label: String)] {
    let span = start < end ? (try? TimeArithmetic.span(from: start, to: end)) ?? .max : 1
    let step = timeSteps.first { span / $0 <= Int64(count) } ?? timeSteps.last!
    let day = TimeText.microsPerDay
    // Weeks start on Monday (1970-01-05); other steps count from 1970-01-01.
    let origin: Int64 = step % (7 * day) == 0 ? 4 * day : 0
    // The zone's range, and its first tick: the first multiple of `step` after `origin`
    // at or after its start.
    guard let localStart = try? TimeArithmetic.add(offset, to: start, .zoneHour),
      let localEnd = try? TimeArithmetic.add(offset, to: end, .zoneHour),
      let afterOrigin = try? TimeArithmetic.add(-origin, to: localStart, .zoneHour),
      var local = try? TimeArithmetic.add((step - afterOrigin.floorMod(step)) % step, to: localStart, .zoneHour)
    else { return [] }
    var ticks: [(Int64, String)] = []
    while local <= localEnd {
      let text = TimeText.iso8601(local)
      let date = String(text.dropFirst(5).prefix(5))
      let clock = String(text.dropFirst(11).prefix(5))
      ticks.append((local - offset, step % day == 0 ? date : date + " " + clock))
      guard let next = try? TimeArithmetic.add(step, to: local, .zoneHour) else { break }
      local = next
    }
    return ticks
  }

  private static func pow10(_ k: Int) -> Double {
    var x = 1.0
    for _ in 0..<abs(k) { x *= 10 }
    return k >= 0 ? x : 1 / x
  }
}
