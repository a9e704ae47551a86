import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeTestSupport
import Testing

/// Runs the built `skyframe` binary as a person would, through pipes.
struct Tool {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static var binary: URL {
    // The test bundle sits next to the products of the same build.
    let products =
      Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
      .deletingLastPathComponent() ?? Bundle.main.bundleURL
    return products.appendingPathComponent("skyframe")
  }

  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs the tool to the end. Waits without blocking a thread of the test's executor: the
  /// gateway tests running beside it need those threads.
  static func run(_ arguments: [String], input: Data = Data(), environment: [String: String]? = nil)
    async throws -> Output
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let (stdin, stdout, stderr) = (
      directory.appendingPathComponent("in"), directory.appendingPathComponent("out"),
      directory.appendingPathComponent("err")
    )
    try input.write(to: stdin)
    let process = try ChildProcess(
      executable: binary.path, arguments: arguments, input: stdin.path, output: stdout.path,
      errors: stderr.path, environment: environment)
    guard await process.waitForExit(upTo: .seconds(60)) else {
      process.signal(SIGKILL)
      throw TimedOut(arguments: arguments)
    }
    return Output(
      status: process.exitStatus ?? -1,
      stdout: (try? String(contentsOf: stdout, encoding: .utf8)) ?? "",
      stderr: (try? String(contentsOf: stderr, encoding: .utf8)) ?? "")
  }

  struct TimedOut: Error {
    var arguments: [String]
  }

  /// Runs another program (a tool of the test's own, such as `mosquitto_passwd`) to the end;
  /// its exit status.
  static func runProgram(_ executable: String, _ arguments: [String]) async throws -> Int32 {
    let process = try ChildProcess(
      executable: executable, arguments: arguments, input: "/dev/null", output: "/dev/null",
      errors: "/dev/null", environment: nil)
    guard await process.waitForExit(upTo: .seconds(30)) else {
      process.signal(SIGKILL)
      throw TimedOut(arguments: arguments)
    }
    return process.exitStatus ?? -1
  }

  static func vectorHex(_ name: String) throws -> String {
    let url = root.appendingPathComponent("schemas/vectors/frames/\(name).json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    return object?["hex"] as? String ?? ""
  }
}

@Suite struct DecodeCommandTests {
  /// `run --help` says what SIGHUP does (the whole file, the restart-only keys named) and wraps
  /// its paragraphs as whole text, not at the source's line ends.
  @Test func runHelpSaysWhatAReloadDoes() async throws {
    let output = try await Tool.run(["run", "--help"], environment: ["COLUMNS": "200"])
    let text = output.stdout.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.joined(separator: " ")
    #expect(text.contains("SIGHUP reloads the whole file without dropping the broker connection"))
    // The keys themselves are listed once, by config describe, which the help points to.
    #expect(text.contains("skyframe config describe"))
    // At 200 columns the paragraph starts its own line and runs well past the source's width
    // (a hard break in the text would cut it near 95 characters).
    let line =
      output.stdout.split(separator: "\n").first { $0.contains("SIGHUP") }
      .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    #expect(line.hasPrefix("SIGHUP reloads"), "\(output.stdout)")
    #expect(line.count > 120, "\(output.stdout)")
  }

  @Test func versionIsTheOneTheInfoTopicCarries() async throws {
    let output = try await Tool.run(["--version"])
    #expect(output.stdout == SkyframeVersion.current + "\n")
  }

