// Fuzz target differential: the Swift codec against the C decoder header
// (firmware-notes/skyframe_frame.h, imported as the module CSkyframeFrame and linked from
// Support/skyframe_frame_impl.c, built with ASan and UBSan).
// Seeds: frames requests-binary
// Max length: 400
//
// 1. The input as it is and sealed (as in frame_decode), decoded by both: the same error code,
//    or the same value in every field (Swift's nil is the C sentinel; the v1.1 bytes the spec
//    reads as absent are 0 in C), and every helper on the decoded frame agrees with Swift's
//    reading (has_weather, the v1.1 values, the names). On an error *out is left untouched; a
//    copy of the bytes at an odd address decodes to the same struct. skyframe_crc32 equals
//    CRC32.checksum on the whole input.
// 2. The request builders against the Swift codec, with arguments from the input:
//    skyframe_request_coordinates and _refresh write the same 64 bytes as BinaryRequest.encode,
//    or both refuse; skyframe_request_place, for a name of 1-40 bytes of valid UTF-8 and a
//    country of 0 or 2 bytes, succeeds exactly when the gateway's parser accepts those bytes, and
//    then the parser reads the name and country back (a lower-case country in capitals). A name
//    of invalid UTF-8 the builder may accept (it leaves that to the gateway): the parser then
//    refuses it as invalidUTF8.

import CSkyframeFrame
import SkyframeCodec

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func differentialFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    let bytes = [UInt8](input)
    let crc = bytes.withUnsafeBufferPointer { skyframe_crc32($0.baseAddress, $0.count) }
    checkEqual(crc, CRC32.checksum(input), "skyframe_crc32 against CRC32.checksum")
    compareDecoders(bytes, "input")
    compareDecoders(sealedFrame(input), "sealed input")
    var reader = ByteReader(input)
    compareRequestBuilders(&reader)
  }
}

// MARK: 1: decoding

/// skyframe_frame_decode of `bytes` (never a NULL buffer, so that an empty input is "truncated")
/// into a struct filled with 0xA5: the code, the struct, and its memory as C left it (padding
/// included, which a Swift copy of the struct need not keep).
func decodeC(_ bytes: [UInt8], at offset: Int = 0) -> (Int32, skyframe_frame, [UInt8]) {
  let out = UnsafeMutablePointer<skyframe_frame>.allocate(capacity: 1)
  defer { out.deallocate() }
  let memory = UnsafeMutableRawBufferPointer(start: out, count: MemoryLayout<skyframe_frame>.size)
  memory.initializeMemory(as: UInt8.self, repeating: 0xA5)
  let buffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: bytes.count + offset + 1, alignment: 16)
  defer { buffer.deallocate() }
  let start = buffer.baseAddress!.advanced(by: offset)
  start.copyMemory(from: bytes, byteCount: bytes.count)
  let code = skyframe_frame_decode(start.assumingMemoryBound(to: UInt8.self), bytes.count, out)
  return (code, out.pointee, [UInt8](memory))
}

func cCode(_ error: FrameError) -> Int32 {
  switch error {
  case .truncated: SKYFRAME_ERR_TRUNCATED
  case .tooLong: SKYFRAME_ERR_TOO_LONG
  case .badMagic: SKYFRAME_ERR_BAD_MAGIC
  case .unsupportedVersion: SKYFRAME_ERR_BAD_VERSION
  case .checksumMismatch: SKYFRAME_ERR_CRC
  default: 99
  }
}

func string(_ text: UnsafePointer<CChar>?) -> String {
  guard let text else { fail("a name function returned NULL") }
  return String(cString: text)
}

