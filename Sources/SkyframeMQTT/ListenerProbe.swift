import CMosquitto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One short look at what a broker's port speaks, made on the network thread after a connection
/// ended before any CONNACK: a TLS handshake, or a plain MQTT CONNECT answered by a CONNACK.
/// Blocking, each step bounded by `timeout`.
enum ListenerProbe {
  /// `true` if `host`:`port` completes a TLS handshake (the certificate is not checked: only
  /// whether the port speaks TLS at all).
  static func answersTLS(host: String, port: Int, timeout: Duration = .seconds(2)) -> Bool {
    guard let socket = connectedSocket(host: host, port: port, timeout: timeout) else {
      return false
    }
    defer { close(socket) }
    guard let context = SSL_CTX_new(TLS_client_method()) else { return false }
    defer { SSL_CTX_free(context) }
    guard let ssl = SSL_new(context) else { return false }
    defer { SSL_free(ssl) }
    SSL_set_fd(ssl, socket)
    let answered = SSL_connect(ssl) == 1
    // Whatever the failed handshake left is ours to clear, not the next connection's to read.
    ERR_clear_error()
    return answered
  }

  /// `true` if `host`:`port` answers an MQTT 3.1.1 CONNECT with a CONNACK (accepted or not).
  static func answersPlainMQTT(host: String, port: Int, timeout: Duration = .seconds(2)) -> Bool {
    guard let socket = connectedSocket(host: host, port: port, timeout: timeout) else {
      return false
    }
    defer { close(socket) }
    // CONNECT, 12 bytes follow: "MQTT", level 4, clean session, keepalive 10 s, empty client id.
    let connect: [UInt8] = [0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x02, 0, 10, 0, 0]
    let sent = connect.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
    guard sent == connect.count else { return false }
    var answer: [UInt8] = [0, 0]
    let received = answer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
    // CONNACK: packet type 2, remaining length 2.
    return received == 2 && answer == [0x20, 0x02]
  }

  private static func connectedSocket(host: String, port: Int, timeout: Duration) -> Int32? {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
      return nil
    }
    defer { freeaddrinfo(first) }
    var next: UnsafeMutablePointer<addrinfo>? = first
    while let address = next?.pointee {
      next = address.ai_next
      let fd = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
      guard fd >= 0 else { continue }
      let seconds = timeout.components.seconds
      var limit = timeval(
        tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
      // The send timeout also bounds connect() on Linux.
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      if connect(fd, address.ai_addr, address.ai_addrlen) == 0 { return fd }
      close(fd)
    }
    return nil
  }
}
