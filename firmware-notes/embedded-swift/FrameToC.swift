// The Swift decoder behind the C header's struct, for the board tests (firmware-notes/test/boards):
// `skyframe_swift_frame_decode` checks a frame with FrameView and fills a `skyframe_frame` with
// every field exactly as `skyframe_frame_decode` would, so decode_vectors.c prints, and compare.py
// checks, the Swift decoder's reading of every golden vector on the emulated boards. Compiled with
// the C header as the bridging header (build.sh prints the command); it is test glue, not an API.

/// 0, or the negative `SKYFRAME_ERR_*` code of the failed check; `out` is untouched on an error.
@_cdecl("skyframe_swift_frame_decode")
public func swiftFrameDecode(
  _ bytes: UnsafePointer<UInt8>?, _ count: Int, _ out: UnsafeMutablePointer<skyframe_frame>?
) -> Int32 {
  guard let bytes, let out else { return SKYFRAME_ERR_NULL }
  let view: FrameView
  do throws(FrameCheckError) {
    view = try FrameView(checking: UnsafeRawBufferPointer(start: bytes, count: count))
  } catch {
    return Int32(error.rawValue)
  }
  var frame = skyframe_frame()
  frame.version = FrameView.version
  frame.status = view.status.rawValue
  frame.request_id = view.requestID
  frame.slot_index = view.slotIndex
  frame.slot_count = view.slotCount
  frame.service = view.service.rawValue
  frame.is_day = view.isDay.map { $0 ? 1 : 0 } ?? .max
  frame.sun = view.sun?.rawValue ?? .max
  frame.hourly_step_h = view.hourlyStepHours
  frame.utc_offset_min = view.utcOffsetMinutes ?? .min
  frame.latitude = view.latitude ?? .min
  frame.longitude = view.longitude ?? .min
  frame.observed_at = view.observedAt ?? 0
  frame.fetched_at = view.fetchedAt ?? 0
  frame.sunrise = view.sunrise ?? 0
  frame.sunset = view.sunset ?? 0
  frame.hourly_start = view.hourlyStart ?? 0
  frame.daily_start = view.dailyStart ?? .max
  if let country = view.country {
    frame.country.0 = CChar(bitPattern: country.first)
    frame.country.1 = CChar(bitPattern: country.second)
  }
  withUnsafeMutableBytes(of: &frame.name) { name in
    name.copyMemory(from: view.name)  // the rest stays 0: NUL-terminated
  }
  frame.current.temperature = view.temperature ?? .min
  frame.current.feels_like = view.feelsLike ?? .min
  frame.current.pressure = view.pressure ?? .max
  frame.current.wind_speed = view.windSpeed ?? .max
  frame.current.wind_gust = view.windGust ?? .max
  frame.current.wind_direction = view.windDirection ?? .max
  frame.current.visibility = view.visibility ?? .max
  frame.current.precipitation = view.precipitation ?? .max
  frame.current.humidity = view.humidity ?? .max
  frame.current.weather_code = view.weatherCode ?? .max
  frame.current.cloud_cover = view.cloudCover ?? .max
  frame.current.uv_index = view.uvIndex ?? .max
  withUnsafeMutableBytes(of: &frame.hourly) { hourly in
    let slots = hourly.bindMemory(to: skyframe_hourly.self)
    for index in 0..<FrameView.hourlyCount {
      slots[index].temperature = view.hourlyTemperature(index) ?? .min
      slots[index].weather_code = view.hourlyWeatherCode(index) ?? .max
      slots[index].precip_probability = view.hourlyPrecipitationProbability(index) ?? .max
    }
  }
  withUnsafeMutableBytes(of: &frame.daily) { daily in
    let days = daily.bindMemory(to: skyframe_daily.self)
    for index in 0..<FrameView.dailyCount {
      days[index].temperature_min = view.dailyMinimum(index) ?? .min
      days[index].temperature_max = view.dailyMaximum(index) ?? .min
      days[index].weather_code = view.dailyWeatherCode(index) ?? .max
      days[index].precip_probability = view.dailyPrecipitationProbability(index) ?? .max
    }
  }
  frame.crc32 = view.crc
  // v1.1: the struct keeps wire values; 0 is absent.
  frame.air_quality = view.airQuality.map { UInt16($0.scale.rawValue) << 15 | ($0.index &+ 1) } ?? 0
  frame.alerts = view.alerts.map { $0.count << 3 | $0.highest.rawValue } ?? 0
  frame.moon = view.moon?.wire ?? 0
  frame.precip_next_hour =
    view.precipitationNextHour.map {
      ($0.precipitatingNow ? 0x80 : 0) | ($0.minutesUntilChange.map { $0 &+ 1 } ?? 127)
    } ?? 0
  frame.next_update = view.nextUpdateSeconds ?? 0
  out.pointee = frame
  return 0
}
