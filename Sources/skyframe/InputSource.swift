import ArgumentParser
import Foundation

/// Standard input or a file, read as lines or whole.
struct InputSource {
  let handle: FileHandle
  private var pending = [UInt8]()

  init(path: String?) throws {
    guard let path, path != "-" else {
      handle = .standardInput
      return
    }
    guard let opened = FileHandle(forReadingAtPath: path) else {
      Diagnostics.report("cannot open \(path)")
      throw ExitCode.failure
    }
    handle = opened
  }

  func readAll() -> [UInt8] {
    [UInt8](handle.readDataToEndOfFile())
  }

  /// The next line without its terminator, as it arrives (for `mosquitto_sub | skyframe decode`).
  func readLine() -> String? {
    var line = [UInt8]()
    while true {
      let byte = handle.readData(ofLength: 1)
      guard let first = byte.first else {
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
      }
      if first == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
      line.append(first)
    }
  }
}

enum Diagnostics {
  static func report(_ message: String) {
    FileHandle.standardError.write(Data(("skyframe: " + message + "\n").utf8))
  }
}

enum Hex {
  enum Problem: Error, CustomStringConvertible {
    case oddLength(Int)
    case notHex(character: Int)

    var description: String {
      switch self {
      case .oddLength(let count):
        "odd number of hex digits (\(count)); \(Hex.hint)"
      case .notHex(let character):
        "not a hex digit at character \(character + 1); \(Hex.hint)"
      }
    }
  }

  /// What to do instead, for input that is not hex lines (the frames' raw bytes, say).
  static let hint =
    "skyframe decode reads hex lines as `mosquitto_sub -F '%t %x'` or `-F %x` prints them; for raw bytes (curl, a file, `mosquitto_sub` without -F) use `skyframe decode --raw`"

  static func decode(_ text: Substring) -> Result<[UInt8], Problem> {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return .failure(.oddLength(digits.count)) }
    var bytes = [UInt8]()
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = value(digits[index]) else { return .failure(.notHex(character: index)) }
      guard let low = value(digits[index + 1]) else {
        return .failure(.notHex(character: index + 1))
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return .success(bytes)
  }

  static func encode(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  private static func value(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
