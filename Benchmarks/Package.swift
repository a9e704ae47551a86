// swift-tools-version: 6.2
import PackageDescription

// The benchmarks live in their own package so that building Skyframe never builds the harness.
// The root package's identity is the name of the folder it was cloned into.
let root =
  Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "skyframe"

let package = Package(
  name: "SkyframeBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "SkyframeBenchmarks",
      dependencies: [
        .product(name: "SkyframeCodec", package: root),
        .product(name: "SkyframeWeather", package: root),
        .product(name: "SkyframeMQTT", package: root),
        .product(name: "SkyframeProviders", package: root),
        .product(name: "SkyframeGateway", package: root),
        .product(name: "SkyframeHTTP", package: root),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "SkyframeBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  ],
  swiftLanguageModes: [.v6]
)
