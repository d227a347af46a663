import ArbAnalytics
import ArbCore
import ArbIngest
import Foundation

/// The partial result of one shard of a premium run split by time (`arbkit premium …
/// --shard I/N --out PATH`): the points of the premium series the shard owns, as
/// `PremiumStream` made them, and what a merge needs to report the run — the command
/// line, each leg's quotes in the shard's days, each store's checksum.
///
/// `arbkit merge` replays the points of every shard, in order, through the analysis in
/// the chunks the unsharded run uses, so that its output is the unsharded run's byte
/// for byte. Layout (little-endian; docs/formats.md, "Premium partial"): the 8 bytes
/// `ARBKPPT1`; records of `n` points, each `n` (Int64), then `time`, `duration` (Int64),
/// `mid`, `exec` (Double), then `valid`, `rich`, `cheap`, `top`, `bottom` (one byte
/// each), then with `--series` each point's quotes (`2 × quoteLegs` Doubles, bids then
/// asks), zero-padded to 8 bytes; the JSON `Meta`; its length (UInt64); `ARBKPPT1`.
public enum PremiumPartial {
  static let magic = Array("ARBKPPT1".utf8)

  /// What a partial says of itself (its JSON, keys in snake case).
  public struct Meta: Codable, Equatable, Sendable {
    public var version = 1
    /// The command's arguments without `--shard` and `--out`: the same in every shard.
    public var arguments: [String]
    /// This shard, `1…shards`.
    public var shard: Int
    public var shards: Int
    /// The points the shard owns: `[from, to)` in µs, an absent end open.
    public var fromUs: Int64?
    public var toUs: Int64?
    public var points: Int
    public var validPoints: Int
    /// The legs whose quotes every point carries (for `--series`), else 0.
    public var quoteLegs: Int
    /// Per leg, in the order of the arguments.
    public var legs: [Leg]

    /// A leg's quotes in the shard's days, and the store it was read from.
    public struct Leg: Codable, Equatable, Sendable {
      public var store: String
      /// xxHash64 of the store's `store.json`, hex: the store must not change between shards.
      public var storeChecksum: String
      public var rows: Int
      public var firstTsUs: Int64?
      public var lastTsUs: Int64?

      public init(store: String, storeChecksum: String, span: RowSpan) {
        (self.store, self.storeChecksum) = (store, storeChecksum)
        (rows, firstTsUs, lastTsUs) = (span.rows, span.firstTime, span.lastTime)
      }

      public var span: RowSpan { RowSpan(rows: rows, firstTime: firstTsUs, lastTime: lastTsUs) }
    }

    public init(arguments: [String], shard: TimeShard, points: Int, validPoints: Int, quoteLegs: Int, legs: [Leg]) {
      self.arguments = arguments
      (self.shard, shards) = (shard.index, shard.count)
      (fromUs, toUs) = (shard.owned.from, shard.owned.to)
      (self.points, self.validPoints, self.quoteLegs, self.legs) = (points, validPoints, quoteLegs, legs)
    }
  }

  /// The checksum a partial records of the store in `path`.
  /// - Throws: `FileError` when its `store.json` cannot be read.
  public static func storeChecksum(_ path: String) throws(FileError) -> String {
    let manifest = try MappedFile(path: path + "/store.json")
    return String(manifest.withBytes(XXHash64.hash), radix: 16)
  }

  /// The `Meta` of the partial at `path`, read from its end alone.
  /// - Throws: `PartialError` for a file that is not a partial; `FileError`.
  public static func meta(path: String) throws -> Meta {
    try MappedFile(path: path, readAhead: false).withBytes { bytes in try trailer(bytes, path: path).meta }
  }

