// The only file that imports zlib.
import ArbCore
internal import CZlib

/// zlib's `inflate` over a file's bytes, refilling its input a chunk at a time: the
/// one loop shared by the gzip and zip readers.
final class Inflater {
  let file: ByteSource
  /// The file's path, for messages.
  let path: String
  var stream = z_stream()
  /// The compressed bytes read so far and not yet consumed are `stream.next_in`.
  let input: UnsafeMutableRawBufferPointer
  private(set) var inputEnded = false
  private(set) var compressedRead = 0
  private var started = false

  init(file: ByteSource, path: String) {
    self.file = file
    self.path = path
    input = .allocate(byteCount: 1 << 18, alignment: 16)
  }

  deinit {
    if started { inflateEnd(&stream) }
    input.deallocate()
  }

  /// Starts inflating: `windowBits` 15 + 32 detects a gzip/zlib header, −15 is raw deflate.
  func start(windowBits: Int32) {
    let status = inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    precondition(status == Z_OK, "inflateInit2 failed with \(status)")
    started = true
  }

  /// Starts the next stream (another gzip member) with the same settings.
  func restart() { inflateReset(&stream) }

  /// Reads the next chunk of the file into `input`; sets `inputEnded` at its end.
  func refill() throws(IngestError) {
    let n = try file.read(into: input)
    compressedRead += n
    if n == 0 {
      inputEnded = true
    } else {
      stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
      stream.avail_in = UInt32(n)
    }
  }

  /// Counts `n` bytes read into `input` by the caller (a header read directly).
  func countRead(_ n: Int) { compressedRead += n }

  /// Whether compressed bytes remain, reading the next chunk if needed.
  func hasInput() throws(IngestError) -> Bool {
    if stream.avail_in == 0 && !inputEnded { try refill() }
    return stream.avail_in > 0
  }

  /// Inflates into `buffer` until it is full or the stream ends; returns the bytes
  /// written and whether the stream ended. Input that runs out mid-stream throws
  /// `truncated(compressedRead)`; data zlib rejects is `corruptCompressedStream`.
  func inflate(
    into buffer: UnsafeMutableRawBufferPointer, truncated: (Int) -> IngestError
  ) throws(IngestError) -> (count: Int, ended: Bool) {
    guard buffer.count > 0 else { return (0, false) }
    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
    stream.avail_out = UInt32(buffer.count)
    var ended = false
    while stream.avail_out > 0 && !ended {
      guard try hasInput() else { throw truncated(compressedRead) }
      let status = CZlib.inflate(&stream, Z_NO_FLUSH)
      switch status {
      case Z_OK, Z_BUF_ERROR: continue
      case Z_STREAM_END: ended = true
      default:
        let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        throw IngestError(.corruptCompressedStream(detail: message), at: SourcePosition(path: path, line: 0, column: 0))
      }
    }
    return (buffer.count - Int(stream.avail_out), ended)
  }

  /// An error at the file (LineReader places it at the line it broke in).
  func error(_ reason: IngestError.Reason) -> IngestError {
    IngestError(reason, at: SourcePosition(path: path, line: 0, column: 0))
  }
}

/// Streams the decompressed bytes of a gzip file (several members allowed) through
/// zlib's `inflate`, a chunk at a time: the whole file is never inflated in memory.
///
/// A stream that ends before its last member is complete is reported as
/// `truncatedCompressedStream`; bytes that zlib rejects as `corruptCompressedStream`.
final class GzipSource: ByteSource {
  private let inflater: Inflater
  var path: String { inflater.path }
  private var memberEnded = false

  init(source: ByteSource, path: String) {
    inflater = Inflater(file: source, path: path)
    // 15 + 32: maximum window, automatic gzip/zlib header detection.
    inflater.start(windowBits: 15 + 32)
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    var produced = 0
    while produced < buffer.count {
      if memberEnded {
        // Another gzip member may follow (concatenated files, as `cat a.gz b.gz` makes).
        guard try inflater.hasInput() else { break }
        inflater.restart()
        memberEnded = false
      }
      let (n, ended) = try inflater.inflate(into: UnsafeMutableRawBufferPointer(rebasing: buffer[produced...])) { [inflater] read in
        inflater.error(.truncatedCompressedStream(detail: "gzip data ends after \(read) bytes in the middle of a member"))
      }
      produced += n
      memberEnded = ended
    }
    return produced
  }
}

