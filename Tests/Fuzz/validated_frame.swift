// Fuzz target validated_frame: ValidatedFrame, the in-place decoder.
// Seeds: frames
// Max length: 400
//
// For the input as it is and for it sealed (magic, version and CRC made right, as in frame_decode):
//   - ValidatedFrame(decoding:) fails exactly when WeatherFrame(decoding:) does, with the same
//     error, the one the spec gives;
//   - StandardLayout's rows (offset, element size, count, signedness, sentinel) are frame-v1.json's;
//   - value(_:at:) for every row and every index is the spec's wire value, nil only for the
//     sentinel;
//   - it agrees with WeatherFrame(decoding:), field by field (checkAgreement below): equal where
//     the frame keeps the wire value, and where WeatherFrame reads a value as missing that is not
//     the sentinel (an is_day of 2, a lower-case or half country, bytes after the name's first 0,
//     v1.1 values the spec reads as absent), value(_:at:) still returns the wire byte;
//   - `frame`, `status`, `requestID` and withBytes give the same as the decode and the bytes.

import SkyframeCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func validatedFrameFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    _ = layoutChecked
    checkValidated(input, "input")
    let sealed = sealedFrame(input)
    sealed.withUnsafeBytes { checkValidated($0, "sealed frame") }
  }
}

/// StandardLayout's rows against the spec table, once.
let layoutChecked: Bool = {
  var seen = Set<String>()
  for field in StandardLayout.fields {
    let name = field.name.description
    seen.insert(name)
    let row = spec(name)
    checkEqual(field.offset, row.offset, "\(name).offset")
    checkEqual(field.storage.width, row.elementSize, "\(name).elementSize")
    checkEqual(field.count * field.length, row.count, "\(name).count")
    checkEqual(field.size, row.elementSize * row.count, "\(name).size")
    checkEqual(field.storage.isSigned, row.isSigned, "\(name).isSigned")
    checkEqual(field.sentinel.map { Int($0) }, row.sentinel, "\(name).sentinel")
  }
  checkEqual(seen.count, specFields.count, "StandardLayout rows, one per field of frame-v1.json")
  return true
}()

func checkValidated(_ bytes: UnsafeRawBufferPointer, _ label: String) {
  let expected = expectedFrameError(bytes)
  let validated: ValidatedFrame
  do {
    validated = try ValidatedFrame(decoding: bytes)
  } catch {
    checkEqual(error, expected, "\(label): ValidatedFrame error")
    do {
      _ = try WeatherFrame(decoding: bytes)
      fail("\(label): WeatherFrame decodes what ValidatedFrame refuses (\(error))")
    } catch let frameError {
      checkEqual(frameError, error, "\(label): WeatherFrame's error against ValidatedFrame's")
    }
    return
  }
  check(expected == nil, "\(label): ValidatedFrame accepts bytes the spec refuses: \(expected!)")
  let frame = [UInt8](bytes)
  let decoded: WeatherFrame
  do { decoded = try WeatherFrame(decoding: bytes) } catch {
    fail("\(label): WeatherFrame refuses what ValidatedFrame accepts: \(error)")
  }

  validated.withBytes { kept in checkEqual([UInt8](kept), frame, "\(label): withBytes") }
  for field in StandardLayout.fields {
    for index in 0..<field.count * field.length {
      let name = field.name.description
      let value = validated.value(field, at: index)
      let expected = specValue(name, frame, index)
      if value != expected {
        fail(
          "\(label): value(\(field.name), at: \(index)) = \(value.map(String.init) ?? "nil"), the spec "
            + "reads \(expected.map(String.init) ?? "nil")")
      }
    }
  }
  check(validated.frame == decoded, "\(label): ValidatedFrame.frame equals WeatherFrame(decoding:)")
  checkDecoded(validated.frame, frame, "\(label), ValidatedFrame.frame")
  checkEqual(validated.status, decoded.status, "\(label): status")
  checkEqual(validated.requestID, decoded.requestID, "\(label): requestID")
  checkAgreement(validated, decoded, label)

  // The same bytes at an odd address.
  let unaligned = UnsafeMutableRawBufferPointer.allocate(byteCount: frameSize + 1, alignment: 16)
  defer { unaligned.deallocate() }
  let odd = UnsafeMutableRawBufferPointer(rebasing: unaligned[1...])
  odd.copyBytes(from: frame)
  do {
    let again = try ValidatedFrame(decoding: UnsafeRawBufferPointer(odd))
    check(again.frame == decoded, "\(label): ValidatedFrame at an odd address")
  } catch {
    fail("\(label): ValidatedFrame at an odd address refuses valid bytes: \(error)")
  }
}

