// What build.sh links and measures for the Swift decoder: check a frame with `FrameView` and read
// every field, folding the values into one number so the compiler cannot drop a read. The C side
// is read_every_field.c, doing the same with skyframe_frame.h.

/// Folds one value in. Missing values are folded in as the C header's struct holds them (its
/// sentinels, and 0 for times, text and the v1.1 fields), so both images must return one hash.
@inline(__always) func fold<T: FixedWidthInteger>(_ hash: inout UInt32, _ value: T) {
  hash &+= UInt32(truncatingIfNeeded: value)
}

/// The check's error code (negative, as the C header's) or a hash of every field.
@_cdecl("skyframe_read_every_field")
public func readEveryField(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  let view: FrameView
  do throws(FrameCheckError) {
    view = try FrameView(checking: UnsafeRawBufferPointer(start: bytes, count: count))
  } catch {
    return Int32(error.rawValue)
  }
  var hash: UInt32 = 0
  fold(&hash, view.status.rawValue)
  fold(&hash, view.requestID)
  fold(&hash, view.slotIndex)
  fold(&hash, view.slotCount)
  fold(&hash, view.service.rawValue)
  fold(&hash, view.isDay.map { $0 ? 1 : 0 } ?? UInt8.max)
  fold(&hash, view.sun?.rawValue ?? .max)
  fold(&hash, view.hourlyStepHours)
  fold(&hash, view.latitude ?? .min)
  fold(&hash, view.longitude ?? .min)
  fold(&hash, view.observedAt ?? 0)
  fold(&hash, view.fetchedAt ?? 0)
  fold(&hash, view.hourlyStart ?? 0)
  fold(&hash, view.utcOffsetMinutes ?? .min)
  fold(&hash, view.dailyStart ?? .max)
  fold(&hash, view.country.map { UInt16($0.first) << 8 | UInt16($0.second) } ?? 0)
  for byte in view.name { fold(&hash, byte) }
  fold(&hash, view.temperature ?? .min)
  fold(&hash, view.feelsLike ?? .min)
  fold(&hash, view.pressure ?? .max)
  fold(&hash, view.windSpeed ?? .max)
  fold(&hash, view.windGust ?? .max)
  fold(&hash, view.windDirection ?? .max)
  fold(&hash, view.visibility ?? .max)
  fold(&hash, view.precipitation ?? .max)
  fold(&hash, view.humidity ?? .max)
  fold(&hash, view.weatherCode ?? .max)
  fold(&hash, view.cloudCover ?? .max)
  fold(&hash, view.uvIndex ?? .max)
  fold(&hash, view.sunrise ?? 0)
  fold(&hash, view.sunset ?? 0)
  fold(&hash, view.airQuality.map { ($0.index &+ 1) | UInt16($0.scale.rawValue) << 15 } ?? 0)
  fold(&hash, view.alerts.map { $0.count << 3 | $0.highest.rawValue } ?? 0)
  fold(&hash, view.moon?.wire ?? 0)
  fold(
    &hash,
    view.precipitationNextHour.map {
      ($0.precipitatingNow ? 0x80 : 0) | ($0.minutesUntilChange.map { $0 &+ 1 } ?? 127)
    } ?? 0)
  fold(&hash, view.nextUpdateSeconds ?? 0)
  for index in 0..<FrameView.hourlyCount {
    fold(&hash, view.hourlyTemperature(index) ?? .min)
    fold(&hash, view.hourlyWeatherCode(index) ?? .max)
    fold(&hash, view.hourlyPrecipitationProbability(index) ?? .max)
  }
  for index in 0..<FrameView.dailyCount {
    fold(&hash, view.dailyMinimum(index) ?? .min)
    fold(&hash, view.dailyMaximum(index) ?? .min)
    fold(&hash, view.dailyWeatherCode(index) ?? .max)
    fold(&hash, view.dailyPrecipitationProbability(index) ?? .max)
  }
  fold(&hash, view.crc)
  return Int32(bitPattern: hash & 0x7FFF_FFFF)
}
