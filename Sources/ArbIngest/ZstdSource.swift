// The only file that imports libzstd.
import ArbCore
internal import CZstd

/// Streams the decompressed bytes of a zstd file (several frames allowed, as
/// `cat a.zst b.zst` makes) through libzstd's `ZSTD_decompressStream`, a chunk at a
/// time: the whole file is never decompressed in memory.
///
/// A stream that ends before its last frame is complete is reported as
/// `truncatedCompressedStream`; bytes that libzstd rejects (bad block, wrong content
/// checksum, trailing bytes that are not a frame) as `corruptCompressedStream` with
/// `ZSTD_getErrorName`'s text. Frames whose window exceeds libzstd's default limit
/// (128 MiB, `zstd --long=31` output) are rejected the same way.
final class ZstdSource: ByteSource {
  private let file: ByteSource
  let path: String
  /// The `ZSTD_DStream *` (an opaque C type).
  private let stream: OpaquePointer
  private var input: UnsafeMutableRawBufferPointer
  private var inBuffer = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
  private var inputEnded = false
  /// No frame is open: none started yet, or the last one decoded and fully flushed.
  private var frameEnded = true
  private var compressedRead = 0

  init(source: ByteSource, path: String) {
    file = source
    self.path = path
    guard let created = ZSTD_createDStream() else { preconditionFailure("ZSTD_createDStream returned NULL (out of memory)") }
    stream = created
    let status = ZSTD_initDStream(stream)
    precondition(ZSTD_isError(status) == 0, "ZSTD_initDStream failed: \(String(cString: ZSTD_getErrorName(status)))")
    // libzstd's recommended input size (one block plus its header).
    input = .allocate(byteCount: max(ZSTD_DStreamInSize(), 1 << 16), alignment: 16)
  }

  deinit {
    ZSTD_freeDStream(stream)
    input.deallocate()
  }

  private func error(_ reason: IngestError.Reason) -> IngestError {
    IngestError(reason, at: SourcePosition(path: path, line: 0, column: 0))
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws(IngestError) -> Int {
    guard buffer.count > 0 else { return 0 }
    var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
    while output.pos < output.size {
      if inBuffer.pos == inBuffer.size && !inputEnded {
        let n = try file.read(into: input)
        compressedRead += n
        if n == 0 {
          inputEnded = true
        } else {
          inBuffer = ZSTD_inBuffer(src: UnsafeRawPointer(input.baseAddress), size: n, pos: 0)
        }
      }
      let drained = inBuffer.pos == inBuffer.size && inputEnded
      if drained && frameEnded { break }
      let produced = output.pos
      let hint = ZSTD_decompressStream(stream, &output, &inBuffer)
      if ZSTD_isError(hint) != 0 {
        throw error(.corruptCompressedStream(detail: String(cString: ZSTD_getErrorName(hint))))
      }
      // 0: the frame is decoded and flushed; the next call starts a new frame.
      frameEnded = hint == 0
      if drained && !frameEnded && output.pos == produced {
        // No input left and nothing more to flush, yet the frame is not complete.
        throw error(.truncatedCompressedStream(detail: "zstd data ends after \(compressedRead) bytes in the middle of a frame"))
      }
    }
    return output.pos
  }
}
