import Testing

@testable import SkyframeCodec

/// Records each row `WeatherFrame.visitRows` names: the row's name, the element, the integer type
/// the model holds it in, and the value as a wire integer (nil: missing).
struct RowRecorder: StandardRowVisitor {
  struct Seen {
    var name: String
    var index: Int
    var width: Int
    var isSigned: Bool
    var isText: Bool
    var value: Int64?
  }
  var seen: [Seen] = []

  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ index: Int, _ value: inout T?)
  {
    seen.append(
      Seen(
        name: "\(field.name)", index: index, width: MemoryLayout<T>.size, isSigned: T.isSigned,
        isText: false, value: value.map { Int64($0) }))
  }

  mutating func text(_ field: LayoutField, _ value: inout FrameName) {
    seen.append(Seen(name: "\(field.name)", index: 0, width: 1, isSigned: false, isText: true))
  }

  mutating func country(_ field: LayoutField, _ value: inout CountryCode?) {
    seen.append(Seen(name: "\(field.name)", index: 0, width: 1, isSigned: false, isText: true))
  }
}

/// Sets element `index` of the row named `name` to the wire integer `value`, as far as the model
/// can hold it (a flag or a coded value drops what it has no meaning for).
struct RowSetter: StandardRowVisitor {
  let name: String
  let index: Int
  let wire: Int64

  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ index: Int, _ value: inout T?)
  {
    guard "\(field.name)" == name, index == self.index else { return }
    value = T(exactly: wire)
  }

  mutating func text(_ field: LayoutField, _ value: inout FrameName) {}
  mutating func country(_ field: LayoutField, _ value: inout CountryCode?) {}
}

/// The model, the writer and the reader against the rows of `StandardLayout`: a row the model does
/// not visit, a type or a range the writer does not keep, a sentinel either side reads otherwise,
/// fails here.
@Suite struct StandardRowTests {
  /// The rows each message writes or checks itself rather than from the model.
  static let ownRows: Set<String> = ["magic", "version", "reserved_87", "crc32"]

  @Test func theModelVisitsEveryRowOnceInItsOwnIntegerType() {
    var frame = WeatherFrame()
    var recorder = RowRecorder()
    frame.visitRows(&recorder)
    var visits: [String: Int] = [:]
    for seen in recorder.seen { visits["\(seen.name)[\(seen.index)]", default: 0] += 1 }
    for row in StandardLayout.fields where !Self.ownRows.contains(row.name.description) {
      let elements = row.storage == .text || row.storage == .country ? 1 : row.count
      for index in 0..<elements {
        #expect(visits["\(row.name)[\(index)]"] == 1, "\(row.name)[\(index)] visited once")
      }
    }
    #expect(visits.count == recorder.seen.count)
    for seen in recorder.seen where !seen.isText {
      let row = StandardLayout.fields.first { $0.name.description == seen.name }
      #expect(row?.storage.width == seen.width, "\(seen.name): the model's integer is the row's")
      #expect(row?.storage.isSigned == seen.isSigned, "\(seen.name): signed as the row")
    }
  }

  /// Nothing set: every element of every row with a sentinel holds it, and reads back as missing.
  @Test func missingIsTheRowsSentinelBothWays() throws {
    let bytes = try WeatherFrame().encoded()
    for row in StandardLayout.fields where row.sentinel != nil && row.storage != .text {
      for index in 0..<row.count {
        let wire = FrameViewTests.littleEndian(bytes, at: row.offset(index), row.storage)
        #expect(wire == row.sentinel, "\(row.name)[\(index)] written as its sentinel")
      }
    }
    var decoded = try WeatherFrame(decoding: bytes)
    var recorder = RowRecorder()
    decoded.visitRows(&recorder)
    for seen in recorder.seen where !seen.isText {
      let row = StandardLayout.fields.first { $0.name.description == seen.name }!
      if row.sentinel != nil { #expect(seen.value == nil, "\(seen.name) reads as missing") }
    }
  }

  /// Each value the model can hold just outside a row's range is refused, naming the row; each
  /// at the range's ends is written where the row says and read back.
  @Test func theWriterKeepsEachRowsRange() throws {
    for row in StandardLayout.fields where row.minimum != nil || row.maximum != nil {
      let elements = row.storage == .text || row.storage == .country ? 1 : row.count
      let index = elements - 1
      for (wire, fits) in [
        (row.minimum.map { $0 - 1 }, false), (row.maximum.map { $0 + 1 }, false),
        (row.minimum, true), (row.maximum, true),
      ] {
        guard let wire else { continue }
        var frame = WeatherFrame()
        frame.slotCount = 255  // so that any slot index is within the count
        var setter = RowSetter(name: "\(row.name)", index: index, wire: wire)
        frame.visitRows(&setter)
        var recorder = RowRecorder()
        frame.visitRows(&recorder)
        let held = recorder.seen.first { $0.name == "\(row.name)" && $0.index == index }?.value
        guard held == wire else { continue }  // the model has no such value
        // An air quality index stops at 999 (frame-v1.md §5.5), below what its row can carry.
        if fits, row.name.description == "air_quality", wire > 999 + 1 { continue }
        if fits {
          let bytes = try frame.encoded()
          let written = FrameViewTests.littleEndian(bytes, at: row.offset(index), row.storage)
          #expect(written == wire, "\(row.name) = \(wire) written at its offset")
          #expect(try WeatherFrame(decoding: bytes) == frame, "\(row.name) = \(wire) read back")
        } else {
          #expect(throws: FrameError.outOfRange(field: "\(row.name)", value: Int(wire))) {
            try frame.encoded()
          }
        }
      }
    }
  }

