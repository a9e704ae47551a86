import SkyframeMQTT
import SkyframeProviders

extension KeyReader {
  /// The `mqtt.tls.*` files as libmosquitto's OpenSSL reads them, so that `config check` and
  /// `run` refuse a file the first handshake would fail on: a CA file without a certificate, a
  /// client certificate that has expired, a key that is encrypted or not the certificate's.
  /// Files already refused as unreadable are not looked at again.
  func checkTLSFiles(of mqtt: GatewayConfiguration.MQTT) {
    if let caFile = mqtt.caFile, let problem = TLSFiles.caFileProblem(caFile) {
      fail("mqtt.tls.ca-file", caFile, problem: problem)
    }
    var goodCertificate: String?
    if let certFile = mqtt.certFile {
      if let problem = TLSFiles.certificateProblem(certFile) {
        fail("mqtt.tls.cert-file", certFile, problem: problem)
      } else {
        goodCertificate = certFile
      }
    }
    if let keyFile = mqtt.keyFile,
      let problem = TLSFiles.keyProblem(keyFile, certificate: goodCertificate)
    {
      fail("mqtt.tls.key-file", keyFile, problem: problem)
    }
    if mqtt.caFile == nil, mqtt.certFile != nil, text("mqtt.tls.ca-file") == nil {
      fail(
        "mqtt.tls.ca-file", nil,
        "the CA file that verifies the broker when mqtt.tls.cert-file is set: a client "
          + "certificate is only sent over TLS")
    }
  }
}

extension GatewayConfiguration.MQTT {
  /// The keys a failed broker connection names.
  static let settingNames = MQTTConfiguration.SettingNames(section: "mqtt")
}
