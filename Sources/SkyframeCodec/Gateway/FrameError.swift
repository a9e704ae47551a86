/// Why bytes are not a frame, or why a frame cannot be encoded.
public enum FrameError: Error, Equatable, Sendable {
  /// Fewer than 192 bytes: the frame is incomplete (a device buffer too small cuts it like this).
  case truncated(count: Int)
  /// More than 192 bytes.
  case tooLong(count: Int)
  /// The first two bytes are not "SF".
  case badMagic(UInt8, UInt8)
  /// A frame version this decoder does not read.
  case unsupportedVersion(UInt8)
  /// The CRC-32 stored in the frame's last four bytes is not the one its other bytes give.
  case checksumMismatch(stored: UInt32, computed: UInt32)
  /// A value a message cannot carry: outside the range of its field (named as in its layout
  /// table), or equal to its "missing" sentinel.
  case outOfRange(field: String, value: Int)
  /// The output buffer is shorter than a frame.
  case bufferTooSmall(count: Int)
}

extension FrameError {
  /// `error`, from checking a message of any kind (`MessageKind.check`), with the values involved.
  public init(profileError error: FrameCheckError, bytes: UnsafeRawBufferPointer) {
    let kind = bytes.count >= 3 ? MessageKind(rawValue: bytes[2]) : nil
    switch error {
    case .truncated: self = .truncated(count: bytes.count)
    case .tooLong: self = .tooLong(count: bytes.count)
    case .badMagic: self = .badMagic(bytes[0], bytes[1])
    case .unsupportedVersion: self = .unsupportedVersion(bytes[2])
    case .checksumMismatch:
      let end = (kind?.size ?? bytes.count) - 4
      let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self))
      self = .checksumMismatch(
        stored: stored, computed: CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<end])))
    }
  }
}

extension FrameError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .truncated(let count):
      "truncated frame: \(count) bytes, a frame has \(WeatherFrame.size)"
    case .tooLong(let count):
      "wrong length: \(count) bytes, a frame has \(WeatherFrame.size)"
    case .badMagic(let first, let second):
      "bad magic 0x\(hex(first))\(hex(second)), expected 0x5346 (\"SF\")"
    case .unsupportedVersion(let version):
      "unsupported frame version \(version), this decoder reads version \(WeatherFrame.version)"
    case .checksumMismatch(let stored, let computed):
      "CRC mismatch: frame says 0x\(hex(stored)), bytes give 0x\(hex(computed))"
    case .outOfRange(let field, let value):
      "\(field) = \(value) is outside the range its field can carry"
    case .bufferTooSmall(let count):
      "output buffer of \(count) bytes is shorter than a frame (\(WeatherFrame.size))"
    }
  }
}

/// Upper-case hexadecimal, zero-padded to the width of the integer type.
func hex<T: FixedWidthInteger>(_ value: T) -> String {
  let digits: StaticString = "0123456789ABCDEF"
  var text = ""
  var shift = T.bitWidth - 4
  while shift >= 0 {
    let nibble = Int((value >> T(shift)) & 0xF)
    text.unicodeScalars.append(Unicode.Scalar(digits.withUTF8Buffer { $0[nibble] }))
    shift -= 4
  }
  return text
}
