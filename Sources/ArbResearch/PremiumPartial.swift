import ArbAnalytics
import ArbCore
import ArbIngest
import Foundation

/// The partial result of one shard of a run split by time (`arbkit premium|basis|kimchi
/// … --shard I/N --out PATH`): the points the shard owns of each premium series the
/// command aligns (its sections: premium's one, basis's basis and reference premiums,
/// kimchi's premium of each KRW market and the premium among them), as `PremiumStream`
/// made them, and what a merge needs to report the run — the command line, each leg's
/// quotes in the shard's days, each store's checksum, values the command keeps beside
/// its points.
///
/// `arbkit merge` replays each section's points, shard after shard, through the
/// analysis in the chunks the unsharded run uses, so that its output is the unsharded
/// run's byte for byte. Layout (little-endian; docs/formats.md, "Partials"): the 8 bytes
/// `ARBKPPT2`; records of `n` points of a section, each `n` and the section (Int64),
/// then `time`, `duration` (Int64), `mid`, `exec` (Double), then `valid`, `rich`,
/// `cheap`, `top`, `bottom` (one byte each), then for a section that keeps them each
/// point's quotes (`2 × legs` Doubles, bids then asks) and their times (`legs` Int64),
/// zero-padded to 8 bytes; the JSON `Meta`; its length (UInt64); `ARBKPPT2`.
public enum PremiumPartial {
  static let magic = Array("ARBKPPT2".utf8)

  /// What a partial says of itself (its JSON, keys in snake case).
  public struct Meta: Codable, Equatable, Sendable {
    public var version = 2
    /// The command that made it: `premium`, `basis` or `kimchi`.
    public var command: String
    /// The command's arguments without `--shard` and `--out`: the same in every shard.
    public var arguments: [String]
    /// This shard, `1…shards`.
    public var shard: Int
    public var shards: Int
    /// The points the shard owns: `[from, to)` in µs, an absent end open.
    public var fromUs: Int64?
    public var toUs: Int64?
    /// Per leg, in the order of the arguments.
    public var legs: [Leg]
    /// Per premium series, in the order the command aligns them.
    public var sections: [Section]
    /// Values at instants the shard owns that the command keeps beside its points
    /// (`basis --funding`: the perpetual's mid at each funding event).
    public var marks: [Mark]
    /// Per record, in file order, the xxHash64 of its bytes (hex): a merge refuses a
    /// partial whose records were damaged. Filled by `PremiumPartialWriter.commit`.
    public var records: [String] = []

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

    /// The points of one premium series the shard owns.
    public struct Section: Codable, Equatable, Sendable {
      /// The legs it aligns.
      public var legs: Int
      public var points: Int
      public var validPoints: Int
      /// Whether each point carries its legs' quotes and their times.
      public var quotes: Bool
    }

    /// A value at an instant (its bits: a `nan` stays one).
    public struct Mark: Codable, Equatable, Sendable {
      public var timeUs: Int64
      public var bits: UInt64

      public init(time: Int64, value: Double) { (timeUs, bits) = (time, value.bitPattern) }

      public var value: Double { Double(bitPattern: bits) }
    }

    public init(command: String, arguments: [String], shard: TimeShard, legs: [Leg], sections: [Section], marks: [Mark] = []) {
      (self.command, self.arguments) = (command, arguments)
      (self.shard, shards) = (shard.index, shard.count)
      (fromUs, toUs) = (shard.owned.from, shard.owned.to)
      (self.legs, self.sections, self.marks) = (legs, sections, marks)
    }
  }

  /// The checksum a partial records of the store in `path`.
  /// - Throws: `FileError` when its `store.json` cannot be read.
  public static func storeChecksum(_ path: String) throws(FileError) -> String {
    let manifest = try MappedFile(path: path + "/store.json")
    return String(manifest.withBytes { XXHash64.hash($0) }, radix: 16)
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
    let json = try PartialTrailer.json(bytes, path: path, magic: magic, of: "arbkit premium|basis|kimchi --shard")
    return (try decode(Data(bytes[json]), path: path), json.lowerBound)
  }

