import ArgumentParser
import Foundation
import SkyframeCodec
import SkyframeJSON

struct DecodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "decode",
    abstract: "Decode frames: hex lines as `mosquitto_sub -F %x` prints them, or raw bytes.",
    discussion: """
      Each input line is one frame in hexadecimal. A line with several words (such as
      `mosquitto_sub -F '%t %x'` prints) is read as a label followed by the hex; a label followed
      by nothing is an empty message (a retained frame cleared), said as such. A line that is not
      a frame is reported on standard error with what is wrong, and the next line is still read;
      the exit status is 1 if any line failed.
      """
  )

  @Argument(help: "File to read; standard input when absent or '-'.")
  var file: String?

  @Flag(help: "Input is raw bytes, standard frames back to back, 192 bytes each.")
  var raw = false

  @Flag(help: "Print each frame as one line of JSON instead of a block of text.")
  var json = false

  @Option(
    help: ArgumentHelp(
      "Unix time to compute the data's age from (default: now).", visibility: .hidden))
  var now: Int?

  func run() throws {
    let input = try InputSource(path: file)
    var failures = 0
    var output = FrameOutput(json: json, now: now ?? Int(Date().timeIntervalSince1970))
    if raw {
      let bytes = input.readAll()
      var offset = 0
      var index = 1
      while offset < bytes.count {
        let chunk = Array(bytes[offset..<min(offset + WeatherFrame.size, bytes.count)])
        if !output.show(chunk, label: nil, origin: "frame \(index)") { failures += 1 }
        offset += WeatherFrame.size
        index += 1
      }
    } else {
      var number = 0
      while let line = input.readLine() {
        number += 1
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        // `mosquitto_sub -F '%t %x'` of an empty message (a retained frame cleared, as when a
        // watch is removed) is the topic and a blank: said, not an error.
        if words.count == 1, line.last == " " || line.last == "\t" {
          if !json { print("[\(words[0])] empty message: a retained frame cleared") }
          continue
        }
        guard let hexWord = words.last else {
          Diagnostics.report("line \(number): empty line, expected a frame in hexadecimal")
          failures += 1
          continue
        }
        let label = words.dropLast().joined(separator: " ")
        switch Hex.decode(hexWord) {
        case .success(let bytes):
          if !output.show(bytes, label: label.isEmpty ? nil : label, origin: "line \(number)") {
            failures += 1
          }
        case .failure(let error):
          Diagnostics.report("line \(number): \(error)")
          failures += 1
        }
      }
    }
    if failures > 0 { throw ExitCode.failure }
  }
}

extension MessageKind {
  var name: String {
    switch self {
    case .standard: "standard"
    case .large: "large"
    case .tiny: "tiny"
    case .unchanged: "unchanged"
    }
  }
}

/// Prints decoded frames, as text blocks or JSON lines, and reports the ones that fail.
struct FrameOutput {
  let json: Bool
  let now: Int
  var printed = 0

  /// What is wrong with a message of any kind, in the words of the kind its byte 2 names (a tiny
  /// message cut short is a short tiny message, not a short 192-byte frame).
  static func problem(_ error: FrameCheckError, in bytes: UnsafeRawBufferPointer) -> String {
    let magic = bytes.count >= 2 && bytes[0] == 0x53 && bytes[1] == 0x46
    let named = bytes.count >= 3 && magic ? MessageKind(rawValue: bytes[2]) : nil
    let byLength = [MessageKind.standard, .large, .tiny, .unchanged].first {
      $0.size == bytes.count
    }
    switch error {
    case .truncated, .tooLong:
      guard let named else { return "\(FrameError(profileError: error, bytes: bytes))" }
      let what = error == .truncated ? "truncated \(named.name) message" : "wrong length"
      return "\(what): \(bytes.count) bytes, a \(named.name) message has \(named.size)"
    case .unsupportedVersion:
      let kinds = "0x01 standard, 0x11 large, 0x21 tiny, 0x31 unchanged"
      guard let named else {
        let byte = String(bytes[2], radix: 16)
        return "unknown message kind 0x\(byte.count == 1 ? "0" : "")\(byte) in byte 2 (\(kinds))"
      }
      let length = byLength.map { " (the length of a \($0.name) message)" } ?? ""
      return
        "byte 2 says \(named.name) (\(named.size) bytes), but the message has \(bytes.count) bytes\(length)"
    case .badMagic, .checksumMismatch:
      return "\(FrameError(profileError: error, bytes: bytes))"
    }
  }

  mutating func show(_ bytes: [UInt8], label: String?, origin: String) -> Bool {
    // Large, tiny and unchanged messages are told from standard frames by length and byte 2.
    if bytes.count >= 3, bytes[2] != WeatherFrame.version {
      let shown = bytes.withUnsafeBytes { buffer -> String? in
        guard let view = try? ProfileView(checking: buffer) else { return nil }
        return json ? ProfileDocument.json(view) : ProfileDocument.text(view)
      }
      guard let shown else {
        let error = bytes.withUnsafeBytes { buffer in
          do throws(FrameCheckError) {
            _ = try MessageKind.check(buffer)
            return "not a message"
          } catch { return Self.problem(error, in: buffer) }
        }
        Diagnostics.report("\(origin): \(error)")
        return false
      }
      if !json, printed > 0 { print("") }
      if !json, let label { print("[\(label)]") }
      print(shown)
      printed += 1
      fflush(nil)
      return true
    }
    let frame: WeatherFrame
    do {
      frame = try WeatherFrame(decoding: bytes)
    } catch {
      Diagnostics.report("\(origin): \(error)")
      return false
    }
    if json {
      // Every kind has one JSON shape, read off its table (frame-profiles.md §8).
      print(
        bytes.withUnsafeBytes {
          ProfileDocument.json(ProfileView(unchecked: $0.baseAddress!, kind: .standard))
        })
    } else {
      if printed > 0 { print("") }
      if let label { print("[\(label)]") }
      print(FrameReport.text(frame, now: now))
    }
    printed += 1
    fflush(nil)
    return true
  }
}
