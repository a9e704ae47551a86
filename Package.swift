// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "skyframe",
  products: [
    .library(name: "SkyframeCodec", targets: ["SkyframeCodec"]),
    .library(name: "SkyframeWeather", targets: ["SkyframeWeather"]),
    .library(name: "SkyframeJSON", targets: ["SkyframeJSON"]),
    .executable(name: "skyframe", targets: ["skyframe"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
  ],
  targets: [
    // The wire format. No dependencies and no Foundation: it also compiles as Embedded Swift.
    .target(name: "SkyframeCodec", swiftSettings: strict),
    // The normalized weather model every service maps onto, and its compaction into a frame.
    .target(name: "SkyframeWeather", dependencies: ["SkyframeCodec"], swiftSettings: strict),
    // Frames and requests as JSON and as text for people: the CLI, the debug mirror, the vectors.
    .target(name: "SkyframeJSON", dependencies: ["SkyframeCodec"], swiftSettings: strict),
    .executableTarget(
      name: "skyframe",
      dependencies: [
        "SkyframeCodec",
        "SkyframeWeather",
        "SkyframeJSON",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict
    ),
    .testTarget(name: "SkyframeCodecTests", dependencies: ["SkyframeCodec"], swiftSettings: strict),
    .testTarget(
      name: "SkyframeWeatherTests", dependencies: ["SkyframeWeather"], swiftSettings: strict),
    .testTarget(
      name: "SkyframeJSONTests", dependencies: ["SkyframeJSON"], swiftSettings: strict),
    .testTarget(
      name: "skyframeTests", dependencies: ["skyframe", "SkyframeCodec"], swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)
