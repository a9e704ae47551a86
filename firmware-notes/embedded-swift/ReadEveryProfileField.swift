// What build.sh links and measures for the Swift decoder of the other messages
// (schemas/frame-profiles.md): check a `large`, `tiny` or `unchanged` message with `ProfileView`
// (`MessageKind.check`: length, magic, kind byte, CRC-32), make sure it is the kind the device
// asked for, and read every field of the layout table with `value` / `text`, folding the values
// into one number so the compiler cannot drop a read. The C side is read_every_profile_field.c,
// doing the same with skyframe_large_decode, skyframe_tiny_decode and skyframe_unchanged_decode.
//
// `ProfileView` hands out wire values; the C header's decoders also normalize a few (is_day and
// sun other than 0...2, a country that is not two letters, v1.1 values frame-v1.md reads as
// absent). The golden vectors build.sh uses hold none of those, so both sides must return one
// hash; a different hash means they read different values.

/// Folds element `index` of `field` in; a missing value as the C header's struct holds it (the
/// field's sentinel, the wire value).
@inline(__always) func fold(
  _ hash: inout UInt32, _ view: ProfileView, _ field: LayoutField, _ index: Int = 0
) {
  hash &+= UInt32(truncatingIfNeeded: view.value(field, index) ?? field.sentinel ?? 0)
}

/// Folds the UTF-8 bytes of text `index` (up to the first zero byte, as the C struct's string).
@inline(__always) func foldText(
  _ hash: inout UInt32, _ view: ProfileView, _ field: LayoutField, _ index: Int = 0
) {
  for byte in view.text(field, index) { hash &+= UInt32(byte) }
}

/// The check's error code or a hash of every field of a `large` frame (960 bytes).
@_cdecl("skyframe_read_every_large_field")
public func readEveryLargeField(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  let view: ProfileView
  do throws(FrameCheckError) {
    view = try ProfileView(checking: UnsafeRawBufferPointer(start: bytes, count: count))
  } catch {
    return Int32(error.rawValue)
  }
  // Another kind is "unsupported version", as the C header's decoders answer.
  guard view.kind == .large else { return Int32(FrameCheckError.unsupportedVersion.rawValue) }
  typealias L = LargeLayout
  var hash = UInt32(view.kind.rawValue)
  fold(&hash, view, L.status)
  fold(&hash, view, L.requestID)
  fold(&hash, view, L.slotIndex)
  fold(&hash, view, L.slotCount)
  fold(&hash, view, L.service)
  fold(&hash, view, L.isDay)
  fold(&hash, view, L.sun)
  fold(&hash, view, L.hourlyStep)
  fold(&hash, view, L.latitude)
  fold(&hash, view, L.longitude)
  fold(&hash, view, L.observedAt)
  fold(&hash, view, L.fetchedAt)
  fold(&hash, view, L.hourlyStart)
  fold(&hash, view, L.utcOffset)
  fold(&hash, view, L.dailyStart)
  fold(&hash, view, L.airQuality)
  fold(&hash, view, L.nextUpdate)
  fold(&hash, view, L.alerts)
  fold(&hash, view, L.moon)
  fold(&hash, view, L.precipitationNextHour)
  fold(&hash, view, L.temperature)
  fold(&hash, view, L.feelsLike)
  fold(&hash, view, L.dewPoint)
  fold(&hash, view, L.pressure)
  fold(&hash, view, L.windSpeed)
  fold(&hash, view, L.windGust)
  fold(&hash, view, L.windDirection)
  fold(&hash, view, L.visibility)
  fold(&hash, view, L.precipitation)
  fold(&hash, view, L.humidity)
  fold(&hash, view, L.weatherCode)
  fold(&hash, view, L.cloudCover)
  fold(&hash, view, L.uvIndex)
  fold(&hash, view, L.sunrise)
  fold(&hash, view, L.sunset)
  fold(&hash, view, L.minutelyStart)
  fold(&hash, view, L.crc)
  hash &+= UInt32(view.wire(L.country, 0) << 8 | view.wire(L.country, 1))
  foldText(&hash, view, L.name)
  for index in 0..<L.hourlyCount {
    fold(&hash, view, L.hourlyTemperature, index)
    fold(&hash, view, L.hourlyPrecipitationAmount, index)
    fold(&hash, view, L.hourlyWeatherCode, index)
    fold(&hash, view, L.hourlyPrecipitationProbability, index)
    fold(&hash, view, L.hourlyWindSpeed, index)
    fold(&hash, view, L.hourlyWindGust, index)
  }
  for index in 0..<L.dailyCount {
    fold(&hash, view, L.dailyMinimum, index)
    fold(&hash, view, L.dailyMaximum, index)
    fold(&hash, view, L.dailyPrecipitationSum, index)
    fold(&hash, view, L.dailySunrise, index)
    fold(&hash, view, L.dailySunset, index)
    fold(&hash, view, L.dailyWeatherCode, index)
    fold(&hash, view, L.dailyPrecipitationProbability, index)
    fold(&hash, view, L.dailyUVMaximum, index)
    fold(&hash, view, L.dailyWindMaximum, index)
    fold(&hash, view, L.dailySun, index)
  }
  for index in 0..<L.minutelyCount {
    fold(&hash, view, L.minutelyPrecipitation, index)
  }
  for index in 0..<L.alertCount {
    fold(&hash, view, L.alertOnset, index)
    fold(&hash, view, L.alertEnd, index)
    fold(&hash, view, L.alertSeverity, index)
    foldText(&hash, view, L.alertEvent, index)
  }
  return Int32(bitPattern: hash & 0x7FFF_FFFF)
}

