import Dispatch
import Synchronization

/// `body(0..<count)` run concurrently, results in order; the first error (in order)
/// is rethrown.
public func concurrently<T: Sendable, Failure: Error>(_ count: Int, _ body: @Sendable (Int) throws(Failure) -> T) throws(Failure) -> [T] {
  let results = Mutex<[Result<T, Failure>?]>(Array(repeating: nil, count: count))
  DispatchQueue.concurrentPerform(iterations: count) { k in
    let result = Result { () throws(Failure) in try body(k) }
    results.withLock { $0[k] = result }
  }
  return try results.withLock { all throws(Failure) in try all.map { result throws(Failure) in try result!.get() } }
}
