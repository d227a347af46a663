import ArbCore
import ArbResearch

extension BoardAlert {
  /// `--alert TEXT`: the rule `text`; one that cannot be read is a usage error that names
  /// the flag.
  init(parsing text: String) throws(UsageError) {
    do throws(BoardAlertError) { try self.init(rule: text) } catch {
      throw UsageError(
        "invalid value for '--alert', \(error.reason), expected INSTRUMENT FIELD OP NUMBER such as 'BTC/KRW kimchi >= 3', was '\(text)'")
    }
  }
}

extension AlertTracker.Event {
  /// The alert line: `TIME alert KIND CONDITION value=V[ duration_s=D]`, e.g.
  /// `2025-01-01T00:00:07Z alert end BTC/KRW spot kimchi >= 3 value=2.9812 duration_s=5.000`.
  var line: String {
    var text = "\(TimeText.iso8601(time)) alert \(kind.rawValue) \(alert.description) value=\(NumberText.fixed(value, 4))"
    if let duration { text += " duration_s=" + NumberText.fixed(Double(duration) / 1e6, 3) }
    return text
  }
}
