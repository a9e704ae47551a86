import SkyframeCodec
import SkyframeProviders
import SkyframeWeather

/// What the resolver makes of one place: weather (fresh or stale) or a failure with its status.
/// Every way in hands outcomes to the composer; none looks inside the resolver.
package enum Outcome: Sendable {
  case weather(WeatherDesk.CachedFrame, stale: Bool, place: ResolvedPlace)
  /// `retryAfter`: seconds until the service may be asked again, when known (a paused or rate
  /// limited service): the frame's next-update hint.
  case failure(FrameStatus, name: FrameName, retryAfter: Int? = nil)

  package var status: FrameStatus {
    switch self {
    case .weather(_, let stale, _): stale ? .stale : .ok
    case .failure(let status, _, _): status
    }
  }

  /// A failure that says nothing about the place, only about now (the service, a limit, the
  /// gateway): a retained frame (watch, named place) is better left as it is than replaced.
  var isPassingFailure: Bool {
    guard case .failure(let status, _, _) = self else { return false }
    return status == .upstreamUnavailable || status == .rateLimited || status == .internalError
  }

  /// An error answer with `text` (the reason) as its name.
  package static func refusal(_ status: FrameStatus, _ text: String) -> Outcome {
    .failure(status, name: FrameName(truncating: text))
  }
}

/// The form of every answer to one request: the profile, and the content checks of what the
/// device shows (`schemas/frame-profiles.md`). Errors come in the same profile as weather.
package struct Answering: Sendable {
  var profile: FrameProfile = .standard
  var checks = ContentChecks()

  package init(profile: FrameProfile = .standard, checks: ContentChecks = ContentChecks()) {
    self.profile = profile
    self.checks = checks
  }
}

/// Where an MQTT answer goes: the device's frame topic, or a v5 response topic with its
/// correlation data, and at which QoS.
struct Reply: Sendable {
  var topic: String
  var correlationData: [UInt8]?
  var qos = 1
  /// The connection the request came in on (`mqtt.request-connections`), which the answer
  /// leaves by: 0 is the first.
  var lane = 0
}

/// A place as the frame shows it.
package struct ResolvedPlace: Sendable {
  var point: GeoPoint
  var latitude: Int32
  var longitude: Int32
  var name: FrameName
  var country: CountryCode?
  /// The name cut to the `large` profile's 48 bytes; nil when `name` holds all of it. Inline
  /// text, not a `String`: a place stays plain data, copied on every cache hit without
  /// reference counting.
  var longName: FixedText<48>?

  init(coordinates: Coordinates, named: Forecast.Place?) {
    point = coordinates.point
    latitude = coordinates.latitude
    longitude = coordinates.longitude
    name = named.map { FrameName(truncating: $0.name) } ?? Self.coordinateName(coordinates)
    country = named?.countryCode.flatMap { CountryCode($0) }
    longName = named.flatMap { Self.longName($0.name) }
  }

  init(found: Forecast.Place) {
    point = GeoPoint(latitude: found.latitude, longitude: found.longitude)
    latitude = Int32((found.latitude * 100_000).rounded())
    longitude = Int32((found.longitude * 100_000).rounded())
    name = FrameName(truncating: found.name)
    country = found.countryCode.flatMap { CountryCode($0) }
    longName = Self.longName(found.name)
  }

  /// `name` for the large frame when it does not fit the standard frame's 24 bytes.
  static func longName(_ name: String) -> FixedText<48>? {
    name.utf8.count > FrameName.capacityBytes ? FixedText<48>(truncating: name) : nil
  }

  /// "52.52,13.41": the name a frame carries for a position nobody named. Written digit by digit
  /// into the frame's name field: this runs on every cache hit and allocates nothing.
  static func coordinateName(_ coordinates: Coordinates) -> FrameName {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
      var length = 0
      func put(_ byte: UInt8) {
        text[length] = byte
        length += 1
      }
      func decimal(_ value: Int32) {
        if value < 0 { put(UInt8(ascii: "-")) }
        let magnitude = Int(value.magnitude)
        var whole = magnitude / 100_000
        var digits = 1
        while whole >= 10 {
          whole /= 10
          digits *= 10
        }
        whole = magnitude / 100_000
        while digits > 0 {
          put(UInt8(ascii: "0") + UInt8(whole / digits % 10))
          digits /= 10
        }
        var fraction = magnitude % 100_000
        guard fraction > 0 else { return }
        put(UInt8(ascii: "."))
        var place = 10_000
        while fraction > 0 {
          put(UInt8(ascii: "0") + UInt8(fraction / place))
          fraction %= place
          place /= 10
        }
      }
      decimal(coordinates.latitude)
      put(UInt8(ascii: ","))
      decimal(coordinates.longitude)
      // At most 10 + 1 + 11 bytes of ASCII: always fits, always valid UTF-8.
      return FrameName(
        ascii: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[0..<length])))
    }
  }
}

extension Coordinates {
  /// The position in degrees (the wire form is in 1e-5 degrees).
  var point: GeoPoint {
    GeoPoint(latitude: Double(latitude) / 100_000, longitude: Double(longitude) / 100_000)
  }
}