  /// `Meta` from its JSON.
  static func decode(_ json: Data, path: String) throws(PartialError) -> Meta {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    guard let meta = try? decoder.decode(Meta.self, from: json) else { throw PartialError(path: path, reason: "unreadable metadata") }
    guard meta.version == 2 else { throw PartialError(path: path, reason: "partial version \(meta.version), this arbkit reads version 2") }
    guard meta.shards >= 1, (1...meta.shards).contains(meta.shard) else { throw PartialError(path: path, reason: "names shard \(meta.shard)/\(meta.shards)") }
    guard !meta.sections.isEmpty, meta.sections.allSatisfy({ (2...127).contains($0.legs) }) else {
      throw PartialError(path: path, reason: "names sections of \(meta.sections.map(\.legs)) legs")
    }
    return meta
  }

  /// Bytes of a record of `count` points carrying the quotes and quote times of `quoteLegs` legs.
  static func recordSize(_ count: Int, quoteLegs: Int) -> Int { (16 + (37 + 24 * quoteLegs) * count + 7) / 8 * 8 }

  /// Whether the file at `path` starts as a partial of any layout does (unreadable: `false`).
  public static func isPartial(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: magic.count)).map { Array($0.prefix(7)) } == Array(magic.prefix(7))
  }
}

/// Writes a partial (`PremiumPartial`) all or nothing: each section's points as the
/// shard makes them, the `Meta` at `commit`.
public final class PremiumPartialWriter {
  private let file: AtomicFile
  /// The sections written so far.
  public private(set) var sections: [PremiumPartial.Meta.Section] = []
  private var record: [UInt8] = []
  /// The xxHash64 of each record written, in order.
  private var recordHashes: [String] = []

  /// - Throws: `FileError.unwritable`.
  public init(path: String) throws(FileError) {
    file = try AtomicFile(path: path)
    try file.write(String(decoding: PremiumPartial.magic, as: UTF8.self))
  }

  /// Writes the points of `premium` that `owned` holds as the next section, reading no
  /// further than the first point past it (whose time gives the last owned point its
  /// duration); with `quotes`, each point's quotes and their times (the stream keeps them).
  /// - Throws: what `premium` or the file throws.
  public func write(_ premium: PremiumStream, owned: TimeWindow, quotes: Bool) throws {
    sections.append(.init(legs: premium.legCount, points: 0, validPoints: 0, quotes: quotes))
    while let chunk = try premium.next() {
      let kept = owned.rows(of: chunk.time)
      try append(chunk, rows: kept)
      if kept.upperBound < chunk.count { return }
    }
  }

  /// Appends the points `rows` of `chunk` to the last section.
  private func append(_ chunk: PremiumChunk, rows: Range<Int>) throws(FileError) {
    guard !rows.isEmpty else { return }
    let s = sections.count - 1
    record.removeAll(keepingCapacity: true)
    let header = [Int64(rows.count).littleEndian, Int64(s).littleEndian]
    header.withUnsafeBytes { record.append(contentsOf: $0) }
    func add<T>(_ column: UnsafeBufferPointer<T>, width: Int = 1) {
      record.append(contentsOf: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: column[(rows.lowerBound * width)..<(rows.upperBound * width)])))
    }
    add(chunk.time)
    add(chunk.duration)
    add(chunk.mid)
    add(chunk.exec)
    // A `Bool` is stored as one byte, 0 or 1.
    add(chunk.valid)
    for column in [chunk.rich, chunk.cheap, chunk.top, chunk.bottom] { add(column) }
    if sections[s].quotes {
      add(chunk.quotes, width: 2 * sections[s].legs)
      add(chunk.quoteTimes, width: sections[s].legs)
    }
    record.append(contentsOf: repeatElement(0, count: (8 - record.count % 8) % 8))
    recordHashes.append(String(record.withUnsafeBytes { XXHash64.hash($0) }, radix: 16))
    try record.withUnsafeBytes { bytes in Result { () throws(FileError) in try file.write(bytes) } }.get()
    sections[s].points += rows.count
    sections[s].validPoints += chunk.valid[rows].lazy.filter { $0 }.count
  }

  /// Writes `meta` and puts the file in place.
  public func commit(_ meta: PremiumPartial.Meta) throws {
    precondition(meta.sections == sections, "the metadata names the sections written")
    var meta = meta
    meta.records = recordHashes
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    let tail = PartialTrailer.bytes(Array(try encoder.encode(meta)), magic: PremiumPartial.magic)
    try tail.withUnsafeBytes { bytes in Result { () throws(FileError) in try file.write(bytes) } }.get()
    try file.commit()
  }
}

