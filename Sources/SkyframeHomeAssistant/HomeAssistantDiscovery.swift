import Foundation
import SkyframeCodec
import SkyframeGateway

/// Home Assistant's MQTT discovery messages for Skyframe's devices: one device-based discovery
/// message per device (`{prefix}/device/{object_id}/config`, retained), its sensors in
/// `components`, their values read from the device's state topic by templates.
enum HomeAssistantDiscovery {
  struct Message: Encodable {
    var device: Device
    var origin: Origin
    var components: [String: Component]
    var stateTopic: String?
    var qos = 1

    init(
      device: Device, origin: Origin, components: [String: Component], stateTopic: String?,
      availability: [Availability]
    ) {
      self.device = device
      self.origin = origin
      // Each component carries its own availability, none is shared at the device level: Home
      // Assistant 2025.4 gives a device-level option to every component as the same object, and
      // once in about a dozen test runs two of the gateway's sensors came up unable to render
      // their availability template ('str' object has no attribute 'hass') and stayed
      // `unavailable`. Per component, nothing is shared.
      self.components = components.mapValues { component in
        var component = component
        component.availability = availability
        return component
      }
      self.stateTopic = stateTopic
    }
  }

  struct Device: Encodable {
    var identifiers: [String]
    var name: String
    var manufacturer = "Skyframe"
    var model: String
    var swVersion = GatewayInfo.softwareVersion
    var viaDevice: String?
  }

  struct Origin: Encodable {
    var name = "skyframe"
    var swVersion = GatewayInfo.softwareVersion
  }

  struct Availability: Encodable {
    var topic: String
    var valueTemplate = "{{ value_json.state }}"
    var payloadAvailable = "online"
    var payloadNotAvailable = "offline"
  }

  struct Component: Encodable {
    var platform = "sensor"
    var name: String
    var uniqueId = ""
    /// The entity id without its domain: what Home Assistant up to 2025.9 reads (2025.4 is the
    /// newest that runs on the Python here); 2026.4 ignores it.
    var objectId = ""
    /// The whole entity id (`sensor.…`): what Home Assistant reads from 2025.10 on, in place of
    /// `object_id` (2025.4 drops the key it does not know). The same id either way.
    var defaultEntityId = ""
    var deviceClass: String?
    var unitOfMeasurement: String?
    var stateClass: String?
    /// Decimals Home Assistant shows (the frame's own resolution), so that a whole value such as
    /// 11 m/s is shown converted as 39.6 km/h, not rounded to the text's 0 decimals (40).
    var suggestedDisplayPrecision: Int?
    var options: [String]?
    var valueTemplate: String
    var stateTopic: String?
    var jsonAttributesTopic: String?
    var jsonAttributesTemplate: String?
    var payloadOn: String?
    var payloadOff: String?
    var entityCategory: String?
    var icon: String?
    var availability: [Availability] = []
  }

  /// `skyframe_{base}_loc_berlin`: the device's id, its discovery topic's object id and the
  /// start of its entities' ids. Characters outside A-Z, a-z, 0-9 and '-' are written as '_'
  /// and two hexadecimal digits, so different names never meet.
  static func objectID(_ parts: String...) -> String {
    parts.map(escaped).joined(separator: "_")
  }

