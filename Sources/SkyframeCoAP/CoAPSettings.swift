import Foundation
import SkyframeGateway
import SkyframeProviders

/// The `coap` section: the CoAP way in (`docs/devices/coap.md`), for cellular displays that speak
/// CoAP over UDP. Off unless `coap.port` is set; a change needs a restart.
package struct CoAPSettings: PartSection, Equatable {
  /// 0: no CoAP listener.
  package var port = 0
  package var host = "127.0.0.1"
  /// Device resources that can be observed (each path under /v1/frame/ asked for gets one, the
  /// oldest going past this many).
  package var maximumObserved = 1_024
  /// Sessions (peers) libcoap keeps at once.
  package var maximumSessions = 4_096
  /// Sources that have shown they receive (RFC 9175 Echo), remembered at once.
  package var maximumSources = 16_384
  /// DTLS with one pre-shared key: its identity, the file holding the key, and its port.
  package var pskIdentity: String?
  package var pskKeyFile: String?
  package var dtlsPort = 0

  package init() {}

  package static var restartOnlyKeys: [String] { ["coap"] }

  package init(reading keys: KeyReader) {
    self.init()
    port = keys.integer("coap.port", port, 0...65_535, "a UDP port (0: no CoAP listener)")
    host = keys.text("coap.host") ?? host
    maximumObserved = keys.integer(
      "coap.max-observed", maximumObserved, 0...100_000, "0-100000 resources")
    maximumSessions = keys.integer(
      "coap.max-sessions", maximumSessions, 1...1_000_000, "1-1000000 sessions")
    maximumSources = keys.integer(
      "coap.max-sources", maximumSources, 1...1_000_000, "1-1000000 sources")
    dtlsPort = keys.integer("coap.dtls.port", dtlsPort, 0...65_535, "a UDP port (0: no DTLS)")
    pskIdentity = keys.text("coap.dtls.psk-identity")
    pskKeyFile = keys.existingFile("coap.dtls.psk-key-file")
    if dtlsPort > 0, pskIdentity == nil || pskKeyFile == nil {
      keys.fail(
        "coap.dtls.port", "\(dtlsPort)",
        "with coap.dtls.psk-identity and coap.dtls.psk-key-file, or 0")
    }
  }

  package var describedLines: [String] {
    [
      "coap:",
      "  port: \(port)\(port == 0 ? " (no CoAP listener)" : "")",
      "  host: \(host)",
      "  max-observed: \(maximumObserved)",
      "  max-sessions: \(maximumSessions)",
      "  max-sources: \(maximumSources)",
      "  dtls: \(dtlsPort == 0 ? "off" : "port \(dtlsPort), identity \(pskIdentity ?? "~"), key <redacted>")",
    ]
  }
}

extension PartKind {
  /// CoAP in the gateway: its `coap` section and its part.
  public static let coap = PartKind(name: "coap", section: CoAPSettings.self) { context in
    CoAPWayIn.part(context)
  }
}

extension GatewayConfiguration {
  /// The CoAP way in (`coap` section).
  package var coap: CoAPSettings {
    get { sections[CoAPSettings.self] }
    set { sections[CoAPSettings.self] = newValue }
  }
}
