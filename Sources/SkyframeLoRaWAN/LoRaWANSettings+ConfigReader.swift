import SkyframeCodec
import SkyframeGateway
import SkyframeProviders

extension LoRaWANSettings {
  /// At most this many places per device (one uplink byte picks one).
  static let maximumPlaces = 256

  /// Reads `lorawan.*` and checks it, naming the key of every problem.
  package init(reading keys: KeyReader) {
    self.init()
    unknownDevices =
      UnknownDevices(
        rawValue: keys.choice(
          "lorawan.unknown-devices", unknownDevices.rawValue,
          UnknownDevices.allCases.map(\.rawValue))) ?? unknownDevices
    defaultPlaces = Self.readPlaces(keys, "lorawan.default-places")

    for name in keys.stringArray("lorawan.servers.names") ?? [] {
      guard (1...32).contains(name.utf8.count),
        name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
        name != "names"
      else {
        keys.fail("lorawan.servers.names", name, "names of 1-32 characters a-z, 0-9 and '-'")
        continue
      }
      guard !servers.contains(where: { $0.name == name }) else {
        keys.fail("lorawan.servers.names", name, "each name once")
        continue
      }
      servers.append(Self.readServer(keys, name: name))
    }

    for text in keys.stringArray("lorawan.devices.euis") ?? [] {
      guard let eui = Self.normalizedEUI(text) else {
        keys.fail("lorawan.devices.euis", text, "DevEUIs of 16 hex digits")
        continue
      }
      guard devices[eui] == nil else {
        keys.fail("lorawan.devices.euis", text, "each DevEUI once")
        continue
      }
      // The key as listed: the file's block and the environment variable follow its spelling.
      let key = "lorawan.devices.\(text)"
      var device = Device()
      device.places = Self.readPlaces(keys, "\(key).places")
      if let rate = keys.text("\(key).rx2-data-rate") {
        device.rx2DataRate = Int(rate)
        for server in servers
        where device.rx2DataRate.flatMap({
          server.band.maximumPayload(downlinkDataRate: $0, dwellTime: server.downlinkDwellTime)
        }) == nil {
          keys.fail(
            "\(key).rx2-data-rate", rate,
            "a downlink data rate of \(server.band.rawValue) (server \(server.name)): "
              + Self.describe(server.band.downlinkDataRates(dwellTime: server.downlinkDwellTime)))
        }
      }
      if let offset = keys.text("\(key).rx1-dr-offset") {
        device.rx1Offset = Int(offset)
        for server in servers
        where device.rx1Offset.map({ server.band.rx1OffsetRange.contains($0) }) != true {
          keys.fail(
            "\(key).rx1-dr-offset", offset,
            "an RX1 offset of \(server.band.rawValue) (server \(server.name)): "
              + Self.describe(server.band.rx1OffsetRange))
        }
      }
      devices[eui] = device
    }
  }

  private static func describe(_ range: ClosedRange<Int>) -> String {
    "\(range.lowerBound)-\(range.upperBound)"
  }

  private static func readServer(_ keys: KeyReader, name: String) -> Server {
    let key = "lorawan.servers.\(name)"
    var server = Server(name: name)
    server.kind =
      ServerKind(
        rawValue: keys.choice(
          "\(key).kind", server.kind.rawValue, ServerKind.allCases.map(\.rawValue))
      ) ?? server.kind
    server.host = keys.text("\(key).host") ?? server.host
    server.port = keys.integer("\(key).port", server.port, 1...65_535, "a TCP port 1-65535")
    server.clientID = keys.text("\(key).client-id") ?? server.clientID
    if !(1...23).contains(server.clientID.utf8.count)
      || !server.clientID.allSatisfy(GatewayConfiguration.isIdentifierCharacter)
    {
      keys.fail("\(key).client-id", server.clientID, "1-23 characters of a-z, A-Z, 0-9, '-', '_'")
    }
    server.caFile = keys.existingFile("\(key).tls.ca-file")
    server.certFile = keys.existingFile("\(key).tls.cert-file")
    server.keyFile = keys.existingFile("\(key).tls.key-file")
    if (server.certFile == nil) != (server.keyFile == nil) {
      keys.fail(
        "\(key).tls.key-file", server.keyFile,
        "a client key and a client certificate together, or neither")
    }
    if server.certFile != nil, server.caFile == nil {
      keys.fail("\(key).tls.ca-file", nil, "a CA file, since a client certificate is set")
    }
    server.application = keys.text("\(key).application") ?? ""
    if server.application.isEmpty || server.application.utf8.count > 64
      || !server.application.allSatisfy(isTopicLevelCharacter)
    {
      keys.fail(
        "\(key).application", server.application,
        "the application id: 1-64 characters of a-z, A-Z, 0-9, '-', '_', '.'")
    }
    server.tenant = keys.text("\(key).tenant")
    if let tenant = server.tenant {
      if server.kind != .thingsStack {
        keys.fail("\(key).tenant", tenant, "only with kind things-stack")
      } else if tenant.utf8.count > 36 || !tenant.allSatisfy(isTopicLevelCharacter) {
        keys.fail("\(key).tenant", tenant, "1-36 characters of a-z, A-Z, 0-9, '-', '_', '.'")
      }
    }
    server.username = keys.text("\(key).username")
    if server.username == nil, server.kind == .thingsStack, !server.application.isEmpty {
      server.username = server.thingsStackUser
    }
    server.password = keys.secretFromValueOrFile("\(key).password")
    server.fPort = keys.integer(
      "\(key).f-port", server.fPort, 1...223,
      "an FPort 1-223 (224 is LoRaWAN's test port, 225-255 are reserved)")
    server.band =
      LoRaWANBand(
        rawValue: keys.choice(
          "\(key).band", server.band.rawValue, LoRaWANBand.allCases.map(\.rawValue))
      ) ?? server.band
    server.downlinkDwellTime = keys.flag("\(key).downlink-dwell-time", false)
    if server.downlinkDwellTime, server.band != .as923 {
      keys.fail("\(key).downlink-dwell-time", "true", "false unless band is as923")
    }
    let rates = server.band.downlinkDataRates(dwellTime: server.downlinkDwellTime)
    let defaultRX2 = max(server.band.defaultRX2DataRate, rates.lowerBound)
    server.rx2DataRate = keys.integer(
      "\(key).rx2-data-rate", defaultRX2, rates,
      "a downlink data rate of \(server.band.rawValue)"
        + (server.downlinkDwellTime ? " under dwell time" : "") + ": \(describe(rates))")
    server.rx1Offset = keys.integer(
      "\(key).rx1-dr-offset", server.rx1Offset, server.band.rx1OffsetRange,
      "an RX1 offset of \(server.band.rawValue): \(describe(server.band.rx1OffsetRange))")
    return server
  }

