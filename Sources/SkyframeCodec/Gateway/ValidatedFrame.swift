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

  /// The wire value of `field` (element `index` of an array field), nil when it is the field's
  /// "missing" sentinel (`FrameField.sentinel`; fields without one, such as `request_id` and the
  /// CRC, are never nil). Text fields (`name`, `country`) and `magic` read one byte per element.
  public func value(_ field: FrameField, at index: Int = 0) -> Int? {
    precondition(index >= 0 && index < field.count, "index within the field")
    return withBytes { bytes in
      let view = FrameView(unchecked: bytes.baseAddress!)
      let offset = field.offset &+ index &* field.elementSize
      let wire: Int
      switch (field.elementSize, field.isSigned) {
      case (4, true): wire = Int(view.i32(offset))
      case (4, false): wire = Int(view.u32(offset))
      case (2, true): wire = Int(view.i16(offset))
      case (2, false): wire = Int(view.u16(offset))
      default: wire = Int(view.u8(offset))
      }
      return wire == field.sentinel ? nil : wire
    }
  }

  public var status: FrameStatus { withBytes { FrameView(unchecked: $0.baseAddress!).status } }
  public var requestID: UInt16 { withBytes { FrameView(unchecked: $0.baseAddress!).requestID } }

  /// Every field, as `WeatherFrame(decoding:)` gives it.
  public var frame: WeatherFrame {
    withBytes { WeatherFrame(validated: $0) }
  }
}