func compareDecoders(_ bytes: [UInt8], _ label: String) {
  let (code, c, memory) = decodeC(bytes)
  let swift: WeatherFrame
  do {
    swift = try WeatherFrame(decoding: bytes)
  } catch {
    checkEqual(code, cCode(error), "\(label): C error code for Swift's \(error)")
    check(memory.allSatisfy { $0 == 0xA5 }, "\(label): C wrote *out on error \(code)")
    checkEqual(string(skyframe_error_name(code)).isEmpty, false, "skyframe_error_name")
    note("\(label): both refuse (\(string(skyframe_error_name(code))))")
    return
  }
  checkEqual(code, SKYFRAME_OK, "\(label): C refuses a frame Swift decodes")
  note("\(label): both decode")
  let (oddCode, _, oddMemory) = decodeC(bytes, at: 3)
  checkEqual(oddCode, SKYFRAME_OK, "\(label): C at an odd address")
  check(oddMemory == memory, "\(label): C decodes the same at an odd address")

  func same<T: BinaryInteger, U: BinaryInteger>(_ cValue: T, _ swiftValue: U, _ what: String) {
    if Int(cValue) != Int(swiftValue) {
      fail("\(label): \(what): C has \(cValue), Swift \(swiftValue)")
    }
  }
  same(c.version, 1, "version")
  same(c.status, swift.status.rawValue, "status")
  same(c.request_id, swift.requestID, "request_id")
  same(c.slot_index, swift.slotIndex, "slot_index")
  same(c.slot_count, swift.slotCount, "slot_count")
  same(c.service, swift.service.rawValue, "service")
  same(c.is_day, swift.isDay.map { $0 ? 1 : 0 } ?? 0xFF, "is_day")
  same(c.sun, swift.sun?.rawValue ?? 0xFF, "sun")
  same(c.hourly_step_h, swift.hourlyStepHours, "hourly_step_h")
  same(c.utc_offset_min, swift.utcOffsetMinutes ?? Int16.min, "utc_offset_min")
  same(c.latitude, swift.latitude ?? Int32.min, "latitude")
  same(c.longitude, swift.longitude ?? Int32.min, "longitude")
  same(c.observed_at, swift.observedAt ?? 0, "observed_at")
  same(c.fetched_at, swift.fetchedAt ?? 0, "fetched_at")
  same(c.sunrise, swift.sunrise ?? 0, "sunrise")
  same(c.sunset, swift.sunset ?? 0, "sunset")
  same(c.hourly_start, swift.hourlyStart ?? 0, "hourly_start")
  same(c.daily_start, swift.dailyStart ?? 0xFFFF, "daily_start")
  let country = withUnsafeBytes(of: c.country) { [UInt8]($0) }
  checkEqual(
    country, swift.country.map { [$0.first, $0.second, 0] } ?? [0, 0, 0], "\(label): country")
  let name = withUnsafeBytes(of: c.name) { [UInt8]($0) }
  let swiftName = nameBytes(swift.name)
  checkEqual(
    name, swiftName + [UInt8](repeating: 0, count: 25 - swiftName.count), "\(label): name")

  same(c.current.temperature, swift.current.temperature ?? Int16.min, "temperature")
  same(c.current.feels_like, swift.current.feelsLike ?? Int16.min, "feels_like")
  same(c.current.pressure, swift.current.pressure ?? 0xFFFF, "pressure")
  same(c.current.wind_speed, swift.current.windSpeed ?? 0xFFFF, "wind_speed")
  same(c.current.wind_gust, swift.current.windGust ?? 0xFFFF, "wind_gust")
  same(c.current.wind_direction, swift.current.windDirection ?? 0xFFFF, "wind_direction")
  same(c.current.visibility, swift.current.visibility ?? 0xFFFF, "visibility")
  same(c.current.precipitation, swift.current.precipitation ?? 0xFFFF, "precipitation")
  same(c.current.humidity, swift.current.humidity ?? 0xFF, "humidity")
  same(c.current.weather_code, swift.current.weatherCode ?? 0xFF, "weather_code")
  same(c.current.cloud_cover, swift.current.cloudCover ?? 0xFF, "cloud_cover")
  same(c.current.uv_index, swift.current.uvIndex ?? 0xFF, "uv_index")
  withUnsafeBytes(of: c.hourly) { raw in
    let hourly = raw.bindMemory(to: skyframe_hourly.self)
    for index in 0..<12 {
      let slot = swift.hourly[index]
      same(hourly[index].temperature, slot.temperature ?? Int16.min, "hourly[\(index)].temperature")
      same(hourly[index].weather_code, slot.weatherCode ?? 0xFF, "hourly[\(index)].weather_code")
      same(
        hourly[index].precip_probability, slot.precipitationProbability ?? 0xFF,
        "hourly[\(index)].precip_probability")
    }
  }
  withUnsafeBytes(of: c.daily) { raw in
    let daily = raw.bindMemory(to: skyframe_daily.self)
    for index in 0..<7 {
      let slot = swift.daily[index]
      same(daily[index].temperature_min, slot.minimum ?? Int16.min, "daily[\(index)].min")
      same(daily[index].temperature_max, slot.maximum ?? Int16.min, "daily[\(index)].max")
      same(daily[index].weather_code, slot.weatherCode ?? 0xFF, "daily[\(index)].weather_code")
      same(
        daily[index].precip_probability, slot.precipitationProbability ?? 0xFF,
        "daily[\(index)].precip_probability")
    }
  }
  same(c.crc32, bytes.u32(crcOffset), "crc32")

  // v1.1: wire values, 0 when absent.
  let quality = swift.airQuality
  same(
    c.air_quality, quality.map { Int($0.scale.rawValue) << 15 | (Int($0.index) + 1) } ?? 0,
    "air_quality")
  same(c.alerts, swift.alerts.map { Int($0.count) << 3 | Int($0.highest.rawValue) } ?? 0, "alerts")
  same(c.moon, swift.moon?.wire ?? 0, "moon")
  let next = swift.precipitationNextHour
  same(
    c.precip_next_hour,
    next.map {
      ($0.precipitatingNow ? 0x80 : 0) | ($0.minutesUntilChange.map { Int($0) + 1 } ?? 127)
    }
      ?? 0, "precip_next_hour")
  same(c.next_update, swift.nextUpdateSeconds ?? 0, "next_update")

  // The helpers on the decoded frame.
  var frame = c
  same(skyframe_frame_has_weather(&frame), swift.status.hasWeather ? 1 : 0, "has_weather")
  same(skyframe_has_air_quality(&frame), quality == nil ? 0 : 1, "has_air_quality")
  same(skyframe_air_quality_index(&frame), quality.map { Int($0.index) } ?? -1, "air_quality_index")
  same(skyframe_air_quality_scale(&frame), quality.map { Int($0.scale.rawValue) } ?? -1, "scale")
  checkEqual(
    string(skyframe_air_quality_scale_name(skyframe_air_quality_scale(&frame))),
    quality?.scale.name.description ?? "absent", "\(label): air quality scale name")
  same(skyframe_has_alerts(&frame), swift.alerts == nil ? 0 : 1, "has_alerts")
  same(skyframe_alert_count(&frame), swift.alerts.map { Int($0.count) } ?? -1, "alert_count")
  same(
    skyframe_alert_severity(&frame), swift.alerts.map { Int($0.highest.rawValue) } ?? -1,
    "alert_severity")
  checkEqual(
    string(skyframe_alert_severity_name(skyframe_alert_severity(&frame))),
    swift.alerts?.highest.name.description ?? "absent", "\(label): alert severity name")
  same(skyframe_has_moon(&frame), swift.moon == nil ? 0 : 1, "has_moon")
  same(
    skyframe_moon_phase_icon(&frame), swift.moon.map { Int($0.icon.rawValue) } ?? -1, "moon icon")
  checkEqual(
    string(skyframe_moon_phase_name(skyframe_moon_phase_icon(&frame))),
    swift.moon?.icon.name.description ?? "absent", "\(label): moon phase name")
  let illumination = skyframe_moon_illumination_pct(&frame)
  if let moon = swift.moon {
    // round(100 (1 - cos(2π phase)) / 2), exact for every wire value (the header's claim).
    let exact = Int((100 * (1 - cos(2 * Double.pi * moon.fraction)) / 2).rounded())
    same(illumination, exact, "moon illumination of wire \(moon.wire)")
  } else {
    same(illumination, -1, "moon illumination when absent")
  }
  same(skyframe_has_precip_next_hour(&frame), next == nil ? 0 : 1, "has_precip_next_hour")
  same(skyframe_precip_now(&frame), next.map { $0.precipitatingNow ? 1 : 0 } ?? -1, "precip_now")
  same(
    skyframe_precip_change_in_min(&frame),
    next.map { $0.minutesUntilChange.map { Int($0) } ?? Int(SKYFRAME_PRECIP_NO_CHANGE) } ?? -1,
    "precip_change_in_min")
  same(skyframe_has_next_update(&frame), swift.nextUpdateSeconds == nil ? 0 : 1, "has_next_update")
  same(
    skyframe_next_update_seconds(&frame), swift.nextUpdateSeconds.map { Int($0) } ?? -1,
    "next_update_seconds")
  checkEqual(
    string(skyframe_status_name(c.status)), swift.status.name?.description ?? "unknown",
    "\(label): status name")
  checkEqual(
    string(skyframe_service_name(c.service)), swift.service.name?.description ?? "unknown",
    "\(label): service name")
  let sunNames = ["normal", "polar_day", "polar_night"]
  checkEqual(
    string(skyframe_sun_name(c.sun)), swift.sun.map { sunNames[Int($0.rawValue)] } ?? "unknown",
    "\(label): sun name")
}

