import ArbCore

/// The legs of a premium board grouped by the instrument they quote (`arbkit board`):
/// one group per canonical instrument in order of first appearance, at most one leg per
/// venue in each; the legs the registry cannot place, and the second leg of a venue
/// for one instrument, set aside with the reason.
public struct BoardGrouping {
  /// Each instrument with its legs, one per venue, in order of first appearance.
  public private(set) var groups: [(instrument: CanonicalInstrument, legs: [QuoteSeries])] = []
  /// Legs no instrument was found for, and why (a symbol the registry does not know,
  /// an FX series, a venue outside the registry).
  public private(set) var unplaced: [(leg: QuoteSeries, reason: String)] = []
  /// A second leg of one venue for one instrument (another symbol of the same contract).
  public private(set) var sameVenue: [QuoteSeries] = []

  public init(legs: [QuoteSeries], registry: ExchangeRegistry) {
    var index: [CanonicalInstrument: Int] = [:]
    for leg in legs {
      // A named leg was resolved when parsed; a symbol read from a file that the
      // registry does not know is set aside with the reason, not fatal for the board.
      let canonical: CanonicalInstrument?
      do { canonical = try registry.canonical(ofLeg: leg.instrument) } catch {
        unplaced.append((leg, error.description))
        continue
      }
      guard let canonical else {
        unplaced.append((leg, leg.instrument.market == .fx ? "an FX series" : "venue outside the registry"))
        continue
      }
      guard let k = index[canonical] else {
        index[canonical] = groups.count
        groups.append((canonical, [leg]))
        continue
      }
      if groups[k].legs.contains(where: { $0.instrument.venue == leg.instrument.venue }) {
        sameVenue.append(leg)
      } else {
        groups[k].legs.append(leg)
      }
    }
  }

  /// The instruments quoted on two or more venues: the board's rows.
  public var board: [(instrument: CanonicalInstrument, legs: [QuoteSeries])] { groups.filter { $0.legs.count >= 2 } }

  /// The instruments quoted on one venue, with that leg.
  public var singleVenue: [(CanonicalInstrument, QuoteSeries)] { groups.filter { $0.legs.count == 1 }.map { ($0.instrument, $0.legs[0]) } }
}
