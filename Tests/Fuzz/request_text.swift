// Fuzz target request_text: DeviceRequest(parsing:) of text requests, and the request-id echo.
// Seeds: requests-text
// Max length: 600
//
// The input, and the input behind an id prefix "#<id> ", are parsed with three maxima (the
// default 7, 16, and one from -1 to 17 to check the clamping to 1...16), each compared with
// the reference parser written from schemas/request-v1.md (Support/RequestReference.swift): the
// same request, or the same error with the same offset or slot.
//   - DeviceRequest.requestID(in:) gives the id the spec reads for an error frame, for any
//     bytes; behind the prefix always that prefix's id;
//   - a parsed request written back as text ("#id" and places with 5 decimals) parses to the same
//     request; one with a single place (or refresh) also survives the binary form.

import SkyframeCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func requestTextFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    let bytes = [UInt8](input)
    checkText(bytes, "input")
    let id = UInt16(truncatingIfNeeded: bytes.reduce(size) { $0 &* 31 &+ Int($1) })
    let prefixed = Array("#\(id) ".utf8) + bytes
    checkEqual(echo(prefixed), id, "the id echoed from \"#\(id) \" and any bytes")
    checkText(prefixed, "input behind an id prefix")
  }
}

func echo(_ bytes: [UInt8]) -> UInt16 {
  bytes.withUnsafeBytes { DeviceRequest.requestID(in: $0) }
}

func checkText(_ bytes: [UInt8], _ label: String) {
  checkEqual(echo(bytes), referenceEcho(bytes), "\(label): the id echoed")
  checkParse(bytes, maximum: bytes.count % 19 - 1, label)
  checkParse(bytes, maximum: 7, label)
  guard let request = checkParse(bytes, maximum: 16, label) else { return }
  checkEqual(echo(bytes), request.id, "\(label): the echoed id of a parsed request")
  if looksBinary(bytes) { return }

  let text = textForm(request)
  if text.count <= DeviceRequest.maximumTextLength {
    switch parse(text, maximum: 16) {
    case .success(let again):
      check(again == request, "\(label): written back as \(hexString(text)) it parses to \(again)")
    case .failure(let error):
      fail("\(label): written back as text \(hexString(text)) it is refused: \(error)")
    }
    note("\(label): written back as text")
  }

  let single: Bool
  if case .locations(let list) = request.body { single = list.count == 1 } else { single = true }
  do {
    let binary = try BinaryRequest.encoded(request)
    check(single, "\(label): a request with several places encodes in binary")
    switch parse(binary, maximum: 16) {
    case .success(let again):
      check(again == binaryForm(request), "\(label): binary form parses to \(again)")
    case .failure(let error): fail("\(label): its binary form \(hexString(binary)) fails: \(error)")
    }
  } catch {
    if case .locations(let list) = request.body, list.count > 1 {
      checkEqual(error, .tooManyLocations(count: list.count, maximum: 1), "\(label): binary")
    } else if case .locations(let list) = request.body, case .place(let name, _) = list[0],
      name.count > 36, request.checks[0] != nil
    {
      // Beside a check (bytes 56-59) the binary name field holds 36 bytes (request-v1.md §3).
      checkEqual(error, .nameTooLong(slot: 0, bytes: name.count), "\(label): binary with a check")
    } else {
      fail("\(label): a request with one place does not encode in binary: \(error)")
    }
  }
}

/// What the binary form keeps of `request` (request-v1.md §3): the first slot's check only ("-"
/// is no check), and byte 6 = 0 reads as "not said", so `standard` comes back as nil.
func binaryForm(_ request: DeviceRequest) -> DeviceRequest {
  var kept = request
  if kept.profile == .standard { kept.profile = nil }
  kept.checks = ContentChecks()
  if let first = request.checks[0] { kept.checks.append(first) }
  return kept
}

/// The request as text: "#id ", its options, and the places, coordinates with five decimals.
func textForm(_ request: DeviceRequest) -> [UInt8] {
  var text = Array("#\(request.id) ".utf8)
  if let profile = request.profile { text += Array("~\(profile.name) ".utf8) }
  if !request.checks.isEmpty {
    let checks = (0..<request.checks.count).map { slot in
      request.checks[slot].map { hex8($0) } ?? "-"
    }
    text += Array("~check=\(checks.joined(separator: ",")) ".utf8)
  }
  switch request.body {
  case .refresh: text += Array("refresh".utf8)
  case .locations(let list):
    for (slot, place) in list.enumerated() {
      if slot > 0 { text.append(0x3B) }
      switch place {
      case .coordinates(let point):
        text += Array("\(decimal(point.latitude)),\(decimal(point.longitude))".utf8)
      case .place(let name, let country):
        text += placeNameBytes(name)
        if let country { text += [0x2C, country.first, country.second] }
      }
    }
  }
  return text
}

func decimal(_ value: Int32) -> String {
  let magnitude = abs(Int(value))
  let fraction = String(magnitude % 100_000)
  return (value < 0 ? "-" : "") + "\(magnitude / 100_000)."
    + String(repeating: "0", count: 5 - fraction.count) + fraction
}

func hex8(_ value: UInt32) -> String {
  let digits = String(value, radix: 16)
  return String(repeating: "0", count: 8 - digits.count) + digits
}
