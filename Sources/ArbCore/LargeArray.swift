#if canImport(Glibc)
import Glibc
#endif

extension Array where Element: BitwiseCopyable {
  /// An array of at most `capacity` elements written by `fill`, which returns how many
  /// it initialized (a prefix of the buffer). No element is written twice: unlike
  /// `Array(repeating:count:)` nothing is zeroed first.
  ///
  /// A large buffer is asked to be backed by transparent huge pages before it is first
  /// touched: a column of ten million values then costs a few hundred page faults
  /// instead of tens of thousands.
  public init(largeCapacity capacity: Int, fill: (UnsafeMutableBufferPointer<Element>) throws -> Int) rethrows {
    try self.init(unsafeUninitializedCapacity: capacity) { buffer, initialized in
      adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
      initialized = try fill(buffer)
      precondition(initialized <= capacity, "filled \(initialized) of \(capacity) elements")
    }
  }
}

/// Pages of 2 MiB: the unit of a transparent huge page on x86-64 and arm64.
private let hugePage = 2 << 20

/// `madvise(MADV_HUGEPAGE)` over the whole huge pages inside `buffer` (none when it is
/// smaller than two). Advice only: where the kernel has no huge page the range keeps
/// ordinary pages, and nothing changes but speed.
private func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
  guard let base = buffer.baseAddress, buffer.count >= 2 * hugePage else { return }
  let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
  let end = (Int(bitPattern: base) + buffer.count) & ~(hugePage - 1)
  guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
  _ = madvise(pointer, end - start, MADV_HUGEPAGE)
}
