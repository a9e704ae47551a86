extension GeoPoint {
  /// Throws `.rejected(status: 0, …)` for a coordinate no service can be asked about.
  func checkForRequest() throws(ProviderError) {
    guard latitude.isFinite, abs(latitude) <= 90 else {
      throw .rejected(status: 0, reason: "latitude \(latitude) is not in -90…90")
    }
    guard longitude.isFinite, abs(longitude) <= 180 else {
      throw .rejected(status: 0, reason: "longitude \(longitude) is not in -180…180")
    }
  }
}
