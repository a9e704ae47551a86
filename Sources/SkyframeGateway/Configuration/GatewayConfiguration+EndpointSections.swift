import Foundation
import SkyframeProviders

// Where the gateway connects and reports: `mqtt`, `topics`, `metrics` and `log`, each read,
// checked and described by itself (`GatewayConfiguration+ConfigReader.swift` lists them in order).

extension GatewayConfiguration.MQTT {
  /// Reads `mqtt.*` and checks it, the TLS files as the broker connection will read them.
  init(reading keys: KeyReader) {
    self.init()
    host = keys.text("mqtt.host") ?? host
    port = keys.integer("mqtt.port", port, 1...65_535, "a TCP port 1-65535")
    clientID = keys.text("mqtt.client-id") ?? clientID
    if !(1...23).contains(clientID.utf8.count)
      || !clientID.allSatisfy(GatewayConfiguration.isIdentifierCharacter)
    {
      keys.fail("mqtt.client-id", clientID, "1-23 characters of a-z, A-Z, 0-9, '-', '_'")
    }
    username = keys.text("mqtt.username")
    password = keys.text("mqtt.password", secret: true)
    if let passwordFile = keys.text("mqtt.password-file") {
      do {
        let contents = try String(contentsOfFile: passwordFile, encoding: .utf8)
        password = contents.trimmingCharacters(in: .whitespacesAndNewlines)
      } catch {
        keys.fail("mqtt.password-file", passwordFile, "a readable file holding the password")
      }
    }
    keepAliveSeconds = keys.integer(
      "mqtt.keepalive-seconds", keepAliveSeconds, 5...65_535, "seconds, 5-65535")
    protocolVersion = keys.choice("mqtt.protocol", protocolVersion, ["5", "3.1.1"])
    caFile = keys.existingFile("mqtt.tls.ca-file")
    certFile = keys.existingFile("mqtt.tls.cert-file")
    keyFile = keys.existingFile("mqtt.tls.key-file")
    // Paired by what was given, not by what could be read: a missing certificate is named once,
    // by its own key, and a good key beside it is not blamed.
    let certificateGiven = keys.text("mqtt.tls.cert-file") != nil
    let keyGiven = keys.text("mqtt.tls.key-file") != nil
    if certificateGiven, !keyGiven {
      keys.fail(
        "mqtt.tls.key-file", nil, "the client certificate's key (mqtt.tls.cert-file is set)")
    } else if keyGiven, !certificateGiven {
      keys.fail("mqtt.tls.cert-file", nil, "the client certificate (mqtt.tls.key-file is set)")
    }
    keys.checkTLSFiles(of: self)

    maximumInflight = keys.integer(
      "mqtt.max-inflight", maximumInflight, 0...65_535, "0 (no limit) to 65535 messages")
    receiveMaximum = keys.integer(
      "mqtt.receive-maximum", receiveMaximum, 0...65_535, "0 (65535) to 65535 messages")
    requestConnections = keys.integer(
      "mqtt.request-connections", requestConnections, 1...16, "1-16 connections")
    if requestConnections > 1 && protocolVersion != "5" {
      keys.fail(
        "mqtt.request-connections", "\(requestConnections)",
        "1 with mqtt.protocol 3.1.1 (more share one subscription, an MQTT 5 feature)")
    }
    fastLaneDevices = keys.integer(
      "mqtt.fast-lane-devices", fastLaneDevices, 0...10_000, "0 (no fast lane) to 10000 devices")
  }

  /// `mqtt` in `skyframe config check`'s YAML; the password redacted.
  var describedLines: [String] {
    [
      "mqtt:",
      "  host: \(DescribedValue.text(host))",
      "  port: \(port)",
      "  client-id: \(DescribedValue.text(clientID))",
      "  username: \(DescribedValue.text(username))",
      "  password: \(DescribedValue.secret(password))",
      "  keepalive-seconds: \(keepAliveSeconds)",
      "  protocol: \"\(protocolVersion)\"",
      "  tls:",
      "    ca-file: \(DescribedValue.text(caFile))",
      "    cert-file: \(DescribedValue.text(certFile))",
      "    key-file: \(DescribedValue.text(keyFile))",
      "  max-inflight: \(maximumInflight)",
      "  receive-maximum: \(receiveMaximum)",
      "  request-connections: \(requestConnections)",
      "  fast-lane-devices: \(fastLaneDevices)",
    ]
  }
}

extension GatewayConfiguration.Topics {
  /// Reads `topics.*` and checks it; the response prefix defaults to `{base}/v1/resp/`.
  init(reading keys: KeyReader) {
    self.init()
    base = keys.text("topics.base") ?? base
    if base.isEmpty || base.contains(where: { "+#".contains($0) }) || base.hasSuffix("/") {
      keys.fail("topics.base", base, "a topic without wildcards or a trailing '/'")
    }
    responsePrefix = keys.text("topics.response-prefix") ?? "\(base)/v1/resp/"
    if responsePrefix.contains(where: { "+#".contains($0) }) {
      keys.fail("topics.response-prefix", responsePrefix, "a topic prefix without wildcards")
    }
    responseTopicMaximumLength = keys.integer(
      "topics.response-topic-max-length", responseTopicMaximumLength, 16...4_096,
      "bytes, 16-4096")
    debugJSON = keys.flag("topics.debug-json", debugJSON)
    answerQoS =
      AnswerQoS(
        rawValue: keys.choice(
          "topics.answer-qos", answerQoS.rawValue, AnswerQoS.allCases.map(\.rawValue)))
      ?? answerQoS
  }

  /// `topics` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "topics:",
      "  base: \(DescribedValue.text(base))",
      "  response-prefix: \(DescribedValue.text(responsePrefix))",
      "  response-topic-max-length: \(responseTopicMaximumLength)",
      "  debug-json: \(debugJSON)",
      "  answer-qos: \(answerQoS.rawValue)",
    ]
  }
}

extension GatewayConfiguration.Metrics: KeyedSection {
  static let section = "metrics"
  static var keys: [SectionKey<Self>] {
    [
      .text("host", \.host),
      .integer("port", \.port, 0...65_535, "a TCP port 1-65535, or 0 for none"),
      .integer("stats-seconds", \.statsSeconds, 0...86_400, "seconds, 0 (never) to 86400"),
    ]
  }
}

extension GatewayConfiguration {
  /// The values `log.level` may take: swift-log's levels.
  static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

  /// Reads `log.level`; `current` stays when it is absent or not allowed.
  static func readLogLevel(_ keys: KeyReader, _ current: String) -> String {
    keys.choice("log.level", current, logLevels)
  }

  /// `log` in `skyframe config check`'s YAML.
  var describedLogLines: [String] {
    ["log:", "  level: \(logLevel)"]
  }
}
