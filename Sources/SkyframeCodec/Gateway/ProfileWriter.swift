/// Writes a message of any kind field by field from its layout table, into a buffer the caller
/// owns: nothing allocated. A value outside its field's range is written as the field's sentinel
/// and remembered, so `seal()` can refuse it (the compaction clamps every value first, so that
/// only happens on a bug; `WeatherFrame.encode` reports it).
public struct ProfileWriter {
  public let buffer: UnsafeMutableRawBufferPointer
  public let kind: MessageKind
  /// The first field given a value outside its range, and that value.
  public private(set) var outOfRange: (field: StaticString, value: Int64)?

  /// Starts a message: magic, kind byte, every field at its sentinel, reserved bytes 0.
  public init(_ buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    precondition(buffer.count >= kind.size, "room for the whole message")
    self.buffer = buffer
    self.kind = kind
    kind.blank.withUnsafeBytes { buffer.copyMemory(from: $0) }
  }

  /// The message every writer starts from, made once per kind from its table: magic, kind byte,
  /// every field at its sentinel, reserved bytes and texts 0.
  fileprivate static func blank(_ kind: MessageKind) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: kind.size)
    bytes.withUnsafeMutableBytes { buffer in
      buffer[0] = 0x53
      buffer[1] = 0x46
      buffer[2] = kind.rawValue
      let writer = ProfileWriter(unfilled: buffer, kind: kind)
      for field in kind.fields where field.sentinel != nil && field.storage != .text {
        for index in 0..<field.count { writer.store(field, index, field.sentinel!) }
      }
    }
    return bytes
  }

  private init(unfilled buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    self.buffer = buffer
    self.kind = kind
  }

  // Always inlined: called with a row of a table, its offset, storage and range fold into the
  // store; called as a function, each write copied the whole descriptor and switched on it.

  /// Element `index` of `field`; nil writes the sentinel.
  @inlinable @inline(__always) mutating func put(
    _ field: LayoutField, _ index: Int, _ value: Int64?
  ) {
    guard let value else {
      store(field, index, field.sentinel ?? 0)
      return
    }
    if field.minimum.map({ value < $0 }) ?? false || field.maximum.map({ value > $0 }) ?? false {
      // Only the name leaves the inlined code: a call taking the whole row made every caller
      // build each row it writes on the stack.
      refuse(field.name, value)
      store(field, index, field.sentinel ?? 0)
      return
    }
    store(field, index, value)
  }

  // Inlinable (with put and store) so that callers in other modules get them specialized and
  // inlined: unspecialized, each call looked up `T`'s metadata at run time.

  /// Element `index` of `field`; nil writes the sentinel.
  @inlinable @inline(__always)
  public mutating func set<T: BinaryInteger>(_ field: LayoutField, _ index: Int, _ value: T?) {
    put(field, index, value.map { Int64($0) })
  }

  /// The field (its first element); nil writes the sentinel.
  @inlinable @inline(__always)
  public mutating func set<T: BinaryInteger>(_ field: LayoutField, _ value: T?) {
    put(field, 0, value.map { Int64($0) })
  }

  @usableFromInline mutating func refuse(_ name: StaticString, _ value: Int64) {
    if outOfRange == nil { outOfRange = (name, value) }
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

  @inlinable @inline(__always) func store(_ field: LayoutField, _ index: Int, _ value: Int64) {
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
    if let outOfRange {
      throw .outOfRange(field: outOfRange.field.description, value: Int(outOfRange.value))
    }
    Self.seal(buffer, kind: kind)
  }
}

private let blankStandard = ProfileWriter.blank(.standard)
private let blankLarge = ProfileWriter.blank(.large)
private let blankTiny = ProfileWriter.blank(.tiny)
private let blankUnchanged = ProfileWriter.blank(.unchanged)

extension MessageKind {
  /// `ProfileWriter.blank` of this kind.
  fileprivate var blank: [UInt8] {
    switch self {
    case .standard: blankStandard
    case .large: blankLarge
    case .tiny: blankTiny
    case .unchanged: blankUnchanged
    }
  }

  /// The kind's layout table in wire order.
  public var fields: [LayoutField] {
    switch self {
    case .large: LargeLayout.fields
    case .tiny: TinyLayout.fields
    case .unchanged: UnchangedLayout.fields
    case .standard: StandardLayout.fields
    }
  }
}
