import ArbCore
import ArbIngest
import ArbRecord
import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Splits bytes into whole lines; the bytes after the last newline wait for the rest
/// of their line (a line being written, or torn by a kill).
struct LineSplitter {
  /// The start of a line whose newline has not come yet.
  private var pending: [UInt8] = []
  /// Bytes of the unfinished line fed so far (skipped ones included).
  private(set) var unfinished = 0
  /// The unfinished line is too long to read: its bytes are dropped up to its newline.
  private var skipping = false
  /// Lines dropped for being longer than a line may be (`IngestOptions.maxLineBytes`).
  private(set) var overlong = 0
  private let maxLineBytes = IngestOptions().maxLineBytes

  /// Hands every whole line of the bytes fed so far to `body` (without its newline);
  /// returns the bytes of the lines finished by `raw`, newlines included.
  mutating func feed(_ raw: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Int {
    let bytes = raw.bindMemory(to: UInt8.self)
    var start = 0
    var consumed = 0
    while let newline = bytes[start...].firstIndex(of: 10) {
      let piece = UnsafeBufferPointer(rebasing: bytes[start..<newline])
      if skipping {
        skipping = false
      } else if pending.isEmpty {
        body(piece)
      } else {
        pending.append(contentsOf: piece)
        pending.withUnsafeBufferPointer(body)
        pending.removeAll(keepingCapacity: false)
      }
      consumed += unfinished + piece.count + 1
      unfinished = 0
      start = newline + 1
    }
    let rest = bytes.count - start
    guard rest > 0 else { return consumed }
    if !skipping && pending.count + rest > maxLineBytes {
      skipping = true
      overlong += 1
      pending.removeAll(keepingCapacity: false)
    }
    if !skipping { pending.append(contentsOf: bytes[start...]) }
    unfinished += rest
    return consumed
  }

  /// Drops the bytes of an unfinished line (the end of a file that will not grow);
  /// returns whether there were any.
  mutating func dropTorn() -> Bool {
    defer { self = LineSplitter() }
    return unfinished > 0 && !skipping
  }
}

/// A folder written by `arbkit record`, followed as it grows: each poll reads only the
/// bytes added since the last one. A file is known by its plain name
/// (`VENUE-MARKET-YYYYMMDDTHHMMSSZ[-N].jsonl`); of a plain file the whole lines written
/// so far are read and its last line waits until its newline comes; once the file is
/// rotated (compressed to `….jsonl.zst` or `.gz`, the plain file removed) the
/// compressed copy is read past the bytes already read and the file is finished (an
/// unfinished last line there is torn: counted, never read). Memory: a small state per
/// file, and one unfinished line.
struct RecordingFollower {
  let folder: String
  /// The state of each file seen, by plain name.
  private var files: [String: FollowedFile] = [:]
  /// Lines handed out.
  private(set) var lines = 0
  /// Unfinished last lines of finished files, and lines too long to read.
  private(set) var tornLines = 0

  private struct FollowedFile {
    /// Bytes of whole lines read.
    var consumed = 0
    var splitter = LineSplitter()
    var finished = false
  }

  init(folder: String) { self.folder = folder }

  /// The recording's regular files in `folder` (a pipe or a device of that name is no
  /// recording, and opening it could block): by plain name, the name found (plain or
  /// compressed), in the order the recorder made them (`recordedOrder`).
  static func recordingFiles(in folder: String) throws(FileError) -> [(plain: String, found: String)] {
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
      throw FileError.unreadable(path: folder, reason: "cannot list the folder")
    }
    var found: [String: String] = [:]
    for name in names {
      var info = stat()
      guard stat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      if RecordFolder.isRecordingName(name) {
        if found[name] == nil { found[name] = name }
      } else if let compression = RecordCompression.allCases.first(where: { name.hasSuffix(".jsonl" + $0.suffix) }) {
        let plain = String(name.dropLast(compression.suffix.count))
        // The compressed copy is whole; a plain file beside it is about to be removed.
        if RecordFolder.isRecordingName(plain) { found[plain] = name }
      }
    }
    return found.keys.sorted(by: recordedOrder).map { ($0, found[$0]!) }
  }

  /// Whether the recording file `a` was started before `b`: by target and start time
  /// (`VENUE-MARKET-YYYYMMDDTHHMMSSZ`), then by the number a restart adds (`…Z-2.jsonl`
  /// after `…Z.jsonl`, `-10` after `-9`).
  static func recordedOrder(_ a: String, _ b: String) -> Bool {
    func key(_ name: String) -> (String, Int) {
      let stem = name.hasSuffix(".jsonl") ? String(name.dropLast(6)) : name
      guard let z = stem.lastIndex(of: "Z"), stem[stem.index(after: z)...].hasPrefix("-"),
        let number = Int(stem[stem.index(z, offsetBy: 2)...])
      else { return (stem, 1) }
      return (String(stem[...z]), number)
    }
    let (x, y) = (key(a), key(b))
    return x.0 != y.0 ? x.0 < y.0 : x.1 < y.1
  }

