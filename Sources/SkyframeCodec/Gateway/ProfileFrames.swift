/// The `tiny` and `large` frames the gateway derives from a `standard` one, and the `unchanged`
/// message (`schemas/frame-profiles.md`). All of it writes into the caller's buffer.
extension TinyLayout {
  /// The tiny frame that says what `standard` says, at the tiny profile's precision (§3.1).
  public static func write(from standard: FrameView, into buffer: UnsafeMutableRawBufferPointer) {
    var out = ProfileWriter(buffer, kind: .tiny)
    out.set(status, standard.status.rawValue)
    out.set(requestID, standard.requestID)
    out.set(slotIndex, standard.slotIndex)
    out.set(slotCount, standard.slotCount)
    out.set(fetchedAt, standard.fetchedAt)
    out.set(nextUpdate, standard.nextUpdateSeconds)
    out.set(temperature, standard.temperature)
    out.set(airQuality, standard.airQuality?.wire)
    out.set(weatherCode, standard.weatherCode)
    out.set(isDay, standard.isDay.map { $0 ? 1 : 0 })
    out.set(alerts, standard.alerts?.wire)
    out.set(precipitationNextHour, standard.precipitationNextHour?.wire)
    out.set(windSpeed, standard.windSpeed.map(halfMetres))
    out.set(windGust, standard.windGust.map(halfMetres))
    out.set(windDirection, standard.windDirection.map { (Int64($0) + 1) / 2 % 180 })
    out.set(
      utcOffset, standard.utcOffsetMinutes.flatMap { $0 % 15 == 0 ? Int64($0 / 15) : nil })
    out.set(humidity, standard.humidity)
    out.set(uvIndex, standard.uvIndex)
    for day in 0..<dailyCount {
      out.set(dailyMinimum, day, standard.dailyMinimum(day).map(wholeDegrees))
      out.set(dailyMaximum, day, standard.dailyMaximum(day).map(wholeDegrees))
      out.set(dailyWeatherCode, day, standard.dailyWeatherCode(day))
      out.set(dailyPrecipitationProbability, day, standard.dailyPrecipitationProbability(day))
    }
    ProfileWriter.seal(buffer, kind: .tiny)
  }

  /// 0.1 °C to whole degrees, half away from zero, within −127 … 127.
  static func wholeDegrees(_ tenths: Int16) -> Int64 {
    let value = Int64(tenths)
    return min(max((value + (value >= 0 ? 5 : -5)) / 10, -127), 127)
  }
}

/// 0.1 m/s to 0.5 m/s (no value falls on a half), at most 254.
func halfMetres(_ tenths: UInt16) -> Int64 {
  min((Int64(tenths) * 2 + 5) / 10, 254)
}

extension LargeLayout {
  /// A large frame with every field the standard frame has (12 of 48 hours, 7 of 8 days, day 0's
  /// sun), the rest missing: error frames, and weather cached without its large frame.
  public static func write(from standard: FrameView, into buffer: UnsafeMutableRawBufferPointer) {
    var out = ProfileWriter(buffer, kind: .large)
    fillShared(&out, from: standard)
    ProfileWriter.seal(buffer, kind: .large)
  }

