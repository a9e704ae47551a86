import ArgumentParser
import Foundation
import SkyframeCodec
import SkyframeJSON

struct EncodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "encode",
    abstract: "Encode a frame from JSON (the shape `decode --json` prints) to hex.",
    discussion: """
      Reads one JSON object: a frame document, or a golden vector whose "frame" key holds one.
      Prints the frame as one line of hex, or raw bytes with --raw (for `mosquitto_pub -f`).
      """
  )

  @Argument(help: "File to read; standard input when absent or '-'.")
  var file: String?

  @Flag(help: "Write the 192 raw bytes instead of hex.")
  var raw = false

  func run() throws {
    let data = Data(try InputSource(path: file).readAll())
    let document: FrameDocument
    do {
      if let vector = try? JSONDecoder().decode(Vector.self, from: data) {
        document = vector.frame
      } else {
        document = try JSONDecoder().decode(FrameDocument.self, from: data)
      }
    } catch {
      Diagnostics.report("not a frame document: \(JSONProblem.describe(error))")
      throw ExitCode.failure
    }
    let bytes: [UInt8]
    do {
      bytes = try document.frame().encoded()
    } catch let error as DocumentError {
      Diagnostics.report(error.description)
      throw ExitCode.failure
    } catch {
      Diagnostics.report("cannot encode: \(error)")
      throw ExitCode.failure
    }
    if raw {
      FileHandle.standardOutput.write(Data(bytes))
    } else {
      print(Hex.encode(bytes))
    }
  }

  struct Vector: Decodable {
    var frame: FrameDocument
  }
}

/// A JSON decoding error as one sentence naming the key.
enum JSONProblem {
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
      let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
      return keys.isEmpty ? "top level" : keys.joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "missing key \(key.stringValue) in \(path(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(path(context)): \(context.debugDescription)"
    case .dataCorrupted(let context):
      return "\(path(context)): \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }
}
