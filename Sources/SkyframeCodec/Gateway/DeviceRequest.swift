/// What a device asks for, in either wire form of request v1 (`schemas/request-v1.md`): text such
/// as `#42 Berlin,DE;52.52,13.41`, or the fixed 64-byte binary form.
public struct DeviceRequest: Sendable, Equatable {
  /// Echoed in every frame that answers the request; 0 when the device sent none.
  public var id: UInt16
  /// The places, in the order they are answered; empty for a refresh. Stored as such, not only
  /// inside `body`, so that the parser appends to them in place and the gateway reads them where
  /// they are: the inline list is some 800 bytes.
  public private(set) var places = LocationList()
  /// The device's last requested place(s) again.
  public private(set) var isRefresh = true
  /// The profile asked for (`~large`, binary byte 6); nil when the text named none (a refresh
  /// then keeps the remembered request's profile; everything else means `standard`).
  public var profile: FrameProfile?
  /// The content checks of the frames the device shows, by slot (`~check=`, binary bytes 56–59).
  public var checks = ContentChecks()

  public enum Body: Sendable, Equatable {
    /// The device's last requested place(s) again.
    case refresh
    /// These places, answered in this order.
    case locations(LocationList)
  }

  public init(
    id: UInt16 = 0, body: Body, profile: FrameProfile? = nil,
    checks: ContentChecks = ContentChecks()
  ) {
    self.id = id
    self.profile = profile
    self.checks = checks
    // A refresh is what the stored properties start as: the inline list is not written twice.
    if case .locations(let list) = body {
      isRefresh = false
      places = list
    }
  }

  /// What is asked: a refresh, or these places.
  public var body: Body {
    get { isRefresh ? .refresh : .locations(places) }
    set {
      switch newValue {
      case .refresh:
        isRefresh = true
        places = LocationList()
      case .locations(let list):
        isRefresh = false
        places = list
      }
    }
  }

  /// Appends a place (the parsers); the request is no refresh from then on.
  mutating func appendPlace(_ query: LocationQuery) {
    isRefresh = false
    places.append(query)
  }

  /// Text requests longer than this are refused before any other work.
  public static let maximumTextLength = 512
  /// No request names more places than this, whatever the configuration says.
  public static let maximumLocations = LocationList.capacity

  /// Parses either form: bytes starting "SQ" and a version byte below 0x20 are the binary form,
  /// anything else text. Allocates nothing.
  ///
  /// - Parameter maximumLocations: more places than this (at most 16) is `tooManyLocations`.
  public init(parsing bytes: UnsafeRawBufferPointer, maximumLocations: Int = 7) throws(RequestError)
  {
    if BinaryRequest.looksBinary(bytes) {
      self = try BinaryRequest.decode(bytes)
    } else {
      // Parsed into `self` where it lies: no copy of the inline list on the way out.
      self.init(body: .refresh)
      try TextRequestParser.parse(
        bytes, maximumLocations: min(max(maximumLocations, 1), LocationList.capacity), into: &self)
    }
  }

  /// The request id in bytes that may not parse, so that the error frame can still echo it: the
  /// binary form's id field, or a text's `#id ` prefix; 0 when there is none.
  public static func requestID(in bytes: UnsafeRawBufferPointer) -> UInt16 {
    if BinaryRequest.looksBinary(bytes) {
      guard bytes.count >= 6 else { return 0 }
      return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
    }
    let start = TextRequestParser.trimmed(bytes, 0, bytes.count).start
    guard start < bytes.count, bytes[start] == UInt8(ascii: "#"),
      let (id, _) = try? TextRequestParser.requestID(bytes, from: start)
    else { return 0 }
    return id
  }

