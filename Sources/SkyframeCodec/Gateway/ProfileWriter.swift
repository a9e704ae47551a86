/// Writes a `large`, `tiny` or `unchanged` message field by field from its layout table, into a
/// buffer the caller owns: nothing allocated. A value outside its field's range is written as the
/// field's sentinel and remembered, so `seal()` can refuse it (the compaction clamps every value
/// first, so that only happens on a bug).
public struct ProfileWriter {
  public let buffer: UnsafeMutableRawBufferPointer
  public let kind: MessageKind
  /// The first field given a value outside its range.
  public private(set) var outOfRange: StaticString?

  /// Starts a message: magic, kind byte, every field at its sentinel, reserved bytes 0.
  public init(_ buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    precondition(buffer.count >= kind.size, "room for the whole message")
    self.buffer = buffer
    self.kind = kind
    buffer.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: kind.size)
    buffer[0] = 0x53
    buffer[1] = 0x46
    buffer[2] = kind.rawValue
    for field in kind.fields where field.sentinel != nil && field.storage != .text {
      for index in 0..<field.count { store(field, index, field.sentinel!) }
    }
  }

  /// Element `index` of `field`; nil writes the sentinel.
  mutating func put(_ field: LayoutField, _ index: Int, _ value: Int64?) {
    guard let value else {
      store(field, index, field.sentinel ?? 0)
      return
    }
    if let minimum = field.minimum, value < minimum { return refuse(field, index) }
    if let maximum = field.maximum, value > maximum { return refuse(field, index) }
    store(field, index, value)
  }

  /// Element `index` of `field`; nil writes the sentinel.
  public mutating func set<T: BinaryInteger>(_ field: LayoutField, _ index: Int, _ value: T?) {
    put(field, index, value.map { Int64($0) })
  }

  /// The field (its first element); nil writes the sentinel.
  public mutating func set<T: BinaryInteger>(_ field: LayoutField, _ value: T?) {
    put(field, 0, value.map { Int64($0) })
  }

  private mutating func refuse(_ field: LayoutField, _ index: Int) {
    if outOfRange == nil { outOfRange = field.name }
    store(field, index, field.sentinel ?? 0)
  }

  /// Text `index` of a text field: its bytes, then zeros.
  public func set<let capacity: Int>(_ field: LayoutField, text: FixedText<capacity>) {
    set(field, 0, text: text)
  }

  public func set<let capacity: Int>(
    _ field: LayoutField, _ index: Int, text: FixedText<capacity>
  ) {
    precondition(field.storage == .text && capacity <= field.length, "text that fits the field")
    let at = field.offset(index)
    text.write(to: UnsafeMutableRawBufferPointer(rebasing: buffer[at..<at + capacity]), at: 0)
    if field.length > capacity {
      (buffer.baseAddress! + at + capacity).initializeMemory(
        as: UInt8.self, repeating: 0, count: field.length - capacity)
    }
  }

  public func set(_ field: LayoutField, country: CountryCode?) {
    buffer[field.offset] = country?.first ?? 0
    buffer[field.offset + 1] = country?.second ?? 0
  }

  private func store(_ field: LayoutField, _ index: Int, _ value: Int64) {
    let at = field.offset(index)
    switch field.storage {
    case .u8, .i8, .country, .reserved, .text:
      buffer[at] = UInt8(truncatingIfNeeded: value)
    case .u16, .i16:
      buffer.storeBytes(
        of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt16.self)
    case .u32, .i32:
      buffer.storeBytes(
        of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt32.self)
    }
  }

  /// Writes the CRC-32 of everything before the last four bytes into them.
  public static func seal(_ buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    let end = kind.size - 4
    let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
    buffer.storeBytes(of: crc.littleEndian, toByteOffset: end, as: UInt32.self)
  }

  /// Seals the message; throws when a value was out of its field's range.
  public func seal() throws(FrameError) {
    if let outOfRange { throw .valueOutOfRange(field: "\(outOfRange)") }
    Self.seal(buffer, kind: kind)
  }
}

extension MessageKind {
  /// The kind's layout table in wire order; empty for `standard`, whose table is `FrameField`.
  public var fields: [LayoutField] {
    switch self {
    case .large: LargeLayout.fields
    case .tiny: TinyLayout.fields
    case .unchanged: UnchangedLayout.fields
    case .standard: []
    }
  }
}
