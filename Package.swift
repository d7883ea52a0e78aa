// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Ubiquity",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Ubiquity", targets: ["Ubiquity"]),
        .library(name: "UbiquitySimulation", targets: ["UbiquitySimulation"]),
        .executable(name: "ubiq", targets: ["ubiq"]),
        .executable(name: "ubiq-bench", targets: ["ubiq-bench"]),
    ],
    traits: [
        // The default build needs only what a stock Swift-on-Linux machine has (libsqlite3-dev,
        // libxml2-dev, zlib). This trait deflates baselines with ISA-L and inflates them with
        // libdeflate instead of zlib (libisal-dev, libdeflate-dev): about twice as fast on
        // large stores (Docs/Benchmarks.md, "Baseline roll"). `swift build --traits FastDeflate`,
        // or `traits: ["FastDeflate"]` on a dependency's `.package` line.
        .trait(name: "FastDeflate", description: "Deflate baselines with ISA-L and inflate them with libdeflate (libisal-dev, libdeflate-dev)."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Counters and timers of sync (Sync/SyncMetrics.swift): a no-op unless the app
        // bootstraps a metrics backend or hands a peer its own factory.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // `swift package generate-documentation --target Ubiquity`: the DocC catalog
        // (Sources/Ubiquity/Ubiquity.docc), built in CI with warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CSystemZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CISAL",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // Callgrind's client requests: ubiq-bench --instructions counts instructions per measured region.
        .target(name: "CCallgrind"),
        .target(
            name: "UbiquityPlist",
            dependencies: ["CLibXML2"]
        ),
        // The library is four targets, each seeing only those below it, so a back-edge does not
        // compile (Docs/Architecture.md): Base ← Core ← Sync ← Ubiquity.
        .target(
            name: "UbiquityBase",
            dependencies: [
                "UbiquityPlist",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "UbiquityCore",
            dependencies: [
                "UbiquityBase",
                "UbiquityPlist",
                "CSQLite",
                "CLibXML2",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "UbiquitySync",
            dependencies: [
                "UbiquityCore",
                "UbiquityBase",
                "UbiquityPlist",
                .product(name: "Crypto", package: "swift-crypto"),
                // deflate and inflate of baselines (Sync/Deflate/): zlib by default; with the
                // FastDeflate trait ISA-L deflates, libdeflate inflates and takes CRC-32s.
                "CSystemZlib",
                .target(name: "CISAL", condition: .when(traits: ["FastDeflate"])),
                .target(name: "CLibDeflate", condition: .when(traits: ["FastDeflate"])),
                // scrypt, for the passphrase that wraps an encrypted content's key (Encryption/).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Ubiquity",
            dependencies: ["UbiquitySync", "UbiquityCore", "UbiquityBase", "UbiquityPlist",
                           .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        .executableTarget(
            name: "ubiq",
            dependencies: [
                "Ubiquity",
                "UbiquitySimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ubiq-bench",
            // "ubiq": the latency suite runs `ubiq watch`, so building the bench builds the tool too.
            // "UbiquitySimulation": the churn suite runs the built-in scenario in-process.
            // CoreMetrics: the observed import hands its peer a metrics backend of its own.
            dependencies: ["Ubiquity", "UbiquityPlist", "UbiquitySimulation", "CSQLite", "CCallgrind", "ubiq",
                           .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
        .target(
            name: "UbiquitySimulation",
            dependencies: ["Ubiquity"]
        ),
        .testTarget(
            name: "UbiquityPlistTests",
            // UbiquityBase: the seeded generator the randomized tests draw from.
            dependencies: ["UbiquityPlist", "UbiquityBase"]
        ),
        // What the sync tests share: the one-folder and several-machine harnesses, the seeded
        // workload. A target of its own, so a helper is found by import, not by sharing a module.
        .target(
            name: "UbiquityTestSupport",
            dependencies: ["Ubiquity", "UbiquityBase", "UbiquitySimulation"],
            path: "Tests/UbiquityTestSupport"
        ),
        .testTarget(
            name: "UbiquityTests",
            // Logging: the log-level tests plug their own swift-log handler into the logger.
            // CoreMetrics: the metrics tests hand a peer their own in-memory factory.
            dependencies: ["Ubiquity", "UbiquityBase", "UbiquityCore", "UbiquitySync", "UbiquitySimulation", "UbiquityTestSupport", "ubiq",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "CoreMetrics", package: "swift-metrics")]
        ),
    ]
)
