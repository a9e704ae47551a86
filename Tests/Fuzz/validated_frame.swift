// Fuzz target validated_frame: ValidatedFrame, the in-place decoder.
// Seeds: frames
// Max length: 400
//
// For the input as it is and for it sealed (magic, version and CRC made right, as in frame_decode):
//   - ValidatedFrame(decoding:) fails exactly when WeatherFrame(decoding:) does, with the same
//     error, the one the spec gives;
//   - FrameField's layout (offset, element size, count, signedness, sentinel) is frame-v1.json's;
//   - value(_:at:) for every FrameField and every index is the spec's wire value, nil only for the
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

/// FrameField against the spec table, once.
let layoutChecked: Bool = {
  var seen = Set<String>()
  for field in FrameField.allCases {
    let name = field.name.description
    seen.insert(name)
    let row = spec(name)
    checkEqual(field.offset, row.offset, "\(name).offset")
    checkEqual(field.elementSize, row.elementSize, "\(name).elementSize")
    checkEqual(field.count, row.count, "\(name).count")
    checkEqual(field.size, row.elementSize * row.count, "\(name).size")
    checkEqual(field.isSigned, row.isSigned, "\(name).isSigned")
    checkEqual(field.sentinel, row.sentinel, "\(name).sentinel")
  }
  checkEqual(seen.count, specFields.count, "FrameField cases, one per field of frame-v1.json")
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
  for field in FrameField.allCases {
    for index in 0..<field.count {
      let name = field.name.description
      let value = validated.value(field, at: index)
      let expected = specValue(name, frame, index)
      if value != expected {
        fail(
          "\(label): value(.\(field), at: \(index)) = \(value.map(String.init) ?? "nil"), the spec "
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
  func value(_ field: FrameField, _ index: Int = 0) -> Int? { validated.value(field, at: index) }
  func same(_ field: FrameField, _ expected: Int?, _ index: Int = 0) {
    let actual = value(field, index)
    if actual != expected {
      fail(
        "\(label): value(.\(field), at: \(index)) = \(actual.map(String.init) ?? "nil") but "
          + "WeatherFrame has \(expected.map(String.init) ?? "nil")")
    }
  }
  /// WeatherFrame has nil although the byte is not the sentinel: the value must be one the spec
  /// reads as missing.
  func missing(_ field: FrameField, _ readsAsMissing: (Int) -> Bool) {
    if let wire = value(field), !readsAsMissing(wire) {
      fail("\(label): WeatherFrame has no \(field) but value(.\(field)) is \(wire)")
    }
  }

  for field in FrameField.allCases {
    switch field {
    case .magic:
      same(field, 0x53, 0)
      same(field, 0x46, 1)
    case .version: same(field, 1)
    case .status: same(field, Int(frame.status.rawValue))
    case .requestID: same(field, Int(frame.requestID))
    case .slotIndex: same(field, Int(frame.slotIndex))
    case .slotCount: same(field, Int(frame.slotCount))
    case .service: same(field, Int(frame.service.rawValue))
    case .isDay:
      if let isDay = frame.isDay { same(field, isDay ? 1 : 0) } else { missing(field) { $0 > 1 } }
    case .sun:
      if let sun = frame.sun { same(field, Int(sun.rawValue)) } else { missing(field) { $0 > 2 } }
    case .hourlyStep: same(field, Int(frame.hourlyStepHours))
    case .latitude: same(field, int(frame.latitude))
    case .longitude: same(field, int(frame.longitude))
    case .observedAt: same(field, int(frame.observedAt))
    case .fetchedAt: same(field, int(frame.fetchedAt))
    case .hourlyStart: same(field, int(frame.hourlyStart))
    case .utcOffset: same(field, int(frame.utcOffsetMinutes))
    case .dailyStart: same(field, int(frame.dailyStart))
    case .country:
      let first = value(field, 0).map { UInt8($0) } ?? 0
      let second = value(field, 1).map { UInt8($0) } ?? 0
      if let country = frame.country {
        checkEqual(first & 0xDF, country.first, "\(label): country's first letter")
        checkEqual(second & 0xDF, country.second, "\(label): country's second letter")
        check(isASCIILetter(first) && isASCIILetter(second), "\(label): country of two letters")
      } else {
        check(!(isASCIILetter(first) && isASCIILetter(second)), "\(label): a country is missing")
      }
    case .airQuality:
      if let quality = frame.airQuality {
        same(field, Int(quality.scale.rawValue) << 15 | (Int(quality.index) + 1))
      } else {
        missing(field) { $0 & 0x7FFF == 0 }
      }
    case .name:
      var bytes: [UInt8] = []
      for index in 0..<field.count {
        guard let byte = value(field, index) else { break }
        bytes.append(UInt8(byte))
      }
      checkEqual(bytes, nameBytes(frame.name), "\(label): name before its first 0")
    case .temperature: same(field, int(frame.current.temperature))
    case .feelsLike: same(field, int(frame.current.feelsLike))
    case .pressure: same(field, int(frame.current.pressure))
    case .windSpeed: same(field, int(frame.current.windSpeed))
    case .windGust: same(field, int(frame.current.windGust))
    case .windDirection: same(field, int(frame.current.windDirection))
    case .visibility: same(field, int(frame.current.visibility))
    case .precipitation: same(field, int(frame.current.precipitation))
    case .humidity: same(field, int(frame.current.humidity))
    case .weatherCode: same(field, int(frame.current.weatherCode))
    case .cloudCover: same(field, int(frame.current.cloudCover))
    case .uvIndex: same(field, int(frame.current.uvIndex))
    case .alerts:
      if let alerts = frame.alerts {
        same(field, Int(alerts.count) << 3 | Int(alerts.highest.rawValue))
      } else {
        missing(field) { !(1...6).contains($0 & 7) }
      }
    case .moon: same(field, int(frame.moon?.wire))
    case .precipitationNextHour:
      if let next = frame.precipitationNextHour {
        let minutes = next.minutesUntilChange.map { Int($0) + 1 } ?? 127
        same(field, (next.precipitatingNow ? 0x80 : 0) | minutes)
      } else {
        missing(field) { specPrecipitation(UInt8($0)) == nil }
      }
    case .reserved87: check(value(field) != nil, "\(label): reserved_87 has no sentinel")
    case .sunrise: same(field, int(frame.sunrise))
    case .sunset: same(field, int(frame.sunset))
    case .hourlyTemperature:
      for index in 0..<12 { same(field, int(frame.hourly[index].temperature), index) }
    case .hourlyWeatherCode:
      for index in 0..<12 { same(field, int(frame.hourly[index].weatherCode), index) }
    case .hourlyPrecipitationProbability:
      for index in 0..<12 { same(field, int(frame.hourly[index].precipitationProbability), index) }
    case .dailyMinimum:
      for index in 0..<7 { same(field, int(frame.daily[index].minimum), index) }
    case .dailyMaximum:
      for index in 0..<7 { same(field, int(frame.daily[index].maximum), index) }
    case .dailyWeatherCode:
      for index in 0..<7 { same(field, int(frame.daily[index].weatherCode), index) }
    case .dailyPrecipitationProbability:
      for index in 0..<7 { same(field, int(frame.daily[index].precipitationProbability), index) }
    case .nextUpdate: same(field, int(frame.nextUpdateSeconds))
    case .crc:
      let stored = validated.withBytes { [UInt8]($0).u32(crcOffset) }
      same(field, Int(stored))
    @unknown default:
      // A field added after this target was written: the spec table check above covers it.
      break
    }
  }
}
