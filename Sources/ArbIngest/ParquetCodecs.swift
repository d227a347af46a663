// The only file that imports libsnappy, libbrotlidec and liblz4: the codecs of a Parquet
// page (with zlib and libzstd, also imported by GzipSource.swift and ZstdSource.swift),
// and zstd compression for the pages ArbKit writes.
internal import CBrotli
internal import CLz4
internal import CSnappy
internal import CZlib
internal import CZstd

/// The compression of a Parquet column chunk (`CompressionCodec` in parquet.thrift).
enum ParquetCodec: Int32 {
  case uncompressed = 0, snappy = 1, gzip = 2, lzo = 3, brotli = 4, lz4 = 5, zstd = 6, lz4Raw = 7

  var name: String {
    switch self {
    case .uncompressed: "UNCOMPRESSED"
    case .snappy: "SNAPPY"
    case .gzip: "GZIP"
    case .lzo: "LZO"
    case .brotli: "BROTLI"
    case .lz4: "LZ4"
    case .zstd: "ZSTD"
    case .lz4Raw: "LZ4_RAW"
    }
  }

  /// Decompresses the page `input` into `output`, whose size is the page's declared
  /// uncompressed size: a page that inflates to more or fewer bytes is an error, so no
  /// page ever writes past the buffer its header asked for.
  func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ParquetFault) {
    // A zero-length buffer may have no address; the codecs never touch it then.
    var one: UInt8 = 0
    try withUnsafeMutablePointer(to: &one) { (spare: UnsafeMutablePointer<UInt8>) throws(ParquetFault) in
      let source = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(spare)
      let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? spare
      try run(source, input.count, target, output.count)
    }
  }

  private func run(_ source: UnsafePointer<UInt8>, _ count: Int, _ target: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(ParquetFault) {
    let pastSize = ParquetFault("page decompresses past its declared size of \(capacity) bytes")
    let short = ParquetFault("page decompresses to fewer bytes than its declared size of \(capacity)")
    switch self {
    case .uncompressed:
      guard count == capacity else { throw ParquetFault("uncompressed page of \(count) bytes declares \(capacity)") }
      target.update(from: source, count: count)
    case .snappy:
      var length = 0
      let raw = UnsafeRawPointer(source).assumingMemoryBound(to: CChar.self)
      guard snappy_uncompressed_length(raw, count, &length) == SNAPPY_OK else { throw ParquetFault("corrupt SNAPPY page") }
      guard length <= capacity else { throw pastSize }
      guard length == capacity else { throw short }
      let status = snappy_uncompress(raw, count, UnsafeMutableRawPointer(target).assumingMemoryBound(to: CChar.self), &length)
      guard status == SNAPPY_OK, length == capacity else { throw ParquetFault("corrupt SNAPPY page") }
    case .gzip: try Self.inflate(source, count, target, capacity, pastSize: pastSize, short: short)
    case .zstd:
      let declared = ZSTD_getFrameContentSize(source, count)
      if declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared > UInt64(capacity) { throw pastSize }
      let n = ZSTD_decompress(target, capacity, source, count)
      if ZSTD_isError(n) != 0 { throw ParquetFault("corrupt ZSTD page: \(String(cString: ZSTD_getErrorName(n)))") }
      guard n == capacity else { throw short }
    case .brotli:
      guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { preconditionFailure("BrotliDecoderCreateInstance returned NULL (out of memory)") }
      defer { BrotliDecoderDestroyInstance(state) }
      var availableIn = count, nextIn: UnsafePointer<UInt8>? = source
      var availableOut = capacity, nextOut: UnsafeMutablePointer<UInt8>? = target
      let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
      switch result {
      case BROTLI_DECODER_RESULT_SUCCESS: guard availableOut == 0 else { throw short }
      case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: throw pastSize
      case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: throw ParquetFault("truncated BROTLI page")
      default: throw ParquetFault("corrupt BROTLI page: \(String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state))))")
      }
    case .lz4Raw:
      guard count <= Int(Int32.max), capacity <= Int(Int32.max) else { throw pastSize }
      let raw = UnsafeRawPointer(source).assumingMemoryBound(to: CChar.self)
      let n = LZ4_decompress_safe(raw, UnsafeMutableRawPointer(target).assumingMemoryBound(to: CChar.self), Int32(count), Int32(capacity))
      guard n >= 0 else { throw ParquetFault("corrupt LZ4_RAW page, or one that decompresses past its declared size of \(capacity) bytes") }
      guard Int(n) == capacity else { throw short }
    case .lzo, .lz4: throw ParquetFault("codec \(name) is not read (write the file with SNAPPY, GZIP, ZSTD, BROTLI or LZ4_RAW)")
    }
  }

  /// `bytes` as one zstd frame (level 3): a page of the `zstd` codec.
  static func zstdCompress(_ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
    let n = bytes.withUnsafeBytes { source in
      out.withUnsafeMutableBytes { target in ZSTD_compress(target.baseAddress, target.count, source.baseAddress, source.count, 3) }
    }
    precondition(ZSTD_isError(n) == 0, "ZSTD_compress failed: \(String(cString: ZSTD_getErrorName(n)))")
    out.removeLast(out.count - n)
    return out
  }

  /// A gzip (or zlib) stream through zlib's `inflate` into exactly `capacity` bytes.
  private static func inflate(
    _ source: UnsafePointer<UInt8>, _ count: Int, _ target: UnsafeMutablePointer<UInt8>, _ capacity: Int, pastSize: ParquetFault, short: ParquetFault
  ) throws(ParquetFault) {
    guard count <= Int(UInt32.max), capacity <= Int(UInt32.max) else { throw pastSize }
    var stream = z_stream()
    // 15 + 32: a gzip or a zlib header, detected.
    guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      preconditionFailure("inflateInit2 failed (out of memory)")
    }
    defer { inflateEnd(&stream) }
    stream.next_in = UnsafeMutablePointer(mutating: source)
    stream.avail_in = UInt32(count)
    stream.next_out = target
    stream.avail_out = UInt32(capacity)
    let status = CZlib.inflate(&stream, Z_FINISH)
    switch status {
    case Z_STREAM_END: guard stream.avail_out == 0 else { throw short }
    case Z_BUF_ERROR where stream.avail_out == 0: throw pastSize
    case Z_BUF_ERROR: throw ParquetFault("truncated GZIP page")
    default: throw ParquetFault("corrupt GZIP page: \(stream.msg.map { String(cString: $0) } ?? "status \(status)")")
    }
  }
}
