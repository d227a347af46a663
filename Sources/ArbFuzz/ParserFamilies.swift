import ArbCore
import ArbIngest
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Targets for the byte parsers that every row goes through.
enum ParserFamilies {
  /// One field through every number and time parser. `DecimalParser.parse` must give
  /// exactly `strtod`'s value whenever it accepts the text (its grammar is a subset of
  /// `strtod`'s); the others must not crash and time forms must agree with each other
  /// where they overlap (integers: epoch µs, scale 0).
  static func numbers(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    exactCopy(bytes) { field in
      let p = field.baseAddress!, n = field.count
      if let value = DecimalParser.parse(p, n) {
        let reference = strtodWhole(bytes)
        if reference?.bitPattern != value.bitPattern && !(value.isNaN && reference?.isNaN == true) {
          problems.append("DecimalParser \(value) != strtod \(String(describing: reference)) for '\(String(decoding: bytes, as: UTF8.self))'")
        }
      }
      let integer = DecimalParser.parseInt64(p, n)
      // parseScaled builds the magnitude first: Int64.min alone is out of its range.
      if let integer, integer != .min, DecimalParser.parseScaled(p, n, scale: 0) != integer {
        problems.append("parseScaled(scale: 0) differs from parseInt64 \(integer)")
      }
      _ = DecimalParser.parseScaled(p, n, scale: 6)
      for form in TimeForm.allCases {
        let time = TimeParser.parse(p, n, form: form, defaultOffset: 9 * 3_600_000_000)
        // Every time has a text (inspect prints it), down to Int64.min.
        if let time, TimeText.iso8601(time).isEmpty { problems.append("no ISO-8601 text for \(time)") }
        if form == .epochMicros && time != integer { problems.append("epoch µs \(String(describing: time)) != integer") }
      }
    }
    return problems
  }

  /// `body` over a copy of `bytes` in an allocation of exactly their size, so that the
  /// address sanitizer sees a read past the end.
  static func exactCopy<R>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
    defer { copy.deallocate() }
    copy.initialize(from: bytes, count: bytes.count)
    return body(UnsafeBufferPointer(start: copy, count: bytes.count))
  }

  /// `strtod` over the whole text, `nil` unless it consumes every byte.
  static func strtodWhole(_ bytes: [UInt8]) -> Double? {
    guard !bytes.contains(0) else { return nil }
    let text = bytes + [0]
    return text.withUnsafeBufferPointer { buffer in
      let start = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
      var end: UnsafeMutablePointer<CChar>? = nil
      let value = strtod(start, &end)
      return end.map { UnsafePointer($0) - start } == bytes.count ? value : nil
    }
  }

  /// Byte 0 picks the delimiter, byte 1 the quote (or none); the rest is the line.
  /// Fields must lie inside the line, in order, separated by exactly one delimiter;
  /// without quoting they are exactly the pieces between delimiters.
  static func fields(_ bytes: [UInt8]) -> [String] {
    guard bytes.count >= 2 else { return [] }
    let delimiters: [UInt8] = [44, 59, 9, 124]
    let delimiter = delimiters[Int(bytes[0]) % delimiters.count]
    let quote: UInt8? = bytes[1] & 1 == 0 ? 34 : nil
    let line = Array(bytes[2...])
    var splitter = FieldSplitter(delimiter: delimiter, quote: quote)
    return exactCopy(line) { buffer -> [String] in
      guard let count = splitter.split(buffer) else {
        return quote == nil ? ["unterminated quote without a quote byte"] : []
      }
      guard count >= 1 && count <= FieldOffsets.capacity else { return ["field count \(count)"] }
      var previousEnd = -1
      for k in 0..<count {
        let start = splitter.starts[k], end = splitter.ends[k]
        guard start <= end, end <= line.count, start > previousEnd else {
          return ["field \(k) at \(start)..<\(end) after \(previousEnd) in a line of \(line.count)"]
        }
        previousEnd = end
      }
      if quote == nil && count < FieldOffsets.capacity {
        let pieces = line.split(separator: delimiter, omittingEmptySubsequences: false)
        let found = (0..<count).map { Array(line[splitter.starts[$0]..<splitter.ends[$0]]) }
        if pieces.map(Array.init) != found { return ["fields differ from the pieces between delimiters"] }
      }
      return []
    }
  }
}
