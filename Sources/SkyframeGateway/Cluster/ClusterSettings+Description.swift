extension ClusterSettings {
  /// `cluster` in `skyframe config check`'s YAML; the key redacted.
  var describedLines: [String] {
    [
      "cluster:",
      "  group: \(DescribedValue.text(group))",
      "  instance-id: \(DescribedValue.text(resolvedInstanceID()))",
      "  session-expiry-seconds: \(sessionExpirySeconds)",
      "  key: \(key == nil ? "~" : "<redacted>")",
      "  owner-wait-ms: \(ownerWaitMilliseconds)",
    ]
  }
}
