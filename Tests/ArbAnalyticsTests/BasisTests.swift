import ArbCore
@testable import ArbAnalytics
import Testing
import TestSupport

/// A series of `(time, bid, ask)` rows (a rate series holds its value in both sides).
func quoteLeg(_ market: MarketKind, _ rows: [(Int64, Double, Double)], field: SeriesField = .price, symbol: String = "BTCUSDT") -> QuoteSeries {
  QuoteSeries(
    instrument: Instrument(venue: "test", market: market, symbol: symbol), priceSource: .book, field: field,
    time: rows.map(\.0), bid: rows.map(\.1), ask: rows.map(\.2))
}

@Suite("Basis and funding carry")
struct BasisTests {
  static let hour: Int64 = 3_600_000_000
  static let day: Int64 = 86_400_000_000

  @Test func `basis, open and close worked by hand`() throws {
    let spot = quoteLeg(.spot, [(0, 100, 101), (10, 102, 103)])
    let perp = quoteLeg(.linear, [(5, 102, 104), (10, 101, 102)])
    let s = try BasisSeries(derivative: perp, reference: spot)
    #expect(s.basis.time == [5, 10])
    #expect(s.basis.valid == [true, true])
    // t=5: spot 100/101, perp 102/104.
    #expect(isClose(s.basis.mid[0], (103 / 100.5 - 1) * 100))
    #expect(isClose(s.open[0], 0.99009900990099))  // 102 / 101 − 1
    #expect(isClose(s.close[0], 4))  // 104 / 100 − 1
    // t=10: spot 102/103, perp 101/102.
    #expect(isClose(s.basis.mid[1], -0.975609756097561))  // 101.5 / 102.5 − 1
    #expect(isClose(s.open[1], -1.941747572815534))  // 101 / 103 − 1
    #expect(s.close[1] == 0)  // 102 / 102 − 1
    #expect(s.annualised == nil && s.pointsAfterExpiry == 0)
  }

  @Test func `annualised basis to expiry, none at or after it`() throws {
    let expiry = 73 * Self.day
    // Basis 1 % at 36.5 days before expiry: 10 % a year; at 18.25 days before: 20 %.
    let times: [Int64] = [expiry - 73 * Self.day / 2, expiry - 73 * Self.day / 4, expiry, expiry + Self.hour]
    let spot = quoteLeg(.spot, times.map { ($0, 100, 100) })
    let future = quoteLeg(.future, times.map { ($0, 101, 101) })
    let s = try BasisSeries(derivative: future, reference: spot, expiry: expiry)
    let annualised = try #require(s.annualised)
    #expect(annualised.valid == [true, true, false, false])
    #expect(isClose(annualised.mid[0], 10, rel: 1e-12))
    #expect(isClose(annualised.mid[1], 20, rel: 1e-12))
    #expect(s.pointsAfterExpiry == 2)
    #expect(s.basis.validPoints == 4)
    let summary = SeriesSummary(signed: annualised, column: annualised.mid)
    #expect(summary.statistics.count == 2)
    #expect(isClose(summary.statistics.mean, 15))
  }

  @Test func `expiry instant is 08:00 UTC of the expiry day`() {
    #expect(BasisSeries.expiry(CalendarDay(year: 2021, month: 9, day: 24)!) == 1_632_470_400_000_000)
    #expect(BasisSeries.expiry(CalendarDay(year: 2025, month: 3, day: 28)!, hour: 0) == 1_743_120_000_000_000)
  }

  /// Spot at 100 and a perpetual quoted every hour over two days; funding every 8 h.
  static func twoDays(perpMid: (Int64) -> Double) -> (spot: QuoteSeries, perp: QuoteSeries) {
    let hours = (0...48).map { Int64($0) * hour }
    return (quoteLeg(.spot, hours.map { ($0, 100, 100) }), quoteLeg(.linear, hours.map { ($0, perpMid($0), perpMid($0)) }))
  }

