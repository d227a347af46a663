// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "ArbKit",
  products: [
    .executable(name: "arbkit", targets: ["arbkit"]),
    .library(name: "ArbKit", targets: ["ArbCore", "ArbIngest", "ArbAnalytics", "ArbBacktest", "ArbResearch", "ArbReport", "ArbRecord", "ArbCLI"]),
  ],
  targets: [
    // MARK: C libraries from Debian (each imported by exactly one Swift file)
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
    .systemLibrary(name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"])]),
    .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
    .systemLibrary(name: "CLz4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
    // ISA-L ships no pkg-config file: the module map links it.
    .systemLibrary(name: "CIsal", providers: [.apt(["libisal-dev"])]),

    // MARK: Library modules, dependencies flow one way
    .target(name: "ArbCore"),
    .target(name: "ArbIngest", dependencies: ["ArbCore", "CZlib", "CZstd", "CIsal", "CSnappy", "CBrotli", "CLz4"]),
    .target(name: "ArbAnalytics", dependencies: ["ArbCore"]),
    .target(name: "ArbBacktest", dependencies: ["ArbCore", "ArbAnalytics"]),
    // The application layer: scenarios, sweeps and their results, between the engines and the commands.
    .target(name: "ArbResearch", dependencies: ["ArbCore", "ArbIngest", "ArbAnalytics", "ArbBacktest"]),
    .target(name: "ArbReport", dependencies: ["ArbCore", "ArbAnalytics", "ArbBacktest", "ArbResearch"]),
    // Polls venues' public REST endpoints into rest.snapshots files (`arbkit record`).
    .target(name: "ArbRecord", dependencies: ["ArbCore", "ArbIngest", "CZlib", "CZstd", "CCurl"]),
    .target(name: "ArbCLI", dependencies: ["ArbCore", "ArbIngest", "ArbAnalytics", "ArbBacktest", "ArbResearch", "ArbReport", "ArbRecord", "CHeap"]),
    // Fuzz targets, one per parser family and two for whole commands (`make fuzz` runs
    // them under libFuzzer).
    .target(name: "ArbFuzz", dependencies: ["ArbCore", "ArbIngest", "ArbCLI"]),
    // libcurl's easy interface, loaded with dlopen by the first request (`arbkit record`).
    .target(name: "CCurl"),
    // Counts the benchmark's heap allocations (linked into arbkit-bench only).
    .target(name: "CMallocCount"),
    // Gives the heap's free pages back to the system (`board` after each file it spills).
    .target(name: "CHeap"),

    // MARK: Executables
    .executableTarget(name: "arbkit", dependencies: ["ArbCLI"]),
    .executableTarget(name: "arbkit-fuzz", dependencies: ["ArbFuzz"], path: "Sources/ArbFuzzMain"),
    .executableTarget(
      name: "arbkit-bench", dependencies: ["ArbCore", "ArbIngest", "ArbAnalytics", "ArbBacktest", "CMallocCount"], path: "Sources/ArbBench"),

    // MARK: Tests
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(name: "ArbCoreTests", dependencies: ["ArbCore", "TestSupport"]),
    .testTarget(
      name: "ArbIngestTests", dependencies: ["ArbIngest", "TestSupport"],
      resources: [.copy("Fixtures")]),
    .testTarget(name: "ArbAnalyticsTests", dependencies: ["ArbAnalytics", "ArbIngest", "TestSupport"]),
    .testTarget(name: "ArbBacktestTests", dependencies: ["ArbBacktest", "ArbAnalytics", "ArbIngest", "TestSupport"]),
    .testTarget(name: "ArbFuzzTests", dependencies: ["ArbFuzz", "TestSupport"]),
    .testTarget(name: "ArbResearchTests", dependencies: ["ArbResearch", "TestSupport"]),
    .testTarget(name: "ArbReportTests", dependencies: ["ArbReport", "ArbResearch", "ArbAnalytics", "TestSupport"]),
    // The benchmark's generators (the executable's module, with its malloc counter).
    .testTarget(name: "ArbBenchTests", dependencies: ["arbkit-bench", "ArbCore", "ArbIngest", "TestSupport"]),
    .testTarget(name: "ArbCLITests", dependencies: ["ArbCLI", "TestSupport"], exclude: ["Snapshots"]),
    .testTarget(name: "ArbRecordTests", dependencies: ["ArbRecord", "ArbIngest", "TestSupport"], exclude: ["Fixtures"]),
  ]
)
