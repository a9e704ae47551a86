/// Why bytes are not a request. Every case says where: a byte offset or a slot (the place's
/// position in the request, from 0).
public enum RequestError: Error, Equatable, Sendable {
  case empty
  /// Text longer than `DeviceRequest.maximumTextLength` bytes.
  case tooLong(count: Int)
  /// The byte at `offset` does not continue valid UTF-8.
  case invalidUTF8(offset: Int)
  /// A control character (U+0000–U+001F, U+007F–U+009F) at `offset`.
  case controlCharacter(offset: Int)
  /// `#` must be followed by a number 0–65535 and a space.
  case badRequestID(offset: Int)
  /// Nothing between two `;`, or around one.
  case emptyLocation(slot: Int)
  /// Coordinates that are not two decimal numbers like `52.52,13.41`.
  case badNumber(slot: Int)
  case latitudeOutOfRange(slot: Int)
  case longitudeOutOfRange(slot: Int)
  /// A place name longer than `PlaceName` holds.
  case nameTooLong(slot: Int, bytes: Int)
  /// The part after a name's comma is not a two-letter country code.
  case badCountryCode(slot: Int)
  case tooManyLocations(count: Int, maximum: Int)
  /// Binary form: fewer or more than 64 bytes.
  case wrongBinaryLength(count: Int)
  case unsupportedVersion(UInt8)
  case checksumMismatch(stored: UInt32, computed: UInt32)
  /// Binary form: the kind byte is not 1 (coordinates), 2 (name) or 3 (refresh).
  case unknownKind(UInt8)
  /// Binary form: byte 6 is not a profile (0 standard, 1 large, 2 tiny).
  case unknownProfile(UInt8)
  /// Text form: a `~` option that is none of request-v1.md §2.4 (`text` holds its start).
  case unknownOption(offset: Int, text: OptionText)
  /// Text form: a known option with a bad value, given twice, or where it is not allowed.
  case badOption(offset: Int, text: OptionText)

  /// The status of the frame that answers this error.
  public var frameStatus: FrameStatus {
    if case .tooManyLocations = self { return .tooManyLocations }
    return .badRequest
  }
}

extension RequestError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .empty: "empty request"
    case .tooLong(let count):
      "request of \(count) bytes is longer than \(DeviceRequest.maximumTextLength)"
    case .invalidUTF8(let offset): "invalid UTF-8 at byte \(offset)"
    case .controlCharacter(let offset): "control character at byte \(offset)"
    case .badRequestID(let offset):
      "bad request id at byte \(offset): expected '#' then 0-65535 and a space"
    case .emptyLocation(let slot): "location \(slot) is empty"
    case .badNumber(let slot):
      "location \(slot): coordinates must be two decimal numbers like 52.52,13.41"
    case .latitudeOutOfRange(let slot): "location \(slot): latitude outside -90...90"
    case .longitudeOutOfRange(let slot): "location \(slot): longitude outside -180...180"
    case .nameTooLong(let slot, let bytes):
      "location \(slot): name of \(bytes) bytes is too long (at most \(PlaceName.capacityBytes), "
        + "or 36 in a binary request with a content check)"
    case .badCountryCode(let slot): "location \(slot): country must be two letters, like DE"
    case .tooManyLocations(let count, let maximum): "\(count) locations, at most \(maximum) allowed"
    case .wrongBinaryLength(let count):
      "binary request of \(count) bytes, it has \(BinaryRequest.size)"
    case .unsupportedVersion(let version): "unsupported request version \(version)"
    case .checksumMismatch(let stored, let computed):
      "CRC mismatch: request says 0x\(hex(stored)), bytes give 0x\(hex(computed))"
    case .unknownKind(let kind): "unknown request kind \(kind), expected 1, 2 or 3"
    case .unknownProfile(let profile):
      "unknown profile \(profile), expected 0 standard, 1 large or 2 tiny"
    case .unknownOption(_, let text): "unknown option \(text.string)"
    case .badOption(_, let text): "bad option \(text.string)"
    }
  }
}

/// The start of an option as the device wrote it, for the error frame's name.
public typealias OptionText = FixedText<20>