  /// A message of another kind than standard is judged by its own kind: a tiny message cut
  /// short is a short tiny message, and a kind byte that does not fit the length says so.
  @Test func decodeNamesTheKindOfAMessageThatFails() async throws {
    let url = Tool.root.appendingPathComponent("schemas/vectors/tiny")
    let first = try #require(
      try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }
        .sorted().first)
    let object =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: url.appendingPathComponent(first))) as? [String: Any]
    let hex = try #require(object?["hex"] as? String)
    #expect(hex.count == 96)
    let cut = try await Tool.run(["decode"], input: Data((String(hex.dropLast(2)) + "\n").utf8))
    #expect(cut.status != 0)
    #expect(
      cut.stderr.contains("truncated tiny message: 47 bytes, a tiny message has 48"),
      "\(cut.stderr)")
    let relabelled = String(hex.prefix(4)) + "11" + String(hex.dropFirst(6))
    let wrong = try await Tool.run(["decode"], input: Data((relabelled + "\n").utf8))
    #expect(
      wrong.stderr.contains(
        "byte 2 says large (960 bytes), but the message has 48 bytes (the length of a tiny message)"
      ),
      "\(wrong.stderr)")
  }

  /// The text of a large frame says what a person reads: the air quality on its scale (not the
  /// wire's index + 1), the moon's phase, the next hour's rain, times as UTC dates.
  @Test func decodeShowsALargeFrameInWords() async throws {
    let url = Tool.root.appendingPathComponent("schemas/vectors/large/01-ok-berlin-48h.json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let hex = try #require(object?["hex"] as? String)
    let raw = try #require(object?["wire"] as? [String: Any])
    let wire = try #require(raw["air_quality"] as? Int)
    let result = try await Tool.run(["decode"], input: Data((hex + "\n").utf8))
    let lines = result.stdout.split(separator: "\n").map(String.init)
    func line(_ name: String) -> String? {
      lines.first { $0.hasPrefix(name + " ") }.map {
        $0.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
      }
    }
    // The wire holds the index + 1 (frame-v1.md §5.5) on the European scale (bit 15 clear).
    #expect(line("air_quality") == "European AQI \(wire - 1)", "\(result.stdout)")
    #expect(line("moon")?.hasSuffix("% lit") == true)
    #expect(line("fetched_at")?.hasSuffix(" UTC") == true)
    #expect(line("daily_start")?.count == 10)
  }

  /// A standard frame's text shows its content check too, the one a display sends as `~check=`.
  @Test func decodeShowsTheContentCheckOfAStandardFrame() async throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    let check = bytes.withUnsafeBytes { ContentCheck.of($0, kind: .standard) }
    let result = try await Tool.run(
      ["decode", "--now", "1705331400"], input: Data((hex + "\n").utf8))
    #expect(result.stdout.contains("check  \(String(format: "%08x", check))"), "\(result.stdout)")
  }

  @Test func decodesWhatMosquittoSubPrints() async throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    let result = try await Tool.run(
      ["decode", "--now", "1705331400"], input: Data((hex + "\n").utf8))
    #expect(result.status == 0)
    #expect(result.stdout.contains("Berlin, DE"))
    #expect(result.stdout.contains("-2.3 °C"))
    #expect(result.stdout.contains("5 min old"))
    #expect(result.stdout.contains("UTC+01:00"))
  }

  @Test func decodeShowsTheV11Fields() async throws {
    let hex = try Tool.vectorHex("20-ok-v1-1-berlin-all-fields")
    let text = try await Tool.run(["decode"], input: Data((hex + "\n").utf8))
    #expect(text.status == 0)
    for line in [
      "air    European AQI 27", "alerts 2 in force, worst moderate",
      "moon   waxing gibbous, 82 % lit",
      "rain   starts in 30 min", "update newer data expected in 9 min (540 s)",
    ] {
      #expect(text.stdout.contains(line), "missing: \(line)")
    }
    let json = try await Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
    // The JSON says what the wire integers mean (frame-profiles.md §8): not 28 but European
    // AQI 27, not 20 (2 << 3 | 4) but two alerts, the worst moderate, not 31 but dry, starting
    // in 30 min; the moon's phase 93 as its fraction, icon and lit part.
    for fragment in [
      #""air_quality":{"index":27,"scale":"european_aqi"},"#,
      #""alerts":{"count":2,"worst":"moderate"},"#,
      #""moon":{"phase":0.361,"name":"waxing_gibbous","lit":0.82},"#,
      #""precip_next_hour":{"precipitating":false,"change_in_min":30},"#,
      #""sun":"normal","#, #""next_update":540}"#,
    ] {
      #expect(json.stdout.contains(fragment), "missing: \(fragment) in \(json.stdout)")
    }
    // A v1.0 frame has none of them: nothing is shown, nothing invented.
    let old = try await Tool.run(
      ["decode"], input: Data((try Tool.vectorHex("01-ok-berlin") + "\n").utf8))
    #expect(
      !old.stdout.contains("AQI") && !old.stdout.contains("moon") && !old.stdout.contains("alerts"))
  }

  @Test func aBadLineIsNamedAndTheNextIsStillDecoded() async throws {
    let good = try Tool.vectorHex("13-not-found")
    var corrupt = Array(good)
    corrupt[200] = corrupt[200] == "0" ? "1" : "0"
    let input = [good, "zz", String(corrupt), "5346", "skyframe/v1/frame/d1 " + good, "", good]
      .joined(separator: "\n")
    let result = try await Tool.run(["decode"], input: Data(input.utf8))
    #expect(result.status == 1)
    #expect(result.stderr.contains("line 2: not a hex digit at character 1"))
    #expect(result.stderr.contains("line 3: CRC mismatch: frame says 0x"))
    #expect(result.stderr.contains("line 4: truncated frame: 2 bytes, a frame has 192"))
    #expect(result.stderr.contains("line 6: empty line"))
    #expect(result.stdout.components(separatedBy: "status not_found").count == 4)
    #expect(result.stdout.contains("[skyframe/v1/frame/d1]"))
  }

  /// `decode --json` prints every vector's `frame` object exactly: the same keys, `null` for a
  /// missing value (frame-v1.md, the vectors), the same values.
  @Test func jsonIsTheVectorsFrameObject() async throws {
    let folder = Tool.root.appendingPathComponent("schemas/vectors/frames")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".json") }.sorted()
    #expect(names.count >= 25)
    var hexes = [String]()
    var frames = [NSDictionary]()
    for name in names {
      let object = try #require(
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: folder.appendingPathComponent(name)))
          as? [String: Any])
      guard let frame = object["frame"] as? [String: Any] else { continue }
      hexes.append(try #require(object["hex"] as? String))
      frames.append(frame as NSDictionary)
    }
    let result = try await Tool.run(
      ["decode", "--json"], input: Data((hexes.joined(separator: "\n") + "\n").utf8))
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == frames.count)
    for (line, want) in zip(lines, frames) {
      let got = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
      #expect(
        Set(got.allKeys.compactMap { $0 as? String })
          == Set(want.allKeys.compactMap { $0 as? String }))
      #expect(got == want, "\(line)")
    }
  }

  /// What `mosquitto_sub -F '%t %x'` prints for an empty message (the README's watch removal
  /// clears its retained frames): the topic and a blank. Said, not an error.
  @Test func anEmptyMessageIsSaidNotAnError() async throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    let input = "skyframe/v1/frame/demo \nskyframe/v1/frame/demo " + hex + "\n"
    let text = try await Tool.run(["decode"], input: Data(input.utf8))
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      text.stdout.contains("[skyframe/v1/frame/demo] empty message: a retained frame cleared"))
    #expect(text.stdout.contains("Berlin"))
    let json = try await Tool.run(["decode", "--json"], input: Data(input.utf8))
    #expect(json.status == 0 && json.stdout.split(separator: "\n").count == 1)
  }

  /// Every profile's JSON, the fields shown by their meaning included (frame-profiles.md §8),
  /// reads back through `skyframe encode` to the same bytes.
  @Test func jsonRoundTripsThroughEncode() async throws {
    for name in [
      "02-stale-sydney", "10-ok-missing-values", "19-unknown-status-from-v1x",
      "20-ok-v1-1-berlin-all-fields", "21-ok-v1-1-us-aqi-zero-raining", "22-ok-v1-1-extremes",
      "../large/05-ok-garmisch-alerts-german", "../large/08-stale-extremes-high",
      "../tiny/02-stale-sydney", "../tiny/10-ok-extremes-high",
    ] {
      let hex = try Tool.vectorHex(name)
      let decoded = try await Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
      #expect(decoded.status == 0)
      let encoded = try await Tool.run(["encode"], input: Data(decoded.stdout.utf8))
      #expect(encoded.status == 0, "\(encoded.stderr)")
      #expect(encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == hex, "\(name)")
    }
  }

  @Test func rawInputHoldsFramesBackToBack() async throws {
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
    let result = try await Tool.run(["decode", "--raw", "--json"], input: bytes)
    #expect(result.status == 1)
    #expect(result.stdout.split(separator: "\n").count == 2)
    #expect(result.stderr.contains("frame 3: truncated frame: 3 bytes"))
  }

  /// A meaning no wire value has is named by its path: two alerts cannot be "none".
  @Test func encodeNamesTheMemberOfAMeaningItCannotCarry() async throws {
    let hex = try Tool.vectorHex("20-ok-v1-1-berlin-all-fields")
    let decoded = try await Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
    let fragment = #""alerts":{"count":2,"worst":"moderate"}"#
    #expect(decoded.stdout.contains(fragment), "\(decoded.stdout)")
    let broken = decoded.stdout.replacingOccurrences(
      of: fragment, with: #""alerts":{"count":2,"worst":"none"}"#)
    let result = try await Tool.run(["encode"], input: Data(broken.utf8))
    #expect(result.status == 1)
    #expect(
      result.stderr.contains(
        #"alerts.worst: "none" is not allowed; expected unknown, minor, moderate, severe, extreme with a count of 2"#
      ), "\(result.stderr)")
  }

  @Test func encodeNamesTheKeyItCannotCarry() async throws {
    let hex = try Tool.vectorHex("01-ok-berlin")
    let decoded = try await Tool.run(["decode", "--json"], input: Data((hex + "\n").utf8))
    #expect(decoded.stdout.contains("\"humidity\":86"))
    let broken = decoded.stdout.replacingOccurrences(
      of: "\"humidity\":86", with: "\"humidity\":186")
    let result = try await Tool.run(["encode"], input: Data(broken.utf8))
    #expect(result.status == 1)
    #expect(
      result.stderr.contains(
        "humidity: 186 is not allowed; expected a whole number from 0 to 100 %"),
      "\(result.stderr)")
  }
}
