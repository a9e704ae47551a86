// Fuzz target profile_decode: MessageKind.check, ProfileView and ContentCheck for the large, tiny
// and unchanged messages (schemas/frame-profiles.md), with the C header's profile functions
// (firmware-notes/skyframe_frame.h, linked from Support/skyframe_frame_impl.c) beside them.
// Seeds: large tiny unchanged frames
// Max length: 1024
//
// Every input is checked as it is and sealed once per message kind (its first 960, 48, 16 or 192
// bytes, zero-padded, with magic, kind byte and CRC-32 made right, so that the fuzzer reaches
// every field), and each sealed message again with corruptions: bad magic, another kind byte, a
// broken CRC, one byte cut or added, and a combination the input's last three bytes choose (any
// length, any kind byte, resealed or not), so that the order of the checks is exercised. For each
// of those byte strings, in a buffer of exactly its length at an aligned and at an odd address:
//   1. MessageKind.check and ProfileView(checking:) give the error §1.1 gives, in its order
//      (length is one of 16/48/192/960, magic, the kind of that length, CRC;
//      Support/ProfileReference.swift), or the kind; FrameError(profileError:) describes the error.
//   2. A message that passes: for every field of frame-large.json / frame-tiny.json / §4 and
//      every element, ProfileView.wire is the reference reader's value, value() is nil exactly
//      for the JSON's sentinel, text() is the bytes before the first zero inside the field;
//      contentCheck and ContentCheck.of are the reference CRC-32 with §5's ranges zeroed (0 for
//      unchanged). ContentCheck.of of the raw input, for each kind it is long enough for, too.
//   3. Differential with the C header: skyframe_message_kind, then the decoder of that kind,
//      give the same code as the spec (and as Swift); on an error *out is left untouched, on
//      success kind, status/profile, request_id, slots and crc32 are the wire's;
//      skyframe_content_check equals Swift's contentCheck. (Every other C field is checked
//      against the same JSON tables by c_profiles.c, and every Swift one above.)
// Once: the codec's LargeLayout / TinyLayout / UnchangedLayout tables against the JSON rows, the
// MessageKind sizes against §1.1.

import CSkyframeFrame
import SkyframeCodec

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func profileDecodeFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    _ = profileTablesChecked
    let bytes = [UInt8](input)
    checkMessage(bytes, "input")
    checkRawContentCheck(bytes)
    var selector = ByteReader(input, from: max(input.count - 3, 0))
    let flags = selector.u8()
    let first = selector.u8()
    let second = selector.u8()
    for spec in allProfileSpecs {
      let sealed = sealedMessage(bytes, spec)
      checkMessage(sealed, "sealed \(spec.name)", sealedAs: spec)
      for (variant, label) in corruptions(sealed, spec, flags, first, second) {
        checkMessage(variant, "sealed \(spec.name), \(label)")
      }
    }
  }
}

// MARK: Corruptions

let messageSizes = [16, 48, 192, 960]
let kindBytes: [UInt8] = [0x01, 0x11, 0x21, 0x31]

func corruptions(
  _ sealed: [UInt8], _ spec: ProfileSpec, _ flags: UInt8, _ first: UInt8, _ second: UInt8
) -> [([UInt8], String)] {
  var out: [([UInt8], String)] = []
  var magic = sealed
  magic[Int(first & 1)] ^= second | 1
  out.append((magic, "bad magic"))
  var kind = sealed
  let here = kindBytes.firstIndex(of: spec.kind)!
  kind[2] = kindBytes[(here + 1 + Int(first % 3)) % 4]
  out.append((kind, "kind 0x\(hex8(kind[2]))"))
  var crc = sealed
  crc[spec.crcOffset + Int(first % 4)] ^= second | 1
  out.append((crc, "broken CRC"))
  out.append((Array(sealed.dropLast()), "one byte cut"))
  out.append((sealed + [first], "one byte added"))

  // The fuzzer's combination.
  var mixed = sealed
  var what: [String] = []
  if flags & 0x01 != 0 {
    mixed[Int(second & 1)] ^= first | 1
    what.append("magic")
  }
  if flags & 0x02 != 0 {
    mixed[2] = flags & 0x80 != 0 ? first : kindBytes[Int(first % 4)]
    what.append("kind 0x\(hex8(mixed[2]))")
  }
  if flags & 0x04 != 0 {
    let length =
      flags & 0x10 != 0
      ? messageSizes[Int(second % 4)] : max(0, spec.size + Int(Int8(bitPattern: second)))
    if length < mixed.count {
      mixed.removeLast(mixed.count - length)
    } else {
      mixed += [UInt8](repeating: first, count: length - mixed.count)
    }
    what.append("\(length) bytes")
  }
  if flags & 0x20 != 0, let lengthSpec = profileSpec(size: mixed.count) {
    resealMessage(&mixed, lengthSpec)
    what.append("resealed")
  } else if flags & 0x08 != 0, mixed.count >= 4 {
    mixed[mixed.count - 1 - Int(first % 4)] ^= second | 1
    what.append("CRC")
  }
  if !what.isEmpty { out.append((mixed, what.joined(separator: ", "))) }
  return out
}

