import ArbCore

extension Scenario {
  /// Checks once that every duration of the scenario added to any time of `legs` (as
  /// the engines add them per signal) is a time, and that a fill time minus any quote
  /// time is a duration, so that the engines' loops cannot overflow: fill latency,
  /// max holding, cooldown, rebalance delay, and the days of the journal's zone (at
  /// most `TimeArithmetic.journalDayLimit` of them).
  ///
  /// - Throws: `TimeError` naming the duration whose sum leaves the range.
  public func checkTimes(of legs: [QuoteSeries]) throws(TimeError) {
    guard let times = try TimeArithmetic.bounds(of: legs.map(\.time)) else { return }
    try checkTimes(times, latencyBound: latencyBound(of: legs))
  }

  /// As `checkTimes(of:)`, for legs whose quotes span `times` (their first to their
  /// last time) with fills at most `latencyBound` µs after a signal.
  public func checkTimes(_ times: ClosedRange<Int64>, latencyBound: Int64) throws(TimeError) {
    let (first, last) = (times.lowerBound, times.upperBound)
    _ = try TimeArithmetic.span(from: first, to: TimeArithmetic.add(latencyBound, to: last, .latency))
    let durations: [(Int64?, TimeOperation)] =
      if case .inventory(let rules) = strategy {
        [(rules.rebalance?.delay.maximum(recordedMaximum: 0), .rebalanceDelay)]
      } else {
        [(strategy.threshold?.maxHolding, .maxHolding), (strategy.threshold?.cooldown, .cooldown)]
      }
    for (amount, operation) in durations {
      if let amount { _ = try TimeArithmetic.add(amount, to: last, operation) }
    }
    // A journal day starts at most a day before a time moved into the zone.
    try TimeArithmetic.check(times, plus: (timeZoneOffset - TimeText.microsPerDay)...timeZoneOffset, .journalDay)
    // The journal holds every day between (each is allocated).
    let days = (last + timeZoneOffset).floorDiv(TimeText.microsPerDay) - (first + timeZoneOffset).floorDiv(TimeText.microsPerDay) + 1
    if days > Int64(TimeArithmetic.journalDayLimit) {
      throw TimeError(.tooManyDays(first: first, last: last, count: days, limit: TimeArithmetic.journalDayLimit))
    }
  }

  /// The longest latency a fill of `legs` (this scenario's, in order) can have (µs): a
  /// `recorded` leg's is its longest recorded delay.
  public func latencyBound(of legs: [QuoteSeries]) -> Int64 {
    latencyBound { k in legs[k].otherTime.isEmpty ? 0 : (0..<legs[k].count).map(legs[k].recordedDelay).max() ?? 0 }
  }

  /// The longest latency a fill can have (µs), a `recorded` leg `k`'s being `recorded(k)`
  /// (asked of those legs only).
  public func latencyBound(recorded: (Int) -> Int64) -> Int64 {
    legLatency.enumerated().map { k, latency in latency.maximum(recordedMaximum: latency == .recorded ? recorded(k) : 0) }.max() ?? 0
  }
}