  /// Writes what `large` shares with `standard` (frame-profiles.md §2: same meaning, scale and
  /// sentinel, another offset). The name keeps its 24 bytes.
  public static func fillShared(_ out: inout ProfileWriter, from standard: FrameView) {
    out.set(status, standard.status.rawValue)
    out.set(requestID, standard.requestID)
    out.set(slotIndex, standard.slotIndex)
    out.set(slotCount, standard.slotCount)
    out.set(service, standard.service.rawValue)
    out.set(isDay, standard.isDay.map { $0 ? 1 : 0 })
    out.set(sun, standard.sun?.rawValue)
    out.set(hourlyStep, standard.hourlyStepHours)
    out.set(latitude, standard.latitude)
    out.set(longitude, standard.longitude)
    out.set(observedAt, standard.observedAt)
    out.set(fetchedAt, standard.fetchedAt)
    out.set(hourlyStart, standard.hourlyStart)
    out.set(utcOffset, standard.utcOffsetMinutes)
    out.set(dailyStart, standard.dailyStart)
    out.set(country, country: standard.country)
    out.set(airQuality, standard.airQuality?.wire)
    out.set(nextUpdate, standard.nextUpdateSeconds)
    out.set(alerts, standard.alerts?.wire)
    out.set(moon, standard.moon?.wire)
    out.set(precipitationNextHour, standard.precipitationNextHour?.wire)
    out.set(name, text: FrameName(wireField: standard.name))
    out.set(temperature, standard.temperature)
    out.set(feelsLike, standard.feelsLike)
    out.set(pressure, standard.pressure)
    out.set(windSpeed, standard.windSpeed)
    out.set(windGust, standard.windGust)
    out.set(windDirection, standard.windDirection)
    out.set(visibility, standard.visibility)
    out.set(precipitation, standard.precipitation)
    out.set(humidity, standard.humidity)
    out.set(weatherCode, standard.weatherCode)
    out.set(cloudCover, standard.cloudCover)
    out.set(uvIndex, standard.uvIndex)
    out.set(sunrise, standard.sunrise)
    out.set(sunset, standard.sunset)
    for hour in 0..<FrameView.hourlyCount {
      out.set(hourlyTemperature, hour, standard.hourlyTemperature(hour))
      out.set(hourlyWeatherCode, hour, standard.hourlyWeatherCode(hour))
      out.set(hourlyPrecipitationProbability, hour, standard.hourlyPrecipitationProbability(hour))
    }
    for day in 0..<FrameView.dailyCount {
      out.set(dailyMinimum, day, standard.dailyMinimum(day))
      out.set(dailyMaximum, day, standard.dailyMaximum(day))
      out.set(dailyWeatherCode, day, standard.dailyWeatherCode(day))
      out.set(dailyPrecipitationProbability, day, standard.dailyPrecipitationProbability(day))
    }
    out.set(dailySun, 0, standard.sun?.rawValue)
    out.set(dailySunrise, 0, standard.sunrise)
    out.set(dailySunset, 0, standard.sunset)
  }

  /// What differs between two answers from the same cached large frame (as
  /// `WeatherFrame.rewrite` for standard), then a new CRC.
  public static func rewrite(
    _ buffer: UnsafeMutableRawBufferPointer, status: FrameStatus, requestID: UInt16,
    slotIndex: UInt8, slotCount: UInt8, latitude: Int32?, longitude: Int32?,
    name: FixedText<48>, country: CountryCode?, nextUpdateSeconds: UInt16
  ) {
    precondition(buffer.count >= size, "a large frame has 960 bytes")
    var out = ProfileWriter(unsealed: buffer, kind: .large)
    out.set(Self.status, status.rawValue)
    out.set(Self.requestID, requestID)
    out.set(Self.slotIndex, slotIndex)
    out.set(Self.slotCount, max(slotCount, 1))
    out.set(Self.latitude, latitude.map { min(max($0, -9_000_000), 9_000_000) })
    out.set(Self.longitude, longitude.map { min(max($0, -18_000_000), 18_000_000) })
    out.set(Self.name, text: name)
    out.set(Self.country, country: country)
    out.set(Self.nextUpdate, nextUpdateSeconds == 0 ? nil : nextUpdateSeconds)
    ProfileWriter.seal(buffer, kind: .large)
  }
}

extension UnchangedLayout {
  /// "What you show is still right" for slot `slotIndex` (frame-profiles.md §4).
  public static func write(
    profile asked: FrameProfile, requestID: UInt16, slotIndex: UInt8, slotCount: UInt8,
    nextUpdateSeconds: UInt16, into buffer: UnsafeMutableRawBufferPointer
  ) {
    var out = ProfileWriter(buffer, kind: .unchanged)
    out.set(profile, asked.rawValue)
    out.set(Self.requestID, requestID)
    out.set(Self.slotIndex, slotIndex)
    out.set(Self.slotCount, max(slotCount, 1))
    out.set(nextUpdate, nextUpdateSeconds == 0 ? nil : nextUpdateSeconds)
    ProfileWriter.seal(buffer, kind: .unchanged)
  }
}

extension ProfileWriter {
  /// Continues an existing message (rewriting a few fields of a cached one): nothing is cleared.
  public init(unsealed buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    precondition(buffer.count >= kind.size, "room for the whole message")
    self.buffer = buffer
    self.kind = kind
  }
}
