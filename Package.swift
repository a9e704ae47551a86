// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
  name: "skyframe",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "SkyframeCodec", targets: ["SkyframeCodec"]),
    .library(name: "SkyframeWeather", targets: ["SkyframeWeather"]),
    .library(name: "SkyframeJSON", targets: ["SkyframeJSON"]),
    .library(name: "SkyframeMQTT", targets: ["SkyframeMQTT"]),
    .library(name: "SkyframeProviders", targets: ["SkyframeProviders"]),
    .library(name: "SkyframePlaces", targets: ["SkyframePlaces"]),
    .library(name: "SkyframeGateway", targets: ["SkyframeGateway"]),
    .library(name: "SkyframeLoRaWAN", targets: ["SkyframeLoRaWAN"]),
    .library(name: "SkyframeHomeAssistant", targets: ["SkyframeHomeAssistant"]),
    .library(name: "SkyframeCluster", targets: ["SkyframeCluster"]),
    .library(name: "SkyframeHTTP", targets: ["SkyframeHTTP"]),
    .library(name: "SkyframeCoAP", targets: ["SkyframeCoAP"]),
    .library(name: "SkyframeAssembly", targets: ["SkyframeAssembly"]),
    .executable(name: "skyframe", targets: ["skyframe"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    .package(
      url: "https://github.com/apple/swift-configuration", from: "1.4.0",
      traits: [.defaults, "YAML"]),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    // Already under async-http-client; named for its gzip settings (and the test server's gzip).
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    // Already under swift-configuration's YAML trait; read directly for the file's keys and lines.
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    // The HTTP listeners (the way in and the operator's): routing, HTTP/1.1 and TLS (over
    // swift-nio-ssl, already in the tree).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // Both already under Hummingbird and async-http-client; named for the types the way in uses.
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    // gzip for the operator's listener (what Hummingbird's own compression middleware uses).
    .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
  ],
  targets: [
    // MQTT in: Debian's libmosquitto (libmosquitto-dev) and a small async wrapper over it.
    .systemLibrary(
      name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    // OpenSSL's libcrypto, which libmosquitto links anyway: the cluster's HMAC-SHA256 without
    // building a second crypto library (swift-crypto's BoringSSL) on every fresh machine.
    .systemLibrary(
      name: "COpenSSLCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // The one renderer: a frame drawn as its display shows it, as PNG (C, shared with the
    // virtual display in firmware-notes/examples/virtual-display). It decodes with
    // firmware-notes/skyframe_frame.h, found through the header search path (no second copy).
    .target(
      name: "CSkyframeRender",
      cSettings: [.headerSearchPath("../../firmware-notes")]),
    .target(
      name: "SkyframeMQTT",
      dependencies: ["CMosquitto", log],
      swiftSettings: strict),
    // Request decoded, frame encoded: the wire format. No dependencies and no Foundation: it also
    // compiles as Embedded Swift.
    .target(name: "SkyframeCodec", swiftSettings: strict),
    // Weather fetched: the normalized model every service maps onto, and its compaction into a frame.
    .target(name: "SkyframeWeather", dependencies: ["SkyframeCodec"], swiftSettings: strict),
    // The weather services behind one protocol: Open-Meteo (forecast and geocoding).
    .target(
      name: "SkyframeProviders",
      dependencies: [
        "SkyframeCodec", "SkyframeWeather", "SkyframePlaces", log,
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
        .product(name: "NIOFoundationCompat", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // Location resolved offline: the nearest named place to a position, from a GeoNames file, and
    // a position's time zone (PlaceZoneTable.py writes the GeoNames places it is found by).
    .target(name: "SkyframePlaces", exclude: ["PlaceZoneTable.py"], swiftSettings: strict),
    // Frames and requests as JSON and as text for people: the CLI, the debug mirror, the vectors.
    .target(
      name: "SkyframeJSON", dependencies: ["SkyframeCodec", "SkyframeWeather"],
      swiftSettings: strict),
    // The gateway's core: the answer path's rooms (intake, resolver, composer, outbox), the cache
    // and the weather services' budgets, the clock, the configuration, and the parts that live in
    // the answer path (the cluster, named places, watches, the fast lane).
    .target(
      name: "SkyframeGateway",
      dependencies: [
        "SkyframeCodec", "SkyframeWeather", "SkyframeJSON", "SkyframeMQTT", "SkyframeProviders",
        "SkyframePlaces", log,
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        "CSkyframeRender",
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "Yams", package: "Yams"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
        // The operator's listener (status page, /metrics, /health), as the device listener is.
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "CompressNIO", package: "compress-nio"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
      ],
      swiftSettings: strict),
    // The parts that talk to outside systems, each depending only on the core among the
    // gateway's modules: LoRaWAN network servers, and Home Assistant discovery.
    .target(
      name: "SkyframeLoRaWAN",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeMQTT", "SkyframeProviders", log,
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      swiftSettings: strict),
    .target(
      name: "SkyframeHomeAssistant",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeJSON", "SkyframeMQTT", "SkyframeProviders",
        "SkyframeWeather", log,
      ],
      swiftSettings: strict),
    // The fleet: several gateways on one broker, a cell's owner fetching it once for all, the
    // shared cache and names signed with the cluster's key (libcrypto's HMAC).
    .target(
      name: "SkyframeCluster",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeMQTT", "SkyframeProviders", "SkyframeWeather",
        "COpenSSLCrypto", log,
      ],
      swiftSettings: strict),
    // The HTTP way in: displays that make one GET and sleep (Hummingbird).
    .target(
      name: "SkyframeHTTP",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeJSON", "SkyframeProviders", log,
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: strict),
    // The CoAP way in: Debian's libcoap (libcoap3-dev, with OpenSSL for DTLS), its callbacks in a
    // small C module that copies and returns, its thread owned by a Service.
    .systemLibrary(
      name: "CLibCoAP", pkgConfig: "libcoap-3-openssl", providers: [.apt(["libcoap3-dev"])]),
    .target(name: "CSkyframeCoAP", dependencies: ["CLibCoAP"]),
    .target(
      name: "SkyframeCoAP",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeProviders", "CSkyframeCoAP", log,
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict),
    // The gateway `skyframe` runs: the list of every part.
    .target(
      name: "SkyframeAssembly",
      dependencies: [
        "SkyframeGateway", "SkyframeLoRaWAN", "SkyframeHomeAssistant", "SkyframeHTTP",
        "SkyframeCoAP", "SkyframeCluster",
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "skyframe",
      dependencies: [
        "SkyframeCodec", "SkyframeWeather", "SkyframeJSON", "SkyframeMQTT", "SkyframeGateway",
        "SkyframeAssembly", log,
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strict
    ),
    // The gateway's rooms without a socket, for tests of the answer path and of ways in: a
    // manual clock, a scripted weather service, ways in whose answers stay in memory.
    .target(
      name: "SkyframeGatewayTesting",
      dependencies: [
        "SkyframeGateway", "SkyframeCodec", "SkyframeProviders", "SkyframeWeather", log,
      ],
      swiftSettings: strict),
    // What the integration tests share: a real mosquitto on a free port, a local HTTP server.
    .target(
      name: "SkyframeTestSupport",
      dependencies: [
        "SkyframeMQTT", "SkyframeCodec", "SkyframeGatewayTesting", log,
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
      ],
      path: "Tests/SkyframeTestSupport",
      swiftSettings: strict),
    .testTarget(name: "SkyframeCodecTests", dependencies: ["SkyframeCodec"], swiftSettings: strict),
    .testTarget(
      name: "SkyframeWeatherTests", dependencies: ["SkyframeWeather"], swiftSettings: strict),
    .testTarget(
      name: "SkyframeJSONTests", dependencies: ["SkyframeJSON", "SkyframeWeather"],
      swiftSettings: strict),
    .testTarget(
      name: "SkyframeMQTTTests", dependencies: ["SkyframeMQTT", "SkyframeTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "SkyframeProvidersTests", dependencies: ["SkyframeProviders", "SkyframeTestSupport"],
      swiftSettings: strict),
    .testTarget(
      name: "SkyframePlacesTests", dependencies: ["SkyframePlaces"], swiftSettings: strict),
    .testTarget(
      name: "SkyframeGatewayTests",
      dependencies: [
        "SkyframeGateway", "SkyframeLoRaWAN", "SkyframeHomeAssistant", "SkyframeAssembly",
        "SkyframeCluster", "SkyframeProviders", "SkyframeTestSupport", "SkyframeJSON",
        "SkyframeGatewayTesting",
      ],
      swiftSettings: strict),
    // The gateway run whole against a real mosquitto and local HTTP stand-ins (the unit tests
    // above start no broker).
    .testTarget(
      name: "SkyframeGatewayIntegrationTests",
      dependencies: [
        "SkyframeGateway", "SkyframeLoRaWAN", "SkyframeHomeAssistant", "SkyframeAssembly",
        "SkyframeProviders", "SkyframeTestSupport", "SkyframeJSON", "SkyframeCodec", "SkyframeHTTP",
        "SkyframeCoAP",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "skyframeTests",
      dependencies: [
        "skyframe", "SkyframeCodec", "SkyframeMQTT", "SkyframeGateway", "SkyframeAssembly",
        "SkyframeCluster", "SkyframeTestSupport",
      ],
      swiftSettings: strict),
  ],
  swiftLanguageModes: [.v6]
)