  /// The `Meta` at the end of the partial `bytes` (of the file `path`), and the offset
  /// at which it starts (where the records end).
  /// - Throws: `PartialError` for bytes that do not start and end as a partial does.
  static func trailer(_ bytes: UnsafeRawBufferPointer, path: String) throws(PartialError) -> (meta: Meta, start: Int) {
    func corrupt(_ reason: String) -> PartialError { PartialError(path: path, reason: reason) }
    guard bytes.count >= 24, Array(bytes[0..<8]) == magic else { throw corrupt("not a partial of arbkit premium --shard") }
    guard Array(bytes[(bytes.count - 8)...]) == magic else { throw corrupt("truncated: it does not end as a partial does") }
    let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 16, as: UInt64.self))
    guard let length = Int(exactly: stored), length <= bytes.count - 24 else { throw corrupt("its metadata length \(stored) exceeds the file") }
    let start = bytes.count - 16 - length
    return (try decode(Data(bytes[start..<(bytes.count - 16)]), path: path), start)
  }

  /// `Meta` from its JSON.
  static func decode(_ json: Data, path: String) throws(PartialError) -> Meta {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    guard let meta = try? decoder.decode(Meta.self, from: json) else { throw PartialError(path: path, reason: "unreadable metadata") }
    guard meta.version == 1 else { throw PartialError(path: path, reason: "partial version \(meta.version), this arbkit reads version 1") }
    guard meta.shards >= 1, (1...meta.shards).contains(meta.shard) else { throw PartialError(path: path, reason: "names shard \(meta.shard)/\(meta.shards)") }
    guard meta.quoteLegs == 0 || meta.quoteLegs == meta.legs.count else {
      throw PartialError(path: path, reason: "carries the quotes of \(meta.quoteLegs) of its \(meta.legs.count) legs")
    }
    return meta
  }

  /// Bytes of a record of `count` points carrying the quotes of `quoteLegs` legs.
  static func recordSize(_ count: Int, quoteLegs: Int) -> Int { (8 + (37 + 16 * quoteLegs) * count + 7) / 8 * 8 }

  /// Whether the file at `path` starts as a partial does (unreadable: `false`).
  public static func isPartial(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: magic.count)).map(Array.init) == magic
  }
}

/// Writes a partial (`PremiumPartial`) all or nothing: the points as the shard makes
/// them, the `Meta` at `commit`.
public final class PremiumPartialWriter {
  private let file: AtomicFile
  /// Points written so far, and the valid ones.
  public private(set) var points = 0
  public private(set) var validPoints = 0
  private var record: [UInt8] = []
  /// The legs whose quotes each point carries, else 0.
  private let quoteLegs: Int

  /// - Parameter quoteLegs: write each point's quotes of this many legs (the stream keeps
  ///   them), for `--series`; 0 for none.
  /// - Throws: `FileError.unwritable`.
  public init(path: String, quoteLegs: Int) throws(FileError) {
    self.quoteLegs = quoteLegs
    file = try AtomicFile(path: path)
    try file.write(String(decoding: PremiumPartial.magic, as: UTF8.self))
  }

  /// Writes the points of `premium` that `owned` holds, reading no further than the first
  /// point past it (whose time gives the last owned point its duration).
  /// - Throws: what `premium` or the file throws.
  public func write(_ premium: PremiumStream, owned: TimeWindow) throws {
    while let chunk = try premium.next() {
      let kept = owned.rows(of: chunk.time)
      try append(chunk, rows: kept)
      if kept.upperBound < chunk.count { return }
    }
  }

  /// Appends the points `rows` of `chunk`.
  private func append(_ chunk: PremiumChunk, rows: Range<Int>) throws(FileError) {
    guard !rows.isEmpty else { return }
    record.removeAll(keepingCapacity: true)
    var count = Int64(rows.count).littleEndian
    withUnsafeBytes(of: &count) { record.append(contentsOf: $0) }
    func add<T>(_ column: UnsafeBufferPointer<T>) { record.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: column[rows]))) }
    add(chunk.time)
    add(chunk.duration)
    add(chunk.mid)
    add(chunk.exec)
    // A `Bool` is stored as one byte, 0 or 1.
    add(chunk.valid)
    for column in [chunk.rich, chunk.cheap, chunk.top, chunk.bottom] { add(column) }
    if quoteLegs > 0 {
      let width = 2 * quoteLegs
      record.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chunk.quotes[(rows.lowerBound * width)..<(rows.upperBound * width)])))
    }
    record.append(contentsOf: repeatElement(0, count: (8 - record.count % 8) % 8))
    try record.withUnsafeBytes { bytes in Result { () throws(FileError) in try file.write(bytes) } }.get()
    points += rows.count
    validPoints += chunk.valid[rows].lazy.filter { $0 }.count
  }

  /// Writes `meta` and puts the file in place.
  public func commit(_ meta: PremiumPartial.Meta) throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    var tail = Array(try encoder.encode(meta))
    var length = UInt64(tail.count).littleEndian
    withUnsafeBytes(of: &length) { tail.append(contentsOf: $0) }
    tail += PremiumPartial.magic
    try tail.withUnsafeBytes { bytes in Result { () throws(FileError) in try file.write(bytes) } }.get()
    try file.commit()
  }
}

