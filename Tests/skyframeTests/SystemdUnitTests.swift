import Foundation
import SkyframeTestSupport
import Testing

/// `config/skyframe.service`: the settings operators rely on, and systemd's own check of the file.
@Suite struct SystemdUnitTests {
  static let unit = Tool.root.appendingPathComponent("config/skyframe.service")

  /// `systemd-analyze` from PATH; nil where systemd is not installed (macOS, slim images).
  static let analyzer: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    .split(separator: ":").map { "\($0)/systemd-analyze" }
    .first { FileManager.default.isExecutableFile(atPath: $0) }

  /// systemd checks that ExecStart='s program exists: the `skyframe` this build made, or any
  /// executable when its path would need quoting in a unit file.
  static var executable: String {
    let built = Tool.binary.path
    let plain = built.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) }
    return plain && FileManager.default.isExecutableFile(atPath: built) ? built : "/bin/true"
  }

  @Test func theUnitReloadsOnSighupRestartsOnFailureAndDropsRoot() throws {
    let text = try String(contentsOf: Self.unit, encoding: .utf8)
    // Settings only: a commented-out line must not count.
    let settings = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.hasPrefix("#") && !$0.hasPrefix(";") }
    #expect(
      settings.contains(
        "ExecStart=/usr/local/bin/skyframe run --config /etc/skyframe/skyframe.yaml"))
    #expect(settings.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    #expect(settings.contains("Restart=on-failure"))
    #expect(settings.contains("KillSignal=SIGTERM"))
    #expect(settings.contains("DynamicUser=yes") || settings.contains { $0.hasPrefix("User=") })
    #expect(settings.contains("WantedBy=multi-user.target"))
  }

  /// Under `make test` (Tests/run-all.sh sets SKYFRAME_REQUIRE_ALL=1) a missing systemd-analyze
  /// fails; only a `swift test` by hand without it skips.
  static let requireAll = ProcessInfo.processInfo.environment["SKYFRAME_REQUIRE_ALL"] == "1"

  @Test(
    .enabled(
      if: SystemdUnitTests.analyzer != nil || SystemdUnitTests.requireAll,
      "systemd-analyze is not on PATH: NOT CHECKED (make test installs Debian's systemd)"))
  func systemdAnalyzeVerifyFindsNoProblem() async throws {
    guard Self.analyzer != nil else {
      Issue.record(
        Comment(
          rawValue: "systemd-analyze is not on PATH and SKYFRAME_REQUIRE_ALL=1: make test must run"
            + " it (Debian package systemd, in the Makefile's TEST_PACKAGES)"))
      return
    }
    let text = try String(contentsOf: Self.unit, encoding: .utf8)
    let good = try await Self.verify(
      text.replacingOccurrences(of: "/usr/local/bin/skyframe", with: Self.executable))
    #expect(good.status == 0, "\(good.output)")
    #expect(good.problems.isEmpty, "\(good.output)")
    // A copy with a missing program is reported: the check above really looked at the unit.
    let broken = try await Self.verify(
      text.replacingOccurrences(of: "/usr/local/bin/skyframe", with: "/nonexistent/skyframe"))
    #expect(!broken.problems.isEmpty, "\(broken.output)")
  }

  struct Verification {
    var status: Int32
    var output: String
    /// Lines about this unit. systemd may also warn about other units installed on the host;
    /// those are not ours to fix. Unknown keys and bad values only warn, with status 0.
    var problems: [Substring] {
      output.split(separator: "\n").filter { $0.contains("skyframe.service") }
    }
  }

  /// `systemd-analyze verify` on `text` saved as `skyframe.service` (systemd takes the unit's
  /// name from the file's), offline: no running systemd is needed.
  static func verify(_ text: String) async throws -> Verification {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-unit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let unit = directory.appendingPathComponent("skyframe.service")
    try text.write(to: unit, atomically: true, encoding: .utf8)
    let (stdout, stderr) = (
      directory.appendingPathComponent("out"), directory.appendingPathComponent("err")
    )
    // --man=no: no man page lookups for Documentation=, which slim images lack.
    let arguments = ["verify", "--man=no", unit.path]
    let process = try ChildProcess(
      executable: analyzer ?? "/usr/bin/systemd-analyze", arguments: arguments, output: stdout.path,
      errors: stderr.path)
    guard await process.waitForExit(upTo: .seconds(60)) else {
      process.signal(SIGKILL)
      throw Tool.TimedOut(arguments: arguments)
    }
    let output = [stdout, stderr].map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
    return Verification(status: process.exitStatus ?? -1, output: output.joined())
  }
}
