import Foundation
import SkyframeCodec
import SkyframeGateway

/// What both network servers' uplink messages give the gateway.
struct LoRaWANUplink: Sendable, Equatable {
  /// The DevEUI in upper case (or `id:{device id}` for a The Things Stack device registered
  /// without one): the device's id for limits, places and logs.
  var devEUI: String
  /// How the downlink names the device: ChirpStack's DevEUI exactly as its topic spelled it
  /// (it compares the two as strings), The Things Stack's device id.
  var replyDevice: String
  /// 0 when the message has none (a MAC-only uplink).
  var fPort: Int
  /// The FRMPayload, base64-decoded; empty when there is none.
  var payload: [UInt8]
  /// The uplink's data rate index, when known (from the message or its modulation).
  var dataRate: Int?
  /// The first receiving gateway's position that has both coordinates.
  var gatewayLocation: (latitude: Double, longitude: Double)?
  /// The uplink frame counter (fCnt; 0 when the message leaves it out): with the DevEUI and the
  /// payload, what tells a second copy of an uplink (`UplinkMemory`).
  var frameCount: UInt32 = 0

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.devEUI == rhs.devEUI && lhs.replyDevice == rhs.replyDevice && lhs.fPort == rhs.fPort
      && lhs.payload == rhs.payload && lhs.dataRate == rhs.dataRate
      && lhs.gatewayLocation?.latitude == rhs.gatewayLocation?.latitude
      && lhs.gatewayLocation?.longitude == rhs.gatewayLocation?.longitude
      && lhs.frameCount == rhs.frameCount
  }
}

/// Why an uplink message was not taken; each is counted and logged at a bounded rate.
enum UplinkRefusal: Error, Equatable, CustomStringConvertible {
  case foreignTopic
  case tooLarge(Int)
  case malformedJSON(String)
  case missingField(String)
  case badDevice(String)
  case badBase64
  /// The payload is still encrypted with a key the network server does not hold (ChirpStack's
  /// `joinServerContext.appSKey`, The Things Stack's `app_s_key` with `skip_payload_crypto`):
  /// its bytes are not a request.
  case encryptedPayload

  /// The metric label.
  var reason: String {
    switch self {
    case .foreignTopic: "topic"
    case .tooLarge: "message_too_large"
    case .malformedJSON, .missingField: "malformed_json"
    case .badDevice: "bad_device"
    case .badBase64: "bad_base64"
    case .encryptedPayload: "encrypted"
    }
  }

  var description: String {
    switch self {
    case .foreignTopic: "a topic that is no uplink topic of this server"
    case .tooLarge(let count): "a message of \(count) bytes (at most \(Self.maximumMessage))"
    case .malformedJSON(let detail): "malformed JSON: \(detail.prefix(120))"
    case .missingField(let field): "no \(field) in the uplink"
    case .badDevice(let text): "a device that is no DevEUI: '\(text.prefix(40))'"
    case .badBase64: "a payload that is not base64"
    case .encryptedPayload:
      "a payload still encrypted end to end (the network server does not hold its AppSKey): not read, no downlink"
    }
  }

  /// Uplink messages are a few kilobytes; anything larger is not read.
  static let maximumMessage = 16 * 1024
}

/// One network server's MQTT integration: the topics it publishes uplinks on, their JSON, and
/// the downlink it takes. Nothing outside the dialects knows a server's shapes.
protocol NetworkServerDialect: Sendable {
  /// The filter that takes every uplink of the configured application.
  var uplinkFilter: String { get }
  /// QoS of the subscription and of the downlinks.
  var qos: Int { get }
  func uplink(topic: String, json: [UInt8], band: LoRaWANBand) throws(UplinkRefusal)
    -> LoRaWANUplink
  /// The downlink topic and JSON for `payload` to `device` (`LoRaWANUplink.replyDevice`).
  func downlink(to device: String, fPort: Int, payload: UnsafeRawBufferPointer) -> (
    topic: String, json: [UInt8]
  )
}

extension NetworkServerDialect {
  /// The one level after `prefix` and before `suffix`, or nil.
  static func level(of topic: String, after prefix: String, before suffix: String) -> Substring? {
    guard topic.hasPrefix(prefix), topic.hasSuffix(suffix),
      topic.utf8.count > prefix.utf8.count + suffix.utf8.count
    else { return nil }
    let level = topic.dropFirst(prefix.count).dropLast(suffix.count)
    return level.contains("/") ? nil : level
  }

