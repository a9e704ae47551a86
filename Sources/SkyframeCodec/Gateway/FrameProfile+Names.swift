extension FrameProfile {
  /// The profile's name in requests, configuration, topics and JSON.
  public var name: StaticString {
    switch self {
    case .standard: "standard"
    case .large: "large"
    case .tiny: "tiny"
    }
  }

  /// The text option that asks for it (request-v1.md §2.4).
  var optionName: StaticString {
    switch self {
    case .standard: "~standard"
    case .large: "~large"
    case .tiny: "~tiny"
    }
  }

  /// The profile named `text` ("large"), any case; nil for anything else.
  public init?(named text: String) {
    guard let match = Self.allCases.first(where: { "\($0.name)" == text.lowercased() }) else {
      return nil
    }
    self = match
  }
}