/// A partial opened for a merge: its `Meta` read and every record's bounds checked.
public final class PremiumPartialFile {
  public let path: String
  public let meta: PremiumPartial.Meta
  fileprivate let mapped: MappedFile
  /// Byte offset and point count of each record.
  fileprivate let records: [(offset: Int, count: Int)]

  /// - Throws: `PartialError` for a file that is not a whole partial; `FileError`.
  public init(path: String) throws {
    self.path = path
    mapped = try MappedFile(path: path, readAhead: false)
    let bytes = mapped.bytes
    func corrupt(_ reason: String) -> PartialError { PartialError(path: path, reason: reason) }
    let metaStart: Int
    (meta, metaStart) = try PremiumPartial.trailer(bytes, path: path)
    var records: [(Int, Int)] = []
    var (offset, points, validPoints) = (8, 0, 0)
    while offset < metaStart {
      guard offset + 8 <= metaStart else { throw corrupt("a record is cut at byte \(offset)") }
      let count = Int(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
      let size = count > 0 && count < metaStart / 37 + 1 ? PremiumPartial.recordSize(count, quoteLegs: meta.quoteLegs) : nil
      guard let size, offset + size <= metaStart else { throw corrupt("a record at byte \(offset) does not fit the file") }
      validPoints += bytes[(offset + 8 + 32 * count)..<(offset + 8 + 33 * count)].lazy.filter { $0 == 1 }.count
      records.append((offset, count))
      // The pages read to check the record go back to the system until the replay reads them.
      mapped.release(offset..<(offset + size))
      points += count
      offset += size
    }
    guard points == meta.points, validPoints == meta.validPoints else {
      throw corrupt("holds \(points) points (\(validPoints) valid), its metadata says \(meta.points) (\(meta.validPoints))")
    }
    self.records = records
  }

}

/// The points of partials, shard after shard, cut into chunks of `chunkPoints` as
/// `PremiumStream` cuts the unsharded series.
public final class PremiumPartialReplay {
  private let files: [PremiumPartialFile]
  private let chunkPoints: Int
  private var file = 0, record = 0, position = 0
  private let time: UnsafeMutableBufferPointer<Int64>, duration: UnsafeMutableBufferPointer<Int64>
  private let mid: UnsafeMutableBufferPointer<Double>, exec: UnsafeMutableBufferPointer<Double>
  private let valid: UnsafeMutableBufferPointer<Bool>
  private let rich: UnsafeMutableBufferPointer<Int8>, cheap: UnsafeMutableBufferPointer<Int8>
  private let top: UnsafeMutableBufferPointer<Int8>, bottom: UnsafeMutableBufferPointer<Int8>
  /// Per point, the quotes of `quoteLegs` legs, bids then asks (as `PremiumChunk.quotes`).
  private let quotes: UnsafeMutableBufferPointer<Double>
  private let quoteLegs: Int

