/// 64-bit FNV-1a: a fast, stable checksum for telling whether bytes changed (not a
/// cryptographic hash).
public struct FNV1a64: Sendable {
  public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  /// Folds `bytes` into the checksum.
  public mutating func add(_ bytes: UnsafeRawBufferPointer) {
    var h = value
    for byte in bytes {
      h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    value = h
  }

  public mutating func add(_ text: String) {
    var text = text
    text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
  }

  /// Sixteen lower-case hex digits.
  public var hex: String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
