/// A frame whose length, magic, version and CRC-32 were checked, kept as its 192 wire bytes and
/// read field by field on demand: the zero-copy way to decode, for code that looks at a few
/// fields (a display drawing the current temperature, the gateway checking a status). `frame`
/// materializes every field into a `WeatherFrame`.
public struct ValidatedFrame: Sendable {
  private var storage: InlineArray<192, UInt8>

  /// Checks `bytes` as `WeatherFrame(decoding:)` does, in the same order with the same errors,
  /// and keeps a copy of them. Allocates nothing.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(FrameError) {
    try WeatherFrame.check(bytes)
    storage = InlineArray(repeating: 0)
    withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
  }

  /// Calls `body` with the frame's 192 bytes.
  public func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    withUnsafeBytes(of: storage) { body($0) }
  }

  /// The wire value of element `index` of `field`, a row of `StandardLayout`; nil when it is
  /// the field's "missing" sentinel (fields without one, such as `request_id` and the CRC, are
  /// never nil). Text reads one byte per element, as `frame-v1.json` counts it (`name` has 24).
  public func value(_ field: LayoutField, at index: Int = 0) -> Int? {
    guard field.storage == .text else { return withView { $0.value(field, index).map { Int($0) } } }
    precondition(index >= 0 && index < field.count * field.length, "index within the field")
    let byte = withBytes { $0[field.offset &+ index] }
    return Int64(byte) == field.sentinel ? nil : Int(byte)
  }

  public var status: FrameStatus {
    FrameStatus(rawValue: withView { $0.read(StandardLayout.status) } ?? 0)
  }
  public var requestID: UInt16 { withView { $0.read(StandardLayout.requestID) } ?? 0 }

  /// Calls `body` with a view of the frame's bytes.
  private func withView<R>(_ body: (ProfileView) -> R) -> R {
    withBytes { body(ProfileView(unchecked: $0.baseAddress!, kind: .standard)) }
  }

  /// Every field, as `WeatherFrame(decoding:)` gives it.
  public var frame: WeatherFrame {
    withBytes { WeatherFrame(validated: $0) }
  }
}
