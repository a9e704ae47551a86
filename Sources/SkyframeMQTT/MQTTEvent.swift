/// What happens on a client's connection, in the order it happened.
public enum MQTTEvent: Sendable {
  /// The broker accepted a CONNECT. Subscriptions have already been sent again.
  case connected(sessionPresent: Bool)
  /// A connection that had been accepted ended: 0 after a clean disconnect, otherwise a
  /// libmosquitto error code (e.g. 7, connection lost) or an MQTT 5 reason code from the broker.
  case disconnected(code: Int32)
  case message(MQTTMessage)
}
