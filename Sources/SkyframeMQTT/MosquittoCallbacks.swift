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
    // The log callback is set only while a connection attempt waits for its CONNACK
    // (`watchLog`): libmosquitto formats every line into a fresh buffer once one is set.
    mosquitto_message_v5_callback_set(pointer) { _, context, message, properties in
      guard let message = message?.pointee, let topic = message.topic else { return }
      let topicBytes = UnsafeBufferPointer(
        start: UnsafeRawPointer(topic).assumingMemoryBound(to: UInt8.self), count: strlen(topic))
      let payload = UnsafeRawBufferPointer(
        start: message.payload, count: message.payload == nil ? 0 : Int(message.payloadlen))
      ConnectionState.from(context).received(
        MQTTIncoming(
          topic: topicBytes, payload: payload, qos: Int(message.qos), retain: message.retain,
          properties: properties))
    }
  }

  /// From the network thread, outside callbacks: notes libmosquitto's error and warning lines
  /// (OpenSSL's error queue, which it prints and empties, and its host name check).
  static func watchLog(on pointer: OpaquePointer) {
    mosquitto_log_callback_set(pointer) { mosquitto, context, level, text in
      guard level == MOSQ_LOG_ERR || level == MOSQ_LOG_WARNING, let text else { return }
      ConnectionState.from(context).libraryLogged(
        level: level, text: String(cString: text), ssl: mosquitto_ssl_get(mosquitto))
    }
  }

  static func unwatchLog(on pointer: OpaquePointer) {
    mosquitto_log_callback_set(pointer, nil)
  }
}
