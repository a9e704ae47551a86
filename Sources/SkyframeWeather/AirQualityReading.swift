import SkyframeCodec

/// Air quality at a place as a service gives it: the index on each scale it knows.
public struct AirQualityReading: Sendable, Equatable, Codable {
  /// When the values hold, Unix seconds.
  public var time: Int64?
  /// European AQI (EEA/CAMS), 0 and up.
  public var europeanAQI: Double?
  /// US EPA AQI, 0–500.
  public var usAQI: Double?

  public init(time: Int64? = nil, europeanAQI: Double? = nil, usAQI: Double? = nil) {
    self.time = time
    self.europeanAQI = europeanAQI
    self.usAQI = usAQI
  }

  /// The index on `scale` for a frame, rounded and capped at 999; nil when this reading has no
  /// value on that scale (one scale is never converted into the other).
  public func index(on scale: AirQuality.Scale) -> AirQuality? {
    let value =
      switch scale {
      case .europeanAQI: europeanAQI
      case .usAQI: usAQI
      }
    guard let value, value.isFinite, value >= 0 else { return nil }
    return AirQuality(
      index: UInt16(min(value.rounded(), Double(AirQuality.maximumIndex))), scale: scale)
  }
}
