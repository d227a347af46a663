import ArbIngest

/// The end every partial shares (`PremiumPartial`, `BoardPartial`): its metadata as
/// JSON, the JSON's xxHash64 and length (UInt64, little-endian), then the 8 bytes of
/// the layout it starts with too.
enum PartialTrailer {

  /// `json` closed by its checksum, length and `magic`.
  static func bytes(_ json: [UInt8], magic: [UInt8]) -> [UInt8] {
    var tail = json
    var hash = json.withUnsafeBytes { XXHash64.hash($0) }.littleEndian
    var length = UInt64(json.count).littleEndian
    withUnsafeBytes(of: &hash) { tail.append(contentsOf: $0) }
    withUnsafeBytes(of: &length) { tail.append(contentsOf: $0) }
    return tail + magic
  }

  /// Where the metadata JSON lies at the end of `bytes` (of the file `path`), which
  /// start with `magic`: the records end where it starts. `kind` names what makes such
  /// partials, for a file that is none.
  /// - Throws: `PartialError` for bytes that do not start and end as such a partial does.
  static func json(_ bytes: UnsafeRawBufferPointer, path: String, magic: [UInt8], of kind: String) throws(PartialError) -> Range<Int> {
    func corrupt(_ reason: String) -> PartialError { PartialError(path: path, reason: reason) }
    guard bytes.count >= 8, Array(bytes[0..<7]) == Array(magic.prefix(7)) else { throw corrupt("not a partial of \(kind)") }
    guard Array(bytes[0..<8]) == magic else {
      throw corrupt(
        "a partial of layout \(String(decoding: bytes[0..<8], as: UTF8.self)), this arbkit reads \(String(decoding: magic, as: UTF8.self)): make the shards again"
      )
    }
    guard bytes.count >= 32 else { throw corrupt("truncated: it does not end as a partial does") }
    guard Array(bytes[(bytes.count - 8)...]) == magic else { throw corrupt("truncated: it does not end as a partial does") }
    let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 16, as: UInt64.self))
    guard let length = Int(exactly: stored), length <= bytes.count - 32 else { throw corrupt("its metadata length \(stored) exceeds the file") }
    let start = bytes.count - 24 - length
    let hash = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 24, as: UInt64.self))
    guard XXHash64.hash(UnsafeRawBufferPointer(rebasing: bytes[start..<(bytes.count - 24)])) == hash else {
      throw corrupt("its metadata is damaged (checksum)")
    }
    return start..<(bytes.count - 24)
  }
}
