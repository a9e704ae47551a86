/// How an ``MQTTClient`` reaches its broker and what session it asks for.
public struct MQTTConfiguration: Sendable {
  public enum ProtocolVersion: Sendable { case v311, v5 }

  /// Server verification (`caFile`) and, optionally, a client certificate, all PEM files.
  public struct TLS: Sendable {
    public var caFile: String
    public var certFile: String?
    public var keyFile: String?

    public init(caFile: String, certFile: String? = nil, keyFile: String? = nil) {
      self.caFile = caFile
      self.certFile = certFile
      self.keyFile = keyFile
    }
  }

  /// The last will: published by the broker when the connection ends without a clean disconnect.
  public struct Will: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int, retain: Bool) {
      self.topic = topic
      self.payload = payload
      self.qos = qos
      self.retain = retain
    }
  }

  public var host: String
  public var port: Int
  public var clientID: String
  /// At least 5 s: libmosquitto refuses anything shorter.
  public var keepAlive: Duration = .seconds(30)
  public var username: String?
  public var password: String?
  public var tls: TLS?
  public var protocolVersion: ProtocolVersion = .v5
  /// `false` keeps the session (subscriptions, queued QoS > 0 messages) across connections; on
  /// MQTT 5 that means clean start off plus a session expiry interval of `sessionExpiry`.
  public var cleanSession: Bool = false
  /// MQTT 5 only, sent with every CONNECT when `cleanSession` is `false`.
  public var sessionExpiry: Duration = .seconds(86_400)
  public var will: Will?
  /// QoS 1 and 2 messages this client may have in flight to the broker before it waits for
  /// acknowledgements (libmosquitto's default is 20); 0 means no limit of our own (65 535).
  public var sendMaximum: Int = 0
  /// MQTT 5: QoS 1 and 2 messages the broker may have in flight to this client (sent in
  /// CONNECT; libmosquitto's default is 20); 0 means the protocol's maximum, 65 535.
  public var receiveMaximum: Int = 0
  /// The wait before the first reconnect attempt; it doubles after every failed attempt up to
  /// `reconnectDelayMax`, and starts over once a connection is accepted.
  public var reconnectDelay: Duration = .seconds(1)
  public var reconnectDelayMax: Duration = .seconds(30)
  /// What the settings are called where people set them: a failed connection names the one to
  /// change (`mqtt.tls.ca-file` rather than `caFile`).
  public var settingNames = SettingNames()

  /// The name of each setting a connection problem can point at.
  public struct SettingNames: Sendable {
    public var host = "host"
    public var port = "port"
    public var username = "username"
    public var password = "password"
    public var caFile = "caFile"
    public var certFile = "certFile"
    public var keyFile = "keyFile"

    public init() {}

    /// The keys of a configuration section: `{section}.host`, …, `{section}.tls.ca-file`.
    public init(section: String) {
      host = "\(section).host"
      port = "\(section).port"
      username = "\(section).username"
      password = "\(section).password"
      caFile = "\(section).tls.ca-file"
      certFile = "\(section).tls.cert-file"
      keyFile = "\(section).tls.key-file"
    }
  }

  public init(clientID: String, host: String = "127.0.0.1", port: Int = 1883) {
    self.clientID = clientID
    self.host = host
    self.port = port
  }
}
