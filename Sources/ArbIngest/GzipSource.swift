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
