import ArbCore

/// The legs of a premium board grouped by the instrument they quote (`arbkit board`):
/// one group per canonical instrument in order of first appearance, at most one leg per
/// venue in each; the legs the registry cannot place, and the second leg of a venue
/// for one instrument, set aside with the reason. Only the instrument each leg names is
/// read, so that the legs can be grouped before their quotes are.
public struct BoardGrouping<Leg> {
  /// Each instrument with its legs, one per venue, in order of first appearance.
  public private(set) var groups: [(instrument: CanonicalInstrument, legs: [Leg])] = []
  /// Legs no instrument was found for, and why (a symbol the registry does not know,
  /// an FX series, a venue outside the registry).
  public private(set) var unplaced: [(leg: Leg, reason: String)] = []
  /// A second leg of one venue for one instrument (another symbol of the same contract).
  public private(set) var sameVenue: [Leg] = []

  /// Groups `legs` by the canonical instrument of the instrument each names (`instrument`).
  public init(legs: [Leg], instrument: (Leg) -> Instrument, registry: ExchangeRegistry) {
    var index: [CanonicalInstrument: Int] = [:]
    for leg in legs {
      let named = instrument(leg)
      // A named leg was resolved when parsed; a symbol read from a file that the
      // registry does not know is set aside with the reason, not fatal for the board.
      let canonical: CanonicalInstrument?
      do { canonical = try registry.canonical(ofLeg: named) } catch {
        unplaced.append((leg, error.description))
        continue
      }
      guard let canonical else {
        unplaced.append((leg, named.market == .fx ? "an FX series" : "venue outside the registry"))
        continue
      }
      guard let k = index[canonical] else {
        index[canonical] = groups.count
        groups.append((canonical, [leg]))
        continue
      }
      if groups[k].legs.contains(where: { instrument($0).venue == named.venue }) {
        sameVenue.append(leg)
      } else {
        groups[k].legs.append(leg)
      }
    }
  }

  /// The instruments quoted on two or more venues: the board's rows.
  public var board: [(instrument: CanonicalInstrument, legs: [Leg])] { groups.filter { $0.legs.count >= 2 } }

  /// The instruments quoted on one venue, with that leg.
  public var singleVenue: [(CanonicalInstrument, Leg)] { groups.filter { $0.legs.count == 1 }.map { ($0.instrument, $0.legs[0]) } }
}
