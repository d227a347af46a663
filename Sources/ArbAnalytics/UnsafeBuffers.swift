#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Calls `body` with a buffer pointer to every array in `arrays`, all valid at once
/// (nested `withUnsafeBufferPointer` calls, one per array).
func withUnsafeBuffers<Element, Result>(
  _ arrays: [[Element]], _ body: ([UnsafeBufferPointer<Element>]) throws -> Result
) rethrows -> Result {
  var buffers: [UnsafeBufferPointer<Element>] = []
  buffers.reserveCapacity(arrays.count)
  func nest(_ k: Int) throws -> Result {
    if k == arrays.count { return try body(buffers) }
    return try arrays[k].withUnsafeBufferPointer { buffer in
      buffers.append(buffer)
      return try nest(k + 1)
    }
  }
  return try nest(0)
}

/// Moves `count` points of `column`, `width` elements each, from point `from` down to
/// point `to` (the ranges may overlap): how a walk in two halves closes the gap
/// between the first half's points and the second's.
func movePoints<T>(_ column: UnsafeMutableBufferPointer<T>, from: Int, count: Int, to: Int, width: Int = 1) {
  guard count > 0 && from != to else { return }
  memmove(column.baseAddress! + to * width, column.baseAddress! + from * width, count * width * MemoryLayout<T>.stride)
}
