import ArbCore

@testable import ArbAnalytics

/// The executable basis at a trade size over whole series (the reference
/// `SizedBasisAnalyzer` is checked against), from the books of a derivative D and its
/// reference R (`docs/definitions.md`, "Basis and funding carry"):
///
/// - `open(Q) = (avgBid_D(Q) / avgAsk_R(Q) − 1) × 100`: sell Q of D on its bids, buy Q
///   of R on its asks;
/// - `close(Q) = (avgAsk_D(Q) / avgBid_R(Q) − 1) × 100`: buy Q of D back on its asks,
///   sell Q of R on its bids.
///
/// Each is valid at a valid point of the alignment whose two books fill Q on the sides
/// it takes; a point where one of them cannot is short of depth (invalid at that size,
/// never 0) and counted. Books are walked as for the sized premium (`SizedPremiumOracle`): a
/// leg without depth is a one-level book, a leg without sizes fills nothing.
struct SizedBasisOracle {
  var quantity: Double
  /// The bands of `capacity`, percent.
  var bands: [Double]
  /// `open(Q)` as a one-column series on the alignment's clock.
  var open: PremiumSeries
  /// `close(Q)` as a one-column series on the alignment's clock.
  var close: PremiumSeries
  /// Valid points of the alignment at which `open(Q)` (resp. `close(Q)`) cannot fill.
  var openShort: Int
  var closeShort: Int
  /// Per band, the capacity of `open` (base units: selling D's bids against R's asks,
  /// `BookWalk.capacity`) at every valid point of the alignment, `nan` elsewhere.
  var capacity: [[Double]]
  /// The valid points of the alignment (where capacity is defined).
  var alignedValid: [Bool]

  /// - Parameters:
  ///   - aligned: the alignment of `[derivative, reference]`.
  /// - Complexity: O(points × (levels + bands × levels)).
  init(quantity: Double, bands: [Double], aligned: AlignedLegs, derivative: QuoteSeries, reference: QuoteSeries) {
    precondition(quantity > 0 && quantity.isFinite, "SizedBasis: size must be positive")
    precondition(aligned.legCount == 2, "SizedBasis: alignment of two legs expected")
    self.quantity = quantity
    self.bands = bands
    let n = aligned.count
    let d = OracleBook(series: derivative), r = OracleBook(series: reference)
    var open = [Double](repeating: .nan, count: n), close = open
    var openValid = [Bool](repeating: false, count: n), closeValid = openValid
    var capacity = [[Double]](repeating: [Double](repeating: .nan, count: n), count: bands.count)
    var openShort = 0, closeShort = 0
    for i in 0..<n where aligned.valid[i] {
      let j = Int(aligned.state(leg: 0, point: i)), k = Int(aligned.state(leg: 1, point: i))
      if let bid = d.average(row: j, bid: true, quantity: quantity), let ask = r.average(row: k, bid: false, quantity: quantity) {
        open[i] = (bid / ask - 1) * 100
        openValid[i] = true
      } else {
        openShort += 1
      }
      if let ask = d.average(row: j, bid: false, quantity: quantity), let bid = r.average(row: k, bid: true, quantity: quantity) {
        close[i] = (ask / bid - 1) * 100
        closeValid[i] = true
      } else {
        closeShort += 1
      }
      for (b, band) in bands.enumerated() { capacity[b][i] = d.capacity(row: j, against: r, row: k, band: band) }
    }
    self.open = PremiumSeries(time: aligned.time, valid: openValid, values: open)
    self.close = PremiumSeries(time: aligned.time, valid: closeValid, values: close)
    self.openShort = openShort
    self.closeShort = closeShort
    self.capacity = capacity
    alignedValid = aligned.valid
  }
}