  /// The profile named in bytes that may not parse (or may not be parsed: a request over the
  /// device's limit), so that the error frame comes in the profile the device asked for and
  /// its decoder can read it: the binary form's byte 6 when it is 1 or 2, or the first profile
  /// option of a text (`~large`, `~tiny`, `~standard`) before the body; nil when none is named.
  /// Allocates nothing.
  public static func namedProfile(in bytes: UnsafeRawBufferPointer) -> FrameProfile? {
    if BinaryRequest.looksBinary(bytes) {
      guard bytes.count > 6 else { return nil }
      return bytes[6] == 0 ? nil : FrameProfile(rawValue: bytes[6])
    }
    var span = TextRequestParser.trimmed(bytes, 0, min(bytes.count, maximumTextLength))
    var first = true
    while span.start < span.end {
      var end = span.start
      while end < span.end, !TextRequestParser.isSpace(bytes[end]) { end += 1 }
      if bytes[span.start] == UInt8(ascii: "~") {
        for profile in FrameProfile.allCases
        where TextRequestParser.matches(bytes, (span.start, end), profile.optionName) {
          return profile
        }
      } else if !first || bytes[span.start] != UInt8(ascii: "#") {
        return nil  // The body: options come before it.
      }
      first = false
      span = TextRequestParser.trimmed(bytes, end, span.end)
    }
    return nil
  }

  public init(parsing bytes: [UInt8], maximumLocations: Int = 7) throws(RequestError) {
    var result: Result<DeviceRequest, RequestError> = .failure(.empty)
    bytes.withUnsafeBytes { buffer in
      do throws(RequestError) {
        result = .success(try DeviceRequest(parsing: buffer, maximumLocations: maximumLocations))
      } catch { result = .failure(error) }
    }
    self = try result.get()
  }
}

/// A point on Earth in 1/100 000 degree, the frame's unit.
public struct Coordinates: Sendable, Hashable {
  /// −9 000 000 … 9 000 000, north positive.
  public var latitude: Int32
  /// −18 000 000 … 18 000 000, east positive.
  public var longitude: Int32

  public init(latitude: Int32, longitude: Int32) {
    self.latitude = latitude
    self.longitude = longitude
  }

  public var isValid: Bool {
    (-9_000_000...9_000_000).contains(latitude) && (-18_000_000...18_000_000).contains(longitude)
  }
}

/// One place a request names.
public enum LocationQuery: Sendable, Equatable {
  case coordinates(Coordinates)
  /// A place name and, optionally, the country it is in.
  case place(PlaceName, country: CountryCode?)
}

/// Up to 16 places, stored inline.
public struct LocationList: Sendable, Equatable, RandomAccessCollection {
  public static let capacity = 16
  private var storage = InlineArray<16, LocationQuery>(
    repeating: .coordinates(Coordinates(latitude: 0, longitude: 0)))
  public private(set) var count = 0

  public init() {}

  public init(_ queries: [LocationQuery]) {
    precondition(queries.count <= Self.capacity, "a request names at most 16 places")
    for query in queries { append(query) }
  }

  mutating func append(_ query: LocationQuery) {
    assert(count < Self.capacity)
    storage[count] = query
    count += 1
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }
  public subscript(position: Int) -> LocationQuery {
    precondition(position >= 0 && position < count, "index out of range")
    return storage[position]
  }

  public static func == (lhs: LocationList, rhs: LocationList) -> Bool {
    lhs.elementsEqual(rhs)
  }
}

/// Up to 16 content checks (`schemas/frame-profiles.md` §5), one per slot, stored inline.
public struct ContentChecks: Sendable, Equatable {
  private var values = InlineArray<16, UInt32>(repeating: 0)
  private var present: UInt16 = 0
  /// Slots given, with or without a check (`-`).
  public private(set) var count = 0

  public init() {}

  public var isEmpty: Bool { count == 0 }

  /// The check for `slot`, nil when none was sent.
  public subscript(slot: Int) -> UInt32? {
    guard slot >= 0, slot < count, present & (1 << slot) != 0 else { return nil }
    return values[slot]
  }

  /// Appends the next slot's check (nil for `-`); false when 16 are there already.
  @discardableResult public mutating func append(_ check: UInt32?) -> Bool {
    guard count < 16 else { return false }
    if let check {
      values[count] = check
      present |= 1 << count
    }
    count += 1
    return true
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for slot in 0..<lhs.count where lhs[slot] != rhs[slot] { return false }
    return true
  }
}
