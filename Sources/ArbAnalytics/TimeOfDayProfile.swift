import ArbCore

/// A premium series by hour of day × day of week in one time zone
/// (`docs/definitions.md`, "Time-of-day profile").
///
/// Each valid point weighs its duration (the time to the next clock point). A point
/// whose span `[t, t + duration)` crosses hour boundaries of the zone is split: each
/// hour it covers gets the part of the duration inside it. Per cell (day, hour):
/// `seconds = Σ w`, `mean = Σ w x / Σ w`, and per band `share = Σ_{|x| ≥ b} w / Σ w`
/// (`x ≥ b` for a one-sided series); `points` counts the valid points whose own time
/// falls in the cell. A cell without time has no mean and no shares (`nil`).
public struct TimeOfDayProfile: Sendable, Equatable {
  /// Days of the week, Monday first (ISO order).
  public static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
  /// The zones the profile is computed in, with their offset from UTC in µs.
  public static let zones: [(name: String, offset: Int64)] = [("UTC", 0), ("Asia/Seoul", 9 * 3_600_000_000)]

  /// One hour of one weekday.
  public struct Cell: Sendable, Equatable {
    /// Day of the week, 0 = Monday … 6 = Sunday.
    public var day: Int
    /// Hour of the day, 0…23, in the profile's zone.
    public var hour: Int
    public var points: Int
    public var seconds: Double
    public var mean: Double?
    /// Share of the cell's time at or beyond each band, in the order of `bands`.
    public var shares: [Double?]
  }

  public var zone: String
  public var bands: [Double]
  /// 168 cells, day-major: `cells[day * 24 + hour]`.
  public var cells: [Cell]

  private init(zone: String, bands: [Double], cells: [Cell]) {
    self.zone = zone
    self.bands = bands
    self.cells = cells
  }

  /// The cell of a weekday (0 = Monday) and hour.
  public func cell(day: Int, hour: Int) -> Cell { cells[day * 24 + hour] }

  /// Length of an hour, µs.
  static let hourLength: Int64 = 3_600_000_000
  /// Length of a week, µs.
  static let weekLength: Int64 = 168 * hourLength

  /// Checks once that `times` moved into the zone `offset`, and the end of the hour of
  /// each, are times (the profile splits durations at those ends).
  ///
  /// - Throws: `TimeError.Reason.overflow` (`.zoneHour`).
  public static func checkRange(_ times: ClosedRange<Int64>, offset: Int64) throws(TimeError) {
    try TimeArithmetic.check(times, plus: offset...offset, .zoneHour)
    try TimeArithmetic.check((times.lowerBound + offset)...(times.upperBound + offset), plus: 0...hourLength, .zoneHour)
  }

  /// Profiles `values` (one per point of `time`, used where `valid`).
  ///
  /// - Parameters:
  ///   - duration: each point's weight in µs (the time to the next point).
  ///   - offset: the zone's offset from UTC in µs (`zones`).
  ///   - oneSided: bands test `x ≥ b` only (executable premium).
  /// - Precondition: `checkRange` passes for the times (user data: call it first), and
  ///   no point's duration passes the last time.
  /// - Complexity: O(points × 2 weeks of hours) at most, whatever the durations.
  public init(
    values: [Double], valid: [Bool], time: [Int64], duration: [Int64], bands: [Double], oneSided: Bool,
    zone: String, offset: Int64
  ) {
    precondition(values.count == valid.count && values.count == time.count && values.count == duration.count, "TimeOfDayProfile: column lengths differ")
    var accumulator = Accumulator(bands: bands, oneSided: oneSided, zone: zone, offset: offset)
    for i in values.indices where valid[i] { accumulator.add(values[i], time: time[i], duration: duration[i]) }
    self = accumulator.profile()
  }

  /// Builds a profile from valid points handed over one at a time, as a stream yields
  /// them; the sums are those of `init(values:…)` in the same order.
  public struct Accumulator: Sendable {
    public let bands: [Double]
    public let oneSided: Bool
    public let zone: String
    public let offset: Int64
    private var weight = [Double](repeating: 0, count: 168)
    private var weighted = [Double](repeating: 0, count: 168)
    private var inside: [Double]
    private var points = [Int](repeating: 0, count: 168)

    /// An empty profile in `zone`, `offset` µs east of UTC; `oneSided`: bands test `x ≥ b` only.
    public init(bands: [Double], oneSided: Bool, zone: String, offset: Int64) {
      self.bands = bands
      self.oneSided = oneSided
      self.zone = zone
      self.offset = offset
      inside = [Double](repeating: 0, count: 168 * bands.count)
    }

    /// Adds the valid value `x` at `time`, holding for `duration` µs.
    /// - Precondition: `checkRange` passes for `time`, and `duration` does not pass the last time.
    public mutating func add(_ x: Double, time: Int64, duration: Int64) {
      let hourLength = TimeOfDayProfile.hourLength, weekLength = TimeOfDayProfile.weekLength
      let magnitude = oneSided ? x : abs(x)
      var start = time + offset
      let end = start + duration
      points[TimeOfDayProfile.cellIndex(hour: start.floorDiv(hourLength))] += 1
      // Whole weeks beyond the first add one hour to every cell each: added at once,
      // so that a point lasting years costs no more than one lasting two weeks.
      let weeks = (end - start) / weekLength - 1
      if weeks > 0 {
        let piece = Double(weeks) * Double(hourLength)
        for c in 0..<168 {
          weight[c] += piece
          weighted[c] += piece * x
          for (b, band) in bands.enumerated() where magnitude >= band { inside[c * bands.count + b] += piece }
        }
      }
      let hoursEnd = end - max(weeks, 0) * weekLength
      while start < hoursEnd {
        let hour = start.floorDiv(hourLength)
        let piece = Double(min(hoursEnd, (hour + 1) * hourLength) - start)
        let c = TimeOfDayProfile.cellIndex(hour: hour)
        weight[c] += piece
        weighted[c] += piece * x
        for (b, band) in bands.enumerated() where magnitude >= band { inside[c * bands.count + b] += piece }
        start = (hour + 1) * hourLength
      }
    }

    /// The profile of the points added.
    public func profile() -> TimeOfDayProfile {
      TimeOfDayProfile(
        zone: zone, bands: bands,
        cells: (0..<168).map { c in
          let w = weight[c]
          return Cell(
            day: c / 24, hour: c % 24, points: points[c], seconds: w / 1e6,
            mean: w > 0 ? weighted[c] / w : nil,
            shares: bands.indices.map { w > 0 ? inside[c * bands.count + $0] / w : nil })
        })
    }
  }

  /// The cell (day-major) of an hour counted from 1970-01-01T00 in the zone;
  /// 1970-01-01 was a Thursday (day 3).
  static func cellIndex(hour: Int64) -> Int {
    let day = Int((hour.floorDiv(24) + 3) % 7 + 7) % 7
    return day * 24 + Int(hour - hour.floorDiv(24) * 24)
  }
}
