/// UTF-8 text of at most `capacity` bytes, stored inline so frames and requests never allocate.
///
/// On the wire it fills exactly `capacity` bytes: the text, then zero bytes. Text that fills the
/// field has no terminating zero. Built from a `String`, a longer text is cut after the last whole
/// character (grapheme cluster) that fits, so a display never shows half a letter.
public struct FixedText<let capacity: Int>: Sendable, Equatable {
  @usableFromInline var storage: InlineArray<capacity, UInt8>
  /// How many bytes of `storage` hold text (two bytes: a request carries sixteen place names, and
  /// every request is copied a few times on its way).
  @usableFromInline var length: UInt16

  // The initializers and the copy a cache hit runs are inlinable: called from another module
  // unspecialized, each looked the type's metadata up at run time.

  @inlinable public init() {
    storage = InlineArray(repeating: 0)
    length = 0
  }

  /// How many bytes hold text.
  @inlinable public var count: Int { Int(length) }

  /// `text` cut to the longest prefix of whole characters that fits in `capacity` bytes. A U+0000
  /// ends the text, as a 0 byte ends it on the wire.
  public init(truncating whole: String) {
    self.init()
    let text = whole.utf8.firstIndex(of: 0).map { String(whole[..<$0]) } ?? whole
    var end = text.utf8.count
    if end > capacity {
      end = 0
      var index = text.startIndex
      while index < text.endIndex {
        let next = text.index(after: index)
        let length = text.utf8.distance(from: text.startIndex, to: next)
        if length > capacity { break }
        end = length
        index = next
      }
    }
    var offset = 0
    for byte in text.utf8 {
      guard offset < end else { break }
      storage[offset] = byte
      offset += 1
    }
    length = UInt16(end)
  }

  /// The text in a wire field of `capacity` bytes: everything before the first zero byte. The bytes
  /// are kept as they are, valid UTF-8 or not; `string` shows invalid sequences as U+FFFD.
  init(wireField bytes: UnsafeRawBufferPointer) {
    self.init()
    var length = 0
    let limit = min(capacity, bytes.count)
    while length < limit, bytes[length] != 0 { length &+= 1 }
    copy(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
  }

  /// ASCII text (bytes below 0x80, no zero byte), cut to `capacity`: for text a program writes,
  /// such as coordinates, without going through `String`.
  @inlinable public init(ascii bytes: UnsafeRawBufferPointer) {
    precondition(bytes.allSatisfy { $0 != 0 && $0 < 0x80 }, "ASCII text without zero bytes")
    self.init()
    copy(bytes)
  }

  /// The same text in a field at least as large.
  public init<let other: Int>(_ text: FixedText<other>) {
    precondition(other <= capacity, "a field at least as large")
    self.init()
    withUnsafeBytes(of: text.storage) { copy(UnsafeRawBufferPointer(rebasing: $0[0..<text.count])) }
  }

  /// Text bytes that were already checked (valid UTF-8, no zero byte, at most `capacity`).
  init(checkedBytes bytes: UnsafeRawBufferPointer) {
    assert(bytes.count <= capacity)
    self.init()
    copy(bytes)
  }

  /// Copies at most `capacity` bytes in one move: this runs on every frame decoded.
  @inlinable mutating func copy(_ bytes: UnsafeRawBufferPointer) {
    let copied = min(bytes.count, capacity)
    withUnsafeMutableBytes(of: &storage) { target in
      target.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: copied)
    }
    length = UInt16(copied)
  }

  @inlinable public var isEmpty: Bool { length == 0 }

  public var string: String {
    var bytes = [UInt8]()
    bytes.reserveCapacity(count)
    for index in 0..<count { bytes.append(storage[index]) }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Writes the field: the text, then zeros up to `capacity` bytes.
  func write(to buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
    precondition(offset >= 0 && buffer.count - offset >= capacity)
    withUnsafeBytes(of: storage) { source in
      let target = buffer.baseAddress! + offset
      target.copyMemory(from: source.baseAddress!, byteCount: count)
      (target + count).initializeMemory(as: UInt8.self, repeating: 0, count: capacity - count)
    }
  }

  /// The capacity in bytes, readable from a concrete type like `PlaceName` (inside the type the
  /// generic parameter `capacity` shadows any member of that name).
  public static var capacityBytes: Int { capacity }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for index in 0..<lhs.count where lhs.storage[index] != rhs.storage[index] { return false }
    return true
  }
}

/// A place name in a frame: 24 bytes, room for "Frankfurt am Main" or eight CJK characters.
public typealias FrameName = FixedText<24>

/// A place name in a request: 40 bytes.
public typealias PlaceName = FixedText<40>

extension CountryCode {
  public init?(_ text: String) {
    var bytes = text.utf8.makeIterator()
    guard let first = bytes.next(), let second = bytes.next(), bytes.next() == nil else {
      return nil
    }
    self.init(first, second)
  }

  public var string: String { String(decoding: [first, second], as: UTF8.self) }
}
