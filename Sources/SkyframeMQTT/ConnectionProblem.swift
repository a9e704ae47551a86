import CMosquitto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a connection attempt failed when the cause is in the configuration rather than a broker
/// that is down or slow: each names the setting to change.
public enum ConnectionProblem: Sendable, Equatable {
  /// The broker's certificate chain does not end at a CA of the CA file (OpenSSL's reason).
  case unknownCA(String)
  /// The broker's certificate is for other names than the host connected to.
  case hostNameMismatch
  case certificateExpired
  case certificateNotYetValid
  /// The broker ended the handshake after the client certificate was sent.
  case clientCertificateRefused
  /// The broker ended the handshake and no client certificate was configured.
  case clientCertificateRequired
  /// TLS is configured but the port answers plain MQTT.
  case tlsAgainstPlainListener
  /// No TLS is configured but the port answers a TLS handshake.
  case plainAgainstTLSListener
  /// Another TLS failure: OpenSSL's words.
  case tls(String)
  /// The broker answered CONNECT with a refusal (credentials, a banned client id): its words,
  /// with the settings to check. Retrying alone will not mend it.
  case refused(String)

  /// What is wrong and what to change, in the names of `configuration.settingNames`.
  public func explanation(for configuration: MQTTConfiguration) -> String {
    let names = configuration.settingNames
    let host = configuration.host
    let port = configuration.port
    let caFile = configuration.tls.map { " ('\($0.caFile)')" } ?? ""
    let certFile = configuration.tls?.certFile.map { " ('\($0)')" } ?? ""
    switch self {
    case .unknownCA(let reason):
      return
        "TLS: \(names.caFile)\(caFile) does not verify the broker's certificate (\(reason)): "
        + "set \(names.caFile) to the CA that signed the broker's certificate"
    case .hostNameMismatch:
      return
        "TLS: the broker's certificate is not issued for '\(host)': set \(names.host) to a name "
        + "the certificate holds, or give the broker a certificate for '\(host)'"
    case .certificateExpired:
      return
        "TLS: the broker's certificate has expired: renew it on the broker (or correct this "
        + "machine's clock); \(names.caFile) is not at fault"
    case .certificateNotYetValid:
      return
        "TLS: the broker's certificate is not valid yet: correct the clock of this machine or "
        + "of the broker's certificate authority; \(names.caFile) is not at fault"
    case .clientCertificateRefused:
      return
        "TLS: the broker refused the client certificate \(names.certFile)\(certFile): it must be "
        + "signed by a CA the broker's listener trusts (its cafile) and be valid now"
    case .clientCertificateRequired:
      return
        "TLS: the broker requires a client certificate: set \(names.certFile) and "
        + "\(names.keyFile)"
    case .tlsAgainstPlainListener:
      return
        "TLS is configured (\(names.caFile)) but port \(port) answers plain MQTT: set "
        + "\(names.port) to the broker's TLS listener (often 8883), or remove the TLS settings"
    case .plainAgainstTLSListener:
      return
        "port \(port) is a TLS listener but no TLS is configured: set \(names.caFile) to the CA "
        + "that signed the broker's certificate"
    case .tls(let reason):
      return "TLS handshake failed: \(reason)"
    case .refused(let text):
      return text
    }
  }
}

/// What libmosquitto's log said during one connection attempt, for telling TLS failures apart:
/// libmosquitto prints OpenSSL's error queue and empties it, so its log is where the words are.
struct TLSClues: Sendable {
  /// `SSL_get_verify_result` of the handshake, when it was not `X509_V_OK`.
  var verifyResult: Int?
  /// libmosquitto's own host name check failed ("Error: host name verification failed.").
  var hostNameMismatch = false
  /// The "OpenSSL Error[n]: ..." lines, without the prefix.
  var openSSLErrors: [String] = []

  var isEmpty: Bool { verifyResult == nil && !hostNameMismatch && openSSLErrors.isEmpty }

  /// Reads one libmosquitto log line; `ssl` is the connection's `SSL *`, if it has one yet.
  mutating func note(level: Int32, text: String, ssl: UnsafeMutableRawPointer?) {
    guard level == MOSQ_LOG_ERR || level == MOSQ_LOG_WARNING else { return }
    if text.hasPrefix("Error: host name verification failed") {
      hostNameMismatch = true
    } else if text.hasPrefix("OpenSSL Error["), let colon = text.firstRange(of: "]: ") {
      openSSLErrors.append(String(text[colon.upperBound...]))
    }
    if verifyResult == nil, let ssl {
      let result = SSL_get_verify_result(OpaquePointer(ssl))
      if result != X509_V_OK { verifyResult = result }
    }
  }

  /// The problem these clues point to, if they point to one.
  var problem: ConnectionProblem? {
    if hostNameMismatch { return .hostNameMismatch }
    if let verifyResult {
      switch Int32(verifyResult) {
      case X509_V_ERR_CERT_HAS_EXPIRED: return .certificateExpired
      case X509_V_ERR_CERT_NOT_YET_VALID: return .certificateNotYetValid
      case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostNameMismatch
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
        X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
        X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_SIGNATURE_FAILURE,
        X509_V_ERR_CERT_UNTRUSTED:
        return .unknownCA(Self.reason(verifyResult))
      default:
        return .tls("the broker's certificate: \(Self.reason(verifyResult))")
      }
    }
    return openSSLErrors.last.map { .tls($0) }
  }

  /// The broker ended the handshake with an alert about the client's certificate: "tlsv13
  /// alert certificate required", "tlsv1 alert unknown ca", "sslv3 alert bad certificate", ...
  /// (OpenSSL's words for an alert received; a certificate this side refuses is "certificate
  /// verify failed").
  var brokerRefusedCertificate: Bool {
    openSSLErrors.contains { error in
      error.contains(" alert ")
        && ["certificate", "unknown ca", "access denied"].contains { error.contains($0) }
    }
  }

  /// The broker closed the connection during the handshake (OpenSSL 3: "unexpected eof").
  var endedInHandshake: Bool {
    openSSLErrors.contains { $0.contains("unexpected eof") }
  }

  private static func reason(_ code: Int) -> String {
    X509_verify_cert_error_string(code).map { String(cString: $0) } ?? "verify error \(code)"
  }
}
