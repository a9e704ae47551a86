// What build.sh links and measures for the Swift decoder: check a frame with `ProfileView` as a
// `standard` frame and read every row of `StandardLayout`, folding the values into one number so
// the compiler cannot drop a read. The C side is read_every_field.c, doing the same with
// skyframe_frame.h.

/// Folds one value in. Missing values are folded in as the C header's struct holds them (its
/// sentinels, and 0 for times, text and the v1.1 fields), so both images must return one hash.
@inline(__always) func fold<T: FixedWidthInteger>(_ hash: inout UInt32, _ value: T) {
  hash &+= UInt32(truncatingIfNeeded: value)
}

/// The check's error code (negative, as the C header's) or a hash of every field.
@_cdecl("skyframe_read_every_field")
public func readEveryField(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  typealias S = StandardLayout
  let view: ProfileView
  do throws(FrameCheckError) {
    view = try ProfileView(
      checking: UnsafeRawBufferPointer(start: bytes, count: count), as: .standard)
  } catch {
    return Int32(error.rawValue)
  }
  var hash: UInt32 = 0
  fold(&hash, view.read(S.status, as: UInt8.self) ?? 0)
  fold(&hash, view.read(S.requestID, as: UInt16.self) ?? 0)
  fold(&hash, view.read(S.slotIndex, as: UInt8.self) ?? 0)
  fold(&hash, view.read(S.slotCount, as: UInt8.self) ?? 0)
  fold(&hash, view.read(S.service, as: UInt8.self) ?? 0)
  // The C header reads a flag or a state it has no name for as missing.
  fold(&hash, view.read(S.isDay, as: UInt8.self).flatMap { $0 <= 1 ? $0 : nil } ?? .max)
  fold(&hash, view.read(S.sun, as: UInt8.self).flatMap { $0 <= 2 ? $0 : nil } ?? .max)
  fold(&hash, view.read(S.hourlyStep, as: UInt8.self) ?? 0)
  fold(&hash, view.read(S.latitude, as: Int32.self) ?? .min)
  fold(&hash, view.read(S.longitude, as: Int32.self) ?? .min)
  fold(&hash, view.read(S.observedAt, as: UInt32.self) ?? 0)
  fold(&hash, view.read(S.fetchedAt, as: UInt32.self) ?? 0)
  fold(&hash, view.read(S.hourlyStart, as: UInt32.self) ?? 0)
  fold(&hash, view.read(S.utcOffset, as: Int16.self) ?? .min)
  fold(&hash, view.read(S.dailyStart, as: UInt16.self) ?? .max)
  fold(&hash, view.country(S.country).map { UInt16($0.first) << 8 | UInt16($0.second) } ?? 0)
  for byte in view.text(S.name) { fold(&hash, byte) }
  fold(&hash, view.read(S.temperature, as: Int16.self) ?? .min)
  fold(&hash, view.read(S.feelsLike, as: Int16.self) ?? .min)
  fold(&hash, view.read(S.pressure, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.windSpeed, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.windGust, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.windDirection, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.visibility, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.precipitation, as: UInt16.self) ?? .max)
  fold(&hash, view.read(S.humidity, as: UInt8.self) ?? .max)
  fold(&hash, view.read(S.weatherCode, as: UInt8.self) ?? .max)
  fold(&hash, view.read(S.cloudCover, as: UInt8.self) ?? .max)
  fold(&hash, view.read(S.uvIndex, as: UInt8.self) ?? .max)
  fold(&hash, view.read(S.sunrise, as: UInt32.self) ?? 0)
  fold(&hash, view.read(S.sunset, as: UInt32.self) ?? 0)
  // v1.1: what the C header keeps of a value it reads (a wire value it has no meaning for is 0).
  fold(
    &hash,
    view.read(S.airQuality, as: UInt16.self).flatMap(AirQuality.init(wire:)).map {
      ($0.index &+ 1) | UInt16($0.scale.rawValue) << 15
    } ?? 0)
  fold(
    &hash,
    view.read(S.alerts, as: UInt8.self).flatMap(AlertSummary.init(wire:)).map {
      $0.count << 3 | $0.highest.rawValue
    } ?? 0)
  fold(&hash, view.read(S.moon, as: UInt8.self) ?? 0)
  fold(
    &hash,
    view.read(S.precipitationNextHour, as: UInt8.self).flatMap(NextHourPrecipitation.init(wire:))
      .map { ($0.precipitatingNow ? 0x80 : 0) | ($0.minutesUntilChange.map { $0 &+ 1 } ?? 127) }
      ?? 0)
  fold(&hash, view.read(S.nextUpdate, as: UInt16.self) ?? 0)
  for index in 0..<S.hourlyCount {
    fold(&hash, view.read(S.hourlyTemperature, index, as: Int16.self) ?? .min)
    fold(&hash, view.read(S.hourlyWeatherCode, index, as: UInt8.self) ?? .max)
    fold(&hash, view.read(S.hourlyPrecipitationProbability, index, as: UInt8.self) ?? .max)
  }
  for index in 0..<S.dailyCount {
    fold(&hash, view.read(S.dailyMinimum, index, as: Int16.self) ?? .min)
    fold(&hash, view.read(S.dailyMaximum, index, as: Int16.self) ?? .min)
    fold(&hash, view.read(S.dailyWeatherCode, index, as: UInt8.self) ?? .max)
    fold(&hash, view.read(S.dailyPrecipitationProbability, index, as: UInt8.self) ?? .max)
  }
  fold(&hash, view.read(S.crc, as: UInt32.self) ?? 0)
  return Int32(bitPattern: hash & 0x7FFF_FFFF)
}
