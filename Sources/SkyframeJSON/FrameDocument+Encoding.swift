// Every key is written, a missing value as `null`, as in the golden vectors and frame-v1.md: the
// synthesized encoders would leave out the keys of missing values.

extension FrameDocument {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(status, forKey: .status)
    try container.encode(requestID, forKey: .requestID)
    try container.encode(slotIndex, forKey: .slotIndex)
    try container.encode(slotCount, forKey: .slotCount)
    try container.encode(service, forKey: .service)
    try container.encode(latitude, forKey: .latitude)
    try container.encode(longitude, forKey: .longitude)
    try container.encode(name, forKey: .name)
    try container.encode(country, forKey: .country)
    try container.encode(observedAt, forKey: .observedAt)
    try container.encode(fetchedAt, forKey: .fetchedAt)
    try container.encode(utcOffsetMinutes, forKey: .utcOffsetMinutes)
    try container.encode(isDay, forKey: .isDay)
    try container.encode(sun, forKey: .sun)
    try container.encode(sunrise, forKey: .sunrise)
    try container.encode(sunset, forKey: .sunset)
    try container.encode(current, forKey: .current)
    try container.encode(hourlyStart, forKey: .hourlyStart)
    try container.encode(hourlyStepHours, forKey: .hourlyStepHours)
    try container.encode(hourly, forKey: .hourly)
    try container.encode(dailyStart, forKey: .dailyStart)
    try container.encode(daily, forKey: .daily)
    try container.encode(airQuality, forKey: .airQuality)
    try container.encode(alerts, forKey: .alerts)
    try container.encode(moon, forKey: .moon)
    try container.encode(precipitationNextHour, forKey: .precipitationNextHour)
    try container.encode(nextUpdateSeconds, forKey: .nextUpdateSeconds)
  }
}

extension FrameDocument.Current {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(temperature, forKey: .temperature)
    try container.encode(feelsLike, forKey: .feelsLike)
    try container.encode(humidity, forKey: .humidity)
    try container.encode(pressure, forKey: .pressure)
    try container.encode(windSpeed, forKey: .windSpeed)
    try container.encode(windGust, forKey: .windGust)
    try container.encode(windDirection, forKey: .windDirection)
    try container.encode(weatherCode, forKey: .weatherCode)
    try container.encode(cloudCover, forKey: .cloudCover)
    try container.encode(precipitation, forKey: .precipitation)
    try container.encode(uvIndex, forKey: .uvIndex)
    try container.encode(visibility, forKey: .visibility)
  }
}

extension FrameDocument.Hour {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(temperature, forKey: .temperature)
    try container.encode(weatherCode, forKey: .weatherCode)
    try container.encode(precipitationProbability, forKey: .precipitationProbability)
  }
}

extension FrameDocument.Day {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(minimum, forKey: .minimum)
    try container.encode(maximum, forKey: .maximum)
    try container.encode(weatherCode, forKey: .weatherCode)
    try container.encode(precipitationProbability, forKey: .precipitationProbability)
  }
}

extension FrameDocument.NextHour {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(now, forKey: .now)
    try container.encode(changeInMinutes, forKey: .changeInMinutes)
  }
}
