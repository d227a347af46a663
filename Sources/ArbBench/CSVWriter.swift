#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Buffered text output for the generated benchmark files: integers and fixed-point
/// decimals written as ASCII digits without `String` per value.
struct CSVWriter {
  private let fd: Int32
  private var out: [UInt8] = []

  init(path: String) throws {
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw BenchError("cannot write \(path)") }
    out.reserveCapacity(1 << 22)
  }

  mutating func text(_ bytes: [UInt8]) { out += bytes }

  mutating func byte(_ value: UInt8) { out.append(value) }

  /// A non-negative integer.
  mutating func int(_ value: Int64) {
    var digits = 1
    var limit: Int64 = 10
    while value >= limit && digits < 19 {
      digits += 1
      limit &*= 10
    }
    let end = out.count + digits
    out.append(contentsOf: repeatElement(48, count: digits))
    var v = value
    for k in stride(from: end - 1, through: end - digits, by: -1) {
      out[k] = UInt8(48 + v % 10)
      v /= 10
    }
  }

  /// `scaled / 10^decimals` with exactly `decimals` digits after the point.
  mutating func fixed(_ scaled: Int64, decimals: Int) {
    var unit: Int64 = 1
    for _ in 0..<decimals { unit *= 10 }
    int(scaled / unit)
    out.append(46)
    var fraction = scaled % unit
    let end = out.count + decimals
    out.append(contentsOf: repeatElement(48, count: decimals))
    for k in stride(from: end - 1, through: end - decimals, by: -1) {
      out[k] = UInt8(48 + fraction % 10)
      fraction /= 10
    }
  }

  /// Ends a row; writes the buffer out when it is nearly full.
  mutating func endRow() throws {
    out.append(10)
    if out.count > (1 << 22) - 512 { try flush() }
  }

  /// Writes what is buffered and closes the file.
  mutating func close() throws {
    try flush()
    _ = Glibc.close(fd)
  }

  private mutating func flush() throws {
    try out.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        guard n > 0 else { throw BenchError("write failed") }
        offset += n
      }
    }
    out.removeAll(keepingCapacity: true)
  }
}
