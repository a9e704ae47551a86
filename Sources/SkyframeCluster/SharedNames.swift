import Foundation
import SkyframeGateway
import SkyframeMQTT
import SkyframeWeather

/// The cluster's place names through the broker, as `SharedFrameCache` shares frames: a member
/// that looked a name up publishes what it found (or that nothing was), retained under
/// `{base}/v1/gateway/names/{16 hex digits of a hash of the name}` with an MQTT 5 message expiry
/// at the end of its time in the cache; every member takes it, and one that starts takes them
/// all before it asks for any name. So a name costs the fleet one call per geocoding TTL.
///
/// An entry is a JSON object (`{"name":"berlin","country":"DE","expires":…,"place":{…}|null}`)
/// followed by 32 bytes of HMAC-SHA256 over it with the cluster key; one whose HMAC, topic
/// (against the name it holds), shape or expiry does not check is ignored.
struct SharedNames: Sendable {
  private let key: [UInt8]
  private let prefix: String

  init(key: [UInt8], topics: GatewayConfiguration.Topics) {
    self.key = key
    prefix = topics.nameEntries
  }

  private struct Entry: Codable {
    var name: String
    var country: String?
    var expires: Int64
    var place: Forecast.Place?
  }

  /// The topic's last level for a name: FNV-1a 64 of name, a 0 byte and country, in hex.
  static func level(_ key: WeatherDesk.GeocodeKey) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in Array(key.name.utf8) + [0] + Array((key.countryCode ?? "").utf8) {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  func topic(_ key: WeatherDesk.GeocodeKey) -> String { prefix + Self.level(key) }

  /// The signed entry for `key`.
  func entry(_ place: WeatherDesk.CachedPlace, for key: WeatherDesk.GeocodeKey) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json =
      (try? encoder.encode(
        Entry(
          name: key.name, country: key.countryCode, expires: place.expiresAt, place: place.place)
      )).map { [UInt8]($0) } ?? []
    return json + SharedFrameCache.hmacSHA256(json[...], key: self.key)
  }

  /// Publishes `place` as the signed, retained entry of `key`; false when it could not.
  @discardableResult
  func share(
    _ place: WeatherDesk.CachedPlace, for key: WeatherDesk.GeocodeKey, with client: MQTTClient,
    now: Int64
  ) -> Bool {
    SharedFrameCache.publishEntry(
      entry(place, for: key), on: topic(key),
      expiring: UInt32(clamping: max(place.expiresAt - now, 1)), with: client)
  }

  enum Refused: Error, CustomStringConvertible {
    case shape, signature, topic

    var description: String {
      switch self {
      case .shape: "not a JSON name entry and its HMAC"
      case .signature: "the HMAC does not match the cluster key"
      case .topic: "the name in the entry is not the one of its topic"
      }
    }
  }

  /// The name and place of a checked entry published under `level` (the topic's last level).
  func verify(_ payload: some Collection<UInt8>, level: Substring) -> Result<
    (WeatherDesk.GeocodeKey, WeatherDesk.CachedPlace), Refused
  > {
    let bytes = Array(payload)
    guard bytes.count > 32, bytes.count <= 4_096 else { return .failure(.shape) }
    let json = bytes[..<(bytes.count - 32)]
    guard
      SharedFrameCache.constantTimeEqual(
        SharedFrameCache.hmacSHA256(json, key: key), bytes[(bytes.count - 32)...])
    else { return .failure(.signature) }
    guard let entry = try? JSONDecoder().decode(Entry.self, from: Data(json)) else {
      return .failure(.shape)
    }
    let key = WeatherDesk.GeocodeKey(name: entry.name, countryCode: entry.country)
    guard Self.level(key) == level else { return .failure(.topic) }
    return .success((key, WeatherDesk.CachedPlace(place: entry.place, expiresAt: entry.expires)))
  }
}
