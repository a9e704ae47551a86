extension GatewayConfiguration {
  /// The resolved configuration as YAML, secrets replaced by `<redacted>`: what `skyframe config
  /// check` prints. Each section describes itself.
  public var redactedDescription: String {
    let sections = [
      mqtt.describedLines,
      topics.describedLines,
      weather.describedLines,
      services.describedLines,
      places.describedLines,
      watches.describedLines,
      cache.describedLines,
      runs.describedLines,
      requests.describedLines,
      upstream.describedLines,
      airQuality.describedLines,
      alerts.describedLines,
      cluster.describedLines,
      metrics.describedLines,
      describedLogLines,
      locations.describedLines,
    ]
    return (sections + self.sections.ordered(parts).map(\.describedLines)).joined().joined(
      separator: "\n")
  }
}

/// How `skyframe config check` prints a value in a section's lines.
enum DescribedValue {
  /// Quoted, or `~` when absent.
  static func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "~" }

  /// `<redacted>` when set, `~` when absent: a secret is never printed.
  static func secret(_ value: String?) -> String { value == nil ? "~" : "<redacted>" }
}
