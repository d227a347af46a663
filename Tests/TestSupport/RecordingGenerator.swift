/// A `rest.snapshots` recording of Binance as `arbkit record --books` writes one: a poll
/// every 0.1 s, each a book-ticker response for BTCUSDT and ETHUSDT and, in the polls
/// after the first `tickersFirst`, every third one a BTCUSDT depth response (three
/// levels a side) instead; the mid on a random walk.
public enum RecordingGenerator {
  public static let start: Int64 = 1_735_689_600_000_000

  /// The recording's lines, joined by line breaks.
  /// - Parameters:
  ///   - market: `spot` (`/api/v3`) or `linear` (`/fapi/v1`, with the venue's times).
  ///   - skipping: the first poll's time is `skipping` polls after `start`.
  ///   - faults: every 97th line bad (a crossed book, broken JSON), an error response
  ///     and a blank line every 211 polls, and the last line torn.
  public static func lines(
    market: String = "spot", tickersFirst: Int, mixed: Int, depth: Bool = true, skipping: Int = 0, faults: Bool = true, seed: UInt64
  ) -> String {
    var random = SplitMix64(seed: seed)
    let api = market == "spot" ? "/api/v3" : "/fapi/v1"
    var lines: [String] = []
    var mid = 42_000.0
    for k in 0..<(tickersFirst + mixed) {
      let time = start + Int64(skipping + k) * 100_000
      let venueTime = market == "spot" ? "" : ",\"time\":\(time / 1000 - 20)"
      mid += Double(Int(random.next() % 21) - 10) * 0.5
      let (bid, ask) = (mid - 0.5, mid + 0.5)
      func line(_ endpoint: String, _ params: String, _ body: String) -> String {
        "{\"recv_ts_us\":\(time),\"venue\":\"binance\",\"endpoint\":\"\(api)/\(endpoint)\",\"params\":{\(params)},\"status\":200,\"response\":\(body)}"
      }
      if faults && k % 97 == 96 {
        let crossed = #"[{"symbol":"BTCUSDT","bidPrice":"\#(ask + 1)","bidQty":"1","askPrice":"\#(ask)","askQty":"1"\#(venueTime)}]"#
        lines.append(k % 2 == 0 ? line("ticker/bookTicker", "", crossed) : "{\"recv_ts_us\":\(time),")
      } else if faults && k % 211 == 5 {
        lines.append(line("ticker/bookTicker", "", #"{"code":-1003,"msg":"Too many requests."}"#))
        lines.append("")
      } else if depth && k >= tickersFirst && k % 3 == 0 {
        let bids = (0..<3).map { "[\"\(bid - Double($0))\",\"\(Double(1 + $0) * 0.25)\"]" }.joined(separator: ",")
        let asks = (0..<3).map { "[\"\(ask + Double($0))\",\"\(Double(2 + $0) * 0.125)\"]" }.joined(separator: ",")
        let venueTime = market == "spot" ? "" : ",\"T\":\(time / 1000 - 20)"
        lines.append(line("depth", #""symbol":"BTCUSDT","limit":"20""#, #"{"lastUpdateId":\#(k),"bids":[\#(bids)],"asks":[\#(asks)]\#(venueTime)}"#))
      } else {
        let size = Double(1 + random.next() % 50) / 10
        lines.append(
          line(
            "ticker/bookTicker", "",
            #"[{"symbol":"BTCUSDT","bidPrice":"\#(bid)","bidQty":"\#(size)","askPrice":"\#(ask)","askQty":"1.5"\#(venueTime)},"#
              + #"{"symbol":"ETHUSDT","bidPrice":"\#(mid / 16)","bidQty":"3","askPrice":"\#(mid / 16 + 0.01)","askQty":"2"\#(venueTime)}]"#))
      }
    }
    if faults { lines.append("{\"recv_ts_us\":\(start + Int64(skipping + tickersFirst + mixed) * 100_000),\"venue\":\"bin") }
    return lines.joined(separator: "\n") + (faults ? "" : "\n")
  }
}
