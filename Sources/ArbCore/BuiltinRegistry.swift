// Generated from Data/exchanges.json by scripts/embed-registry. Do not edit.
let builtinRegistryJSON = #"""
{
  "about": "ArbKit exchange registry: venues, their markets, naming, symbol grammars (docs/formats.md, Exchange registry), contract terms and default fees (fraction per fill, base tier). Fees change often; treat them as defaults for research, read on the date given; \"verified\": false marks values not read from the venue's own page.",
  "fees_read": "2026-12-02",
  "bases": ["BTC", "ETH", "USDT", "USDC", "SOL", "XRP", "DOGE", "ADA", "TRX", "AVAX", "DOT", "LINK", "LTC", "BCH", "ETC", "XLM", "ATOM", "NEAR", "APT", "ARB", "OP", "SUI", "TON", "BNB", "SHIB", "PEPE", "UNI", "AAVE", "FIL", "ICP", "HBAR", "POL", "MATIC", "SAND", "MANA", "AXS", "EOS", "XTZ", "ALGO", "WLD", "SEI", "TIA", "INJ", "STX", "IMX", "RENDER", "FET", "GRT", "CRV", "MKR", "LDO", "JUP", "BONK", "WIF", "ENA", "ONDO", "TRUMP"],
  "venues": [
    {"id": "binance", "name": "Binance", "region": "global", "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USDT", "quotes": ["USDT", "USDC", "FDUSD", "BTC", "ETH", "BNB", "EUR", "TRY", "BRL"], "symbols": ["{BASE}{QUOTE}"], "maker": 0.001, "taker": 0.001, "source": "fees: multiple fee guides (2025), BNB payment -25 %", "verified": false, "tardis": "binance"},
      {"kind": "linear", "venue_name": "USDⓈ-M", "example": "BTCUSDT", "quote": "USDT", "quotes": ["USDT", "USDC"], "symbols": ["{BASE}{QUOTE}", "{BASE}{QUOTE}_{YYMMDD}"], "maker": 0.0002, "taker": 0.0005, "source": "fees: Binance table reproduced on secondary pages (2025-26), BNB -10 %", "verified": false, "tardis": "binance-futures"},
      {"kind": "inverse", "venue_name": "COIN-M", "example": "BTCUSD_PERP", "quote": "USD", "symbols": ["{BASE}{QUOTE}_PERP", "{BASE}{QUOTE}_{YYMMDD}"], "contract_size": {"BTC": 100, "*": 10}, "maker": 0.0002, "taker": 0.0005, "source": "fees: secondary pages disagree (0.01-0.02 % maker); contract size: crypto-contract-value crate (third-party): BTC 100 USD, others 10 USD", "verified": false, "tardis": "binance-delivery"} ] },
    {"id": "binanceus", "name": "Binance.US", "region": "US", "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USD", "quotes": ["USD", "USDT", "USDC", "BTC"], "symbols": ["{BASE}{QUOTE}"], "maker": 0.001, "taker": 0.001, "source": "fees: unconfirmed", "verified": false, "tardis": "binance-us"} ] },
    {"id": "bybit", "name": "Bybit", "region": "global", "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "BTCUSDT", "quote": "USDT", "quotes": ["USDT", "USDC", "BTC", "EUR"], "symbols": ["{BASE}{QUOTE}"], "maker": 0.001, "taker": 0.001, "source": "fees: cryptocurrence.trading guide (2025)", "verified": false, "tardis": "bybit-spot"},
      {"kind": "linear", "venue_name": "linear", "example": "BTCUSDT", "quote": "USDT", "symbols": ["{BASE}{QUOTE}", "{BASE}{QUOTE}-{DDMMMYY}"], "maker": 0.0002, "taker": 0.00055, "source": "fees: Bybit fee page as remembered, secondary pages show 0.05-0.06 % taker; dated USDT naming unconfirmed", "verified": false, "tardis": "bybit"},
      {"kind": "linear", "venue_name": "linear USDC", "example": "BTCPERP", "quote": "USDC", "symbols": ["{BASE}PERP", "{BASE}-{DDMMMYY}"], "maker": 0.0002, "taker": 0.00055, "source": "fees: as Bybit linear, unconfirmed", "verified": false},
      {"kind": "inverse", "venue_name": "inverse", "example": "BTCUSD", "quote": "USD", "symbols": ["{BASE}{QUOTE}", "{BASE}{QUOTE}{MYY}"], "contract_size": {"*": 1}, "maker": 0.0002, "taker": 0.00055, "source": "fees: as Bybit linear, unconfirmed; contract size: crypto-contract-value crate (third-party): 1 USD; dated expiry on the last Friday of the month", "verified": false} ] },
    {"id": "okx", "name": "OKX", "region": "global", "markets": [
      {"kind": "spot", "venue_name": "SPOT", "example": "BTC-USDT", "quote": "USDT", "quotes": ["USDT", "USDC", "BTC", "ETH", "EUR"], "symbols": ["{BASE}-{QUOTE}"], "maker": 0.0008, "taker": 0.001, "source": "fees: okx.com/fees, Lv1, USDT pairs", "verified": true, "tardis": "okex"},
      {"kind": "linear", "venue_name": "SWAP", "example": "BTC-USDT-SWAP", "quote": "USDT", "quotes": ["USDT", "USDC"], "symbols": ["{BASE}-{QUOTE}-SWAP"], "maker": 0.0002, "taker": 0.0005, "source": "fees: secondary page citing 2022 data", "verified": false, "tardis": "okex-swap"},
      {"kind": "inverse", "venue_name": "SWAP", "example": "BTC-USD-SWAP", "quote": "USD", "symbols": ["{BASE}-{QUOTE}-SWAP"], "contract_size": {"BTC": 100, "*": 10}, "maker": 0.0002, "taker": 0.0005, "source": "fees: secondary page citing 2022 data; contract size: crypto-contract-value crate (third-party): BTC 100 USD; others 10 USD unconfirmed", "verified": false},
      {"kind": "future", "venue_name": "FUTURES", "example": "BTC-USD-250328", "quote": "USD", "symbols": ["{BASE}-{QUOTE}-{YYMMDD}"], "margin": "inverse", "contract_size": {"BTC": 100, "*": 10}, "maker": 0.0002, "taker": 0.0005, "source": "fees: secondary page citing 2022 data; contract size as OKX inverse SWAP, unconfirmed", "verified": false, "tardis": "okex-futures"},
      {"kind": "future", "venue_name": "FUTURES USDT", "example": "BTC-USDT-250328", "quote": "USDT", "quotes": ["USDT", "USDC"], "symbols": ["{BASE}-{QUOTE}-{YYMMDD}"], "margin": "linear", "maker": 0.0002, "taker": 0.0005, "source": "fees: secondary page citing 2022 data", "verified": false} ] },
    {"id": "upbit", "name": "Upbit", "region": "KR", "markets": [
      {"kind": "spot", "venue_name": "KRW market", "example": "KRW-BTC", "quote": "KRW", "quotes": ["KRW", "BTC", "USDT"], "symbols": ["{QUOTE}-{BASE}"], "maker": 0.0005, "taker": 0.0005, "source": "fees: Korean guides (2025), VAT included; BTC/USDT markets 0.25 %", "verified": false, "tardis": "upbit"} ] },
    {"id": "bithumb", "name": "Bithumb", "region": "KR", "markets": [
      {"kind": "spot", "venue_name": "KRW market", "example": "BTC_KRW", "quote": "KRW", "quotes": ["KRW", "BTC"], "symbols": ["{BASE}_{QUOTE}", "{QUOTE}-{BASE}"], "maker": 0.0004, "taker": 0.0004, "source": "fees: itreview.kr (2025), frequent promotions", "verified": false} ] },
    {"id": "coinone", "name": "Coinone", "region": "KR", "markets": [
      {"kind": "spot", "venue_name": "KRW market", "example": "BTC", "quote": "KRW", "symbols": ["{BASE}"], "maker": 0.002, "taker": 0.002, "source": "fees: unconfirmed", "verified": false} ] },
    {"id": "korbit", "name": "Korbit", "region": "KR", "markets": [
      {"kind": "spot", "venue_name": "KRW market", "example": "btc_krw", "quote": "KRW", "symbols": ["{base}_{quote}"], "maker": 0.002, "taker": 0.002, "source": "fees: unconfirmed", "verified": false} ] },
    {"id": "kraken", "name": "Kraken", "region": "global", "aliases": {"XBT": "BTC", "XDG": "DOGE"}, "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "XBT/USD", "quote": "USD", "quotes": ["USD", "USDT", "USDC", "EUR", "GBP", "BTC", "ETH"], "symbols": ["{BASE}/{QUOTE}", "{BASE}{QUOTE}"], "maker": 0.0025, "taker": 0.004, "source": "fees: unconfirmed", "verified": false, "tardis": "kraken"} ] },
    {"id": "bitstamp", "name": "Bitstamp", "region": "global", "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "btcusd", "quote": "USD", "quotes": ["USD", "EUR", "GBP", "USDT", "USDC", "BTC"], "symbols": ["{base}{quote}"], "maker": 0.003, "taker": 0.004, "source": "fees: unconfirmed", "verified": false, "tardis": "bitstamp"} ] },
    {"id": "coinbase", "name": "Coinbase", "region": "US", "markets": [
      {"kind": "spot", "venue_name": "spot", "example": "BTC-USD", "quote": "USD", "quotes": ["USD", "USDC", "USDT", "EUR", "GBP", "BTC"], "symbols": ["{BASE}-{QUOTE}"], "maker": 0.004, "taker": 0.006, "source": "fees: unconfirmed", "verified": false, "tardis": "coinbase"} ] },
    {"id": "bitmex", "name": "BitMEX", "region": "global", "aliases": {"XBT": "BTC"}, "markets": [
      {"kind": "inverse", "venue_name": "perpetual", "example": "XBTUSD", "quote": "USD", "symbols": ["{BASE}{QUOTE}", "{BASE}{MYY}"], "contract_size": {"*": 1}, "bases": ["BTC"], "maker": -0.0001, "taker": 0.00075, "source": "fees: unconfirmed; contract size: crypto-contract-value crate (third-party): 1 USD; other bases are quanto, not inverse; dated expiry on the last Friday of the month", "verified": false, "tardis": "bitmex"} ] },
    {"id": "deribit", "name": "Deribit", "region": "global", "markets": [
      {"kind": "inverse", "venue_name": "perpetual", "example": "BTC-PERPETUAL", "quote": "USD", "symbols": ["{BASE}-PERPETUAL", "{BASE}-{DDMMMYY}"], "contract_size": {"BTC": 10, "*": 1}, "bases": ["BTC", "ETH"], "maker": 0.0, "taker": 0.0005, "source": "fees: unconfirmed; contract size: crypto-contract-value crate (third-party): BTC 10 USD, ETH 1 USD", "verified": false, "tardis": "deribit"} ] },
    {"id": "huobi", "name": "Huobi (HTX)", "region": "global", "markets": [
      {"kind": "inverse", "venue_name": "coin-margined swap", "example": "BTC-USD", "quote": "USD", "symbols": ["{BASE}-{QUOTE}"], "contract_size": {"BTC": 100, "*": 10}, "maker": 0.0002, "taker": 0.0005, "source": "fees and contract size (BTC 100 USD, others 10 USD) unconfirmed", "verified": false, "tardis": "huobi-dm-swap"} ] }
  ]
}
"""#
