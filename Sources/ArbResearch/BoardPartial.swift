import ArbCore
import ArbIngest
import Foundation

/// The partial result of one shard of a board split by instrument (`arbkit board …
/// --shard I/N --out PATH`): the parts of the board the shard owns, each as the
/// unsharded run makes it, and what a merge needs to check that the partials belong
/// together — the command line, a fingerprint of each input, the whole board's parts.
///
/// The board's parts, in order, are its rows (the instruments on two or more venues, in
/// order of first appearance in the inputs), the instruments on one venue only, the legs
/// without an instrument and the second legs of a venue; part `k` (from 0) belongs to
/// shard `k mod N + 1`, so that each shard works on every N-th instrument. `arbkit merge`
/// joins the parts and prints the board the unsharded run prints, byte for byte.
///
/// Layout (docs/formats.md, "Partials"): the 8 bytes `ARBKBRD1`; the JSON `Meta`; its
/// xxHash64 and length (UInt64, little-endian); `ARBKBRD1`.
public enum BoardPartial {
  static let magic = Array("ARBKBRD1".utf8)

  /// Whether shard `shard` of `shards` (1-based) makes part `k` (0-based) of the board.
  public static func owns(_ k: Int, shard: Int, of shards: Int) -> Bool { k % shards == shard - 1 }

  /// A part of the board: a row, or a leg that is not on it.
  public enum Part: Codable {
    case row(BoardRow)
    /// An instrument found on one venue only.
    case singleVenue(instrument: CanonicalInstrument, leg: BoardLeg)
    /// A leg no instrument was found for, and why.
    case unplaced(leg: BoardLeg, reason: String)
    /// A second leg of one venue for one instrument.
    case sameVenue(leg: BoardLeg)
  }

  /// What a partial says of itself (its JSON, keys in snake case).
  public struct Meta: Codable {
    public var version = 1
    /// The command that made it: `board`.
    public var command: String
    /// The command's arguments without `--shard` and `--out`: the same in every shard.
    public var arguments: [String]
    /// This shard, `1…shards`.
    public var shard: Int
    public var shards: Int
    /// Every input file or store as the shard read it.
    public var inputs: [Input]
    /// What each part of the whole board is (`label(of:)` of each, in order): the same in every shard.
    public var layout: [String]
    /// The parts the shard owns, in order.
    public var parts: [Owned]

    /// An input, and a fingerprint that changes when it does: a store's `store.json`
    /// xxHash64, a file's size and modification time.
    public struct Input: Codable, Equatable {
      public var path: String
      public var fingerprint: String

      public init(path: String, fingerprint: String) { (self.path, self.fingerprint) = (path, fingerprint) }
    }

    /// Part `index` of the board.
    public struct Owned: Codable {
      public var index: Int
      public var part: Part

      public init(index: Int, part: Part) { (self.index, self.part) = (index, part) }
    }

    /// The partial of shard `shard` of `shards`: `parts` are those it owns of the board
    /// whose parts are `layout` (`label`).
    public init(command: String, arguments: [String], shard: Int, shards: Int, inputs: [Input], layout: [String], parts: [Owned]) {
      precondition(
        parts.map(\.index) == layout.indices.filter { BoardPartial.owns($0, shard: shard, of: shards) }, "a shard makes exactly its parts")
      (self.command, self.arguments, self.shard, self.shards, self.inputs) = (command, arguments, shard, shards, inputs)
      (self.layout, self.parts) = (layout, parts)
    }
  }

  /// What a part is.
  public enum Kind: String {
    case row
    case singleVenue = "single venue"
    case unplaced
    case sameVenue = "same venue"
  }

  /// What a part of `kind` naming `name` (its instrument, or its leg's) is, as the
  /// layout of a board lists it: known before any quote is read.
  public static func label(_ kind: Kind, _ name: String) -> String { "\(kind.rawValue) \(name)" }

  /// `label` of `part`.
  public static func label(of part: Part) -> String {
    switch part {
    case .row(let row): label(.row, row.instrument.description)
    case .singleVenue(let instrument, _): label(.singleVenue, instrument.description)
    case .unplaced(let leg, _): label(.unplaced, leg.instrument.description)
    case .sameVenue(let leg): label(.sameVenue, leg.instrument.description)
    }
  }

  /// The fingerprint `Meta.Input` records of the file or store at `path`.
  /// - Throws: `FileError` when it cannot be read.
  public static func fingerprint(_ path: String) throws(FileError) -> String {
    if Store.isStore(path: path) { return "store.json " + (try PremiumPartial.storeChecksum(path)) }
    var info = stat()
    guard stat(path, &info) == 0 else { throw FileError.missing(path: path) }
    return "\(info.st_size) bytes, modified \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  /// Writes `meta` to `path`, all or nothing.
  /// - Throws: `FileError`; `EncodingError` never (every number is encoded, a NaN too).
  public static func write(_ meta: Meta, to path: String) throws {
    let file = try AtomicFile(path: path)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let bytes = magic + PartialTrailer.bytes(Array(try encoder.encode(meta)), magic: magic)
    try bytes.withUnsafeBytes { bytes in Result { () throws(FileError) in try file.write(bytes) } }.get()
    try file.commit()
  }

  /// The partial at `path`.
  /// - Throws: `PartialError` for a file that is not a whole board partial; `FileError`.
  public static func read(_ path: String) throws -> Meta {
    try MappedFile(path: path, readAhead: false).withBytes { bytes in
      let json = try PartialTrailer.json(bytes, path: path, magic: magic, of: "arbkit board --shard")
      guard json.lowerBound == magic.count else {
        throw PartialError(path: path, reason: "holds \(json.lowerBound - magic.count) bytes before its metadata, none expected")
      }
      let decoder = JSONDecoder()
      decoder.keyDecodingStrategy = .convertFromSnakeCase
      decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
      guard let meta = try? decoder.decode(Meta.self, from: Data(bytes[json])) else { throw PartialError(path: path, reason: "unreadable metadata") }
      guard meta.version == 1 else { throw PartialError(path: path, reason: "board partial version \(meta.version), this arbkit reads version 1") }
      guard meta.shards >= 1, (1...meta.shards).contains(meta.shard) else { throw PartialError(path: path, reason: "names shard \(meta.shard)/\(meta.shards)") }
      let owned = meta.layout.indices.filter { owns($0, shard: meta.shard, of: meta.shards) }
      guard meta.parts.map(\.index) == owned, zip(meta.parts, owned).allSatisfy({ label(of: $0.part) == meta.layout[$1] }) else {
        throw PartialError(path: path, reason: "holds other parts than shard \(meta.shard)/\(meta.shards) of its board makes")
      }
      return meta
    }
  }

  /// Whether the file at `path` starts as a board partial of any layout does (unreadable: `false`).
  public static func isPartial(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: magic.count)).map { Array($0.prefix(7)) } == Array(magic.prefix(7))
  }
}
