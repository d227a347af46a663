import ArbCore
import Foundation
import Testing
import TestSupport

@testable import ArbAnalytics

/// Hour × weekday profile (`TimeOfDayProfile`): a hand-worked case and a slow oracle.
@Suite("Time-of-day profile")
struct TimeOfDayProfileTests {
  static let minute: Int64 = 60_000_000
  /// Monday 2023-03-06 00:00 UTC.
  static let monday: Int64 = 1_678_060_800_000_000

  // Band 0.1, UTC. Points (minutes after Monday 00:00):
  //   i  t    x      valid  duration
  //   0  30   0.2    yes    45  → 30 in hour 0, 15 in hour 1
  //   1  75   −0.05  yes    30  → hour 1
  //   2  105  0.5    no     15  (not counted)
  //   3  120  0.15   yes    30  → hour 2
  //   4  150  0.3    yes    0   (last point: a point, no time)
  // Hour 0: 1800 s, mean 0.2, share 1, 1 point. Hour 1: 900 s at 0.2 and 1800 s at
  // −0.05 → 2700 s, mean (180 − 90) / 2700 = 1/30, share 900/2700 = 1/3, 1 point.
  // Hour 2: 1800 s, mean 0.15, share 1, 2 points.
  static let minutes: [Int64] = [30, 75, 105, 120, 150]
  static let time = minutes.map { monday + $0 * minute }
  static let duration = time.indices.map { $0 + 1 < time.count ? time[$0 + 1] - time[$0] : 0 }
  static let values = [0.2, -0.05, 0.5, 0.15, 0.3]
  static let valid = [true, true, false, true, true]

  static func profile(zone: Int) -> TimeOfDayProfile {
    let (name, offset) = TimeOfDayProfile.zones[zone]
    return TimeOfDayProfile(
      values: values, valid: valid, time: time, duration: duration, bands: [0.1], oneSided: false, zone: name, offset: offset)
  }

  @Test("hand-worked: a point spanning an hour boundary is split across both hours")
  func handWorked() {
    let p = Self.profile(zone: 0)
    let h0 = p.cell(day: 0, hour: 0), h1 = p.cell(day: 0, hour: 1), h2 = p.cell(day: 0, hour: 2)
    #expect(h0.seconds == 1800 && h0.mean == 0.2 && h0.shares == [1] && h0.points == 1)
    #expect(h1.seconds == 2700 && isClose(h1.mean, 1.0 / 30, rel: 1e-14) && isClose(h1.shares[0], 1.0 / 3, rel: 1e-15) && h1.points == 1)
    #expect(h2.seconds == 1800 && h2.mean == 0.15 && h2.shares == [1] && h2.points == 2)
    let others = p.cells.filter { $0.day != 0 || $0.hour > 2 }
    #expect(others.allSatisfy { $0.seconds == 0 && $0.mean == nil && $0.shares == [nil] && $0.points == 0 })
    #expect(p.cells.reduce(0) { $0 + $1.seconds } == 6300)
  }

  @Test("Asia/Seoul shifts every cell by nine hours")
  func seoul() {
    let utc = Self.profile(zone: 0), kst = Self.profile(zone: 1)
    #expect(kst.zone == "Asia/Seoul")
    for hour in 0..<3 {
      var shifted = utc.cell(day: 0, hour: hour)
      shifted.hour += 9
      #expect(kst.cell(day: 0, hour: hour + 9) == shifted)
    }
  }

  @Test("a point across midnight of Sunday goes partly to Sunday 23h, partly to Monday 0h")
  func weekBoundary() {
    // Sunday 23:00 UTC for two hours (the next point, at Monday 01:00, ends it); in Seoul:
    // Monday 8h and 9h. Only the first hour holds the point itself.
    let start = Self.monday - 60 * Self.minute
    let time = [start, start + 120 * Self.minute]
    for (zone, cells) in [(0, [(6, 23), (0, 0)]), (1, [(0, 8), (0, 9)])] {
      let (name, offset) = TimeOfDayProfile.zones[zone]
      let p = TimeOfDayProfile(
        values: [-0.07, 1], valid: [true, true], time: time, duration: [120 * Self.minute, 0], bands: [0.05, 0.1],
        oneSided: false, zone: name, offset: offset)
      let first = p.cell(day: cells[0].0, hour: cells[0].1), second = p.cell(day: cells[1].0, hour: cells[1].1)
      #expect(first.seconds == 3600 && first.mean == -0.07 && first.shares == [1, 0] && first.points == 1)
      #expect(second.seconds == 3600 && second.mean == -0.07 && second.points == 0)
    }
  }

  @Test("one-sided bands test x ≥ b only")
  func oneSided() {
    let p = TimeOfDayProfile(
      values: [-0.2, 0.2], valid: [true, true], time: [Self.monday, Self.monday + Self.minute],
      duration: [Self.minute, Self.minute], bands: [0.1], oneSided: true, zone: "UTC", offset: 0)
    #expect(p.cell(day: 0, hour: 0).shares == [0.5])
  }

