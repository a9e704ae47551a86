import SkyframeGateway

/// HTTP in the gateway: its `http` section and its part, listed by the program that builds the
/// gateway (`SkyframeAssembly`).
extension PartKind {
  public static let http = PartKind(name: "http", section: HTTPSettings.self) { context in
    HTTPWayIn.part(context)
  }
}

extension GatewayConfiguration {
  /// The device listener of the HTTP way in (`http` section).
  package var http: HTTPSettings {
    get { sections[HTTPSettings.self] }
    set { sections[HTTPSettings.self] = newValue }
  }
}
