extension WeatherFrame {
  /// Reads a frame from exactly 192 bytes, after checking length, magic, version and CRC-32, in that
  /// order. Values equal to a field's sentinel become `nil`; reserved bytes are ignored so that
  /// frames from a v1.x gateway still decode. Allocates nothing.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(FrameError) {
    try Self.check(bytes)
    self.init(validated: bytes)
  }

  /// Length, magic, version and CRC-32, in that order (`FrameView.check`), with the values
  /// involved in the error.
  static func check(_ bytes: UnsafeRawBufferPointer) throws(FrameError) {
    do throws(FrameCheckError) { try FrameView.check(bytes) } catch {
      throw FrameError(error, bytes: bytes)
    }
  }

  /// Reads every field of bytes `FrameView.check` has passed.
  init(validated bytes: UnsafeRawBufferPointer) {
    self.init(view: FrameView(unchecked: bytes.baseAddress!))
  }

  /// Reads every field through `view`.
  public init(view: FrameView) {
    self.init()
    status = view.status
    requestID = view.requestID
    slotIndex = view.slotIndex
    slotCount = view.slotCount
    service = view.service
    isDay = view.isDay
    sun = view.sun
    hourlyStepHours = view.hourlyStepHours
    latitude = view.latitude
    longitude = view.longitude
    observedAt = view.observedAt
    fetchedAt = view.fetchedAt
    hourlyStart = view.hourlyStart
    utcOffsetMinutes = view.utcOffsetMinutes
    dailyStart = view.dailyStart
    country = view.country
    name = FrameName(wireField: view.name)

    current.temperature = view.temperature
    current.feelsLike = view.feelsLike
    current.pressure = view.pressure
    current.windSpeed = view.windSpeed
    current.windGust = view.windGust
    current.windDirection = view.windDirection
    current.visibility = view.visibility
    current.precipitation = view.precipitation
    current.humidity = view.humidity
    current.weatherCode = view.weatherCode
    current.cloudCover = view.cloudCover
    current.uvIndex = view.uvIndex
    sunrise = view.sunrise
    sunset = view.sunset
    airQuality = view.airQuality
    alerts = view.alerts
    moon = view.moon
    precipitationNextHour = view.precipitationNextHour
    nextUpdateSeconds = view.nextUpdateSeconds

    for index in 0..<Self.hourlyCount {
      hourly[index] = HourlySlot(
        temperature: view.hourlyTemperature(index),
        weatherCode: view.hourlyWeatherCode(index),
        precipitationProbability: view.hourlyPrecipitationProbability(index))
    }
    for index in 0..<Self.dailyCount {
      daily[index] = DailySlot(
        minimum: view.dailyMinimum(index),
        maximum: view.dailyMaximum(index),
        weatherCode: view.dailyWeatherCode(index),
        precipitationProbability: view.dailyPrecipitationProbability(index))
    }
  }

  /// Reads a frame from an array of bytes.
  public init(decoding bytes: [UInt8]) throws(FrameError) {
    var result: Result<WeatherFrame, FrameError> = .failure(.truncated(count: 0))
    bytes.withUnsafeBytes { buffer in
      do throws(FrameError) { result = .success(try WeatherFrame(decoding: buffer)) } catch {
        result = .failure(error)
      }
    }
    self = try result.get()
  }
}