  @Test func `carry counts the funding at a window's start, not at its end`() throws {
    let (spot, perp) = Self.twoDays { $0 == 24 * Self.hour ? 100.2 : $0 == 48 * Self.hour ? 100.05 : $0 == 0 ? 100.1 : 100 }
    let rates = [0.0001, 0.0002, -0.0001, 0.0003, 0.0001, 0.0001, 0.0005]  // at 0, 8, …, 48 h
    let funding = quoteLeg(.linear, rates.enumerated().map { (Int64($0) * 8 * Self.hour, $1, $1) }, field: .fundingRate)
    let basis = try BasisSeries(derivative: perp, reference: spot).basis
    let daily = FundingCarry(events: FundingEvents(funding), basis: basis, perp: perp, settlement: .linear, window: Self.day)
    #expect(daily.windows.map(\.start) == [0, Self.day])
    #expect(daily.windows.map(\.events) == [3, 3])
    // [0, 24 h): events at 0, 8, 16 h; [24, 48 h): 24, 32, 40 h; the one at 48 h is outside.
    #expect(isClose(daily.windows[0].carry, 0.02, rel: 1e-12))
    #expect(isClose(daily.windows[1].carry, 0.05, rel: 1e-12))
    #expect(isClose(daily.carry, 0.07, rel: 1e-12))
    #expect(daily.events == 6)
    // Basis 0.1 % at 0 h, 0.2 % at 24 h, 0.05 % at 48 h.
    #expect(isClose(daily.windows[0].net, 0.02 - (0.2 - 0.1), rel: 1e-9))
    #expect(isClose(daily.windows[1].net, 0.05 - (0.05 - 0.2), rel: 1e-9))
    #expect(isClose(daily.net, 0.07 - (0.05 - 0.1), rel: 1e-9))
    #expect(daily.carryStatistics.count == 2 && isClose(daily.carryStatistics.mean, 0.035))
    // Per unit of base, in the quote: Σ r × mid at the event (100.1 at 0 h, 100.2 at 24 h, else 100).
    #expect(isClose(daily.carryPerContract, 0.0001 * 100.1 + 0.0002 * 100 - 0.0001 * 100 + 0.0003 * 100.2 + 0.0001 * 100 + 0.0001 * 100))

    let eightHours = FundingCarry(events: FundingEvents(funding), basis: basis, perp: perp, settlement: .linear, window: 8 * Self.hour)
    #expect(eightHours.windows.count == 6)
    #expect(eightHours.windows.allSatisfy { $0.events == 1 })
    #expect(isClose(eightHours.carry, daily.carry, rel: 1e-12))
  }

  @Test func `a window the funding record does not cover is left out`() throws {
    let (spot, perp) = Self.twoDays { _ in 100 }
    // Funding only from 8 h: the events of [0, 8 h) are missing, so the first day is not a window.
    let funding = quoteLeg(.linear, (1...6).map { (Int64($0) * 8 * Self.hour, 0.0001, 0.0001) }, field: .fundingRate)
    let basis = try BasisSeries(derivative: perp, reference: spot).basis
    let carry = FundingCarry(events: FundingEvents(funding), basis: basis, perp: perp, settlement: .linear, window: Self.day)
    #expect(carry.windows.map(\.start) == [Self.day])
    #expect(carry.events == 3)
    // Funding ending at 24 h covers up to 32 h: no whole day after the first.
    let early = quoteLeg(.linear, (0...3).map { (Int64($0) * 8 * Self.hour, 0.0001, 0.0001) }, field: .fundingRate)
    let covered = FundingCarry(events: FundingEvents(early), basis: basis, perp: perp, settlement: .linear, window: Self.day)
    #expect(covered.windows.map(\.start) == [0])
    #expect(covered.interval == 8 * Self.hour)
  }

