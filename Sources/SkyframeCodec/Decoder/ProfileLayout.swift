/// Which message a Skyframe payload is: byte 2 of every message, the profile in the high nibble
/// and its version in the low one (`schemas/frame-profiles.md` §1.1).
public enum MessageKind: UInt8, Sendable, CaseIterable {
  case standard = 0x01
  case large = 0x11
  case tiny = 0x21
  case unchanged = 0x31

  /// Every message of this kind is exactly this long.
  public var size: Int {
    switch self {
    case .standard: 192
    case .large: 960
    case .tiny: 48
    case .unchanged: 16
    }
  }

  /// The kind of `bytes`, checking length, magic, kind byte and CRC-32 in that order
  /// (frame-profiles.md §1.1): a length that is no kind's is `truncated` when shorter than the
  /// message byte 2 names (with the magic right; else the longest, `large`) and `tooLong` when
  /// longer; a kind byte that is not the one of the length is `unsupportedVersion`.
  public static func check(_ bytes: UnsafeRawBufferPointer) throws(FrameCheckError) -> MessageKind {
    let kind: MessageKind
    switch bytes.count {
    case 192: kind = .standard
    case 960: kind = .large
    case 48: kind = .tiny
    case 16: kind = .unchanged
    default:
      var size = MessageKind.large.size
      if bytes.count >= 3, bytes[0] == 0x53, bytes[1] == 0x46,
        let named = MessageKind(rawValue: bytes[2])
      {
        size = named.size
      }
      throw bytes.count < size ? .truncated : .tooLong
    }
    try kind.checkContent(bytes)
    return kind
  }

  /// Magic, kind byte and CRC-32 of `bytes`, which are this kind's length.
  @usableFromInline func checkContent(_ bytes: UnsafeRawBufferPointer) throws(FrameCheckError) {
    guard bytes[0] == 0x53, bytes[1] == 0x46 else { throw .badMagic }
    guard bytes[2] == rawValue else { throw .unsupportedVersion }
    let crcOffset = size &- 4
    let stored = UInt32(
      littleEndian: bytes.loadUnaligned(fromByteOffset: crcOffset, as: UInt32.self))
    guard stored == CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<crcOffset])) else {
      throw .checksumMismatch
    }
  }
}

/// Why bytes are not a message, as the one byte a firmware keeps. The raw values are the C
/// header's `SKYFRAME_ERR_*` codes, so a mixed C and Swift firmware reports one set of numbers. The
/// gateway's `FrameError` says the same with the values involved (lengths, bytes, both CRCs).
public enum FrameCheckError: Int8, Error, Sendable {
  /// Shorter than the message (a receive buffer too small cuts a frame like this).
  case truncated = -1
  /// Longer than the message.
  case tooLong = -2
  /// The first two bytes are not "SF".
  case badMagic = -3
  /// A kind byte (the standard frame's version) this decoder does not read.
  case unsupportedVersion = -4
  /// The stored CRC-32 is not the one the bytes before it give.
  case checksumMismatch = -5
}

/// A frame profile a device can ask for (`schemas/frame-profiles.md` §1.2): the number requests
/// and `unchanged` messages carry.
public enum FrameProfile: UInt8, Sendable, CaseIterable {
  case standard = 0
  case large = 1
  case tiny = 2

  public var kind: MessageKind {
    switch self {
    case .standard: .standard
    case .large: .large
    case .tiny: .tiny
    }
  }

  public var size: Int { kind.size }
}

/// One field of a profile's layout table: where it is, what it holds and what "missing" is. The
/// tables (`LargeLayout`, `TinyLayout`) are what the encoder, the decoders, the JSON document, the
/// text report and the layout test all read.
public struct LayoutField: Sendable {
  public enum Storage: UInt8, Sendable {
    case u8, i8, u16, i16, u32, i32
    /// UTF-8 text of `length` bytes, zero-padded, `count` of them.
    case text
    /// Two ASCII capitals or `00 00`.
    case country
    /// Written 0, ignored.
    case reserved

    /// Bytes of one element (of one text character for `text`).
    @inlinable public var width: Int {
      switch self {
      case .u16, .i16: 2
      case .u32, .i32: 4
      default: 1
      }
    }

    public var isSigned: Bool { self == .i8 || self == .i16 || self == .i32 }
  }

