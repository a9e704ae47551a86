/// The nearest named place to a position, from a GeoNames `cities*.txt` file. See GeoNamesIndex.
public struct NearestPlace: Sendable, Equatable {
  public var name: String
  /// ISO 3166-1 alpha-2.
  public var countryCode: String
  public var latitude: Double
  public var longitude: Double
  /// Great-circle distance from the position asked about, in metres.
  public var distanceMetres: Double

  public init(
    name: String, countryCode: String, latitude: Double, longitude: Double, distanceMetres: Double
  ) {
    self.name = name
    self.countryCode = countryCode
    self.latitude = latitude
    self.longitude = longitude
    self.distanceMetres = distanceMetres
  }
}
