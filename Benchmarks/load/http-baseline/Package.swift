// swift-tools-version: 6.2
import PackageDescription

// make load-http's middle contender: Hummingbird alone answering 192 fixed bytes.
let package = Package(
  name: "HTTPBaseline",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .executableTarget(
      name: "HTTPBaseline",
      dependencies: [
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ])
  ],
  swiftLanguageModes: [.v6]
)
