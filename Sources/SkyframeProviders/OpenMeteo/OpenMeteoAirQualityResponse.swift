import SkyframeWeather

/// One location of an Open-Meteo `/v1/air-quality` answer with `current=european_aqi,us_aqi` and
/// `timeformat=unixtime`. Every key is optional; a missing index is nil in the model.
struct OpenMeteoAirQualityResponse: Decodable {
  var current: Current?

  struct Current: Decodable {
    var time: Double?
    var europeanAQI: Double?
    var usAQI: Double?

    enum CodingKeys: String, CodingKey {
      case time
      case europeanAQI = "european_aqi"
      case usAQI = "us_aqi"
    }
  }

  static let currentVariables = ["european_aqi", "us_aqi"]

  var reading: AirQualityReading {
    AirQualityReading(
      time: current?.time.flatMap { $0.isFinite && abs($0) < 1e15 ? Int64($0) : nil },
      europeanAQI: current?.europeanAQI, usAQI: current?.usAQI)
  }
}
