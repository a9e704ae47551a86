// The Swift decoder behind the C header's struct, for the board tests (firmware-notes/test/boards):
// `skyframe_swift_frame_decode` checks a frame with ProfileView (as `standard`) and fills a `skyframe_frame` with
// every field exactly as `skyframe_frame_decode` would, so decode_vectors.c prints, and compare.py
// checks, the Swift decoder's reading of every golden vector on the emulated boards. Compiled with
// the C header as the bridging header (build.sh prints the command); it is test glue, not an API.

/// 0, or the negative `SKYFRAME_ERR_*` code of the failed check; `out` is untouched on an error.
@_cdecl("skyframe_swift_frame_decode")
public func swiftFrameDecode(
  _ bytes: UnsafePointer<UInt8>?, _ count: Int, _ out: UnsafeMutablePointer<skyframe_frame>?
) -> Int32 {
  guard let bytes, let out else { return SKYFRAME_ERR_NULL }
  typealias S = StandardLayout
  let view: ProfileView
  do throws(FrameCheckError) {
    view = try ProfileView(
      checking: UnsafeRawBufferPointer(start: bytes, count: count), as: .standard)
  } catch {
    return Int32(error.rawValue)
  }
  var frame = skyframe_frame()
  frame.version = MessageKind.standard.rawValue
  frame.status = view.read(S.status) ?? 0
  frame.request_id = view.read(S.requestID) ?? 0
  frame.slot_index = view.read(S.slotIndex) ?? 0
  frame.slot_count = view.read(S.slotCount) ?? 0
  frame.service = view.read(S.service) ?? 0
  // A flag or a state the header has no name for reads as missing.
  frame.is_day = view.read(S.isDay, as: UInt8.self).flatMap { $0 <= 1 ? $0 : nil } ?? .max
  frame.sun = view.read(S.sun, as: UInt8.self).flatMap { $0 <= 2 ? $0 : nil } ?? .max
  frame.hourly_step_h = view.read(S.hourlyStep) ?? 0
  frame.utc_offset_min = view.read(S.utcOffset) ?? .min
  frame.latitude = view.read(S.latitude) ?? .min
  frame.longitude = view.read(S.longitude) ?? .min
  frame.observed_at = view.read(S.observedAt) ?? 0
  frame.fetched_at = view.read(S.fetchedAt) ?? 0
  frame.sunrise = view.read(S.sunrise) ?? 0
  frame.sunset = view.read(S.sunset) ?? 0
  frame.hourly_start = view.read(S.hourlyStart) ?? 0
  frame.daily_start = view.read(S.dailyStart) ?? .max
  if let country = view.country(S.country) {
    frame.country.0 = CChar(bitPattern: country.first)
    frame.country.1 = CChar(bitPattern: country.second)
  }
  withUnsafeMutableBytes(of: &frame.name) { name in
    name.copyMemory(from: view.text(S.name))  // the rest stays 0: NUL-terminated
  }
  frame.current.temperature = view.read(S.temperature) ?? .min
  frame.current.feels_like = view.read(S.feelsLike) ?? .min
  frame.current.pressure = view.read(S.pressure) ?? .max
  frame.current.wind_speed = view.read(S.windSpeed) ?? .max
  frame.current.wind_gust = view.read(S.windGust) ?? .max
  frame.current.wind_direction = view.read(S.windDirection) ?? .max
  frame.current.visibility = view.read(S.visibility) ?? .max
  frame.current.precipitation = view.read(S.precipitation) ?? .max
  frame.current.humidity = view.read(S.humidity) ?? .max
  frame.current.weather_code = view.read(S.weatherCode) ?? .max
  frame.current.cloud_cover = view.read(S.cloudCover) ?? .max
  frame.current.uv_index = view.read(S.uvIndex) ?? .max
  withUnsafeMutableBytes(of: &frame.hourly) { hourly in
    let slots = hourly.bindMemory(to: skyframe_hourly.self)
    for index in 0..<S.hourlyCount {
      slots[index].temperature = view.read(S.hourlyTemperature, index) ?? .min
      slots[index].weather_code = view.read(S.hourlyWeatherCode, index) ?? .max
      slots[index].precip_probability = view.read(S.hourlyPrecipitationProbability, index) ?? .max
    }
  }
  withUnsafeMutableBytes(of: &frame.daily) { daily in
    let days = daily.bindMemory(to: skyframe_daily.self)
    for index in 0..<S.dailyCount {
      days[index].temperature_min = view.read(S.dailyMinimum, index) ?? .min
      days[index].temperature_max = view.read(S.dailyMaximum, index) ?? .min
      days[index].weather_code = view.read(S.dailyWeatherCode, index) ?? .max
      days[index].precip_probability = view.read(S.dailyPrecipitationProbability, index) ?? .max
    }
  }
  frame.crc32 = view.read(S.crc) ?? 0
  // v1.1: the struct keeps wire values; 0 is absent, as is a value the header has no meaning for.
  frame.air_quality =
    view.read(S.airQuality, as: UInt16.self).flatMap(AirQuality.init(wire:)).map {
      UInt16($0.scale.rawValue) << 15 | ($0.index &+ 1)
    } ?? 0
  frame.alerts =
    view.read(S.alerts, as: UInt8.self).flatMap(AlertSummary.init(wire:)).map {
      $0.count << 3 | $0.highest.rawValue
    } ?? 0
  frame.moon = view.read(S.moon) ?? 0
  frame.precip_next_hour =
    view.read(S.precipitationNextHour, as: UInt8.self).flatMap(NextHourPrecipitation.init(wire:))
    .map { ($0.precipitatingNow ? 0x80 : 0) | ($0.minutesUntilChange.map { $0 &+ 1 } ?? 127) }
    ?? 0
  frame.next_update = view.read(S.nextUpdate) ?? 0
  out.pointee = frame
  return 0
}
