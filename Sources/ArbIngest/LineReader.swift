import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Splits a byte stream into lines without building a `String` per line.
///
/// Lines end at `\n`; a trailing `\r` (CRLF files) is dropped, and so is a UTF-8 byte
/// order mark at the start of the first line. A last line without a newline is still
/// a line. The buffer grows only when one line is longer than it.
struct LineReader {
  private let source: ByteSource
  private var buffer: UnsafeMutableRawBufferPointer

  /// Number of the first line, 1 unless the source starts inside a file.
  private let firstLineNumber: Int
  /// The source starts at the start of a file (where a byte order mark may be).
  private let atFileStart: Bool

  init(source: ByteSource, chunkSize: Int = 1 << 20, firstLineNumber: Int = 1, atFileStart: Bool = true) {
    self.source = source
    self.firstLineNumber = firstLineNumber
    self.atFileStart = atFileStart
    buffer = .allocate(byteCount: chunkSize, alignment: 64)
  }

  /// Frees the buffer. Call once when done.
  mutating func close() { buffer.deallocate() }

  /// Calls `body` with every line and its 1-based number, in order; returns the number
  /// of the last line.
  ///
  /// - Complexity: O(bytes); one `memchr` per line.
  @discardableResult
  mutating func forEachLine(
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(IngestError) -> Void
  ) throws(IngestError) -> Int {
    var start = 0
    var end = 0
    var lineNumber = firstLineNumber - 1
    var atEnd = false
    while true {
      // Hand out every complete line in [start, end).
      let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
      while start < end {
        guard let found = memchr(base + start, 10, end - start) else { break }
        let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
        lineNumber += 1
        try body(Self.trim(base + start, newline - start, first: lineNumber == 1 && atFileStart), lineNumber)
        start = newline + 1
      }
      if atEnd {
        if start < end {
          lineNumber += 1
          try body(Self.trim(base + start, end - start, first: lineNumber == 1 && atFileStart), lineNumber)
        }
        return lineNumber
      }
      // Keep the partial line, then refill behind it.
      let rest = end - start
      if rest > 0 && start > 0 { memmove(base, base + start, rest) }
      start = 0
      end = rest
      if end == buffer.count {
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 64)
        bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
        buffer.deallocate()
        buffer = bigger
      }
      let n: Int
      do {
        n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
      } catch {
        // A broken stream is reported at the line it broke in: the one after the last
        // complete line.
        var located = error
        located.position.line = lineNumber + 1
        located.position.column = 1
        throw located
      }
      if n == 0 { atEnd = true } else { end += n }
    }
  }

  /// The line without its trailing `\r`, and without a byte order mark if `first`.
  @inline(__always)
  static func trim(_ start: UnsafeMutablePointer<UInt8>, _ length: Int, first: Bool) -> UnsafeBufferPointer<UInt8> {
    var p = UnsafePointer(start)
    var n = length
    if n > 0 && p[n - 1] == 13 { n -= 1 }
    if first && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
      p += 3
      n -= 3
    }
    return UnsafeBufferPointer(start: p, count: n)
  }
}