  @Test func `inverse carry per contract is in the base coin`() throws {
    let spot = quoteLeg(.spot, [(0, 50_000, 50_000), (24 * Self.hour, 40_000, 40_000)])
    let perp = quoteLeg(.inverse, [(0, 50_000, 50_000), (4 * Self.hour, 40_000, 40_000), (24 * Self.hour, 40_000, 40_000)], symbol: "BTCUSD_PERP")
    let funding = quoteLeg(.inverse, [(0, 0.0001, 0.0001), (8 * Self.hour, -0.00005, -0.00005), (16 * Self.hour, 0, 0)], field: .fundingRate)
    let basis = try BasisSeries(derivative: perp, reference: spot).basis
    // Prices in USD per coin whatever the margin: 40 000 over 50 000 at 04:00 is −20 %.
    #expect(basis.mid.count == 3 && basis.mid[0] == 0 && isClose(basis.mid[1], -20) && basis.mid[2] == 0)
    let carry = FundingCarry(events: FundingEvents(funding), basis: basis, perp: perp, settlement: .inverse(contractSize: 100), window: Self.day)
    #expect(carry.windows.count == 1)
    #expect(isClose(carry.carry, 0.005, rel: 1e-12))
    // 0.0001 × 100 / 50 000 − 0.00005 × 100 / 40 000 BTC per 100 USD contract.
    #expect(isClose(carry.carryPerContract, 2e-7 - 1.25e-7, rel: 1e-12))
    let unknown = FundingCarry(events: FundingEvents(funding), basis: basis, perp: perp, settlement: .inverse(contractSize: nil), window: Self.day)
    #expect(unknown.carryPerContract == nil && unknown.windows[0].carryPerContract == nil)
  }

  @Test func `a record of the rate in force is sampled at the funding instants`() {
    // Ticker rates at 07:59:30, 08:00:00.5, 15:00 and 23:59; funding every 8 h.
    let ticker = quoteLeg(
      .linear,
      [
        (8 * Self.hour - 30_000_000, 0.0001, 0.0001), (8 * Self.hour + 500_000, 0.0002, 0.0002),
        (15 * Self.hour, 0.0003, 0.0003), (24 * Self.hour - 60_000_000, -0.0001, -0.0001),
      ], field: .fundingRate)
    let events = FundingEvents(ticker)
    #expect(events.sampled && events.interval == 8 * Self.hour)
    // 08:00 takes the rate of 07:59:30, 16:00 that of 15:00; 24:00 is after the last record.
    #expect(events.time == [8 * Self.hour, 16 * Self.hour])
    #expect(events.rate == [0.0001, 0.0003])
    let hourly = FundingEvents(ticker, tickerInterval: Self.hour)
    // Hourly: an instant more than an hour after the last record has no event.
    #expect(hourly.time == [8, 9, 15, 16].map { $0 * Self.hour })
    #expect(hourly.rate == [0.0001, 0.0002, 0.0003, 0.0003])
    // A settlement record on whole hours is its own events.
    let record = quoteLeg(.linear, [(0, 0.0001, 0.0001), (4 * Self.hour, 0.0002, 0.0002)], field: .fundingRate)
    let settled = FundingEvents(record)
    #expect(!settled.sampled && settled.time == record.time && settled.interval == 4 * Self.hour)
    // A stated interval (Binance `funding_interval_hours`) wins over the gaps.
    var stated = record
    stated.fundingInterval = [8 * Self.hour, 8 * Self.hour]
    #expect(FundingEvents(stated).interval == 8 * Self.hour)
  }

  @Test func `no window without a valid basis or funding`() throws {
    let (spot, perp) = Self.twoDays { _ in 100 }
    let basis = try BasisSeries(derivative: perp, reference: spot).basis
    let none = FundingCarry(events: FundingEvents(quoteLeg(.linear, [], field: .fundingRate)), basis: basis, perp: perp, settlement: .linear, window: Self.day)
    #expect(none.windows.isEmpty && none.net == nil && none.carryStatistics.count == 0)
  }

