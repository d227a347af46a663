import ArbCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Splits a byte stream into lines without building a `String` per line.
///
/// Lines end at `\n`; a trailing `\r` (CRLF files) is dropped, and so is a UTF-8 byte
/// order mark at the start of the first line. A last line without a newline is still
/// a line. The buffer grows only when one line is longer than it, and never past
/// `maxLineBytes` + 1: a longer line (a file with no newline, a decompression bomb of
/// zeros) is `IngestError.Reason.lineTooLong`, not an unbounded allocation.
struct LineReader {
  private let source: ByteSource
  private var buffer: UnsafeMutableRawBufferPointer

  /// The source starts at the start of a file (where a byte order mark may be).
  private let atFileStart: Bool
  /// The longest line accepted, in bytes without its newline.
  private let maxLineBytes: Int
  /// The unread bytes of the buffer are `[start, end)`.
  private var start = 0
  private var end = 0
  /// The number of the last line handed out.
  private var lineNumber: Int
  /// The source has no more bytes; `finished`: nor the buffer any more lines.
  private var atEnd = false
  private var finished = false

  init(
    source: ByteSource, chunkSize: Int = 1 << 20, firstLineNumber: Int = 1, atFileStart: Bool = true,
    maxLineBytes: Int = IngestOptions().maxLineBytes
  ) {
    self.source = source
    self.maxLineBytes = maxLineBytes
    lineNumber = firstLineNumber - 1
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
    while try read(while: { line, number throws(IngestError) in
      try body(line, number)
      return true
    }) {}
    return lineNumber
  }

  /// Hands the next lines and their 1-based numbers to `body`, in order, until it returns
  /// `false` (that line is consumed) or the source ends; the next call goes on from the
  /// line after. Returns whether lines may remain: `false` once the last was handed out.
  mutating func read(
    while body: (UnsafeBufferPointer<UInt8>, Int) throws(IngestError) -> Bool
  ) throws(IngestError) -> Bool {
    if finished { return false }
    var start = self.start
    var end = self.end
    var lineNumber = self.lineNumber
    defer {
      self.start = start
      self.end = end
      self.lineNumber = lineNumber
    }
    while true {
      // Hand out every complete line in [start, end).
      let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
      while start < end {
        guard let found = memchr(base + start, 10, end - start) else { break }
        let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
        lineNumber += 1
        if newline - start > maxLineBytes { throw tooLong(line: lineNumber) }
        let more = try body(Self.trim(base + start, newline - start, first: lineNumber == 1 && atFileStart), lineNumber)
        start = newline + 1
        if !more { return true }
      }
      if atEnd {
        finished = true
        if start < end {
          lineNumber += 1
          if end - start > maxLineBytes { throw tooLong(line: lineNumber) }
          let last = Self.trim(base + start, end - start, first: lineNumber == 1 && atFileStart)
          start = end
          _ = try body(last, lineNumber)
        }
        return false
      }
      // Keep the partial line, then refill behind it.
      let rest = end - start
      if rest > 0 && start > 0 { memmove(base, base + start, rest) }
      start = 0
      end = rest
      if end == buffer.count {
        // The partial line fills the buffer: it is longer than the limit once the buffer
        // holds limit + 1 bytes (room for a longest line's newline).
        if end > maxLineBytes { throw tooLong(line: lineNumber + 1) }
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(buffer.count * 2, maxLineBytes + 1), alignment: 64)
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

  private func tooLong(line: Int) -> IngestError {
    IngestError(.lineTooLong(limit: maxLineBytes), at: SourcePosition(path: source.path, line: line, column: maxLineBytes + 1))
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
