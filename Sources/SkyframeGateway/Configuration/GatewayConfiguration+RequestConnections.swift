import SkyframeMQTT

// Requests can come in over several connections (`mqtt.request-connections`), each drained by
// its own network thread: the broker deals the requests out among them.

extension GatewayConfiguration {
  /// The request subscription of every request connection: with several connections, shared in
  /// a group named after the client id (so another gateway on the broker still gets every
  /// request); plain otherwise — in a cluster too, where every member's session gets every
  /// request and each member answers the devices it owns (`ClusterMembers.answers`): mosquitto
  /// keeps a plain subscription's messages for an offline session across its own restart, and
  /// stores nothing for a `$share` one.
  public var requestFilter: String {
    if mqtt.requestConnections > 1 { return "$share/\(mqtt.clientID)/\(topics.requests)" }
    return topics.requests
  }

  /// The request subscriptions this client id may have had before: with the other number of
  /// connections, or in the cluster's shared group (before 0.13). The first connection's session
  /// is persistent: one of these left in it would bring requests a second time, so they are
  /// unsubscribed whenever the session is found present.
  public var otherRequestFilters: [String] {
    var filters = [topics.requests, "$share/\(mqtt.clientID)/\(topics.requests)"]
    if let group = cluster.group { filters.append("$share/\(group)/\(topics.requests)") }
    return filters.filter { $0 != requestFilter }
  }

  /// The fast lane's connection (`FastLane`): the first's settings with its own client id
  /// (`{client id}-f`), a clean session and no will; nil when `mqtt.fast-lane-devices` is 0 or
  /// in a cluster (the lane's twins are told apart within one member only).
  public var fastLaneConfiguration: MQTTConfiguration? {
    guard mqtt.fastLaneDevices > 0, cluster.group == nil else { return nil }
    var configuration = mqttConfiguration
    configuration.clientID = "\(configuration.clientID)-f"
    configuration.cleanSession = true
    configuration.will = nil
    return configuration
  }

  /// The second and later request connections: the first's settings with their own client id
  /// (`{client id}-r{n}`), a clean session and no will. Requests that come while the gateway is
  /// away wait in the first connection's session, the only one left in the group then.
  public var requestLaneConfigurations: [MQTTConfiguration] {
    guard mqtt.requestConnections > 1 else { return [] }
    let first = mqttConfiguration
    return (1..<mqtt.requestConnections).map { lane in
      var configuration = first
      configuration.clientID = "\(first.clientID)-r\(lane)"
      configuration.cleanSession = true
      configuration.will = nil
      return configuration
    }
  }
}
