// The only file that imports zlib.
import ArbCore
internal import CZlib

/// Streams the decompressed bytes of a gzip file (several members allowed) through
/// zlib's `inflate`, a chunk at a time: the whole file is never inflated in memory.
///
/// A stream that ends before its last member is complete is reported as
/// `truncatedCompressedStream`; bytes that zlib rejects as `corruptCompressedStream`.
final class GzipSource: ByteSource {
  private let file: FileSource
  private var stream = z_stream()
  private var input: UnsafeMutableRawBufferPointer
  private var inputEnded = false
  private var memberEnded = false
  private var compressedRead = 0

  init(file: FileSource) {
    self.file = file
    input = .allocate(byteCount: 1 << 18, alignment: 16)
    // 15 + 32: maximum window, automatic gzip/zlib header detection.
    let status = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
    precondition(status == Z_OK, "inflateInit2 failed with \(status)")
  }

  deinit {
    inflateEnd(&stream)
    input.deallocate()
  }

  private func error(_ reason: IngestError.Reason) -> IngestError {
    IngestError(reason, at: SourcePosition(path: file.path, line: 0, column: 0))
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    guard buffer.count > 0 else { return 0 }
    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
    stream.avail_out = UInt32(buffer.count)
    while stream.avail_out > 0 {
      if stream.avail_in == 0 && !inputEnded {
        let n = try file.read(into: input)
        compressedRead += n
        if n == 0 {
          inputEnded = true
        } else {
          stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
          stream.avail_in = UInt32(n)
        }
      }
      if stream.avail_in == 0 && inputEnded {
        if memberEnded { break }
        throw error(.truncatedCompressedStream(detail: "gzip data ends after \(compressedRead) bytes in the middle of a member"))
      }
      if memberEnded {
        // Another gzip member follows (concatenated files, as `cat a.gz b.gz` makes).
        inflateReset(&stream)
        memberEnded = false
      }
      let status = inflate(&stream, Z_NO_FLUSH)
      switch status {
      case Z_OK, Z_BUF_ERROR:
        continue
      case Z_STREAM_END:
        memberEnded = true
      default:
        let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        throw error(.corruptCompressedStream(detail: message))
      }
    }
    return buffer.count - Int(stream.avail_out)
  }
}

/// Streams the one entry of a zip archive (Binance public data zips hold exactly one
/// CSV) without extracting it: the local file header is read and skipped, then the
/// entry's raw deflate data is inflated a chunk at a time (a stored entry is copied
/// through). The deflate stream's own end marks the end of the entry, so entries with
/// a data descriptor (sizes 0 in the header) work; what follows (central directory) is
/// never read. The header's CRC-32 is checked when it has one.
final class ZipSource: ByteSource {
  private let file: FileSource
  private var stream = z_stream()
  private var input: UnsafeMutableRawBufferPointer
  private var headerRead = false
  private var inflating = false
  private var inputEnded = false
  private var entryEnded = false
  private var compressedRead = 0
  /// Stored entries: bytes of the entry still to hand out.
  private var storedLeft = 0
  private var expectedCRC: UInt32? = nil
  private var crc: uLong = 0

  init(file: FileSource) {
    self.file = file
    input = .allocate(byteCount: 1 << 18, alignment: 16)
  }

  deinit {
    if inflating { inflateEnd(&stream) }
    input.deallocate()
  }

  private func error(_ reason: IngestError.Reason) -> IngestError {
    IngestError(reason, at: SourcePosition(path: file.path, line: 0, column: 0))
  }

  /// Reads the file into `input` until it holds `count` bytes; `false` at end of file.
  private func fill(_ have: inout Int, to count: Int) throws(IngestError) -> Bool {
    while have < count {
      let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: input[have...]))
      if n == 0 { return false }
      have += n
      compressedRead += n
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
    let bytes = UnsafeRawBufferPointer(input)
    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    guard u32(0) == 0x0403_4b50 else { throw error(.corruptCompressedStream(detail: "zip local file header signature not found")) }
    let flags = u16(6), method = u16(8)
    let dataStart = 30 + u16(26) + u16(28)
    guard flags & 1 == 0 else { throw error(.corruptCompressedStream(detail: "encrypted zip entries are not supported")) }
    guard dataStart <= input.count else { throw error(.corruptCompressedStream(detail: "zip local file header too long")) }
    if flags & 8 == 0 { expectedCRC = u32(14) }
    let compressedSize = Int(u32(18))
    guard try fill(&have, to: dataStart) else {
      throw error(.truncatedCompressedStream(detail: "zip data ends after \(have) bytes inside the local file header"))
    }
    stream.next_in = (input.baseAddress! + dataStart).assumingMemoryBound(to: Bytef.self)
    stream.avail_in = UInt32(have - dataStart)
    switch method {
    case 8:
      // Negative window bits: raw deflate data, no zlib or gzip wrapper.
      let status = inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
      precondition(status == Z_OK, "inflateInit2 failed with \(status)")
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
    let produced = inflating ? try inflateSome(into: buffer) : try copyStored(into: buffer)
    if produced > 0 {
      crc = crc32(crc, buffer.baseAddress!.assumingMemoryBound(to: Bytef.self), UInt32(produced))
    }
    if entryEnded, let expectedCRC, UInt32(truncatingIfNeeded: crc) != expectedCRC {
      throw error(.corruptCompressedStream(detail: "zip entry CRC-32 does not match its header"))
    }
    return produced
  }

  private func refill() throws(IngestError) {
    let n = try file.read(into: input)
    compressedRead += n
    if n == 0 {
      inputEnded = true
    } else {
      stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
      stream.avail_in = UInt32(n)
    }
  }

  private func copyStored(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    if storedLeft == 0 {
      entryEnded = true
      return 0
    }
    if stream.avail_in == 0 { try refill() }
    if inputEnded {
      throw error(.truncatedCompressedStream(detail: "zip data ends after \(compressedRead) bytes, \(storedLeft) bytes short of the stored entry"))
    }
    let n = min(buffer.count, storedLeft, Int(stream.avail_in))
    buffer.baseAddress!.copyMemory(from: stream.next_in, byteCount: n)
    stream.next_in += n
    stream.avail_in -= UInt32(n)
    storedLeft -= n
    if storedLeft == 0 { entryEnded = true }
    return n
  }

  private func inflateSome(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
    stream.avail_out = UInt32(buffer.count)
    while stream.avail_out > 0 && !entryEnded {
      if stream.avail_in == 0 && !inputEnded { try refill() }
      if stream.avail_in == 0 && inputEnded {
        throw error(.truncatedCompressedStream(detail: "zip data ends after \(compressedRead) bytes in the middle of the deflate stream"))
      }
      let status = inflate(&stream, Z_NO_FLUSH)
      switch status {
      case Z_OK, Z_BUF_ERROR:
        continue
      case Z_STREAM_END:
        entryEnded = true
      default:
        let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        throw error(.corruptCompressedStream(detail: message))
      }
    }
    return buffer.count - Int(stream.avail_out)
  }
}
