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