  @Test("basis and carry agree with slow implementations on generated data", arguments: [1, 2, 3, 4])
  func generated(seed: Int) throws {
    var rng = SplitMix64(seed: UInt64(seed) * 7919)
    func stream(_ n: Int, base: Double, step: Int64) -> [(Int64, Double, Double)] {
      var t: Int64 = Int64(rng.uniform() * 1e9), price = base
      return (0..<n).map { _ in
        t += 1 + Int64(rng.uniform() * Double(step))
        price *= 1 + 0.001 * rng.normal()
        let half = price * 0.0002 * rng.uniform()
        return (t, price - half, price + half)
      }
    }
    let spot = quoteLeg(.spot, stream(400, base: 100, step: 20 * Self.hour / 400))
    let perp = quoteLeg(.linear, stream(300, base: 100.2, step: 20 * Self.hour / 300))
    let maxStale: Int64? = seed % 2 == 0 ? 5 * 60_000_000 : nil
    let expiry: Int64? = seed > 2 ? spot.time[200] : nil
    let s = try BasisSeries(derivative: perp, reference: spot, expiry: expiry, options: AlignmentOptions(maxStale: maxStale))
    let aligned = try #require(Oracle.align([perp, spot], maxStale: maxStale))
    #expect(s.basis.time == aligned.time && s.basis.valid == aligned.valid)
    var afterExpiry = 0
    for i in aligned.time.indices where aligned.valid[i] {
      let (d, r) = (aligned.state[0][i], aligned.state[1][i])
      let midD = (perp.bid[d] + perp.ask[d]) / 2, midR = (spot.bid[r] + spot.ask[r]) / 2
      let basis = (midD / midR - 1) * 100
      #expect(isClose(s.basis.mid[i], basis, rel: 1e-9, abs: 1e-12))
      #expect(isClose(s.open[i], (perp.bid[d] / spot.ask[r] - 1) * 100, rel: 1e-9, abs: 1e-12))
      #expect(isClose(s.close[i], (perp.ask[d] / spot.bid[r] - 1) * 100, rel: 1e-9, abs: 1e-12))
      if let expiry, let annualised = s.annualised {
        let t = aligned.time[i]
        if t < expiry {
          #expect(isClose(annualised.mid[i], basis * 365 * 86_400e6 / Double(expiry - t), rel: 1e-9, abs: 1e-12))
        } else {
          afterExpiry += 1
          #expect(!annualised.valid[i])
        }
      }
    }
    #expect(s.pointsAfterExpiry == afterExpiry)

    // Funding on whole hours, some hours missing from the record's middle.
    var events: [(Int64, Double, Double)] = []
    var t = (spot.time[0] / Self.hour - 3) * Self.hour
    while t < spot.time[spot.count - 1] + 3 * Self.hour {
      let rate = 0.0001 * rng.normal()
      events.append((t, rate, rate))
      t += Self.hour * (1 + Int64(rng.uniform() * 3))
    }
    let funding = quoteLeg(.linear, events, field: .fundingRate)
    for window in [Self.hour, 4 * Self.hour, Self.day / 3] {
      let carry = FundingCarry(events: FundingEvents(funding), basis: s.basis, perp: perp, settlement: .linear, window: window)
      // Every window [kW, (k+1)W) passing the definition's tests, by brute force.
      let validTimes = aligned.time.indices.filter { aligned.valid[$0] }.map { aligned.time[$0] }
      let interval = events[events.count - 1].0 - events[events.count - 2].0
      var expected: [(Int64, Double, Int)] = []
      for k in (validTimes.first! / window - 2)...(validTimes.last! / window + 2) {
        let a = k * window, b = a + window
        guard a >= validTimes.first!, b <= validTimes.last!, a > events[0].0 - interval, b <= events.last!.0 + interval else { continue }
        let inside = events.filter { $0.0 >= a && $0.0 < b }
        expected.append((a, inside.reduce(0) { $0 + $1.1 * 100 }, inside.count))
      }
      #expect(carry.windows.map(\.start) == expected.map(\.0))
      #expect(carry.windows.map(\.events) == expected.map(\.2))
      for (w, e) in zip(carry.windows, expected) { #expect(isClose(w.carry, e.1, rel: 1e-9, abs: 1e-15)) }
    }
  }
}
