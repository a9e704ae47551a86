import Foundation
import SkyframeCodec
import SkyframeWeather

extension ProfileDocument {
  /// The message a JSON object of `frame-profiles.md` §8 describes, for any profile: the object
  /// `json(_:)` writes, read back off the same table. Every shown field's key must be there; a
  /// value its field cannot carry (outside its range, between two steps of its scale, text too
  /// long, a name no version knows) throws `DocumentError` naming the key.
  public static func message(from object: [String: Any]) throws(DocumentError) -> [UInt8] {
    guard let profile = object["profile"] as? String else {
      throw DocumentError(
        key: "profile", value: describe(object["profile"]),
        allowed: "standard, large, tiny or unchanged")
    }
    let kind: MessageKind
    switch profile {
    case "standard": kind = .standard
    case "large": kind = .large
    case "tiny": kind = .tiny
    case "unchanged": kind = .unchanged
    default:
      throw DocumentError(
        key: "profile", value: profile, allowed: "standard, large, tiny or unchanged")
    }
    var bytes = [UInt8](repeating: 0, count: kind.size)
    // withUnsafeMutableBytes rethrows untyped: the error is carried out by hand.
    let failure = bytes.withUnsafeMutableBytes { buffer -> DocumentError? in
      do throws(DocumentError) {
        try fill(buffer, kind: kind, from: object)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
    return bytes
  }

  private static func fill(
    _ buffer: UnsafeMutableRawBufferPointer, kind: MessageKind, from object: [String: Any]
  ) throws(DocumentError) {
    var out = ProfileWriter(buffer, kind: kind)
    // The standard writer starts from zeros: the header is written here for every kind.
    buffer[0] = 0x53
    buffer[1] = 0x46
    buffer[2] = kind.rawValue
    for field in kind.fields where isShown(field) {
      let key = "\(field.name)"
      if kind == .unchanged, key == "profile" {
        try put(profileOf: object["of"], field, into: &out)
        continue
      }
      guard let value = object[key] else {
        throw DocumentError(key: key, value: "nothing", allowed: "the key (null when missing)")
      }
      try put(value, field, key: key, into: &out, buffer)
    }
    let slot = buffer[MessageHeader.slotIndex.offset]
    let slots = buffer[MessageHeader.slotCount.offset]
    guard slot < slots else {
      throw DocumentError(key: "slot_index", value: "\(slot)", allowed: "less than slot_count")
    }
    ProfileWriter.seal(buffer, kind: kind)
  }

  private static func put(
    profileOf value: Any?, _ field: LayoutField, into out: inout ProfileWriter
  ) throws(DocumentError) {
    let names = FrameProfile.allCases.map { "\($0.name)" }
    if let name = value as? String, let index = names.firstIndex(of: name) {
      out.set(field, FrameProfile.allCases[index].rawValue)
      return
    }
    throw DocumentError(
      key: "of", value: describe(value), allowed: names.joined(separator: ", "))
  }

  /// One field: a list of `count` values for an array field, else one value.
  private static func put(
    _ value: Any, _ field: LayoutField, key: String, into out: inout ProfileWriter,
    _ buffer: UnsafeMutableRawBufferPointer
  ) throws(DocumentError) {
    if field.storage == .country {
      if value is NSNull {
        out.set(field, country: nil)
        return
      }
      guard let text = value as? String, let code = CountryCode(text), code.string == text else {
        throw DocumentError(
          key: key, value: describe(value), allowed: "two capital letters or null")
      }
      out.set(field, country: code)
      return
    }
    let elements: [Any]
    if field.count > 1 {
      guard let list = value as? [Any], list.count == field.count else {
        throw DocumentError(
          key: key, value: describe(value), allowed: "a list of exactly \(field.count)")
      }
      elements = list
    } else {
      elements = [value]
    }
    for (index, element) in elements.enumerated() {
      let label = field.count > 1 ? "\(key)[\(index)]" : key
      if field.storage == .text {
        guard let text = element as? String, !text.utf8.contains(0),
          text.utf8.count <= field.length
        else {
          throw DocumentError(
            key: label, value: describe(element),
            allowed: "text of at most \(field.length) bytes of UTF-8")
        }
        let at = field.offset(index)
        for (offset, byte) in text.utf8.enumerated() { buffer[at + offset] = byte }
        continue
      }
      if let meaning = FieldMeaning(field) {
        out.set(field, index, try meaning.wire(element, key: label, field: field))
        continue
      }
      out.set(field, index, try wire(element, field, key: label))
    }
  }

  /// The wire integer of one element: a name for `status` and `service`, null for the
  /// sentinel, else the value divided by the scale, a whole number within the field's range.
  /// (The fields shown by their meaning are read by `FieldMeaning`.)
  private static func wire(_ value: Any, _ field: LayoutField, key: String)
    throws(DocumentError) -> Int64
  {
    let name = "\(field.name)"
    if let text = value as? String, name == "status" || name == "service" {
      let known: [(UInt8, String)] =
        name == "status"
        ? FrameStatus.allKnown.compactMap { status in status.name.map { (status.rawValue, "\($0)") }
        }
        : WeatherService.allKnown.compactMap { service in
          service.name.map { (service.rawValue, "\($0)") }
        }
      guard let match = known.first(where: { $0.1 == text }) else {
        throw DocumentError(
          key: key, value: text,
          allowed: known.map(\.1).joined(separator: ", ") + " or a number")
      }
      return Int64(match.0)
    }
    if value is NSNull {
      guard let sentinel = field.sentinel else {
        throw DocumentError(key: key, value: "null", allowed: allowed(field))
      }
      return sentinel
    }
    guard let number = value as? NSNumber, let double = Double(exactly: number)
    else {
      throw DocumentError(key: key, value: describe(value), allowed: allowed(field))
    }
    // Scales below 1 multiply by their inverse, so 52.52 is exactly 5252000 steps.
    let steps = field.scale < 1 ? double * (1 / field.scale).rounded() : double / field.scale
    let rounded = steps.rounded()
    guard double.isFinite, abs(steps - rounded) < 1e-6, let wire = Int64(exactly: rounded),
      field.minimum.map({ wire >= $0 }) ?? true, field.maximum.map({ wire <= $0 }) ?? true,
      wire != field.sentinel, fits(wire, field.storage)
    else {
      throw DocumentError(key: key, value: describe(value), allowed: allowed(field))
    }
    return wire
  }

  private static func fits(_ wire: Int64, _ storage: LayoutField.Storage) -> Bool {
    switch storage {
    case .u8: UInt8(exactly: wire) != nil
    case .i8: Int8(exactly: wire) != nil
    case .u16: UInt16(exactly: wire) != nil
    case .i16: Int16(exactly: wire) != nil
    case .u32: UInt32(exactly: wire) != nil
    case .i32: Int32(exactly: wire) != nil
    case .text, .country, .reserved: false
    }
  }

  /// What a field takes, in its own unit: `a multiple of 0.1 degC from -100 to 100, or null`.
  private static func allowed(_ field: LayoutField) -> String {
    let step = number(1, scale: field.scale)
    let unit = "\(field.unit)".isEmpty ? "" : " \(field.unit)"
    var text = field.scale == 1 ? "a whole number" : "a multiple of \(step)"
    if let minimum = field.minimum, let maximum = field.maximum {
      let low = number(minimum, scale: field.scale)
      let high = number(maximum, scale: field.scale)
      text += " from \(low) to \(high)\(unit)"
    } else {
      text += unit.isEmpty ? "" : " in\(unit)"
    }
    return field.sentinel == nil ? text : text + ", or null"
  }

  static func describe(_ value: Any?) -> String {
    switch value {
    case nil: "nothing"
    case is NSNull: "null"
    case let text as String: quoted(text)
    case let number as NSNumber: "\(number)"
    case is [Any]: "a list"
    case is [String: Any]: "an object"
    default: "\(value!)"
    }
  }
}

/// A JSON value a message cannot carry, named by its key.
public struct DocumentError: Error, Equatable, CustomStringConvertible {
  public var key: String
  public var value: String
  public var allowed: String

  public var description: String { "\(key): \(value) is not allowed; expected \(allowed)" }
}