/// A partial opened for a merge: its `Meta` read and every record's bounds checked.
public final class PremiumPartialFile {
  public let path: String
  public let meta: PremiumPartial.Meta
  fileprivate let mapped: MappedFile
  /// Per section, the byte offset and point count of each of its records.
  fileprivate let records: [[(offset: Int, count: Int)]]

  /// - Throws: `PartialError` for a file that is not a whole partial; `FileError`.
  public init(path: String) throws {
    self.path = path
    mapped = try MappedFile(path: path, readAhead: false)
    let bytes = mapped.bytes
    func corrupt(_ reason: String) -> PartialError { PartialError(path: path, reason: reason) }
    let metaStart: Int
    (meta, metaStart) = try PremiumPartial.trailer(bytes, path: path)
    var records: [[(Int, Int)]] = meta.sections.map { _ in [] }
    var points = meta.sections.map { _ in 0 }, validPoints = points
    var (offset, recordCount) = (8, 0)
    while offset < metaStart {
      guard offset + 16 <= metaStart else { throw corrupt("a record is cut at byte \(offset)") }
      let count = Int(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
      let section = Int(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self)))
      guard records.indices.contains(section), section >= records.count - 1 || records[section + 1].isEmpty else {
        throw corrupt("a record at byte \(offset) names section \(section) of \(records.count) (sections follow each other)")
      }
      let quoteLegs = meta.sections[section].quotes ? meta.sections[section].legs : 0
      let size = count > 0 && count < metaStart / 37 + 1 ? PremiumPartial.recordSize(count, quoteLegs: quoteLegs) : nil
      guard let size, offset + size <= metaStart else { throw corrupt("a record at byte \(offset) does not fit the file") }
      guard recordCount < meta.records.count,
        String(XXHash64.hash(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])), radix: 16) == meta.records[recordCount]
      else { throw corrupt("the record at byte \(offset) is damaged (checksum)") }
      recordCount += 1
      validPoints[section] += bytes[(offset + 16 + 32 * count)..<(offset + 16 + 33 * count)].lazy.filter { $0 == 1 }.count
      records[section].append((offset, count))
      // The pages read to check the record go back to the system until the replay reads them.
      mapped.release(offset..<(offset + size))
      points[section] += count
      offset += size
    }
    guard recordCount == meta.records.count else { throw corrupt("holds \(recordCount) records, its metadata names \(meta.records.count)") }
    for (s, section) in meta.sections.enumerated() where points[s] != section.points || validPoints[s] != section.validPoints {
      throw corrupt("holds \(points[s]) points (\(validPoints[s]) valid) of section \(s + 1), its metadata says \(section.points) (\(section.validPoints))")
    }
    self.records = records
  }
}

/// The points of one section of partials, shard after shard, cut into chunks of
/// `chunkPoints` as `PremiumStream` cuts the unsharded series.
public final class PremiumPartialReplay: PremiumPoints {
  private let files: [PremiumPartialFile]
  private let section: Int
  private let chunkPoints: Int
  private var file = 0, record = 0, position = 0
  private let time: UnsafeMutableBufferPointer<Int64>, duration: UnsafeMutableBufferPointer<Int64>
  private let mid: UnsafeMutableBufferPointer<Double>, exec: UnsafeMutableBufferPointer<Double>
  private let valid: UnsafeMutableBufferPointer<Bool>
  private let rich: UnsafeMutableBufferPointer<Int8>, cheap: UnsafeMutableBufferPointer<Int8>
  private let top: UnsafeMutableBufferPointer<Int8>, bottom: UnsafeMutableBufferPointer<Int8>
  /// Per point, the quotes of the legs, bids then asks, and their times (as `PremiumChunk`); empty without quotes.
  private let quotes: UnsafeMutableBufferPointer<Double>
  private let quoteTimes: UnsafeMutableBufferPointer<Int64>
  /// The legs whose quotes each point carries, else 0.
  private let quoteLegs: Int
  public let legCount: Int
  public let legRows: [Int]
  public let legFirstTime: [Int64?]
  public let legLastTime: [Int64?]
  public private(set) var points = 0
  public private(set) var validPoints = 0
  private let counted: (Int) -> Void