  /// Independent: for every hour of the span, the overlap of each valid point's
  /// interval with it; the weekday from Foundation's calendar.
  static func slowProfile(
    values: [Double], valid: [Bool], time: [Int64], duration: [Int64], band: Double, offset: Int64
  )
    -> (seconds: [Double], weighted: [Double], inside: [Double])
  {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: Int(offset / 1_000_000))!
    var seconds = [Double](repeating: 0, count: 168), weighted = seconds, inside = seconds
    let hour: Int64 = 3_600_000_000
    let first = (time.first! / hour - 1) * hour, last = time.last! + duration.last! + hour
    var h = first
    while h < last {
      let date = Date(timeIntervalSince1970: Double(h) / 1e6)
      let weekday = (calendar.component(.weekday, from: date) + 5) % 7  // Sunday 1 → 6, Monday 2 → 0
      let c = weekday * 24 + calendar.component(.hour, from: date)
      for i in time.indices where valid[i] {
        let overlap = Double(max(0, min(time[i] + duration[i], h + hour) - max(time[i], h)))
        seconds[c] += overlap / 1e6
        weighted[c] += overlap / 1e6 * values[i]
        if abs(values[i]) >= band { inside[c] += overlap / 1e6 }
      }
      h += hour
    }
    return (seconds, weighted, inside)
  }

  @Test("random series against the slow hour-by-hour overlap", arguments: [0, 1])
  func againstOracle(zone: Int) {
    var random = SplitMix64(seed: 41 + UInt64(zone))
    var time: [Int64] = [Self.monday + 1_234_567]
    for _ in 0..<1500 {
      // Mostly short gaps, some of several hours.
      let gap = random.uniform() < 0.05 ? Int64(random.uniform() * 4 * 3600e6) : Int64(random.uniform() * 900e6) + 1
      time.append(time.last! + gap)
    }
    let values = time.map { _ in random.normal() * 0.1 }
    let valid = time.map { _ in random.uniform() < 0.9 }
    let duration = time.indices.map { $0 + 1 < time.count ? time[$0 + 1] - time[$0] : 0 }
    let (name, offset) = TimeOfDayProfile.zones[zone]
    let p = TimeOfDayProfile(values: values, valid: valid, time: time, duration: duration, bands: [0.1], oneSided: false, zone: name, offset: offset)
    let slow = Self.slowProfile(values: values, valid: valid, time: time, duration: duration, band: 0.1, offset: offset)
    #expect(p.cells.filter { $0.seconds > 0 }.count > 100)
    for c in 0..<168 {
      let cell = p.cells[c]
      #expect(isClose(cell.seconds, slow.seconds[c], rel: 1e-12))
      #expect(isClose(cell.mean, slow.seconds[c] > 0 ? slow.weighted[c] / slow.seconds[c] : nil, rel: 1e-9, abs: 1e-12))
      #expect(isClose(cell.shares[0], slow.seconds[c] > 0 ? slow.inside[c] / slow.seconds[c] : nil, rel: 1e-12))
    }
    #expect(p.cells.reduce(0) { $0 + $1.points } == valid.filter { $0 }.count)
  }

  @Test("points lasting weeks and years against the slow hour-by-hour overlap", arguments: [0, 1])
  func longPoints(zone: Int) {
    // Gaps of 9 days 5.5 h, 3 weeks exactly, 20 weeks and a few minutes, and 2 h.
    let day: Int64 = 86_400_000_000
    var times = [Self.monday + 1_234_567]
    times.append(times.last! + 9 * day + 19_800_000_000)
    times.append(times.last! + 21 * day)
    times.append(times.last! + 140 * day + 300_000_000)
    times.append(times.last! + 7_200_000_000)
    let values = [0.3, -0.05, 0.2, 0.01, 0.4]
    let valid = [true, true, true, false, true]
    let duration = times.indices.map { $0 + 1 < times.count ? times[$0 + 1] - times[$0] : 0 }
    let (name, offset) = TimeOfDayProfile.zones[zone]
    let p = TimeOfDayProfile(values: values, valid: valid, time: times, duration: duration, bands: [0.1], oneSided: false, zone: name, offset: offset)
    let slow = Self.slowProfile(values: values, valid: valid, time: times, duration: duration, band: 0.1, offset: offset)
    for c in 0..<168 {
      let cell = p.cells[c]
      #expect(isClose(cell.seconds, slow.seconds[c], rel: 1e-12))
      #expect(isClose(cell.mean, slow.seconds[c] > 0 ? slow.weighted[c] / slow.seconds[c] : nil, rel: 1e-9, abs: 1e-12))
      #expect(isClose(cell.shares[0], slow.seconds[c] > 0 ? slow.inside[c] / slow.seconds[c] : nil, rel: 1e-12))
    }
  }

  /// A point lasting 100,000 years is added in whole weeks, not hour by hour (which
  /// would be 876 million steps): every cell gets its share of the weeks.
  @Test("a point lasting 100,000 years takes whole weeks at once")
  func centuries() {
    let weeks: Int64 = 5_217_857  // about 100,000 years
    let week = TimeOfDayProfile.weekLength
    let time = [Self.monday, Self.monday + weeks * week]
    let p = TimeOfDayProfile(
      values: [0.5, 0.5], valid: [true, true], time: time, duration: [weeks * week, 0], bands: [0.1], oneSided: false, zone: "UTC", offset: 0)
    for cell in p.cells {
      #expect(cell.seconds == Double(weeks) * 3600)
      #expect(cell.mean == 0.5)
      #expect(cell.shares[0] == 1)
    }
  }
}