func hex8(_ byte: UInt8) -> String { hexString([byte]) }

// MARK: 1-3: one byte string

/// `bytes` copied into a buffer of exactly their length, `offset` bytes past a 16-byte boundary.
func withExactBuffer(_ bytes: [UInt8], at offset: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
  let block = UnsafeMutableRawPointer.allocate(byteCount: bytes.count + offset, alignment: 16)
  defer { block.deallocate() }
  let start = block + offset
  if !bytes.isEmpty {
    bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
  }
  body(UnsafeRawBufferPointer(start: start, count: bytes.count))
}

func checkMessage(_ bytes: [UInt8], _ label: String, sealedAs sealed: ProfileSpec? = nil) {
  let expected = specMessageCheck(bytes)
  if let sealed {
    checkEqual(expected, ProfileCheckCode.ok, "\(label): the reference accepts a sealed message")
    checkEqual(profileSpec(size: bytes.count)?.kind, sealed.kind, "\(label): sealed size")
  }
  // §5 of the bytes, once: for a message of the right length, magic and kind (CRC or not).
  var content: UInt32?
  if let spec = profileSpec(size: bytes.count), bytes[0] == 0x53, bytes[1] == 0x46,
    bytes[2] == spec.kind
  {
    content = specContentCheck(bytes, spec) ?? 0
  }
  for offset in [0, 1] {
    withExactBuffer(bytes, at: offset) { buffer in
      var place: String { "\(label) (\(bytes.count) bytes at +\(offset))" }
      var kind: MessageKind?
      var code = ProfileCheckCode.ok
      do throws(FrameCheckError) { kind = try MessageKind.check(buffer) } catch {
        code = error.rawValue
      }
      if code != expected {
        fail(
          "\(place): MessageKind.check gives \(ProfileCheckCode.name(code)), §1.1 gives "
            + "\(ProfileCheckCode.name(expected))")
      }
      note("\(label.hasPrefix("input") ? "input" : "variant"): \(ProfileCheckCode.name(code))")
      do throws(FrameCheckError) {
        let view = try ProfileView(checking: buffer)
        checkEqual(code, ProfileCheckCode.ok, "\(place): ProfileView(checking:) accepts")
        checkEqual(view.kind, kind, "\(place): ProfileView.kind")
        check(view.base == buffer.baseAddress, "\(place): ProfileView.base is the buffer")
        checkView(view, buffer, bytes, content, place)
      } catch {
        checkEqual(error.rawValue, code, "\(place): ProfileView(checking:) error")
        if offset == 0 {
          check(
            !FrameError(profileError: error, bytes: buffer).description.isEmpty,
            "\(place): FrameError describes \(error)")
        }
      }
      if let sealed { checkEqual(kind?.rawValue, sealed.kind, "\(place): kind") }
      compareC(buffer, bytes, content, expected: expected, swiftKind: kind, place)
    }
  }
}

/// Every field of a message that passed, against the reference reading of `bytes`.
func checkView(
  _ view: ProfileView, _ buffer: UnsafeRawBufferPointer, _ bytes: [UInt8], _ content: UInt32?,
  _ label: String
) {
  guard let spec = profileSpec(kind: view.kind.rawValue) else {
    fail("\(label): kind \(view.kind) is not one of §1.1")
  }
  checkEqual(view.kind.size, spec.size, "\(label): \(spec.name) size")
  for (row, field) in fieldPairs(view.kind) {
    for index in 0..<row.count {
      let wire = row.wire(bytes, index)
      let got = view.wire(field, index)
      if got != wire {
        fail(
          "\(label): \(row.name)[\(index)] reads \(got) through ProfileView, \(wire) on the wire")
      }
      let value = view.value(field, index)
      let missing = wire == row.sentinel
      if (value == nil) != missing || (value != nil && value != wire) {
        fail(
          "\(label): \(row.name)[\(index)] value() is \(value.map(String.init) ?? "nil") for wire "
            + "\(wire), sentinel \(row.sentinel.map(String.init) ?? "none")")
      }
      if row.type == .utf8 {
        let text = view.text(field, index)
        checkEqual(Array(text), row.text(bytes, index), "\(label): \(row.name)[\(index)] text")
        check(
          text.baseAddress == buffer.baseAddress! + row.offset + index * row.stride,
          "\(label): \(row.name)[\(index)] text points into the message at its offset")
      }
    }
  }
  guard let content else { fail("\(label): decodes, but is no message of §1.1") }
  checkEqual(view.contentCheck, content, "\(label): ProfileView.contentCheck (§5)")
  checkEqual(ContentCheck.of(buffer, kind: view.kind), content, "\(label): ContentCheck.of")
  note("decoded \(spec.name)")
}