  /// Reads what was added to the folder since the last poll, handing each new whole
  /// line to `body` (without its newline).
  ///
  /// - Throws: `FileError` when the folder cannot be listed; a file that vanished
  ///   between the listing and its reading (rotated) is read at the next poll.
  mutating func poll(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(FileError) {
    for (plain, found) in try Self.recordingFiles(in: folder) {
      var file = files[plain] ?? FollowedFile()
      guard !file.finished else { continue }
      let path = folder + "/" + found
      var handed = 0
      let count: (UnsafeBufferPointer<UInt8>) -> Void = { line in
        handed += 1
        body(line)
      }
      if found == plain {
        readGrowing(path, &file, count)
      } else {
        readFinished(path, &file, count)
      }
      lines += handed
      files[plain] = file
    }
  }

  /// Reads a plain file from where the last poll stopped to its current end.
  private mutating func readGrowing(_ path: String, _ file: inout FollowedFile, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var offset = file.consumed + file.splitter.unfinished
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
      guard n > 0 else { break }
      offset += n
      file.consumed += file.splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<n]), body)
    }
  }

  /// Reads a compressed finished file past the bytes already read from its plain file.
  private mutating func readFinished(_ path: String, _ file: inout FollowedFile, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    guard let reader = try? DecompressedFile(path: path) else { return }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { buffer.deallocate() }
    var skip = file.consumed
    var splitter = LineSplitter()
    do throws(IngestError) {
      while true {
        let n = try reader.read(into: buffer)
        guard n > 0 else { break }
        let skipped = min(skip, n)
        skip -= skipped
        if skipped < n { _ = splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[skipped..<n]), body) }
      }
    } catch {
      // Bytes that do not decompress end the file: what follows is torn.
      tornLines += 1
    }
    tornLines += splitter.overlong + file.splitter.overlong
    if splitter.dropTorn() { tornLines += 1 }
    file = FollowedFile(consumed: 0, splitter: LineSplitter(), finished: true)
  }
}

/// The files of a finished recording replayed in the order of their receive times:
/// one stream per target (`VENUE-MARKET`), its files in name order, the streams merged
/// by the receive time of their next line.
struct RecordingReplay: QuoteReplay {
  private var streams: [ReplayStream]
  var tornLines: Int { streams.reduce(0) { $0 + $1.tornLines } }

  init(folder: String) throws(FileError) {
    var byTarget: [String: [String]] = [:]
    for (plain, found) in try RecordingFollower.recordingFiles(in: folder) {
      let target = plain.split(separator: "-").prefix(2).joined(separator: "-")
      byTarget[target, default: []].append(folder + "/" + found)
    }
    streams = byTarget.keys.sorted().map { ReplayStream(files: byTarget[$0]!) }
  }

  /// The receive time of the next line with prices, `nil` at the end of the recording.
  mutating func nextTime() -> Int64? {
    var earliest: Int64?
    for k in streams.indices {
      if let time = streams[k].head()?.first?.time, earliest.map({ time < $0 }) ?? true { earliest = time }
    }
    return earliest
  }

  /// The quotes of the next line (the stream whose next line is earliest).
  mutating func next() -> [LiveQuote]? {
    var best: (index: Int, time: Int64)?
    for k in streams.indices {
      if let time = streams[k].head()?.first?.time, best.map({ time < $0.time }) ?? true { best = (k, time) }
    }
    guard let best else { return nil }
    return streams[best.index].take()
  }
}

/// One target's files read line by line, keeping the quotes of the next line with
/// prices and the lines of the current chunk.
private struct ReplayStream {
  var files: [String]
  var reader: DecompressedFile?
  var splitter = LineSplitter()
  var ready: [[LiveQuote]] = []
  var readyIndex = 0
  var tornLines = 0

  init(files: [String]) { self.files = files.reversed() }

  /// The quotes of the next line with prices, read when needed.
  mutating func head() -> [LiveQuote]? {
    while readyIndex == ready.count {
      guard fill() else { return nil }
    }
    return ready[readyIndex]
  }

  mutating func take() -> [LiveQuote]? {
    defer { readyIndex += 1 }
    return head()
  }

  /// Reads the next chunk of the current file (opening the next file at the end of
  /// one); `false` once every file is read.
  private mutating func fill() -> Bool {
    ready.removeAll(keepingCapacity: true)
    readyIndex = 0
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    defer { buffer.deallocate() }
    while ready.isEmpty {
      if reader == nil {
        guard let path = files.popLast() else { return false }
        reader = try? DecompressedFile(path: path)
        // A file gone since the listing (a second replay cleaning up) is not read.
        if reader == nil { tornLines += 1 }
        continue
      }
      let n: Int
      do { n = try reader!.read(into: buffer) } catch {
        // Bytes that do not decompress end the file: what follows is torn.
        tornLines += 1
        n = 0
      }
      guard n > 0 else {
        tornLines += splitter.overlong
        if splitter.dropTorn() { tornLines += 1 }
        reader = nil
        continue
      }
      _ = splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<n])) { line in
        if let quotes = RecordingLines.quotes(line: line), !quotes.isEmpty { ready.append(quotes) }
      }
    }
    return true
  }
}