  static func decode<T: Decodable>(_ type: T.Type, _ json: [UInt8], snakeCase: Bool = false)
    throws(UplinkRefusal) -> T
  {
    guard json.count <= UplinkRefusal.maximumMessage else { throw .tooLarge(json.count) }
    do {
      let decoder = JSONDecoder()
      if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
      return try decoder.decode(T.self, from: Data(json))
    } catch DecodingError.keyNotFound(let key, _) {
      throw .missingField(key.stringValue)
    } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context)
    {
      throw .malformedJSON(
        "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
      )
    } catch {
      throw .malformedJSON("not an uplink object")
    }
  }

  /// Standard base64 (RFC 4648 §4) as both servers write it: groups of four characters of the
  /// alphabet, `=` only as the last one or two. Anything else is refused rather than guessed at
  /// (Foundation's decoder takes `AQ=D`).
  static func base64(_ text: String?) throws(UplinkRefusal) -> [UInt8] {
    guard let text, !text.isEmpty else { return [] }
    let bytes = Array(text.utf8)
    guard bytes.count % 4 == 0 else { throw .badBase64 }
    var padding = 0
    for (index, byte) in bytes.enumerated() {
      let inAlphabet =
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
      if byte == UInt8(ascii: "=") {
        guard index >= bytes.count - 2 else { throw .badBase64 }
        padding += 1
      } else if !inAlphabet || padding > 0 {
        throw .badBase64
      }
    }
    guard let data = Data(base64Encoded: text) else { throw .badBase64 }
    return [UInt8](data)
  }

  static func firstLocation(_ points: [(Double?, Double?)]) -> (
    latitude: Double, longitude: Double
  )? {
    for case (let latitude?, let longitude?) in points
    where (-90...90).contains(latitude) && (-180...180).contains(longitude)
      && !(latitude == 0 && longitude == 0)
    {
      return (latitude, longitude)
    }
    return nil
  }

  /// A JSON string of characters that need no escaping (ids the dialect checked).
  static func quoted(_ text: String) -> String { "\"\(text)\"" }
}

/// ChirpStack v4's MQTT integration: `application/{application_id}/device/{dev_eui}/event/up`
/// with the protobuf JSON mapping (camelCase; every top-level field even at its default, zero
/// values dropped inside `rxInfo`/`txInfo`, `"location":{}` for a gateway without one);
/// downlinks to `…/command/down`.
struct ChirpStackV4: NetworkServerDialect {
  let application: String

  var uplinkFilter: String { "application/\(application)/device/+/event/up" }
  var qos: Int { 1 }

  private struct Event: Decodable {
    struct DeviceInfo: Decodable { var devEui: String }
    struct RxInfo: Decodable {
      var location: ReceptionLocation?
    }
    struct TxInfo: Decodable {
      struct Modulation: Decodable {
        var lora: LoRaModulation?
      }
      var modulation: Modulation?
    }
    /// Present with an `appSKey` when the payload is still encrypted (the key is held by a join
    /// server, wrapped under a KEK ChirpStack cannot unwrap).
    struct JoinServerContext: Decodable {
      struct KeyEnvelope: Decodable { var aesKey: String? }
      var appSKey: KeyEnvelope?
    }
    var deviceInfo: DeviceInfo
    var fPort: Int?
    var fCnt: UInt32?
    var dr: Int?
    var data: String?
    var joinServerContext: JoinServerContext?
    var rxInfo: [RxInfo]?
    var txInfo: TxInfo?
  }

  func uplink(topic: String, json: [UInt8], band: LoRaWANBand) throws(UplinkRefusal)
    -> LoRaWANUplink
  {
    guard
      let topicEUI = Self.level(
        of: topic, after: "application/\(application)/device/", before: "/event/up")
    else { throw .foreignTopic }
    let event = try Self.decode(Event.self, json)
    guard let eui = LoRaWANSettings.normalizedEUI(event.deviceInfo.devEui),
      LoRaWANSettings.normalizedEUI(topicEUI) == eui
    else { throw .badDevice(event.deviceInfo.devEui) }
    if event.joinServerContext?.appSKey != nil { throw .encryptedPayload }
    var dataRate = event.dr
    if dataRate == nil, let lora = event.txInfo?.modulation?.lora,
      let spreadingFactor = lora.spreadingFactor, let bandwidth = lora.bandwidth
    {
      dataRate = band.uplinkDataRate(spreadingFactor: spreadingFactor, bandwidth: bandwidth)
    }
    return LoRaWANUplink(
      devEUI: eui, replyDevice: String(topicEUI), fPort: event.fPort ?? 0,
      payload: try Self.base64(event.data), dataRate: dataRate,
      gatewayLocation: Self.firstLocation(
        (event.rxInfo ?? []).map { ($0.location?.latitude, $0.location?.longitude) }),
      frameCount: event.fCnt ?? 0)
  }

  func downlink(to device: String, fPort: Int, payload: UnsafeRawBufferPointer) -> (
    topic: String, json: [UInt8]
  ) {
    let data = Data(payload).base64EncodedString()
    let json =
      #"{"devEui":\#(Self.quoted(device)),"confirmed":false,"fPort":\#(fPort),"data":"\#(data)"}"#
    return ("application/\(application)/device/\(device)/command/down", Array(json.utf8))
  }
}

