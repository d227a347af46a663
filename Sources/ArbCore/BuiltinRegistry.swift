// Generated from Data/exchanges.json by scripts/embed-registry. Do not edit.
let builtinRegistryJSON = #"""
{
  "about": "ArbKit exchange registry: venues, their markets, naming and default fees (fraction per fill, base tier). Fees change often; treat them as defaults for research, read on the date given.",
  "fees_read": "2026-12-02",
  "venues": [
    { "id": "binance", "name": "Binance", "region": "global", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USDT", "maker": 0.001, "taker": 0.001, "tardis": "binance" },
      { "kind": "linear", "venue_name": "USDⓈ-M", "example": "BTCUSDT", "quote": "USDT", "maker": 0.0002, "taker": 0.0005, "tardis": "binance-futures" },
      { "kind": "inverse", "venue_name": "COIN-M", "example": "BTCUSD_PERP", "quote": "USD", "maker": 0.0002, "taker": 0.0005, "tardis": "binance-delivery" } ] },
    { "id": "binanceus", "name": "Binance.US", "region": "US", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USD", "maker": 0.001, "taker": 0.001, "tardis": "binance-us" } ] },
    { "id": "bybit", "name": "Bybit", "region": "global", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USDT", "maker": 0.001, "taker": 0.001, "tardis": "bybit-spot" },
      { "kind": "linear", "venue_name": "linear", "example": "BTCUSDT", "quote": "USDT", "maker": 0.0002, "taker": 0.00055, "tardis": "bybit" },
      { "kind": "inverse", "venue_name": "inverse", "example": "BTCUSD", "quote": "USD", "maker": 0.0002, "taker": 0.00055 } ] },
    { "id": "okx", "name": "OKX", "region": "global", "markets": [
      { "kind": "spot", "venue_name": "SPOT", "example": "BTC-USDT", "quote": "USDT", "maker": 0.0008, "taker": 0.001, "tardis": "okex" },
      { "kind": "linear", "venue_name": "SWAP", "example": "BTC-USDT-SWAP", "quote": "USDT", "maker": 0.0002, "taker": 0.0005, "tardis": "okex-swap" },
      { "kind": "future", "venue_name": "FUTURES", "example": "BTC-USD-250328", "quote": "USD", "maker": 0.0002, "taker": 0.0005, "tardis": "okex-futures" } ] },
    { "id": "upbit", "name": "Upbit", "region": "KR", "markets": [
      { "kind": "spot", "venue_name": "KRW market", "example": "KRW-BTC", "quote": "KRW", "maker": 0.0005, "taker": 0.0005, "tardis": "upbit" } ] },
    { "id": "bithumb", "name": "Bithumb", "region": "KR", "markets": [
      { "kind": "spot", "venue_name": "KRW market", "example": "BTC_KRW", "quote": "KRW", "maker": 0.0004, "taker": 0.0004 } ] },
    { "id": "coinone", "name": "Coinone", "region": "KR", "markets": [
      { "kind": "spot", "venue_name": "KRW market", "example": "BTC", "quote": "KRW", "maker": 0.002, "taker": 0.002 } ] },
    { "id": "korbit", "name": "Korbit", "region": "KR", "markets": [
      { "kind": "spot", "venue_name": "KRW market", "example": "btc_krw", "quote": "KRW", "maker": 0.002, "taker": 0.002 } ] },
    { "id": "kraken", "name": "Kraken", "region": "global", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "XBTUSDC", "quote": "USD", "maker": 0.0025, "taker": 0.004, "tardis": "kraken" } ] },
    { "id": "bitstamp", "name": "Bitstamp", "region": "global", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "btcusd", "quote": "USD", "maker": 0.003, "taker": 0.004, "tardis": "bitstamp" } ] },
    { "id": "coinbase", "name": "Coinbase", "region": "US", "markets": [
      { "kind": "spot", "venue_name": "spot", "example": "BTC-USD", "quote": "USD", "maker": 0.004, "taker": 0.006, "tardis": "coinbase" } ] },
    { "id": "bitmex", "name": "BitMEX", "region": "global", "markets": [
      { "kind": "inverse", "venue_name": "perpetual", "example": "XBTUSD", "quote": "USD", "maker": -0.0001, "taker": 0.00075, "tardis": "bitmex" } ] },
    { "id": "deribit", "name": "Deribit", "region": "global", "markets": [
      { "kind": "inverse", "venue_name": "perpetual", "example": "BTC-PERPETUAL", "quote": "USD", "maker": 0.0, "taker": 0.0005, "tardis": "deribit" } ] },
    { "id": "huobi", "name": "Huobi (HTX)", "region": "global", "markets": [
      { "kind": "inverse", "venue_name": "coin-margined swap", "example": "BTC-USD", "quote": "USD", "maker": 0.0002, "taker": 0.0005, "tardis": "huobi-dm-swap" } ] }
  ]
}
"""#