  /// `files` in shard order, their points carrying the quotes of `quoteLegs` legs each (0: none).
  public init(_ files: [PremiumPartialFile], chunkPoints: Int, quoteLegs: Int) {
    precondition(chunkPoints > 0, "chunks hold at least one point")
    precondition(files.allSatisfy { $0.meta.quoteLegs == quoteLegs }, "every partial carries the same quotes")
    (self.files, self.chunkPoints, self.quoteLegs) = (files, chunkPoints, quoteLegs)
    quotes = .allocate(capacity: chunkPoints * 2 * quoteLegs)
    (time, duration) = (.allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints))
    (mid, exec) = (.allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints))
    valid = .allocate(capacity: chunkPoints)
    (rich, cheap, top, bottom) = (
      .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints)
    )
  }

  deinit {
    for buffer in [time, duration] { buffer.deallocate() }
    for buffer in [mid, exec, quotes] { buffer.deallocate() }
    valid.deallocate()
    for buffer in [rich, cheap, top, bottom] { buffer.deallocate() }
  }

  /// The time and duration of the last point replayed: the next point must come at
  /// their sum, and the series' last point has no duration.
  private var last: (time: Int64, duration: Int64, path: String)? = nil

  /// The next `chunkPoints` points (fewer at the end), or `nil` after the last.
  /// - Throws: `PartialError` for points no shard can have made: a leg index out of
  ///   range, a validity byte other than 0 or 1, times that do not follow each other by
  ///   their durations.
  public func next() throws(PartialError) -> PremiumChunk? {
    var filled = 0
    while filled < chunkPoints && file < files.count {
      let partial = files[file]
      guard record < partial.records.count else {
        (file, record, position) = (file + 1, 0, 0)
        continue
      }
      let (offset, count) = partial.records[record]
      let taken = min(count - position, chunkPoints - filled)
      let bytes = partial.mapped.bytes
      func copy<T: BitwiseCopyable>(_ column: Int, width: Int, into buffer: UnsafeMutableBufferPointer<T>) {
        let start = offset + 8 + column + width * position
        for k in 0..<taken { buffer[filled + k] = bytes.loadUnaligned(fromByteOffset: start + width * k, as: T.self) }
      }
      copy(0, width: 8, into: time)
      copy(8 * count, width: 8, into: duration)
      copy(16 * count, width: 8, into: mid)
      copy(24 * count, width: 8, into: exec)
      for k in 0..<taken {
        let byte = bytes[offset + 8 + 32 * count + position + k]
        guard byte <= 1 else { throw PartialError(path: partial.path, reason: "a point's validity byte is \(byte), not 0 or 1") }
        valid[filled + k] = byte == 1
      }
      copy(33 * count, width: 1, into: rich)
      copy(34 * count, width: 1, into: cheap)
      copy(35 * count, width: 1, into: top)
      copy(36 * count, width: 1, into: bottom)
      let width = 2 * quoteLegs
      for k in 0..<(taken * width) {
        quotes[filled * width + k] = bytes.loadUnaligned(fromByteOffset: offset + 8 + 37 * count + 8 * (position * width + k), as: Double.self)
      }
      try check(filled..<(filled + taken), path: partial.path, legs: partial.meta.legs.count)
      filled += taken
      position += taken
      if position == count {
        partial.mapped.release(offset..<(offset + PremiumPartial.recordSize(count, quoteLegs: quoteLegs)))
        (record, position) = (record + 1, 0)
      }
    }
    guard filled > 0 else {
      if let last, last.duration != 0 {
        throw PartialError(path: last.path, reason: "its last point has a duration of \(last.duration) µs, the series' last point has none")
      }
      return nil
    }
    func view<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ width: Int = 1) -> UnsafeBufferPointer<T> {
      UnsafeBufferPointer(rebasing: buffer[0..<(filled * width)])
    }
    return PremiumChunk(
      time: view(time), duration: view(duration), valid: view(valid), mid: view(mid), exec: view(exec), rich: view(rich),
      cheap: view(cheap), top: view(top), bottom: view(bottom), quotes: view(quotes, 2 * quoteLegs))
  }
}

extension PremiumPartialReplay {
  /// Checks the points `slots` just copied from the partial at `path` of `legs` legs.
  private func check(_ slots: Range<Int>, path: String, legs: Int) throws(PartialError) {
    for i in slots {
      // A leg index is 0 ..< legs at a valid point, -1 at an invalid one (as `PremiumSeries`).
      for (name, leg) in [("rich", rich[i]), ("cheap", cheap[i]), ("top", top[i]), ("bottom", bottom[i])]
      where valid[i] ? leg < 0 || Int(leg) >= legs : leg != -1 {
        throw PartialError(path: path, reason: "a point's \(name) leg is \(leg), of \(legs) legs")
      }
      if let last, last.duration <= 0 || last.time > Int64.max - last.duration || last.time + last.duration != time[i] {
        throw PartialError(path: path, reason: "a point at \(time[i]) µs does not follow the one at \(last.time) µs and its duration \(last.duration) µs")
      }
      last = (time[i], duration[i], path)
    }
  }
}

/// A partial that cannot be read as one.
public struct PartialError: Error, Equatable, Sendable, CustomStringConvertible {
  public let path: String
  public let reason: String

  public init(path: String, reason: String) { (self.path, self.reason) = (path, reason) }

  public var description: String { "\(path): error: \(reason)" }
}