// MARK: 2: the request builders

func compareRequestBuilders(_ reader: inout ByteReader) {
  let id = reader.u16()
  var out = [UInt8](repeating: 0xEE, count: 64)
  switch reader.u8() % 3 {
  case 0:
    let latitude: Int32 = reader.value(-9_000_000...9_000_000)
    let longitude: Int32 = reader.value(-18_000_000...18_000_000)
    let code = out.withUnsafeMutableBufferPointer {
      skyframe_request_coordinates($0.baseAddress, id, latitude, longitude)
    }
    let point = Coordinates(latitude: latitude, longitude: longitude)
    let request = DeviceRequest(id: id, body: .locations(LocationList([.coordinates(point)])))
    compareBuilt(
      code, out, request, "skyframe_request_coordinates(\(id), \(latitude), \(longitude))")
  case 1:
    let code = out.withUnsafeMutableBufferPointer { skyframe_request_refresh($0.baseAddress, id) }
    compareBuilt(
      code, out, DeviceRequest(id: id, body: .refresh), "skyframe_request_refresh(\(id))")
  default:
    comparePlace(id, &reader)
  }
}

func compareBuilt(_ code: Int32, _ out: [UInt8], _ request: DeviceRequest, _ call: String) {
  do {
    let swift = try BinaryRequest.encoded(request)
    checkEqual(code, SKYFRAME_OK, "\(call) refuses what BinaryRequest.encode writes")
    checkEqual(out, swift, "\(call) against BinaryRequest.encode")
    note("request builder: same bytes")
  } catch {
    checkEqual(code, SKYFRAME_ERR_RANGE, "\(call) where BinaryRequest.encode throws \(error)")
    note("request builder: both refuse")
  }
}

