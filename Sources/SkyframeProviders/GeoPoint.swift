/// A point on the globe in WGS84 degrees: north and east are positive.
public struct GeoPoint: Sendable, Hashable {
  public var latitude: Double
  public var longitude: Double

  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }
}