  public let name: StaticString
  public let offset: Int
  public let storage: Storage
  /// Elements (texts for `text`).
  public let count: Int
  /// Bytes of one text; 1 for everything else.
  public let length: Int
  /// One wire step in `unit`.
  public let scale: Double
  public let unit: StaticString
  /// The wire range the encoder enforces (nil: any value of the type).
  public let minimum: Int64?
  public let maximum: Int64?
  /// The wire value that means "missing"; nil when every value means something.
  public let sentinel: Int64?

  public init(
    _ name: StaticString, _ offset: Int, _ storage: Storage, count: Int = 1, length: Int = 1,
    scale: Double = 1, unit: StaticString = "", range: ClosedRange<Int64>? = nil,
    sentinel: Int64? = nil
  ) {
    self.name = name
    self.offset = offset
    self.storage = storage
    self.count = count
    self.length = length
    self.scale = scale
    self.unit = unit
    minimum = range?.lowerBound
    maximum = range?.upperBound
    self.sentinel = sentinel
  }

  /// Bytes the whole field takes.
  public var size: Int { storage.width &* count &* length }

  /// Where element `index` starts.
  @inlinable @inline(__always) public func offset(_ index: Int) -> Int {
    precondition(index >= 0 && index < count, "index within the field")
    return offset &+ index &* storage.width &* length
  }
}

/// The first eight bytes every `large`, `tiny` and `unchanged` message shares (frame-profiles.md
/// §1): magic, kind, status (unchanged: the profile), request id and slot. The tables name these.
public enum MessageHeader {
  public static let magic = LayoutField("magic", 0, .reserved, count: 2)
  public static let kind = LayoutField("kind", 2, .u8)
  public static let status = LayoutField("status", 3, .u8)
  public static let requestID = LayoutField("request_id", 4, .u16)
  public static let slotIndex = LayoutField("slot_index", 6, .u8, range: 0...254)
  public static let slotCount = LayoutField("slot_count", 7, .u8, range: 1...255)
  /// Unix seconds, the unit of every time field.
  public static let unixTime: StaticString = "s since 1970-01-01T00:00Z"
}

/// Reads of a table's fields from bytes already checked: little-endian, byte by byte, at any
/// alignment, nothing copied or allocated. The decode-only API for firmware: `init(checking:as:)`
/// checks one kind of message, then each read names its row (`StandardLayout.temperature`), whose
/// offset, width and sentinel the compiler folds into the read. Keep the bytes alive and unchanged
/// while you use the view.
public struct ProfileView {
  public let base: UnsafeRawPointer
  public let kind: MessageKind

  /// Checks `bytes` (`MessageKind.check`) and views them.
  public init(checking bytes: UnsafeRawBufferPointer) throws(FrameCheckError) {
    kind = try MessageKind.check(bytes)
    base = bytes.baseAddress!
  }

  /// Checks `bytes` as a message of `kind` only: length (shorter is `truncated`, longer
  /// `tooLong`), magic, kind byte (another is `unsupportedVersion`) and CRC-32, in that order
  /// (`schemas/frame-v1.md` §7 for `standard`).
  @inlinable
  public init(checking bytes: UnsafeRawBufferPointer, as kind: MessageKind)
    throws(FrameCheckError)
  {
    guard bytes.count >= kind.size else { throw .truncated }
    guard bytes.count == kind.size else { throw .tooLong }
    try kind.checkContent(bytes)
    self.init(unchecked: bytes.baseAddress!, kind: kind)
  }

  public init(unchecked base: UnsafeRawPointer, kind: MessageKind) {
    self.base = base
    self.kind = kind
  }