  /// Section `section` of `files` (in shard order), whose legs hold the quotes `legs` in
  /// the run's window (what the unsharded alignment reads of them); `counted` is told
  /// the points of each chunk replayed.
  public init(_ files: [PremiumPartialFile], section: Int, legs: [RowSpan], chunkPoints: Int, counted: @escaping (Int) -> Void = { _ in }) {
    precondition(chunkPoints > 0, "chunks hold at least one point")
    let kind = files[0].meta.sections[section]
    precondition(
      files.allSatisfy { $0.meta.sections[section].legs == kind.legs && $0.meta.sections[section].quotes == kind.quotes },
      "every partial has the section's legs")
    precondition(legs.count == kind.legs, "a span per leg of the section")
    (self.files, self.section, self.chunkPoints, self.counted) = (files, section, chunkPoints, counted)
    (legCount, quoteLegs) = (kind.legs, kind.quotes ? kind.legs : 0)
    (legRows, legFirstTime, legLastTime) = (legs.map(\.rows), legs.map(\.firstTime), legs.map(\.lastTime))
    quotes = .allocate(capacity: chunkPoints * 2 * quoteLegs)
    quoteTimes = .allocate(capacity: chunkPoints * quoteLegs)
    (time, duration) = (.allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints))
    (mid, exec) = (.allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints))
    valid = .allocate(capacity: chunkPoints)
    (rich, cheap, top, bottom) = (
      .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints), .allocate(capacity: chunkPoints)
    )
  }

  deinit {
    for buffer in [time, duration, quoteTimes] { buffer.deallocate() }
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
      let records = partial.records[section]
      guard record < records.count else {
        (file, record, position) = (file + 1, 0, 0)
        continue
      }
      let (offset, count) = records[record]
      let taken = min(count - position, chunkPoints - filled)
      let bytes = partial.mapped.bytes
      /// Copies `taken` values of `width` elements each from the record's column at `column`.
      func copy<T: BitwiseCopyable>(_ column: Int, width: Int = 1, into buffer: UnsafeMutableBufferPointer<T>) {
        let size = MemoryLayout<T>.size
        let start = offset + 16 + column + size * width * position
        for k in 0..<(taken * width) { buffer[filled * width + k] = bytes.loadUnaligned(fromByteOffset: start + size * k, as: T.self) }
      }
      copy(0, into: time)
      copy(8 * count, into: duration)
      copy(16 * count, into: mid)
      copy(24 * count, into: exec)
      for k in 0..<taken {
        let byte = bytes[offset + 16 + 32 * count + position + k]
        guard byte <= 1 else { throw PartialError(path: partial.path, reason: "a point's validity byte is \(byte), not 0 or 1") }
        valid[filled + k] = byte == 1
      }
      copy(33 * count, into: rich)
      copy(34 * count, into: cheap)
      copy(35 * count, into: top)
      copy(36 * count, into: bottom)
      if quoteLegs > 0 {
        copy(37 * count, width: 2 * quoteLegs, into: quotes)
        copy((37 + 16 * quoteLegs) * count, width: quoteLegs, into: quoteTimes)
      }
      try check(filled..<(filled + taken), path: partial.path)
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
    points += filled
    validPoints += valid[0..<filled].lazy.filter { $0 }.count
    counted(filled)
    func view<T>(_ buffer: UnsafeMutableBufferPointer<T>, _ width: Int = 1) -> UnsafeBufferPointer<T> {
      UnsafeBufferPointer(rebasing: buffer[0..<(filled * width)])
    }
    return PremiumChunk(
      time: view(time), duration: view(duration), valid: view(valid), mid: view(mid), exec: view(exec), rich: view(rich),
      cheap: view(cheap), top: view(top), bottom: view(bottom), quotes: view(quotes, 2 * quoteLegs), quoteTimes: view(quoteTimes, quoteLegs))
  }
}

extension PremiumPartialReplay {
  /// Checks the points `slots` just copied from the partial at `path`.
  private func check(_ slots: Range<Int>, path: String) throws(PartialError) {
    for i in slots {
      // A leg index is 0 ..< legs at a valid point, -1 at an invalid one (as `PremiumSeries`).
      for (name, leg) in [("rich", rich[i]), ("cheap", cheap[i]), ("top", top[i]), ("bottom", bottom[i])]
      where valid[i] ? leg < 0 || Int(leg) >= legCount : leg != -1 {
        throw PartialError(path: path, reason: "a point's \(name) leg is \(leg), of \(legCount) legs")
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