/// The Things Stack's MQTT server (3.1.1, QoS 0 only): `v3/{application}[@{tenant}]/devices/
/// {device id}/up` with snake_case JSON that omits zero values (no `f_cnt` when 0, no
/// `frm_payload` for an empty payload), EUIs in upper case, no data-rate index (the modulation's
/// spreading factor and bandwidth instead); downlinks to `…/down/push`.
struct ThingsStack: NetworkServerDialect {
  /// `{application}@{tenant}`, or the application alone.
  let user: String

  var uplinkFilter: String { "v3/\(user)/devices/+/up" }
  var qos: Int { 0 }

  private struct Message: Decodable {
    struct DeviceIDs: Decodable {
      var deviceId: String
      var devEui: String?
    }
    struct Uplink: Decodable {
      struct Metadata: Decodable {
        var location: ReceptionLocation?
      }
      struct Settings: Decodable {
        struct DataRate: Decodable {
          struct FSK: Decodable {}
          var lora: LoRaModulation?
          var fsk: FSK?
        }
        var dataRate: DataRate?
      }
      /// Set when the application server skipped payload crypto (`skip_payload_crypto`): the
      /// payload is still encrypted with this session key.
      struct KeyEnvelope: Decodable { var key: String? }
      var fPort: Int?
      var fCnt: UInt32?
      var frmPayload: String?
      var appSKey: KeyEnvelope?
      var rxMetadata: [Metadata]?
      var settings: Settings?
    }
    var endDeviceIds: DeviceIDs
    var uplinkMessage: Uplink
  }

  func uplink(topic: String, json: [UInt8], band: LoRaWANBand) throws(UplinkRefusal)
    -> LoRaWANUplink
  {
    guard let topicDevice = Self.level(of: topic, after: "v3/\(user)/devices/", before: "/up")
    else { throw .foreignTopic }
    let message = try Self.decode(Message.self, json, snakeCase: true)
    let device = message.endDeviceIds.deviceId
    // Device ids are 2-36 of a-z, 0-9 and '-' (The Things Stack's own rule): safe in a topic
    // and in JSON as they are.
    guard device == topicDevice, (2...36).contains(device.utf8.count),
      device.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
    else { throw .badDevice(device) }
    // A device registered without a DevEUI (ABP) is known by its device id: `id:` keeps it
    // apart from any DevEUI (device ids are lower case, and may be all digits).
    let eui: String
    if let text = message.endDeviceIds.devEui {
      guard let normalized = LoRaWANSettings.normalizedEUI(text) else { throw .badDevice(text) }
      eui = normalized
    } else {
      eui = "id:" + device
    }
    let uplink = message.uplinkMessage
    if uplink.appSKey != nil { throw .encryptedPayload }
    var dataRate: Int?
    if let lora = uplink.settings?.dataRate?.lora, let spreadingFactor = lora.spreadingFactor,
      let bandwidth = lora.bandwidth
    {
      dataRate = band.uplinkDataRate(spreadingFactor: spreadingFactor, bandwidth: bandwidth)
    } else if uplink.settings?.dataRate?.fsk != nil {
      dataRate = band.fskDataRate
    }
    return LoRaWANUplink(
      devEUI: eui, replyDevice: device, fPort: uplink.fPort ?? 0,
      payload: try Self.base64(uplink.frmPayload), dataRate: dataRate,
      gatewayLocation: Self.firstLocation(
        (uplink.rxMetadata ?? []).map { ($0.location?.latitude, $0.location?.longitude) }),
      frameCount: uplink.fCnt ?? 0)
  }

  func downlink(to device: String, fPort: Int, payload: UnsafeRawBufferPointer) -> (
    topic: String, json: [UInt8]
  ) {
    let data = Data(payload).base64EncodedString()
    let json =
      #"{"downlinks":[{"f_port":\#(fPort),"frm_payload":"\#(data)","priority":"NORMAL"}]}"#
    return ("v3/\(user)/devices/\(device)/down/push", Array(json.utf8))
  }
}

extension LoRaWANSettings.Server {
  var dialect: any NetworkServerDialect {
    switch kind {
    case .chirpstack: ChirpStackV4(application: application)
    case .thingsStack: ThingsStack(user: thingsStackUser)
    }
  }
}

/// A receiving gateway's position in either server's uplink (`rxInfo[].location`,
/// `rx_metadata[].location`).
private struct ReceptionLocation: Decodable {
  var latitude: Double?
  var longitude: Double?
}

/// The LoRa modulation in either server's uplink (`txInfo.modulation.lora`,
/// `settings.data_rate.lora`).
private struct LoRaModulation: Decodable {
  var bandwidth: Int?
  var spreadingFactor: Int?
}