/// ContentCheck.of the raw input as each kind it is long enough for: its first `size` bytes count.
func checkRawContentCheck(_ bytes: [UInt8]) {
  for kind in MessageKind.allCases {
    withExactBuffer(bytes, at: 1) { buffer in
      let got = ContentCheck.of(buffer, kind: kind)
      guard let spec = profileSpec(kind: kind.rawValue), bytes.count >= spec.size else { return }
      checkEqual(got, specContentCheck(bytes, spec) ?? 0, "ContentCheck.of(input, \(kind))")
    }
  }
}

// MARK: 3: the C header

func compareC(
  _ buffer: UnsafeRawBufferPointer, _ bytes: [UInt8], _ content: UInt32?, expected: Int8,
  swiftKind: MessageKind?, _ label: String
) {
  let start = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
  let count = buffer.count
  let kind = skyframe_message_kind(start, count)
  var code = kind < 0 ? Int8(kind) : ProfileCheckCode.ok
  if kind > 0 {
    checkEqual(Int(kind), Int(bytes[2]), "\(label): skyframe_message_kind names byte 2")
    guard let spec = profileSpec(kind: UInt8(kind)) else { fail("\(label): C kind \(kind)") }
    code = decodeC(start, count, spec, bytes, label)
    var check: UInt32 = 0xA5A5_A5A5
    let rc = skyframe_content_check(start, count, &check)
    guard let content else { fail("\(label): C names kind \(kind), the reference none") }
    if spec.zeroed != nil {
      checkEqual(rc, SKYFRAME_OK, "\(label): skyframe_content_check")
      checkEqual(check, content, "\(label): skyframe_content_check against §5")
    } else {
      checkEqual(rc, SKYFRAME_ERR_BAD_VERSION, "\(label): skyframe_content_check of unchanged")
      checkEqual(check, 0xA5A5_A5A5, "\(label): skyframe_content_check wrote *out on an error")
    }
  } else {
    var check: UInt32 = 0xA5A5_A5A5
    checkEqual(
      skyframe_content_check(start, count, &check), Int32(kind),
      "\(label): skyframe_content_check's error is skyframe_message_kind's")
    checkEqual(check, 0xA5A5_A5A5, "\(label): skyframe_content_check wrote *out on an error")
  }
  checkEqual(code, expected, "\(label): the C header's code against §1.1")
  if swiftKind != nil {
    checkEqual(code, ProfileCheckCode.ok, "\(label): C refuses what Swift accepts")
  }
}

/// Decodes with the C decoder of `spec`'s kind into a struct filled with 0xA5: untouched on an
/// error, else the header fields are the wire's. Returns the code.
func decodeC(
  _ start: UnsafePointer<UInt8>, _ count: Int, _ spec: ProfileSpec, _ bytes: [UInt8],
  _ label: String
) -> Int8 {
  func run<T>(
    _ type: T.Type, decode: (UnsafeMutablePointer<T>) -> Int32, fields: (T) -> [Int]
  )
    -> Int8
  {
    let out = UnsafeMutablePointer<T>.allocate(capacity: 1)
    defer { out.deallocate() }
    let memory = UnsafeMutableRawBufferPointer(start: out, count: MemoryLayout<T>.size)
    memory.initializeMemory(as: UInt8.self, repeating: 0xA5)
    let rc = decode(out)
    if rc != SKYFRAME_OK {
      check(
        memory.allSatisfy { $0 == 0xA5 }, "\(label): the C \(spec.name) decoder wrote *out on \(rc)"
      )
      return Int8(rc)
    }
    let expected = [
      Int(spec.kind), Int(bytes[3]), Int(bytes.u16(4)), Int(bytes[6]), Int(bytes[7]),
      Int(bytes.u32(spec.crcOffset)),
    ]
    checkEqual(
      fields(out.pointee), expected, "\(label): C \(spec.name) kind, status, id, slots, crc")
    return 0
  }
  switch spec.kind {
  case 0x11:
    return run(
      skyframe_large.self, decode: { skyframe_large_decode(start, count, $0) },
      fields: {
        [
          Int($0.kind), Int($0.status), Int($0.request_id), Int($0.slot_index), Int($0.slot_count),
          Int($0.crc32),
        ]
      })
  case 0x21:
    return run(
      skyframe_tiny.self, decode: { skyframe_tiny_decode(start, count, $0) },
      fields: {
        [
          Int($0.kind), Int($0.status), Int($0.request_id), Int($0.slot_index), Int($0.slot_count),
          Int($0.crc32),
        ]
      })
  case 0x31:
    return run(
      skyframe_unchanged.self, decode: { skyframe_unchanged_decode(start, count, $0) },
      fields: {
        [
          Int($0.kind), Int($0.profile), Int($0.request_id), Int($0.slot_index), Int($0.slot_count),
          Int($0.crc32),
        ]
      })
  default:
    return run(
      skyframe_frame.self, decode: { skyframe_frame_decode(start, count, $0) },
      fields: {
        [
          Int($0.version), Int($0.status), Int($0.request_id), Int($0.slot_index),
          Int($0.slot_count),
          Int($0.crc32),
        ]
      })
  }
}

