import Foundation
import SkyframeAssembly
import Testing

@testable import SkyframeGateway

/// A value of the wrong shape is refused with its key, its line and what the key takes — never
/// silently replaced by the key's default (issue: `mqtt.port: [1883]` ran on 1883 by chance,
/// `mqtt.tls.ca-file: [/path]` ran without TLS).
@Suite struct ConfigurationShapeTests {
  private func problems(_ yaml: String, environment: [String: String] = [:]) async throws
    -> [String]
  {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-shape-\(UUID().uuidString).yaml")
    try yaml.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    do {
      _ = try await GatewayConfiguration.load(
        path: file.path, environment: environment, parts: PartKind.all)
      return []
    } catch {
      return error.errors.map { $0.description.replacingOccurrences(of: file.path, with: "F") }
    }
  }

  @Test(arguments: [
    (
      "mqtt:\n  port: [1883]\n",
      "mqtt.port (env SKYFRAME_MQTT_PORT): a list is not allowed; expected a single value (F, line 2)"
    ),
    (
      "mqtt:\n  host: [a, b]\n",
      "mqtt.host (env SKYFRAME_MQTT_HOST): a list is not allowed; expected a single value (F, line 2)"
    ),
    (
      "mqtt:\n  password: [a]\n",
      "mqtt.password (env SKYFRAME_MQTT_PASSWORD): a list is not allowed; expected a single value (F, line 2)"
    ),
    (
      "mqtt:\n  tls:\n    ca-file: [/etc/ssl/ca.pem]\n",
      "mqtt.tls.ca-file (env SKYFRAME_MQTT_TLS_CA_FILE): a list is not allowed; expected a single value (F, line 3)"
    ),
    (
      "log:\n  level: [debug]\n",
      "log.level (env SKYFRAME_LOG_LEVEL): a list is not allowed; expected a single value (F, line 2)"
    ),
    (
      "weather:\n  fallback: met-norway\n",
      "weather.fallback (env SKYFRAME_WEATHER_FALLBACK): a single value is not allowed; expected a list ([a, b] or one item a line) (F, line 2)"
    ),
    ("mqtt: {}\n", ""),
    // A list whose items were all commented out: no value, the default (nothing).
    ("weather:\n  fallback:\n  # - met-norway\n", ""),
    ("locations:\n  names: ~\n", ""),
  ])
  func aValueOfTheWrongShapeIsRefused(yaml: String, expected: String) async throws {
    let found = try await problems(yaml)
    if expected.isEmpty {
      #expect(found.isEmpty, "\(found)")
    } else {
      #expect(found == [expected])
    }
  }

  @Test func aValueWhereASectionBelongsNamesTheSection() async throws {
    let found = try await problems("mqtt: broker.lan\n")
    #expect(found.count == 1)
    #expect(
      found.first?.hasPrefix(
        "mqtt (env SKYFRAME_MQTT): a single value is not allowed; expected a section of keys (mqtt."
      ) == true, "\(found)")
    #expect(found.first?.hasSuffix("…) (F, line 1)") == true, "\(found)")
    #expect(found.first?.contains("unknown key") == false)
  }

  @Test func theRightShapesStillLoad() async throws {
    #expect(
      try await problems(
        "mqtt:\n  host: broker.lan\n  port: 1884\nweather:\n  fallback: [met-norway]\nmet-norway:\n  user-agent: acme/1.0 ops@example.com\nlocations:\n  names: []\n"
      ).isEmpty)
    // The environment gives a list as comma-separated text, as it always did.
    #expect(
      try await problems(
        "met-norway:\n  user-agent: acme/1.0 ops@example.com\n",
        environment: ["SKYFRAME_WEATHER_FALLBACK": "met-norway"]
      )
      .isEmpty)
  }

  @Test func aMissingFileADirectoryAndAnEmptyFileAreNamedAsSuch() async throws {
    let directory = FileManager.default.temporaryDirectory.path
    await #expect {
      _ = try await GatewayConfiguration.load(
        path: directory, environment: [:], parts: PartKind.all)
    } throws: { error in
      "\(error)" == "--config: '\(directory)' is a directory, not a file"
    }
    await #expect {
      _ = try await GatewayConfiguration.load(
        path: "/nonexistent/skyframe.yaml", environment: [:], parts: PartKind.all)
    } throws: { error in
      "\(error)" == "--config: '/nonexistent/skyframe.yaml' does not exist"
    }
    #expect(
      try await problems("\n  \n") == [
        "--config: 'F' is empty: give at least one section (config/skyframe.example.yaml shows them all)"
      ])
    #expect(
      try await problems("mqtt:\n  tls:\n    ca-file: /nonexistent/ca.pem\n") == [
        "mqtt.tls.ca-file (env SKYFRAME_MQTT_TLS_CA_FILE): '/nonexistent/ca.pem' does not exist"
      ])
  }
}

/// The one list of keys that need a restart (written by `skyframe config describe`) is what a
/// reload keeps: each core key changed is named and put back.
@Suite struct RestartOnlyKeysTests {
  @Test func theListIsWhatAReloadKeeps() {
    let running = GatewayConfiguration()
    var new = running
    new.mqtt.port = 1_999
    new.topics.base = "elsewhere"
    new.requests.workers = 9
    new.metrics.host = "0.0.0.0"
    new.metrics.port = 1
    new.cluster.group = "kitchen"
    let (kept, changed) = new.keepingRestartOnlyKeys(of: running)
    #expect(changed == GatewayConfiguration.coreRestartOnlyKeys)
    #expect(kept == running)
  }
}
