import ArbAnalytics
import ArbCore

/// The alignment and band flags shared by `premium`, `basis` and `kimchi`:
/// `--max-stale`, `--grid`, `--bands`, `--hysteresis`, `--min-episode`.
struct AnalysisFlags {
  static let flags = ["--max-stale", "--grid", "--bands", "--hysteresis", "--min-episode"]
  static let help = help(defaultMaxStale: nil)

  /// The options' help, with the default of `--max-stale` (`nil`: no limit).
  static func help(defaultMaxStale: Int64?) -> [(String, String)] {
    [
      (
        "--max-stale DURATION",
        "a point is valid only if every leg quoted within this (5s, 100ms, 2m; none: no limit); default: "
          + (defaultMaxStale.map(TimeText.durationText) ?? "no limit")
      ),
      ("--grid DURATION", "align on a fixed grid (1s, 100ms) instead of the union clock"),
      ("--bands LIST", "band levels in percent (default 0.05,0.1)"),
      ("--hysteresis H", "an episode ends only below band − H, in percent (default 0)"),
      ("--min-episode DURATION", "episodes shorter than this are not counted (default 0)"),
    ]
  }

  var alignment: AlignmentOptions
  var bands: BandOptions

  /// - Parameter defaultMaxStale: the limit without `--max-stale` (`nil`: none).
  init(_ cursor: ArgumentCursor, defaultMaxStale: Int64? = nil) throws(UsageError) {
    alignment = try Self.alignment(cursor, defaultMaxStale: defaultMaxStale)
    bands = try Self.bands(cursor)
  }

  /// `--max-stale` (`none`: no limit; absent: `defaultMaxStale`) and `--grid`.
  static func alignment(_ cursor: ArgumentCursor, defaultMaxStale: Int64? = nil) throws(UsageError) -> AlignmentOptions {
    let limit = try cursor.value("--max-stale", "a duration such as 5s or 100ms, or none", staleness)
    let grid = try cursor.value("--grid", "a positive duration such as 1s", positiveDuration)
    return AlignmentOptions(maxStale: limit ?? defaultMaxStale, grid: grid)
  }

  /// `--bands`, `--hysteresis` and `--min-episode`.
  static func bands(_ cursor: ArgumentCursor) throws(UsageError) -> BandOptions {
    let levels =
      try cursor.value("--bands", "a list of positive percentages such as 0.05,0.1") { text -> [Double]? in
        let values = text.split(separator: ",").compactMap { Double($0) }
        return values.count == text.split(separator: ",").count && !values.isEmpty && values.allSatisfy { $0 > 0 && $0.isFinite } ? values : nil
      } ?? [0.05, 0.1]
    let hysteresis = try cursor.value("--hysteresis", "a percentage ≥ 0", { Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }) ?? 0
    if let smallest = levels.min(), hysteresis >= smallest {
      throw UsageError("--hysteresis must be smaller than every band, was \(hysteresis) with band \(smallest)")
    }
    let minEpisode = try cursor.value("--min-episode", "a duration such as 5s", TimeText.parseDuration) ?? 0
    return BandOptions(bands: levels, hysteresis: hysteresis, minEpisode: minEpisode)
  }

  /// A `--max-stale` value: a duration, or `.some(nil)` for `none` (no limit).
  static func staleness(_ text: String) -> Int64?? {
    if text == "none" { return .some(nil) }
    return TimeText.parseDuration(text).map { .some($0) }
  }

  static func positiveDuration(_ text: String) -> Int64? { TimeText.parseDuration(text).flatMap { $0 > 0 ? $0 : nil } }
}
