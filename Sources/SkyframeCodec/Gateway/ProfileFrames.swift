/// The `tiny` and `large` frames the gateway derives from a `standard` one, and the `unchanged`
/// message (`schemas/frame-profiles.md`). All of it writes into the caller's buffer.
/// The rows two tables share: the same name at the same scale (so the same meaning, unit and
/// wire value), in `from`'s order; the header's magic, reserved bytes and the CRC are each
/// message's own. Paired by name once per table: a field both tables gain is copied with no change
/// to the writers. The layout test checks each pair's unit and sentinel.
func sharedRows(_ from: [LayoutField], _ to: [LayoutField]) -> [(
  from: LayoutField, to: LayoutField
)] {
  from.compactMap { row in
    let name = row.name.description
    guard row.storage != .reserved, name != "crc32",
      let twin = to.first(where: { $0.name.description == name }), twin.scale == row.scale
    else { return nil }
    return (row, twin)
  }
}

extension ProfileWriter {
  /// Copies every element of each pair's `from` row of `source` into its `to` row (as many as
  /// both have): the wire value, missing staying missing.
  mutating func copy(_ pairs: [(from: LayoutField, to: LayoutField)], of source: ProfileView) {
    for (from, to) in pairs {
      switch from.storage {
      case .text: set(to, text: FrameName(wireField: source.text(from)))
      case .country: set(to, country: source.country(from))
      default:
        for index in 0..<min(from.count, to.count) { put(to, index, source.value(from, index)) }
      }
    }
  }
}

extension TinyLayout {
  /// What `tiny` takes from `standard` unchanged.
  static let shared = sharedRows(StandardLayout.fields, fields)

  /// The tiny frame that says what `standard` says, at the tiny profile's precision (§3.1): the
  /// shared rows copied, the rest rounded to their coarser scale here.
  public static func write(from standard: ProfileView, into buffer: UnsafeMutableRawBufferPointer) {
    typealias S = StandardLayout
    precondition(standard.kind == .standard, "a standard frame")
    var out = ProfileWriter(buffer, kind: .tiny)
    out.copy(shared, of: standard)
    out.set(windSpeed, standard.read(S.windSpeed).map(halfMetres))
    out.set(windGust, standard.read(S.windGust).map(halfMetres))
    out.set(
      windDirection,
      standard.read(S.windDirection, as: UInt16.self).map { (Int64($0) + 1) / 2 % 180 })
    out.set(
      utcOffset,
      standard.read(S.utcOffset, as: Int16.self).flatMap { $0 % 15 == 0 ? Int64($0 / 15) : nil })
    for day in 0..<dailyCount {
      out.set(dailyMinimum, day, standard.read(S.dailyMinimum, day).map(wholeDegrees))
      out.set(dailyMaximum, day, standard.read(S.dailyMaximum, day).map(wholeDegrees))
    }
    ProfileWriter.seal(buffer, kind: .tiny)
  }

  /// 0.1 °C to whole degrees, half away from zero, within −127 … 127.
  static func wholeDegrees(_ tenths: Int16) -> Int64 {
    let value = Int64(tenths)
    return min(max((value + (value >= 0 ? 5 : -5)) / 10, -127), 127)
  }
}

/// 0.1 m/s to 0.5 m/s (no value falls on a half), at most 254.
func halfMetres(_ tenths: UInt16) -> Int64 {
  min((Int64(tenths) * 2 + 5) / 10, 254)
}

extension LargeLayout {
  /// A large frame with every field the standard frame has (12 of 48 hours, 7 of 8 days, day 0's
  /// sun), the rest missing: error frames, and weather cached without its large frame.
  public static func write(from standard: ProfileView, into buffer: UnsafeMutableRawBufferPointer) {
    var out = ProfileWriter(buffer, kind: .large)
    fillShared(&out, from: standard)
    ProfileWriter.seal(buffer, kind: .large)
  }

  /// What `large` takes from `standard` unchanged: every field of it (frame-profiles.md §2).
  static let shared = sharedRows(StandardLayout.fields, fields)

  /// Writes what `large` shares with `standard`, row by row (the name keeps its 24 bytes), and
  /// the standard frame's sun as day 0's.
  public static func fillShared(_ out: inout ProfileWriter, from standard: ProfileView) {
    typealias S = StandardLayout
    precondition(standard.kind == .standard, "a standard frame")
    out.copy(shared, of: standard)
    out.put(dailySun, 0, standard.value(S.sun))
    out.put(dailySunrise, 0, standard.value(S.sunrise))
    out.put(dailySunset, 0, standard.value(S.sunset))
  }

  /// What differs between two answers from the same cached large frame (as
  /// `WeatherFrame.rewrite` for standard), then a new CRC.
  public static func rewrite(
    _ buffer: UnsafeMutableRawBufferPointer, status: FrameStatus, requestID: UInt16,
    slotIndex: UInt8, slotCount: UInt8, latitude: Int32?, longitude: Int32?,
    name: FixedText<48>, country: CountryCode?, nextUpdateSeconds: UInt16
  ) {
    precondition(buffer.count >= size, "a large frame has 960 bytes")
    var out = ProfileWriter(unsealed: buffer, kind: .large)
    out.set(Self.status, status.rawValue)
    out.set(Self.requestID, requestID)
    out.set(Self.slotIndex, slotIndex)
    out.set(Self.slotCount, max(slotCount, 1))
    out.set(Self.latitude, latitude.map { Self.latitude.clamp($0) })
    out.set(Self.longitude, longitude.map { Self.longitude.clamp($0) })
    out.set(Self.name, text: name)
    out.set(Self.country, country: country)
    out.set(Self.nextUpdate, nextUpdateSeconds == 0 ? nil : nextUpdateSeconds)
    ProfileWriter.seal(buffer, kind: .large)
  }
}

extension UnchangedLayout {
  /// "What you show is still right" for slot `slotIndex` (frame-profiles.md §4).
  public static func write(
    profile asked: FrameProfile, requestID: UInt16, slotIndex: UInt8, slotCount: UInt8,
    nextUpdateSeconds: UInt16, into buffer: UnsafeMutableRawBufferPointer
  ) {
    var out = ProfileWriter(buffer, kind: .unchanged)
    out.set(profile, asked.rawValue)
    out.set(Self.requestID, requestID)
    out.set(Self.slotIndex, slotIndex)
    out.set(Self.slotCount, max(slotCount, 1))
    out.set(nextUpdate, nextUpdateSeconds == 0 ? nil : nextUpdateSeconds)
    ProfileWriter.seal(buffer, kind: .unchanged)
  }
}

extension ProfileWriter {
  /// Continues an existing message (rewriting a few fields of a cached one): nothing is cleared.
  public init(unsealed buffer: UnsafeMutableRawBufferPointer, kind: MessageKind) {
    precondition(buffer.count >= kind.size, "room for the whole message")
    self.buffer = buffer
    self.kind = kind
  }
}