/// value(_:at:) against the decoded frame, field by field.
func checkAgreement(_ validated: ValidatedFrame, _ frame: WeatherFrame, _ label: String) {
  func value(_ field: LayoutField, _ index: Int = 0) -> Int? { validated.value(field, at: index) }
  func same(_ field: LayoutField, _ expected: Int?, _ index: Int = 0) {
    let actual = value(field, index)
    if actual != expected {
      fail(
        "\(label): value(\(field.name), at: \(index)) = \(actual.map(String.init) ?? "nil") but "
          + "WeatherFrame has \(expected.map(String.init) ?? "nil")")
    }
  }
  /// WeatherFrame has nil although the byte is not the sentinel: the value must be one the spec
  /// reads as missing.
  func missing(_ field: LayoutField, _ readsAsMissing: (Int) -> Bool) {
    if let wire = value(field), !readsAsMissing(wire) {
      fail("\(label): WeatherFrame has no \(field.name) but value(\(field.name)) is \(wire)")
    }
  }

  for field in StandardLayout.fields {
    switch field.name.description {
    case "magic":
      same(field, 0x53, 0)
      same(field, 0x46, 1)
    case "version": same(field, 1)
    case "status": same(field, Int(frame.status.rawValue))
    case "request_id": same(field, Int(frame.requestID))
    case "slot_index": same(field, Int(frame.slotIndex))
    case "slot_count": same(field, Int(frame.slotCount))
    case "service": same(field, Int(frame.service.rawValue))
    case "is_day":
      if let isDay = frame.isDay { same(field, isDay ? 1 : 0) } else { missing(field) { $0 > 1 } }
    case "sun":
      if let sun = frame.sun { same(field, Int(sun.rawValue)) } else { missing(field) { $0 > 2 } }
    case "hourly_step_h": same(field, Int(frame.hourlyStepHours))
    case "latitude": same(field, int(frame.latitude))
    case "longitude": same(field, int(frame.longitude))
    case "observed_at": same(field, int(frame.observedAt))
    case "fetched_at": same(field, int(frame.fetchedAt))
    case "hourly_start": same(field, int(frame.hourlyStart))
    case "utc_offset_min": same(field, int(frame.utcOffsetMinutes))
    case "daily_start": same(field, int(frame.dailyStart))
    case "country":
      let first = value(field, 0).map { UInt8($0) } ?? 0
      let second = value(field, 1).map { UInt8($0) } ?? 0
      if let country = frame.country {
        checkEqual(first & 0xDF, country.first, "\(label): country's first letter")
        checkEqual(second & 0xDF, country.second, "\(label): country's second letter")
        check(isASCIILetter(first) && isASCIILetter(second), "\(label): country of two letters")
      } else {
        check(!(isASCIILetter(first) && isASCIILetter(second)), "\(label): a country is missing")
      }
    case "air_quality":
      if let quality = frame.airQuality {
        same(field, Int(quality.scale.rawValue) << 15 | (Int(quality.index) + 1))
      } else {
        missing(field) { $0 & 0x7FFF == 0 }
      }
    case "name":
      var bytes: [UInt8] = []
      for index in 0..<field.length {
        guard let byte = value(field, index) else { break }
        bytes.append(UInt8(byte))
      }
      checkEqual(bytes, nameBytes(frame.name), "\(label): name before its first 0")
    case "temperature": same(field, int(frame.current.temperature))
    case "feels_like": same(field, int(frame.current.feelsLike))
    case "pressure": same(field, int(frame.current.pressure))
    case "wind_speed": same(field, int(frame.current.windSpeed))
    case "wind_gust": same(field, int(frame.current.windGust))
    case "wind_direction": same(field, int(frame.current.windDirection))
    case "visibility": same(field, int(frame.current.visibility))
    case "precipitation": same(field, int(frame.current.precipitation))
    case "humidity": same(field, int(frame.current.humidity))
    case "weather_code": same(field, int(frame.current.weatherCode))
    case "cloud_cover": same(field, int(frame.current.cloudCover))
    case "uv_index": same(field, int(frame.current.uvIndex))
    case "alerts":
      if let alerts = frame.alerts {
        same(field, Int(alerts.count) << 3 | Int(alerts.highest.rawValue))
      } else {
        missing(field) { !(1...6).contains($0 & 7) }
      }
    case "moon": same(field, int(frame.moon?.wire))
    case "precip_next_hour":
      if let next = frame.precipitationNextHour {
        let minutes = next.minutesUntilChange.map { Int($0) + 1 } ?? 127
        same(field, (next.precipitatingNow ? 0x80 : 0) | minutes)
      } else {
        missing(field) { specPrecipitation(UInt8($0)) == nil }
      }
    case "reserved_87": check(value(field) != nil, "\(label): reserved_87 has no sentinel")
    case "sunrise": same(field, int(frame.sunrise))
    case "sunset": same(field, int(frame.sunset))
    case "hourly_temperature":
      for index in 0..<12 { same(field, int(frame.hourly[index].temperature), index) }
    case "hourly_weather_code":
      for index in 0..<12 { same(field, int(frame.hourly[index].weatherCode), index) }
    case "hourly_precip_probability":
      for index in 0..<12 { same(field, int(frame.hourly[index].precipitationProbability), index) }
    case "daily_min":
      for index in 0..<7 { same(field, int(frame.daily[index].minimum), index) }
    case "daily_max":
      for index in 0..<7 { same(field, int(frame.daily[index].maximum), index) }
    case "daily_weather_code":
      for index in 0..<7 { same(field, int(frame.daily[index].weatherCode), index) }
    case "daily_precip_probability":
      for index in 0..<7 { same(field, int(frame.daily[index].precipitationProbability), index) }
    case "next_update": same(field, int(frame.nextUpdateSeconds))
    case "crc32":
      let stored = validated.withBytes { [UInt8]($0).u32(crcOffset) }
      same(field, Int(stored))
    default:
      // A field added after this target was written: the spec table check above covers it.
      break
    }
  }
}
