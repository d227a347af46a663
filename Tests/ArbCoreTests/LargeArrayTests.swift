import Testing

@testable import ArbCore

@Suite("Arrays filled in place")
struct LargeArrayTests {
  @Test("keeps exactly the elements filled, small and over the huge-page size", arguments: [0, 1, 1000, 3 << 20])
  func filled(count: Int) {
    let array = [Int64](largeCapacity: count + 10) { buffer in
      for k in 0..<count { buffer[k] = Int64(k) * 3 - 7 }
      return count
    }
    #expect(array.count == count)
    #expect(array.enumerated().allSatisfy { $0.element == Int64($0.offset) * 3 - 7 })
  }

  @Test func `an array filled in place grows like any other`() {
    var array = [Double](largeCapacity: 4) { buffer in
      buffer[0] = 1.5
      return 1
    }
    array.append(2.5)
    #expect(array == [1.5, 2.5])
  }
}