  /// Places as text requests name them (`Berlin,DE`, `52.52,13.41`), one per list item.
  private static func readPlaces(_ keys: KeyReader, _ key: String) -> [LocationQuery] {
    let texts = keys.stringArray(key) ?? []
    guard texts.count <= maximumPlaces else {
      keys.fail(key, "\(texts.count) places", "at most \(maximumPlaces) places")
      return []
    }
    var places: [LocationQuery] = []
    for text in texts {
      guard text != "refresh",
        let request = try? DeviceRequest(parsing: Array(text.utf8), maximumLocations: 1),
        request.profile == nil, request.checks.isEmpty,
        case .locations(let list) = request.body, list.count == 1
      else {
        keys.fail(
          key, text, "one place per item, as a text request names it: 'Berlin,DE' or '52.52,13.41'")
        continue
      }
      places.append(list[0])
    }
    return places
  }

  /// One MQTT topic level without wildcards, as application and tenant ids are.
  static func isTopicLevelCharacter(_ character: Character) -> Bool {
    character.isASCII
      && (character.isLetter || character.isNumber || character == "-" || character == "_"
        || character == ".")
  }

  /// `lorawan` in `skyframe config check`'s YAML; passwords shown as `<redacted>`.
  package var describedLines: [String] {
    func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "~" }
    func places(_ list: [LocationQuery]) -> String {
      "[" + list.map { "\"\(Self.describe($0))\"" }.joined(separator: ", ") + "]"
    }
    var lines = [
      "lorawan:",
      "  unknown-devices: \(unknownDevices.rawValue)",
      "  default-places: \(places(defaultPlaces))",
      "  servers:",
      "    names: [\(servers.map(\.name).joined(separator: ", "))]",
    ]
    for server in servers {
      lines += [
        "    \(server.name):",
        "      kind: \(server.kind.rawValue)",
        "      host: \(text(server.host))",
        "      port: \(server.port)",
        "      client-id: \(text(server.clientID))",
        "      username: \(text(server.username))",
        "      password: \(server.password == nil ? "~" : "<redacted>")",
        "      tls:",
        "        ca-file: \(text(server.caFile))",
        "        cert-file: \(text(server.certFile))",
        "        key-file: \(text(server.keyFile))",
        "      application: \(text(server.application))",
        "      tenant: \(text(server.tenant))",
        "      f-port: \(server.fPort)",
        "      band: \(server.band.rawValue)",
        "      downlink-dwell-time: \(server.downlinkDwellTime)",
        "      rx2-data-rate: \(server.rx2DataRate)",
        "      rx1-dr-offset: \(server.rx1Offset)",
      ]
    }
    let euis = devices.keys.sorted()
    lines += ["  devices:", "    euis: [\(euis.joined(separator: ", "))]"]
    for eui in euis {
      let device = devices[eui]!
      lines += [
        "    \(eui):",
        "      places: \(places(device.places))",
        "      rx2-data-rate: \(device.rx2DataRate.map { "\($0)" } ?? "~")",
        "      rx1-dr-offset: \(device.rx1Offset.map { "\($0)" } ?? "~")",
      ]
    }
    return lines
  }

  /// A place as a text request names it.
  static func describe(_ place: LocationQuery) -> String {
    switch place {
    case .coordinates(let coordinates):
      return "\(Double(coordinates.latitude) / 100_000),\(Double(coordinates.longitude) / 100_000)"
    case .place(let name, let country):
      return name.string + (country.map { ",\($0.string)" } ?? "")
    }
  }
}