/// Streams the one entry of a zip archive (Binance public data zips hold exactly one
/// CSV) without extracting it: the local file header is read and skipped, then the
/// entry's raw deflate data is inflated a chunk at a time (a stored entry is copied
/// through). The deflate stream's own end marks the end of the entry, so entries with
/// a data descriptor (sizes 0 in the header) work. The header's CRC-32 is checked when
/// it has one, and so is its uncompressed size: an entry inflating past it stops there
/// (a zip bomb's header understates it, or the data is corrupt).
///
/// An archive of several files is refused (`severalZipEntries`, listing them) once the
/// first is read, rather than read as one: each file may have its own header line, and
/// which of them form one leg is for the user to say. What follows the last entry (the
/// central directory) is not read.
final class ZipSource: ByteSource {
  private let inflater: Inflater
  var path: String { inflater.path }
  private var headerRead = false
  private var inflating = false
  private var entryEnded = false
  /// Stored entries: bytes of the entry still to hand out.
  private var storedLeft = 0
  private var expectedCRC: UInt32? = nil
  /// The uncompressed size the header declares, when it has one (not a zip64 entry).
  private var declaredSize: Int? = nil
  private var written = 0
  private var crc: uLong = 0
  /// The first entry's name and general purpose flags.
  private var entryName = ""
  private var entryFlags = 0

  init(source: ByteSource, path: String) {
    inflater = Inflater(file: source, path: path)
  }

  private func error(_ reason: IngestError.Reason) -> IngestError { inflater.error(reason) }

  /// Reads the file into the inflater's input until it holds `count` bytes; `false`
  /// at end of file.
  private func fill(_ have: inout Int, to count: Int) throws(IngestError) -> Bool {
    while have < count {
      let n = try inflater.file.read(into: UnsafeMutableRawBufferPointer(rebasing: inflater.input[have...]))
      if n == 0 { return false }
      have += n
      inflater.countRead(n)
    }
    return true
  }

  /// Parses the local file header (signature `PK\3\4`, 30 bytes, then the name and
  /// the extra field) and sets up the entry's data, part of which is already read.
  private func readHeader() throws(IngestError) {
    var have = 0
    guard try fill(&have, to: 30) else {
      throw error(.truncatedCompressedStream(detail: "zip data ends after \(have) bytes inside the local file header"))
    }
    let bytes = UnsafeRawBufferPointer(inflater.input)
    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    guard u32(0) == 0x0403_4b50 else { throw error(.corruptCompressedStream(detail: "zip local file header signature not found")) }
    let flags = u16(6), method = u16(8)
    let dataStart = 30 + u16(26) + u16(28)
    entryFlags = flags
    guard flags & 1 == 0 else { throw error(.corruptCompressedStream(detail: "encrypted zip entries are not supported")) }
    guard dataStart <= inflater.input.count else { throw error(.corruptCompressedStream(detail: "zip local file header too long")) }
    if flags & 8 == 0 {
      expectedCRC = u32(14)
      // 0xFFFFFFFF: the size is in a zip64 extra field, not read here.
      if u32(22) != 0xFFFF_FFFF { declaredSize = Int(u32(22)) }
    }
    let compressedSize = Int(u32(18))
    guard try fill(&have, to: dataStart) else {
      throw error(.truncatedCompressedStream(detail: "zip data ends after \(have) bytes inside the local file header"))
    }
    entryName = String(decoding: bytes[30..<30 + u16(26)], as: UTF8.self)
    inflater.stream.next_in = (inflater.input.baseAddress! + dataStart).assumingMemoryBound(to: Bytef.self)
    inflater.stream.avail_in = UInt32(have - dataStart)
    switch method {
    case 8:
      // Negative window bits: raw deflate data, no zlib or gzip wrapper.
      inflater.start(windowBits: -15)
      inflating = true
    case 0:
      guard flags & 8 == 0 else { throw error(.corruptCompressedStream(detail: "stored zip entry without sizes in its header")) }
      storedLeft = compressedSize
    default:
      throw error(.corruptCompressedStream(detail: "zip compression method \(method) is not supported (only deflate and stored)"))
    }
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    if !headerRead {
      headerRead = true
      try readHeader()
    }
    guard buffer.count > 0, !entryEnded else { return 0 }
    let produced: Int
    if inflating {
      let (n, ended) = try inflater.inflate(into: buffer) { [inflater] read in
        inflater.error(.truncatedCompressedStream(detail: "zip data ends after \(read) bytes in the middle of the deflate stream"))
      }
      produced = n
      entryEnded = ended
    } else {
      produced = try copyStored(into: buffer)
    }
    written += produced
    if let declaredSize, written > declaredSize {
      throw error(.corruptCompressedStream(detail: "zip entry inflates past the \(declaredSize) bytes its header declares"))
    }
    if produced > 0 {
      crc = crc32(crc, buffer.baseAddress!.assumingMemoryBound(to: Bytef.self), UInt32(produced))
    }
    if entryEnded, let expectedCRC, UInt32(truncatingIfNeeded: crc) != expectedCRC {
      throw error(.corruptCompressedStream(detail: "zip entry CRC-32 does not match its header"))
    }
    if entryEnded {
      let others = try followingEntries()
      if !others.isEmpty { throw error(.severalZipEntries(names: [entryName] + others)) }
    }
    return produced
  }

