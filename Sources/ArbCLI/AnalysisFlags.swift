import ArbAnalytics
import ArbCore

/// The alignment and band flags shared by `premium` and `board`.
struct AnalysisFlags {
  static let flags = ["--max-stale", "--grid", "--bands", "--hysteresis", "--min-episode"]
  static let help: [(flag: String, text: String)] = [
    ("--max-stale DURATION", "a point is valid only if every leg quoted within this (5s, 100ms, 2m); default: no limit"),
    ("--grid DURATION", "align on a fixed grid (1s, 100ms) instead of the union clock"),
    ("--bands LIST", "band levels in percent (default 0.05,0.1)"),
    ("--hysteresis H", "an episode ends only below band − H, in percent (default 0)"),
    ("--min-episode DURATION", "episodes shorter than this are not counted (default 0)"),
  ]

  var alignment: AlignmentOptions
  var bands: BandOptions

  init(_ cursor: ArgumentCursor) throws(UsageError) {
    let maxStale = try cursor.value("--max-stale", "a duration such as 5s or 100ms", TimeText.parseDuration)
    let grid = try cursor.value("--grid", "a positive duration such as 1s", { TimeText.parseDuration($0).flatMap { $0 > 0 ? $0 : nil } })
    alignment = AlignmentOptions(maxStale: maxStale, grid: grid)
    let levels = try cursor.value("--bands", "a list of positive percentages such as 0.05,0.1") { text -> [Double]? in
      let values = text.split(separator: ",").compactMap { Double($0) }
      return values.count == text.split(separator: ",").count && !values.isEmpty && values.allSatisfy { $0 > 0 && $0.isFinite } ? values : nil
    } ?? [0.05, 0.1]
    let hysteresis = try cursor.value("--hysteresis", "a percentage ≥ 0", { Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }) ?? 0
    if let smallest = levels.min(), hysteresis >= smallest {
      throw UsageError("--hysteresis must be smaller than every band, was \(hysteresis) with band \(smallest)")
    }
    let minEpisode = try cursor.value("--min-episode", "a duration such as 5s", TimeText.parseDuration) ?? 0
    bands = BandOptions(bands: levels, hysteresis: hysteresis, minEpisode: minEpisode)
  }
}
