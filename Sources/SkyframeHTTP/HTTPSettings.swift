import Foundation
import SkyframeGateway
import SkyframeProviders

/// The `http` section: the device listener of the HTTP way in (`docs/devices/http.md`). Off
/// unless `http.port` is set; its own port, apart from the metrics and status page, because
/// devices may face the internet.
package struct HTTPSettings: PartSection, Equatable {
  /// 0: no device listener.
  package var port = 0
  package var host = "127.0.0.1"
  /// HTTPS with this certificate chain and key (PEM files); plain HTTP without.
  package var certificateFile: String?
  package var keyFile: String?
  /// A file of bearer tokens, one a line (`#` comments): with it, every request needs
  /// `Authorization: Bearer` with one of them.
  package var tokensFile: String?
  /// Connections open at once; past it, a new one is closed at once.
  package var maximumConnections = 1_024
  /// A connection idle (or sending a request slowly) this long is closed.
  package var idleSeconds = 15

  /// The longest request target (path and query) answered; a longer one is `414`.
  static let maximumTarget = 1_024
  /// The largest `POST` body (a binary request has at most 131 bytes); a larger one is `413`.
  static let maximumBody = 512

  package init() {}

  package static var restartOnlyKeys: [String] { ["http"] }

  package init(reading keys: KeyReader) {
    self.init()
    port = keys.integer("http.port", port, 0...65_535, "a TCP port (0: no device listener)")
    host = keys.text("http.host") ?? host
    certificateFile = keys.existingFile("http.tls.certificate-file")
    keyFile = keys.existingFile("http.tls.key-file")
    if (certificateFile == nil) != (keyFile == nil) {
      keys.fail(
        certificateFile == nil ? "http.tls.certificate-file" : "http.tls.key-file", nil,
        "both http.tls.certificate-file and http.tls.key-file, or neither")
    }
    tokensFile = keys.existingFile("http.tokens-file")
    if let tokensFile, (try? Self.tokens(in: tokensFile))?.isEmpty != false {
      keys.fail("http.tokens-file", tokensFile, problem: "holds no token")
    }
    maximumConnections = keys.integer(
      "http.max-connections", maximumConnections, 1...100_000, "1-100000 connections")
    idleSeconds = keys.integer("http.idle-seconds", idleSeconds, 1...3_600, "1-3600 seconds")
  }

  package var describedLines: [String] {
    [
      "http:",
      "  port: \(port)\(port == 0 ? " (no device listener)" : "")",
      "  host: \(host)",
      "  tls: \(certificateFile.map { "certificate \($0), key \(keyFile ?? "~")" } ?? "off")",
      "  tokens-file: \(tokensFile ?? "~")",
      "  max-connections: \(maximumConnections)",
      "  idle-seconds: \(idleSeconds)",
    ]
  }

  /// The tokens of a tokens file: each non-empty line that is not a `#` comment, trimmed.
  static func tokens(in path: String) throws -> Set<String> {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var tokens = Set<String>()
    for line in text.split(whereSeparator: \.isNewline) {
      let token = line.trimmingCharacters(in: .whitespaces)
      if !token.isEmpty, !token.hasPrefix("#") { tokens.insert(token) }
    }
    return tokens
  }
}
