# ArbKit — the two commands a new user types, plus benchmarks.
#   make demo    install missing packages, build release, run the main job on Data/
#   make test    install missing packages, run every test
#   make bench   benchmark against pandas/polars/numpy/numba/vectorbt (installs them in bench/.venv)
#   make bench-scale  premium at 2, 8 and 32 M quotes a venue: time and peak memory, beside polars
#   make fuzz    fuzz every parser family for FUZZ_SECONDS each (libFuzzer + ASan)

SWIFT   ?= swift
ARBKIT  := .build/release/arbkit
SAMPLES := Data/samples
FORMATS := Data/formats
DEMO_OUT := out/demo
# The Swift files swift-format keeps in shape: all but the generated registry.
FORMATTED = $(shell find Sources Tests -name '*.swift' ! -name BuiltinRegistry.swift)

.PHONY: demo test bench bench-scale fuzz build deps registry check-real-data clean

deps:
	@scripts/install-deps

# The Swift runtime and Foundation linked in: the process starts without loading them.
build: deps
	$(SWIFT) build -c release --static-swift-stdlib --product arbkit

demo: build
	@echo "== arbkit inspect: the two real recordings in $(SAMPLES)"
	$(ARBKIT) inspect binanceus:spot:BTCUSDC=$(SAMPLES)/binanceus_BTCUSDC_1m_2023-03-01_21.csv@$(FORMATS)/binanceus-kline-1m.json \
	  kraken:spot:BTCUSDC=$(SAMPLES)/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz@$(FORMATS)/kraken-ohlcvt-1m.json
	@echo
	@echo "== arbkit premium: Binance.US vs Kraken BTC/USDC, 1-21 March 2023 (USDC de-peg)"
	$(ARBKIT) premium \
	  --leg binanceus:spot:BTCUSDC=$(SAMPLES)/binanceus_BTCUSDC_1m_2023-03-01_21.csv@$(FORMATS)/binanceus-kline-1m.json \
	  --leg kraken:spot:BTCUSDC=$(SAMPLES)/kraken_BTCUSDC_1m_2023-03-01_21.csv.gz@$(FORMATS)/kraken-ohlcvt-1m.json \
	  --max-stale 2m
	@echo
	@echo "== arbkit kimchi: Upbit, Bithumb, Coinone BTC/KRW over Bitstamp BTC/USD x USD/KRW, daily closes 2018-2025"
	$(ARBKIT) kimchi --krw upbit:spot:KRW-BTC=$(SAMPLES)/investing/upbit_BTC_KRW_daily.csv@$(FORMATS)/investing-daily-ko.json \
	  --krw bithumb:spot:BTC_KRW=$(SAMPLES)/investing/bithumb_BTC_KRW_daily.csv@$(FORMATS)/investing-daily-ko.json \
	  --krw coinone:spot:BTC=$(SAMPLES)/investing/coinone_BTC_KRW_daily.csv@$(FORMATS)/investing-daily-ko.json \
	  --usd bitstamp:spot:BTCUSD=$(SAMPLES)/investing/bitstamp_BTC_USD_daily.csv@$(FORMATS)/investing-daily-ko.json \
	  --fx $(SAMPLES)/investing/USD_KRW_daily.csv@$(FORMATS)/investing-usdkrw-ko.json --max-stale 1h
	@echo
	@echo "== arbkit backtest: the same pair, threshold strategy with fees, slippage and latency"
	$(ARBKIT) backtest Data/scenarios/binanceus-kraken-btcusdc.json
	@echo
	@echo "== arbkit sweep: entry x exit x Kraken fee, 18 cells"
	@mkdir -p $(DEMO_OUT)
	$(ARBKIT) sweep Data/scenarios/binanceus-kraken-btcusdc.json --grid strategy.entry=0.6:1.4:0.4 \
	  --grid strategy.exit=0,0.05,0.1 --grid costs.fees.kraken=0.0016,0.004 --quiet --top 5 --out $(DEMO_OUT)/sweep.csv \
	  --pnl-matrix $(DEMO_OUT)/pnl.csv --period 6h
	@echo
	@echo "== arbkit report: the scenario, the sweep, whether its best cell survives out of sample, and its backtest"
	$(ARBKIT) report Data/scenarios/binanceus-kraken-btcusdc.json --sweep $(DEMO_OUT)/sweep.csv --pnl-matrix $(DEMO_OUT)/pnl.csv --out $(DEMO_OUT)/report
	@echo
	@echo "Report: $(CURDIR)/$(DEMO_OUT)/report/report.html (open in a browser) and report.md"

# The tests also zip fixtures (Binance public data comes as .zip) and compress them
# with the zstd tool; sweeps are sharded with GNU parallel and on a single-node Slurm
# cluster started by scripts/test-sharding; scripts/test-report renders the report in
# headless Chromium; scripts/test-notebooks runs every notebook (in Notebooks/.venv);
# GNU time measures the peak memory of whole runs (BoundedMemoryTests); `swift format lint`
# keeps the sources as .swift-format lays them out (`swift format -i $(FORMATTED)`; the
# registry generated from Data/exchanges.json is left as scripts/embed-registry writes it);
# scripts/test-columnar reads the Arrow and Parquet files arbkit writes with pyarrow,
# polars and DuckDB (in Tests/.venv) and compares them with the same outputs' CSV.
test:
	@scripts/install-deps zip zstd parallel slurm-wlm munge chromium python3-venv time
	$(SWIFT) format lint --strict Package.swift $(FORMATTED)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/test-sharding .build/debug/arbkit
	scripts/test-report .build/debug/arbkit
	scripts/test-notebooks .build/debug/arbkit
	scripts/test-columnar .build/debug/arbkit
	scripts/test-board-follow .build/debug/arbkit

bench: deps
	scripts/bench $(ARGS)

# The scale part: premium over 3 venues x 2, 8 and 32 M quotes, from CSV and from a
# store, beside polars from memory-mapped Arrow (SIZES, RUNS, WORK: scripts/bench-scale).
bench-scale: build
	scripts/bench-scale $(ARBKIT)

# Read every file of a public real-data collection (DIR holds its SOURCES.md) and
# check rows and time ranges against the figures SOURCES.md gives.
check-real-data: build
	scripts/check-real-data $(DIR) $(ARBKIT)

# libFuzzer and AddressSanitizer come with the Swift toolchain; the build has its own
# folder so that it never invalidates the normal one. FUZZ_TARGETS picks targets.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	$(SWIFT) build -c release --scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product arbkit-fuzz
	scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Re-embed Data/exchanges.json into the binary after editing it.
registry:
	scripts/embed-registry

clean:
	rm -rf .build bench/data bench/.venv Notebooks/.venv out