  /// Element `index` of `field` as `T`, the integer type of its storage (`UInt16` for `u16`);
  /// nil when it holds the field's sentinel. Inlined, so a read of a table's row is one load.
  @inlinable @inline(__always)
  public func read<T: FixedWidthInteger>(
    _ field: LayoutField, _ index: Int = 0, as type: T.Type = T.self
  ) -> T? {
    assert(
      MemoryLayout<T>.size == field.storage.width && T.isSigned == field.storage.isSigned,
      "the integer type of the field's storage")
    let at = field.offset(index)
    let raw: T
    switch MemoryLayout<T>.size {
    case 1: raw = T(truncatingIfNeeded: base.load(fromByteOffset: at, as: UInt8.self))
    case 2:
      raw = T(
        truncatingIfNeeded: UInt16(
          littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
    default: raw = T(truncatingIfNeeded: u32(at))
    }
    if let sentinel = field.sentinel, raw == T(truncatingIfNeeded: sentinel) { return nil }
    return raw
  }

  #if hasFeature(Embedded)
    // One call instead of a copy per field: a core without unaligned loads reads a 32-bit field
    // as four bytes, shifts and adds, 20 bytes of code each time on a Cortex-M0.
    @inline(never) @usableFromInline func u32(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
  #else
    @inlinable @inline(__always) func u32(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
  #endif

  /// The wire integer of element `index`, sign-extended for signed fields (0 for text).
  public func wire(_ field: LayoutField, _ index: Int = 0) -> Int64 {
    let at = field.offset(index)
    switch field.storage {
    case .u8, .country, .reserved, .text:
      return Int64(base.load(fromByteOffset: at, as: UInt8.self))
    case .i8: return Int64(Int8(bitPattern: base.load(fromByteOffset: at, as: UInt8.self)))
    case .u16:
      return Int64(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
    case .i16:
      return Int64(Int16(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int16.self)))
    case .u32:
      return Int64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    case .i32:
      return Int64(Int32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int32.self)))
    }
  }

  /// The wire integer, nil when it is the field's sentinel.
  public func value(_ field: LayoutField, _ index: Int = 0) -> Int64? {
    let raw = wire(field, index)
    return raw == field.sentinel ? nil : raw
  }

  /// The UTF-8 bytes of text `index`, up to its first zero byte, inside the message's buffer.
  @inlinable @inline(__always)
  public func text(_ field: LayoutField, _ index: Int = 0) -> UnsafeRawBufferPointer {
    let start = base + field.offset(index)
    var count = 0
    while count < field.length, start.load(fromByteOffset: count, as: UInt8.self) != 0 {
      count &+= 1
    }
    return UnsafeRawBufferPointer(start: start, count: count)
  }

  /// The two letters of a `country` field, upper-cased; nil when the bytes are anything else
  /// (frame-v1.md §5.3).
  @inlinable @inline(__always)
  public func country(_ field: LayoutField) -> CountryCode? {
    CountryCode(
      base.load(fromByteOffset: field.offset, as: UInt8.self),
      base.load(fromByteOffset: field.offset &+ 1, as: UInt8.self))
  }

  /// The content check of a frame (`frame-profiles.md` §5); 0 for `unchanged`, which has none.
  public var contentCheck: UInt32 {
    ContentCheck.of(UnsafeRawBufferPointer(start: base, count: kind.size), kind: kind)
  }
}

/// The weather a frame carries as 32 bits: CRC-32 over the frame before its CRC with the request's
/// id and slot, the fetch (and observation) time and the next-update hint taken as zero
/// (`schemas/frame-profiles.md` §5). Equal checks: nothing a display draws has changed.
public enum ContentCheck {
  /// The byte ranges taken as zero, per kind (half-open, ascending).
  @inline(__always) static func zeroed(_ kind: MessageKind, _ index: Int) -> (Int, Int)? {
    switch (kind, index) {
    case (.standard, 0), (.large, 0), (.tiny, 0): (4, 8)
    case (.standard, 1), (.large, 1): (20, 28)
    case (.standard, 2): (186, 188)
    case (.large, 2): (40, 42)
    // `minutely_start`: a quarter hour passing alone is no change (frame-profiles.md §5).
    case (.large, 3): (664, 668)
    case (.tiny, 1): (8, 14)
    default: nil
    }
  }

  public static func of(_ frame: UnsafeRawBufferPointer, kind: MessageKind) -> UInt32 {
    guard kind != .unchanged, frame.count >= kind.size else { return 0 }
    let end = kind.size &- 4
    var crc: UInt32 = 0
    var position = 0
    var index = 0
    let zeros: InlineArray<8, UInt8> = .init(repeating: 0)
    while let (from, to) = zeroed(kind, index) {
      crc = CRC32.update(crc, with: UnsafeRawBufferPointer(rebasing: frame[position..<from]))
      var left = to &- from
      withUnsafeBytes(of: zeros) { zero in
        while left > 0 {
          let step = min(left, 8)
          crc = CRC32.update(crc, with: UnsafeRawBufferPointer(rebasing: zero[0..<step]))
          left &-= step
        }
      }
      position = to
      index &+= 1
    }
    return CRC32.update(crc, with: UnsafeRawBufferPointer(rebasing: frame[position..<end]))
  }
}