func comparePlace(_ id: UInt16, _ reader: inout ByteReader) {
  let name = reader.sizedBytes(44).map { $0 == 0 ? 0x20 : $0 }
  let country: [UInt8]? =
    switch reader.u8() % 6 {
    case 0: nil
    case 1: []
    case 2: [reader.u8()].filter { $0 != 0 }
    case 3: [reader.u8(), reader.u8(), reader.u8()].filter { $0 != 0 }
    default: [reader.u8(), reader.u8()].map { $0 == 0 ? 0x41 : $0 }
    }
  var out = [UInt8](repeating: 0xEE, count: 64)
  let cName = name.map { CChar(bitPattern: $0) } + [0]
  let code: Int32 = out.withUnsafeMutableBufferPointer { buffer in
    if let country {
      let cCountry = country.map { CChar(bitPattern: $0) } + [0]
      return skyframe_request_place(buffer.baseAddress, id, cName, cCountry)
    }
    return skyframe_request_place(buffer.baseAddress, id, cName, nil)
  }
  let call =
    "skyframe_request_place(\(id), \(hexString(name)), \(country.map { hexString($0) } ?? "NULL"))"
  let validUTF8 = String(validating: name, as: UTF8.self) != nil

  // What the C builder writes when it accepts: the binary form, country as given.
  var expected = [UInt8](repeating: 0, count: 64)
  expected[0] = 0x53
  expected[1] = 0x51
  expected[2] = 1
  expected[3] = 2
  expected.put16(id, at: 4)
  if let country, country.count == 2 {
    expected[16] = country[0]
    expected[17] = country[1]
  }
  for (index, byte) in name.prefix(40).enumerated() { expected[20 + index] = byte }
  expected.put32(referenceCRC32(expected[0..<60]), at: 60)

  let comparable =
    (1...40).contains(name.count) && (country == nil || country!.count != 1 && country!.count != 3)
  if code == SKYFRAME_OK {
    checkEqual(out, expected, "\(call): bytes")
    check(comparable, "\(call) accepts a name or country the binary form cannot carry")
  } else {
    checkEqual(code, SKYFRAME_ERR_RANGE, "\(call): error code")
  }
  guard comparable else { return }
  switch parse(expected, maximum: 7) {
  case .success(let parsed):
    check(code == SKYFRAME_OK, "\(call) refuses, but the gateway accepts \(PlainRequest(parsed))")
    check(validUTF8, "the gateway accepts invalid UTF-8")
    let upper = country.flatMap { $0.count == 2 ? $0.map { $0 & 0xDF } : nil }
    checkEqual(
      PlainRequest(parsed), PlainRequest(id: Int(id), places: [.name(name, country: upper)]),
      "\(call): the gateway reads")
    note("place builder: both accept")
  case .failure(let error):
    if code == SKYFRAME_OK {
      // Only invalid UTF-8 passes the builder and not the gateway.
      check(!validUTF8, "\(call) accepts what the gateway refuses: \(error)")
      guard case .invalidUTF8 = error else {
        fail("\(call): accepted with invalid UTF-8, the gateway refuses with \(error)")
      }
      note("place builder: invalid UTF-8 left to the gateway")
    } else {
      note("place builder: both refuse")
    }
  }
}
