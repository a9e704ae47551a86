import ArgumentParser
import Foundation
import SkyframeCodec
import SkyframeJSON

struct EncodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "encode",
    abstract: "Encode a message from JSON (the shape `decode --json` prints) to hex.",
    discussion: """
      Reads one JSON object of any profile (standard, large, tiny, unchanged; \
      schemas/frame-profiles.md §8), or a golden vector whose "frame" key holds one. Prints \
      the message as one line of hex, or raw bytes with --raw (for `mosquitto_pub -f`). A \
      missing key or a value its field cannot carry is named.
      """
  )

  @Argument(help: "File to read; standard input when absent or '-'.")
  var file: String?

  @Flag(help: "Write the raw bytes instead of hex.")
  var raw = false

  func run() throws {
    let data = Data(try InputSource(path: file).readAll())
    guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
      Diagnostics.report("not a JSON object: give what `skyframe decode --json` prints")
      throw ExitCode.failure
    }
    if let frame = object["frame"] as? [String: Any] { object = frame }
    let bytes: [UInt8]
    do {
      bytes = try ProfileDocument.message(from: object)
    } catch {
      Diagnostics.report(error.description)
      throw ExitCode.failure
    }
    if raw {
      FileHandle.standardOutput.write(Data(bytes))
    } else {
      print(Hex.encode(bytes))
    }
  }
}