/// The check's error code or a hash of every field of a `tiny` frame (48 bytes).
@_cdecl("skyframe_read_every_tiny_field")
public func readEveryTinyField(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  let view: ProfileView
  do throws(FrameCheckError) {
    view = try ProfileView(checking: UnsafeRawBufferPointer(start: bytes, count: count))
  } catch {
    return Int32(error.rawValue)
  }
  // Another kind is "unsupported version", as the C header's decoders answer.
  guard view.kind == .tiny else { return Int32(FrameCheckError.unsupportedVersion.rawValue) }
  typealias T = TinyLayout
  var hash = UInt32(view.kind.rawValue)
  fold(&hash, view, T.status)
  fold(&hash, view, T.requestID)
  fold(&hash, view, T.slotIndex)
  fold(&hash, view, T.slotCount)
  fold(&hash, view, T.fetchedAt)
  fold(&hash, view, T.nextUpdate)
  fold(&hash, view, T.temperature)
  fold(&hash, view, T.airQuality)
  fold(&hash, view, T.weatherCode)
  fold(&hash, view, T.isDay)
  fold(&hash, view, T.alerts)
  fold(&hash, view, T.precipitationNextHour)
  fold(&hash, view, T.windSpeed)
  fold(&hash, view, T.windGust)
  fold(&hash, view, T.windDirection)
  fold(&hash, view, T.utcOffset)
  fold(&hash, view, T.humidity)
  fold(&hash, view, T.uvIndex)
  fold(&hash, view, T.crc)
  for index in 0..<T.dailyCount {
    fold(&hash, view, T.dailyMinimum, index)
    fold(&hash, view, T.dailyMaximum, index)
    fold(&hash, view, T.dailyWeatherCode, index)
    fold(&hash, view, T.dailyPrecipitationProbability, index)
  }
  return Int32(bitPattern: hash & 0x7FFF_FFFF)
}

/// The check's error code or a hash of every field of an `unchanged` message (16 bytes).
@_cdecl("skyframe_read_every_unchanged_field")
public func readEveryUnchangedField(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  let view: ProfileView
  do throws(FrameCheckError) {
    view = try ProfileView(checking: UnsafeRawBufferPointer(start: bytes, count: count))
  } catch {
    return Int32(error.rawValue)
  }
  // Another kind is "unsupported version", as the C header's decoders answer.
  guard view.kind == .unchanged else { return Int32(FrameCheckError.unsupportedVersion.rawValue) }
  typealias U = UnchangedLayout
  var hash = UInt32(view.kind.rawValue)
  fold(&hash, view, U.profile)
  fold(&hash, view, U.requestID)
  fold(&hash, view, U.slotIndex)
  fold(&hash, view, U.slotCount)
  fold(&hash, view, U.nextUpdate)
  fold(&hash, view, U.crc)
  return Int32(bitPattern: hash & 0x7FFF_FFFF)
}