  static func escaped(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16)
        result += "_" + (hex.count == 1 ? "0" : "") + hex
      }
    }
    return result
  }

  static func objectID(for key: DisplayBoard.Key, base: String) -> String {
    switch key {
    case .place(let name): objectID("skyframe", base, "loc", name)
    case .watch(let device, nil): objectID("skyframe", base, "watch", device)
    case .watch(let device, let slot?): objectID("skyframe", base, "watch", device, "\(slot)")
    }
  }

  static func gatewayObjectID(base: String, clientID: String) -> String {
    objectID("skyframe", base, "gateway", clientID)
  }

  /// A part of an entity id, one-to-one: a-y and 0-9 as they are, every other byte (z, capitals,
  /// '-', '_', '.', UTF-8) as 'z' and two lower-case hexadecimal digits. Home Assistant's
  /// `slugify` leaves the result as it is (it lower-cases, and turns runs of other characters
  /// into one '_'), so `Kitchen` and `kitchen`, `dev-0` and device `dev` slot 0 never meet, and
  /// no id depends on the order Home Assistant hears of them.
  static func entityPart(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "y"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16)
        result += "z" + (hex.count == 1 ? "0" : "") + hex
      }
    }
    return result
  }

  /// The entity id (without its domain) of component `key` of the device whose id is made of
  /// `parts`: each part as `entityPart`, then the key (one of the fixed keys, `a-z` and '_').
  static func entityID(_ parts: [String], key: String) -> String {
    (parts.map(entityPart) + [key]).joined(separator: "_")
  }

  static func entityParts(for key: DisplayBoard.Key, base: String) -> [String] {
    switch key {
    case .place(let name): ["skyframe", base, "loc", name]
    case .watch(let device, nil): ["skyframe", base, "watch", device]
    case .watch(let device, let slot?): ["skyframe", base, "watch", device, "\(slot)"]
    }
  }

  static func configTopic(prefix: String, objectID: String) -> String {
    "\(prefix)/device/\(objectID)/config"
  }

  /// The sensors of a named place or watched place, in the order Home Assistant lists them.
  static let weatherComponents: [(key: String, component: Component)] = [
    // Decimals as the frame carries them (`schemas/frame-v1.md`): 0.1 °C, 0.1 hPa, 0.1 m/s.
    sensor("temperature", "Temperature", "temperature", .temperature, decimals: 1),
    sensor("feels_like", "Feels like", "feels_like", .temperature, decimals: 1),
    sensor("humidity", "Humidity", "humidity", .init("humidity", "%")),
    sensor(
      "pressure", "Pressure", "pressure", .init("atmospheric_pressure", "hPa"), decimals: 1),
    sensor("wind_speed", "Wind speed", "wind_speed", .wind, decimals: 1),
    sensor("wind_gust", "Wind gust", "wind_gust", .wind, decimals: 1),
    {
      var direction = sensor(
        "wind_direction", "Wind direction", "wind_direction", .init("wind_direction", "°"))
      direction.component.stateClass = "measurement_angle"
      return direction
    }(),
    sensor("uv_index", "UV index", "uv_index", .init(nil, nil), decimals: 1),
    sensor("visibility", "Visibility", "visibility", .init("distance", "m")),
    sensor(
      "precipitation", "Precipitation", "precipitation", .init("precipitation", "mm"),
      decimals: 1),
    {
      var aqi = sensor("aqi", "Air quality index", "aqi", .init("aqi", nil))
      aqi.component.jsonAttributesTemplate = "{{ {'scale': value_json.aqi_scale} | tojson }}"
      return aqi
    }(),
    sensor("alert_count", "Alerts", "alert_count", .init(nil, nil)),
    enumeration(
      "alert_severity", "Alert severity", "alert_severity",
      AlertSummary.Severity.allCases.map { "\($0.name)" }),
    text("next_hour_precipitation", "Next hour", "next_hour"),
    enumeration(
      "moon_phase", "Moon phase", "moon_phase", MoonPhase.Icon.allCases.map { "\($0.name)" }),
    text("condition", "Condition", "condition"),
    {
      // The state carries the frame's seconds since 1970; a timestamp sensor takes ISO 8601.
      var fetched = text("fetched_at", "Fetched", "fetched_at")
      fetched.component.valueTemplate =
        "{{ value_json.fetched_at | timestamp_custom('%Y-%m-%dT%H:%M:%S+00:00', false, none) }}"
      fetched.component.deviceClass = "timestamp"
      fetched.component.entityCategory = "diagnostic"
      return fetched
    }(),
    {
      var status = enumeration(
        "status", "Frame status", "status",
        (0...255).compactMap { FrameStatus(rawValue: UInt8($0)).name.map { "\($0)" } })
      status.component.entityCategory = "diagnostic"
      return status
    }(),
  ]

  struct Measure {
    var deviceClass: String?
    var unit: String?
    init(_ deviceClass: String?, _ unit: String?) {
      self.deviceClass = deviceClass
      self.unit = unit
    }
    static let temperature = Measure("temperature", "°C")
    static let wind = Measure("wind_speed", "m/s")
  }

  private static func sensor(
    _ key: String, _ name: String, _ field: String, _ measure: Measure, decimals: Int = 0
  ) -> (key: String, component: Component) {
    (
      key,
      Component(
        name: name, deviceClass: measure.deviceClass, unitOfMeasurement: measure.unit,
        stateClass: "measurement", suggestedDisplayPrecision: decimals,
        valueTemplate: "{{ value_json.\(field) }}")
    )
  }

  private static func text(_ key: String, _ name: String, _ field: String)
    -> (key: String, component: Component)
  {
    (key, Component(name: name, valueTemplate: "{{ value_json.\(field) }}"))
  }

  private static func enumeration(
    _ key: String, _ name: String, _ field: String, _ options: [String]
  ) -> (key: String, component: Component) {
    (
      key,
      Component(
        name: name, deviceClass: "enum", options: options,
        valueTemplate: "{{ value_json.\(field) }}")
    )
  }

  /// The discovery message of a named place or watched place.
  static func display(
    _ key: DisplayBoard.Key, name: String, topics: GatewayConfiguration.Topics, gatewayID: String
  ) -> Message {
    let id = objectID(for: key, base: topics.base)
    let parts = entityParts(for: key, base: topics.base)
    var components: [String: Component] = [:]
    for (componentKey, template) in weatherComponents {
      var component = template
      component.uniqueId = "\(id)_\(componentKey)"
      component.objectId = entityID(parts, key: componentKey)
      component.defaultEntityId = "\(component.platform).\(component.objectId)"
      if componentKey == "aqi" { component.jsonAttributesTopic = topics.displayState(key.path) }
      components[componentKey] = component
    }
    let model = if case .place = key { "named place" } else { "watch" }
    return Message(
      device: Device(identifiers: [id], name: name, model: model, viaDevice: gatewayID),
      origin: Origin(), components: components, stateTopic: topics.displayState(key.path),
      availability: [Availability(topic: topics.state)])
  }

  /// The gateway's own device: whether it is connected to the broker, its answers per minute,
  /// and each service's breaker (`closed`, `open`, `half_open`), from the retained state and
  /// stats documents.
  static func gateway(
    id: String, clientID: String, topics: GatewayConfiguration.Topics, services: [String]
  ) -> Message {
    var components: [String: Component] = [:]
    let parts = ["skyframe", topics.base, "gateway", clientID]
    func add(_ key: String, _ component: Component, entityKey: String? = nil) {
      var component = component
      component.uniqueId = "\(id)_\(key)"
      component.objectId = entityID(parts, key: entityKey ?? key)
      component.defaultEntityId = "\(component.platform).\(component.objectId)"
      components[key] = component
    }
    add(
      "broker",
      Component(
        platform: "binary_sensor", name: "Broker", deviceClass: "connectivity",
        valueTemplate: "{{ 'ON' if value_json.state == 'online' else 'OFF' }}",
        stateTopic: topics.state, payloadOn: "ON", payloadOff: "OFF",
        entityCategory: "diagnostic"))
    add(
      "answers_per_minute",
      Component(
        name: "Answers per minute", unitOfMeasurement: "answers/min", stateClass: "measurement",
        // Absent from the document until the gateway has a minute of samples.
        valueTemplate: "{{ value_json.get('answers_per_minute') }}", stateTopic: topics.stats))
    for service in services {
      // Service names are a-z, 0-9 and '-' and differ in more than '-' (the registry's): '-' as
      // '_' keeps them apart.
      add(
        "breaker_" + escaped(service),
        Component(
          name: "\(service) breaker", deviceClass: "enum",
          options: ["closed", "open", "half_open"],
          valueTemplate:
            "{% set s = value_json.services | selectattr('name', 'eq', '\(service)') | list %}"
            + "{{ s[0].breaker if s else None }}",
          stateTopic: topics.stats, entityCategory: "diagnostic"),
        entityKey: "breaker_" + service.replacingOccurrences(of: "-", with: "_"))
    }
    return Message(
      device: Device(identifiers: [id], name: "Skyframe gateway \(clientID)", model: "gateway"),
      origin: Origin(), components: components, stateTopic: nil,
      availability: [Availability(topic: topics.state)])
  }

  static func json(_ message: Message) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(message)).map { [UInt8]($0) } ?? Array("{}".utf8)
  }
}
