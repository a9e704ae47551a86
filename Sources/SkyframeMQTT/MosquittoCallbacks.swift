import CMosquitto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The C callbacks. They run on the network thread while libmosquitto holds its callback mutex,
/// and whatever they are given is freed when they return: copy, hand over, return.
enum MosquittoCallbacks {
  /// Called once per handle, before its network thread starts (never from a callback).
  static func install(on pointer: OpaquePointer) {
    mosquitto_connect_v5_callback_set(pointer) { mosquitto, context, code, flags, _ in
      ConnectionState.from(context).connackReceived(mosquitto, code: code, flags: flags)
    }
    mosquitto_disconnect_v5_callback_set(pointer) { _, context, code, _ in
      ConnectionState.from(context).connectionEnded(code: code)
    }
    mosquitto_subscribe_v5_callback_set(pointer) { _, context, messageID, count, granted, _ in
      let granted = UnsafeBufferPointer(start: granted, count: granted == nil ? 0 : Int(count))
      ConnectionState.from(context).subackReceived(messageID: messageID, granted: granted)
    }
    mosquitto_message_v5_callback_set(pointer) { _, context, message, properties in
      guard let message = message?.pointee else { return }
      ConnectionState.from(context).received(
        MosquittoCallbacks.copy(message, properties: properties))
    }
  }

  private static func copy(_ message: mosquitto_message, properties: OpaquePointer?) -> MQTTMessage
  {
    let payload =
      message.payload.map {
        [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)))
      } ?? []
    var copied = MQTTMessage(
      topic: String(cString: message.topic), payload: payload, qos: Int(message.qos),
      retain: message.retain)
    // `properties` is NULL on MQTT 3.1.1. The read functions allocate the values they return.
    if let properties {
      var responseTopic: UnsafeMutablePointer<CChar>?
      if mosquitto_property_read_string(
        properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &responseTopic, false)
        != nil, let responseTopic
      {
        copied.responseTopic = String(cString: responseTopic)
        free(responseTopic)
      }
      var data: UnsafeMutableRawPointer?
      var length: UInt16 = 0
      if mosquitto_property_read_binary(
        properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false)
        != nil
      {
        copied.correlationData =
          data.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
        free(data)
      }
    }
    return copied
  }
}
