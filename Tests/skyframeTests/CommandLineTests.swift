import Foundation
import Testing

/// Runs the built `skyframe` binary as a person would, through pipes.
struct Tool {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static var binary: URL {
    // The test bundle sits next to the products of the same build.
    let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
      .deletingLastPathComponent() ?? Bundle.main.bundleURL
    return products.appendingPathComponent("skyframe")
  }

  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  static func run(_ arguments: [String], input: Data = Data(), environment: [String: String]? = nil) throws -> Output {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    if let environment { process.environment = environment }
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Output(
      status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }

  static func vectorHex(_ name: String) throws -> String {
    let url = root.appendingPathComponent("schemas/vectors/frames/\(name).json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    return object?["hex"] as? String ?? ""
  }
}

@Suite struct DecodeCommandTests {
  @Test func decodesWhatMosquittoSubPrints() throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    let result = try Tool.run(["decode", "--now", "1705331400"], input: Data((hex + "\n").utf8))
    #expect(result.status == 0)
    #expect(result.stdout.contains("Berlin, DE"))
    #expect(result.stdout.contains("-2.3 °C"))
    #expect(result.stdout.contains("5 min old"))
    #expect(result.stdout.contains("UTC+01:00"))
  }

  @Test func aBadLineIsNamedAndTheNextIsStillDecoded() throws {
    let good = try Tool.vectorHex("13-not-found")
    var corrupt = Array(good)
    corrupt[200] = corrupt[200] == "0" ? "1" : "0"
    let input = [good, "zz", String(corrupt), "5346", "skyframe/v1/frame/d1 " + good].joined(separator: "\n")
    let result = try Tool.run(["decode"], input: Data(input.utf8))
    #expect(result.status == 1)
    #expect(result.stderr.contains("line 2: not a hex digit at character 1"))
    #expect(result.stderr.contains("line 3: CRC mismatch: frame says 0x"))
    #expect(result.stderr.contains("line 4: truncated frame: 2 bytes, a frame has 192"))
    #expect(result.stdout.components(separatedBy: "status not_found").count == 3)
    #expect(result.stdout.contains("[skyframe/v1/frame/d1]"))
  }

  @Test func jsonRoundTripsThroughEncode() throws {
    for name in ["02-stale-sydney", "10-ok-missing-values", "19-unknown-status-from-v1x"] {
      let hex = try Tool.vectorHex(name)
      let decoded = try Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
      #expect(decoded.status == 0)
      let encoded = try Tool.run(["encode"], input: Data(decoded.stdout.utf8))
      #expect(encoded.status == 0, "\(encoded.stderr)")
      #expect(encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == hex, "\(name)")
    }
  }

  @Test func rawInputHoldsFramesBackToBack() throws {
    let hexes = [try Tool.vectorHex("14-bad-request"), try Tool.vectorHex("16-rate-limited")]
    var bytes = Data()
    for hex in hexes {
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
      }
    }
    bytes.append(contentsOf: [0x53, 0x46, 0x01])
    let result = try Tool.run(["decode", "--raw", "--json"], input: bytes)
    #expect(result.status == 1)
    #expect(result.stdout.split(separator: "\n").count == 2)
    #expect(result.stderr.contains("frame 3: truncated frame: 3 bytes"))
  }

  @Test func encodeNamesTheKeyItCannotCarry() throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    let decoded = try Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
    let broken = decoded.stdout.replacingOccurrences(of: "\"humidity_pct\":86", with: "\"humidity_pct\":186")
    let result = try Tool.run(["encode"], input: Data(broken.utf8))
    #expect(result.status == 1)
    #expect(result.stderr.contains("humidity = 186 is outside the range"))
  }
}