// MARK: Once: the codec's tables against the JSON

/// The codec's fields of a kind, paired by name with the reference rows.
func fieldPairs(_ kind: MessageKind) -> [(ProfileSpecField, LayoutField)] {
  switch kind {
  case .large: largePairs
  case .tiny: tinyPairs
  case .unchanged: unchangedPairs
  case .standard: []
  }
}

let largePairs = pair(largeSpecFields, LargeLayout.fields, "LargeLayout")
let tinyPairs = pair(tinySpecFields, TinyLayout.fields, "TinyLayout")
let unchangedPairs = pair(unchangedSpecFields, UnchangedLayout.fields, "UnchangedLayout")

func pair(_ rows: [ProfileSpecField], _ fields: [LayoutField], _ table: String)
  -> [(ProfileSpecField, LayoutField)]
{
  checkEqual(
    fields.map { $0.name.description }, rows.map(\.name), "\(table).fields: names in wire order")
  return zip(rows, fields).map { row, field in
    let what = "\(table).\(row.name)"
    checkEqual(field.offset, row.offset, "\(what).offset")
    checkEqual(field.count, row.count, "\(what).count")
    checkEqual(field.length, row.length, "\(what).length")
    checkEqual(field.storage.width, row.elementSize, "\(what) element width")
    checkEqual(field.storage.isSigned, row.isSigned, "\(what) signedness")
    checkEqual(field.size, row.size, "\(what).size")
    checkEqual(field.sentinel, row.sentinel, "\(what).sentinel")
    checkEqual(field.storage == .text, row.type == .utf8, "\(what) is text")
    checkEqual(field.storage == .country, row.type == .char, "\(what) is a country")
    return (row, field)
  }
}

let profileTablesChecked: Bool = {
  let digits = Array("123456789".utf8)
  checkEqual(profileCRC32(digits), 0xCBF4_3926, "the table CRC-32's check value")
  checkEqual(profileCRC32(digits), referenceCRC32(digits), "table CRC-32 against the bitwise one")
  // The reference tables themselves: every byte of a message in exactly one field.
  for spec in allProfileSpecs {
    guard let rows = spec.fields else { continue }
    var next = 0
    for row in rows {
      checkEqual(row.offset, next, "\(spec.name) reference: \(row.name) follows the field before")
      check(row.offset % row.elementSize == 0, "\(spec.name) reference: \(row.name) aligned")
      next = row.offset + row.size
    }
    checkEqual(next, spec.size, "\(spec.name) reference: fields cover the message")
    checkEqual(rows.last?.offset, spec.crcOffset, "\(spec.name) reference: CRC last")
  }
  checkEqual(
    MessageKind.allCases.map { [Int($0.rawValue), $0.size] },
    allProfileSpecs.map { [Int($0.kind), $0.size] }, "MessageKind's bytes and sizes (§1.1)")
  checkEqual(
    FrameProfile.allCases.map { [Int($0.rawValue), Int($0.kind.rawValue)] },
    [[0, 0x01], [1, 0x11], [2, 0x21]], "FrameProfile numbers (§1.2)")
  checkEqual(LargeLayout.size, 960, "LargeLayout.size")
  checkEqual(TinyLayout.size, 48, "TinyLayout.size")
  checkEqual(UnchangedLayout.size, 16, "UnchangedLayout.size")
  _ = (largePairs, tinyPairs, unchangedPairs)
  return true
}()