  /// The names of the entries after the first, read from their local file headers;
  /// `…` ends the list where an entry's size is not in its header (it cannot be skipped
  /// without inflating it). Empty when the central directory (or the file's end) follows.
  private func followingEntries() throws(IngestError) -> [String] {
    // A data descriptor follows an entry without sizes in its header: CRC and sizes,
    // after an optional signature `PK\7\8`.
    if entryFlags & 8 != 0, let first = try take(4) {
      _ = try take(first == [0x50, 0x4b, 0x07, 0x08] ? 12 : 8)
    }
    var names: [String] = []
    while let header = try take(30), header.starts(with: [0x50, 0x4b, 0x03, 0x04]) {
      func u16(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 }
      guard let name = try take(u16(26)) else { break }
      names.append(String(decoding: name, as: UTF8.self))
      let compressedSize = u16(18) | u16(20) << 16
      guard u16(6) & 8 == 0, compressedSize != 0xFFFF_FFFF, try take(u16(28) + compressedSize, keeping: false) != nil else {
        names.append("…")
        break
      }
    }
    return names
  }

  /// The next `count` bytes of the file after the entry (empty when not `keeping`), or
  /// `nil` when it ends first.
  private func take(_ count: Int, keeping: Bool = true) throws(IngestError) -> [UInt8]? {
    var bytes: [UInt8] = []
    var left = count
    while left > 0 {
      guard try inflater.hasInput() else { return nil }
      let n = min(left, Int(inflater.stream.avail_in))
      if keeping { bytes.append(contentsOf: UnsafeBufferPointer(start: inflater.stream.next_in, count: n)) }
      inflater.stream.next_in += n
      inflater.stream.avail_in -= UInt32(n)
      left -= n
    }
    return bytes
  }

  private func copyStored(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    if storedLeft == 0 {
      entryEnded = true
      return 0
    }
    guard try inflater.hasInput() else {
      throw error(.truncatedCompressedStream(detail: "zip data ends after \(inflater.compressedRead) bytes, \(storedLeft) bytes short of the stored entry"))
    }
    let n = min(buffer.count, storedLeft, Int(inflater.stream.avail_in))
    buffer.baseAddress!.copyMemory(from: inflater.stream.next_in, byteCount: n)
    inflater.stream.next_in += n
    inflater.stream.avail_in -= UInt32(n)
    storedLeft -= n
    if storedLeft == 0 { entryEnded = true }
    return n
  }
}
