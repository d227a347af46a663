internal import CZlib
internal import CZstd
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How finished recording files are compressed.
public enum RecordCompression: String, Sendable, CaseIterable {
  case zstd, gzip

  /// The suffix added to a finished file's name.
  package var suffix: String { self == .zstd ? ".zst" : ".gz" }

  /// Compresses the file open at `input` into `output` (both file descriptors),
  /// reading and writing 1 MiB at a time: zstd level 3 with a content checksum, or
  /// gzip (deflate level 6, RFC 1952). Throws the failing call's message.
  func compress(input: Int32, output: Int32) throws(RecordError) {
    let chunk = 1 << 20
    let inBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    let outBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer {
      inBuffer.deallocate()
      outBuffer.deallocate()
    }
    switch self {
    case .zstd: try Self.zstd(input, output, inBuffer, outBuffer)
    case .gzip: try Self.gzip(input, output, inBuffer, outBuffer)
    }
  }

  private static func zstd(
    _ input: Int32, _ output: Int32, _ inBuffer: UnsafeMutableRawBufferPointer, _ outBuffer: UnsafeMutableRawBufferPointer
  ) throws(RecordError) {
    guard let context = ZSTD_createCCtx() else { throw RecordError("zstd: cannot allocate a compression context", isIO: true) }
    defer { ZSTD_freeCCtx(context) }
    ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3)
    ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
    var atEnd = false
    while !atEnd {
      let n = try readSome(input, inBuffer)
      atEnd = n == 0
      var source = ZSTD_inBuffer(src: inBuffer.baseAddress, size: n, pos: 0)
      var finished = false
      while !finished {
        var sink = ZSTD_outBuffer(dst: outBuffer.baseAddress, size: outBuffer.count, pos: 0)
        let left = ZSTD_compressStream2(context, &sink, &source, atEnd ? ZSTD_e_end : ZSTD_e_continue)
        if ZSTD_isError(left) != 0 { throw RecordError("zstd: \(String(cString: ZSTD_getErrorName(left)))", isIO: true) }
        try writeAll(output, UnsafeRawBufferPointer(rebasing: outBuffer[0..<sink.pos]))
        finished = atEnd ? left == 0 : source.pos == source.size
      }
    }
  }

  private static func gzip(
    _ input: Int32, _ output: Int32, _ inBuffer: UnsafeMutableRawBufferPointer, _ outBuffer: UnsafeMutableRawBufferPointer
  ) throws(RecordError) {
    var stream = z_stream()
    // windowBits 15 + 16: a gzip wrapper instead of zlib's.
    guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw RecordError("gzip: cannot start deflate", isIO: true)
    }
    defer { deflateEnd(&stream) }
    var atEnd = false
    while !atEnd {
      let n = try readSome(input, inBuffer)
      atEnd = n == 0
      stream.next_in = inBuffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
      stream.avail_in = uInt(n)
      var status = Z_OK
      repeat {
        stream.next_out = outBuffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(outBuffer.count)
        status = deflate(&stream, atEnd ? Z_FINISH : Z_NO_FLUSH)
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw RecordError("gzip: deflate failed (\(status))", isIO: true) }
        try writeAll(output, UnsafeRawBufferPointer(rebasing: outBuffer[0..<(outBuffer.count - Int(stream.avail_out))]))
      } while atEnd ? status != Z_STREAM_END : stream.avail_out == 0
    }
  }

  private static func readSome(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(RecordError) -> Int {
    while true {
      let n = read(descriptor, buffer.baseAddress, buffer.count)
      if n >= 0 { return n }
      if errno != EINTR { throw RecordError("read failed: \(String(cString: strerror(errno)))", isIO: true) }
    }
  }
}

/// Writes every byte of `bytes` to `descriptor`, retrying short writes and `EINTR`.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(RecordError) {
  var offset = 0
  while offset < bytes.count {
    let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
    if n > 0 {
      offset += n
    } else if n < 0 && errno == EINTR {
      continue
    } else {
      throw RecordError("write failed: \(String(cString: strerror(errno)))", isIO: true)
    }
  }
}

/// Writes every byte of `bytes` to `descriptor`.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(RecordError) {
  try bytes.withUnsafeBytes { buffer in Result { () throws(RecordError) in try writeAll(descriptor, buffer) } }.get()
}