  /// Compaction turns a value in a row's unit into wire steps by `stepsPerUnit`: each scale is a
  /// whole number of steps or steps of a whole number of units.
  @Test func everyScaleHasAWholeNumberOfStepsOrUnits() {
    let rows = StandardLayout.fields + LargeLayout.fields + TinyLayout.fields
    for row in rows {
      let steps = row.stepsPerUnit
      #expect(abs(steps * row.scale - 1) < 1e-12, "\(row.name)")
      let fraction = row.stepFraction
      #expect(fraction.steps == 1 || fraction.units == 1, "\(row.name)")
      #expect(Double(fraction.units) / Double(fraction.steps) == row.scale, "\(row.name)")
      #expect(steps == steps.rounded() || (1 / steps) == (1 / steps).rounded(), "\(row.name)")
      #expect(row.measure(Int64(7)) == Double(7) / steps || row.scale >= 1, "\(row.name)")
    }
    #expect(StandardLayout.latitude.stepsPerUnit == 100_000)
    #expect(StandardLayout.temperature.measure(Int16(215)) == 21.5)
    #expect(StandardLayout.visibility.measure(UInt16(2_414)) == 24_140)
  }

  /// `large` takes every field of `standard` unchanged, `tiny` those at its scale: the paired rows
  /// mean the same (unit, sentinel, signedness), and what `tiny` rescales is the rest.
  @Test func sharedRowsMeanTheSame() {
    let large = LargeLayout.shared.map { "\($0.from.name)" }
    let expected = StandardLayout.fields.map { "\($0.name)" }.filter {
      !Self.ownRows.contains($0)
    }
    #expect(large == expected)
    for (from, to) in LargeLayout.shared + TinyLayout.shared {
      #expect("\(from.unit)" == "\(to.unit)", "\(from.name) unit")
      #expect(from.sentinel == to.sentinel, "\(from.name) sentinel")
      #expect(from.storage.isSigned == to.storage.isSigned, "\(from.name) sign")
      #expect(from.storage == to.storage || from.storage == .text, "\(from.name) storage")
    }
    let tiny = Set(TinyLayout.shared.map { "\($0.to.name)" })
    let rescaled: Set = [
      "wind_speed", "wind_gust", "wind_direction", "utc_offset_min", "daily_min", "daily_max",
    ]
    let tinyOwn: Set = ["magic", "kind", "crc32"]
    #expect(tiny.union(rescaled).union(tinyOwn) == Set(TinyLayout.fields.map { "\($0.name)" }))
  }

  /// `rewrite` recomputes the CRC from the bytes up to the end of the name and `next_update`:
  /// every field it writes lies there.
  @Test func rewriteCoversTheFieldsItWrites() {
    typealias S = StandardLayout
    #expect(WeatherFrame.changedHeader % 8 == 0)
    for row in [
      S.status, S.requestID, S.slotIndex, S.slotCount, S.latitude, S.longitude, S.country,
    ] {
      #expect(row.offset + row.size <= WeatherFrame.changedHeader, "\(row.name)")
    }
    #expect(S.name.offset + S.name.size == WeatherFrame.changedHeader)
    #expect(WeatherFrame.nextUpdateOffset == S.nextUpdate.offset)
  }
}
