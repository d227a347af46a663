import ArbCore

/// Runs `body`, a walk of streams over series in memory (`SeriesQuoteStream`), which
/// read nothing that can fail: only the walk's own `AlignmentError` comes out of it.
func inMemory<T>(_ body: () throws -> T) throws(AlignmentError) -> T {
  do { return try body() } catch let error as AlignmentError { throw error } catch {
    preconditionFailure("a series in memory streams without error: \(error)")
  }
}
