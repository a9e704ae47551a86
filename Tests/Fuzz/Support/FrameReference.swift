// The frame as the spec reads it (schemas/frame-v1.md, frame-v1.json), written independently of
// the codec: the oracle for WeatherFrame(decoding:), ValidatedFrame and the round trip.

import SkyframeCodec

/// A field's element as the spec reads it: nil when it is the sentinel.
func specValue(_ name: String, _ frame: [UInt8], _ index: Int = 0) -> Int? {
  let field = spec(name)
  let wire = field.wire(frame, index)
  return wire == field.sentinel ? nil : wire
}

@inline(__always) func int<T: BinaryInteger>(_ value: T?) -> Int? { value.map { Int($0) } }

func isASCIILetter(_ byte: UInt8) -> Bool {
  (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
}

/// The country the spec reads from two bytes: two ASCII letters in capitals, else none.
func specCountry(_ first: UInt8, _ second: UInt8) -> (UInt8, UInt8)? {
  guard isASCIILetter(first), isASCIILetter(second) else { return nil }
  return (first & 0xDF, second & 0xDF)
}

/// The name: the bytes of bytes 40–63 before the first zero.
func specName(_ frame: [UInt8]) -> [UInt8] {
  Array(frame[40..<64].prefix { $0 != 0 })
}

/// v1.1 values a decoder reads as absent (frame-v1.md §5.5, 5.6, 5.8).
func specAirQuality(_ wire: UInt16) -> (index: Int, us: Bool)? {
  wire & 0x7FFF == 0 ? nil : (Int(wire & 0x7FFF) - 1, wire & 0x8000 != 0)
}
func specAlerts(_ wire: UInt8) -> (count: Int, severity: Int)? {
  (1...6).contains(wire & 7) ? (Int(wire >> 3), Int(wire & 7)) : nil
}
/// `minutes` nil: no change within the hour (127).
func specPrecipitation(_ wire: UInt8) -> (now: Bool, minutes: Int?)? {
  let minutes = wire & 0x7F
  if (1...61).contains(minutes) { return (wire & 0x80 != 0, Int(minutes) - 1) }
  if minutes == 127 { return (wire & 0x80 != 0, nil) }
  return nil
}

/// Checks every field of `decoded` against the spec's reading of `frame` (192 valid bytes).
func checkDecoded(_ decoded: WeatherFrame, _ frame: [UInt8], _ label: String) {
  func same(_ actual: Int?, _ name: String, _ index: Int = 0) {
    let expected = specValue(name, frame, index)
    if actual != expected {
      fail(
        "\(label): \(name)[\(index)] decodes as \(actual.map(String.init) ?? "nil"), the spec reads "
          + "\(expected.map(String.init) ?? "nil") (wire \(spec(name).wire(frame, index)))")
    }
  }
  checkEqual(Int(decoded.status.rawValue), Int(frame[3]), "\(label): status")
  checkEqual(Int(decoded.requestID), Int(frame.u16(4)), "\(label): request_id")
  checkEqual(Int(decoded.slotIndex), Int(frame[6]), "\(label): slot_index")
  checkEqual(Int(decoded.slotCount), Int(frame[7]), "\(label): slot_count")
  checkEqual(Int(decoded.service.rawValue), Int(frame[8]), "\(label): service")
  let isDay: Bool? = frame[9] == 0 ? false : frame[9] == 1 ? true : nil
  checkEqual(decoded.isDay, isDay, "\(label): is_day (wire \(frame[9]))")
  checkEqual(int(decoded.sun?.rawValue), frame[10] <= 2 ? Int(frame[10]) : nil, "\(label): sun")
  checkEqual(Int(decoded.hourlyStepHours), Int(frame[11]), "\(label): hourly_step_h")
  same(int(decoded.latitude), "latitude")
  same(int(decoded.longitude), "longitude")
  same(int(decoded.observedAt), "observed_at")
  same(int(decoded.fetchedAt), "fetched_at")
  same(int(decoded.hourlyStart), "hourly_start")
  same(int(decoded.utcOffsetMinutes), "utc_offset_min")
  same(int(decoded.dailyStart), "daily_start")

  let country = specCountry(frame[36], frame[37])
  check(
    decoded.country?.first == country?.0 && decoded.country?.second == country?.1,
    "\(label): country \(String(describing: decoded.country)) from bytes \(frame[36]) \(frame[37])")
  checkEqual(nameBytes(decoded.name), specName(frame), "\(label): name bytes")
  checkEqual(decoded.name.count, specName(frame).count, "\(label): name count")

  let current = decoded.current
  same(int(current.temperature), "temperature")
  same(int(current.feelsLike), "feels_like")
  same(int(current.pressure), "pressure")
  same(int(current.windSpeed), "wind_speed")
  same(int(current.windGust), "wind_gust")
  same(int(current.windDirection), "wind_direction")
  same(int(current.visibility), "visibility")
  same(int(current.precipitation), "precipitation")
  same(int(current.humidity), "humidity")
  same(int(current.weatherCode), "weather_code")
  same(int(current.cloudCover), "cloud_cover")
  same(int(current.uvIndex), "uv_index")
  same(int(decoded.sunrise), "sunrise")
  same(int(decoded.sunset), "sunset")
  for index in 0..<12 {
    let slot = decoded.hourly[index]
    same(int(slot.temperature), "hourly_temperature", index)
    same(int(slot.weatherCode), "hourly_weather_code", index)
    same(int(slot.precipitationProbability), "hourly_precip_probability", index)
  }
  for index in 0..<7 {
    let slot = decoded.daily[index]
    same(int(slot.minimum), "daily_min", index)
    same(int(slot.maximum), "daily_max", index)
    same(int(slot.weatherCode), "daily_weather_code", index)
    same(int(slot.precipitationProbability), "daily_precip_probability", index)
  }

  let airQuality = specAirQuality(frame.u16(38))
  check(
    int(decoded.airQuality?.index) == airQuality?.index
      && (decoded.airQuality.map { $0.scale == .usAQI }) == airQuality?.us,
    "\(label): air_quality \(String(describing: decoded.airQuality)) from wire \(frame.u16(38))")
  let alerts = specAlerts(frame[84])
  check(
    int(decoded.alerts?.count) == alerts?.count
      && int(decoded.alerts?.highest.rawValue) == alerts?.severity,
    "\(label): alerts \(String(describing: decoded.alerts)) from wire \(frame[84])")
  checkEqual(int(decoded.moon?.wire), frame[85] == 0 ? nil : Int(frame[85]), "\(label): moon")
  let precipitation = specPrecipitation(frame[86])
  check(
    decoded.precipitationNextHour?.precipitatingNow == precipitation?.now
      && int(decoded.precipitationNextHour?.minutesUntilChange) == precipitation?.minutes
      && (decoded.precipitationNextHour == nil) == (precipitation == nil),
    "\(label): precip_next_hour \(String(describing: decoded.precipitationNextHour)) from wire "
      + "\(frame[86])")
  same(int(decoded.nextUpdateSeconds), "next_update")

  // The v1.1 helpers the decoded values carry.
  if let moon = decoded.moon {
    let fraction = moon.fraction
    check(fraction >= 0 && fraction < 1, "\(label): moon fraction \(fraction) in [0, 1)")
    // round(phase × 8) mod 8; no wire value lies on a tie.
    let icon = Int((Double(moon.wire - 1) / 255 * 8).rounded()) % 8
    checkEqual(Int(moon.icon.rawValue), icon, "\(label): moon icon of wire \(moon.wire)")
    _ = moon.icon.name
  }
  _ = decoded.status.name
  _ = decoded.service.name
  _ = decoded.status.hasWeather
  _ = decoded.airQuality?.scale.name
  _ = decoded.alerts?.highest.name
  _ = decoded.name.string
  _ = decoded.country?.string
}

/// The bytes the encoder must give for a decoded frame: the input with what decoding drops
/// made canonical (frame-v1.md §4, §5): an is_day or sun byte the spec does not define and v1.1
/// values read as absent become their sentinel, a country that is not two letters becomes 0 0
/// and one in lower case capitals, bytes after the name's first zero become 0, reserved byte 87
/// becomes 0, and the CRC is recomputed.
func canonicalFrame(_ frame: [UInt8]) -> [UInt8] {
  var bytes = frame
  if bytes[9] > 1 { bytes[9] = 0xFF }
  if bytes[10] > 2 { bytes[10] = 0xFF }
  if let country = specCountry(bytes[36], bytes[37]) {
    bytes[36] = country.0
    bytes[37] = country.1
  } else {
    bytes[36] = 0
    bytes[37] = 0
  }
  if specAirQuality(bytes.u16(38)) == nil { bytes.put16(0, at: 38) }
  let name = specName(bytes)
  for index in 40 + name.count..<64 { bytes[index] = 0 }
  if specAlerts(bytes[84]) == nil { bytes[84] = 0 }
  if specPrecipitation(bytes[86]) == nil { bytes[86] = 0 }
  bytes[87] = 0
  reseal(&bytes)
  return bytes
}

/// The fields whose wire value is outside what the spec lets an encoder write (each range of
/// frame-v1.json, slot_index < slot_count, an air quality index of at most 999). A decoded frame
/// re-encodes if and only if this is empty.
func fieldsOutOfRange(_ frame: [UInt8]) -> [String] {
  var names: [String] = []
  for field in specFields where field.minimum != nil || field.maximum != nil {
    // is_day and sun: an undefined byte decodes as missing, and missing encodes.
    // air_quality, alerts, moon, precip_next_hour: absent unless valid, see below.
    if ["is_day", "sun", "air_quality", "alerts", "moon", "precip_next_hour"].contains(field.name) {
      continue
    }
    for index in 0..<field.count {
      let wire = field.wire(frame, index)
      if wire != field.sentinel, !field.inRange(wire) {
        names.append(field.name)
        break
      }
    }
  }
  if frame[6] >= frame[7], !names.contains("slot_index"), !names.contains("slot_count") {
    names.append("slot_index")
  }
  if let airQuality = specAirQuality(frame.u16(38)), airQuality.index > 999 {
    names.append("air_quality")
  }
  return names
}
