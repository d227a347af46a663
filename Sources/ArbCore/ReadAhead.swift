import Dispatch
import Foundation
import Synchronization

/// A thread that fills slots in turn ahead of a caller who reads them in the same
/// turn: what lets a stream's next chunk be made on one core while the caller works on
/// the one before (`PrefetchedQuoteStream`, `PremiumPoints.forEachChunk`).
///
/// The semaphores order every access: the thread writes a slot only between a free
/// slot and `take` returning it; the caller reads it only between `take` and
/// `release`. The `fill` closure alone touches the source it reads, on the thread,
/// until the end.
package final class ReadAhead<Slot: AnyObject>: @unchecked Sendable {
  /// The slots, filled and read in turn (`take` returns their indices in order).
  package let slots: [Slot]
  /// What `fill` threw, set before the slot that ends the reading is handed over.
  package private(set) var failure: (any Error)? = nil
  private let fill: (Slot) throws -> Bool
  private let filled = DispatchSemaphore(value: 0)
  private let free: DispatchSemaphore
  private let finished = DispatchSemaphore(value: 0)
  private let stopping = Mutex(false)
  /// The slot `take` returns next.
  private var next = 0
  /// Per slot, whether its last fill put something in it (a buffer: the thread writes
  /// one slot's flag while the caller reads another's).
  private let holds: UnsafeMutableBufferPointer<Bool>

  /// Starts a thread named `name` that calls `fill` on each free slot in turn; `fill`
  /// returns `false` when it put nothing in the slot because the source has ended. A
  /// slot whose `fill` threw or returned `false` is handed over as the last.
  package init(slots: [Slot], name: String, fill: @escaping (Slot) throws -> Bool) {
    precondition(slots.count > 1, "reading ahead needs two slots or more")
    self.slots = slots
    self.fill = fill
    holds = .allocate(capacity: slots.count)
    holds.initialize(repeating: false)
    // Created at 0 and signalled: libdispatch refuses to dispose of a semaphore whose
    // count is below the value it was created with.
    free = DispatchSemaphore(value: 0)
    for _ in slots { free.signal() }
    let thread = Thread { [self] in produce() }
    thread.name = name
    thread.start()
  }

  /// Waits for the next slot; `nil` once the source has ended (then `failure` tells
  /// whether it failed).
  package func take() -> Slot? {
    filled.wait()
    let k = next
    next = (k + 1) % slots.count
    return holds[k] ? slots[k] : nil
  }

  deinit { holds.deallocate() }

  /// The caller is done with the slot `take` returned last.
  package func release() { free.signal() }

  /// Ends the thread (it may be waiting for a free slot) and waits for it; call once.
  package func stop() {
    stopping.withLock { $0 = true }
    free.signal()
    finished.wait()
  }

  private func produce() {
    defer { finished.signal() }
    var k = 0
    while true {
      free.wait()
      if stopping.withLock({ $0 }) { return }
      var held = false
      do { held = try fill(slots[k]) } catch { failure = error }
      holds[k] = held
      filled.signal()
      if !held { return }
      k = (k + 1) % slots.count
    }
  }
}
