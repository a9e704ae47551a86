// Fuzz target frame_decode: WeatherFrame(decoding:) and the CRC-32.
// Seeds: frames
// Max length: 400
//
// Each input is decoded twice:
//   1. as it is: the error must be the one the spec gives (length, magic, version, CRC, in that
//      order, with the same numbers), and bytes that pass must decode as in 2;
//   2. sealed: its first 192 bytes (zero-padded) with magic, version 1 and a correct CRC, so that
//      the fuzzer reaches every field: each must be what the spec reads (FrameReference.swift),
//      from an array, a buffer and a buffer at an odd address alike.
// CRC32.checksum and CRC32.update are checked against a bit-at-a-time CRC over the whole input.

import SkyframeCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func frameDecodeFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    checkCRC(input)
    decodeAsIs(input)
    let sealed = sealedFrame(input)
    let decoded = decodeAll(sealed)
    checkDecoded(decoded, sealed, "sealed frame")
  }
}

func checkCRC(_ input: UnsafeRawBufferPointer) {
  let expected = referenceCRC32(input)
  checkEqual(CRC32.checksum(input), expected, "CRC32.checksum of the input")
  checkEqual(CRC32.checksum([UInt8](input)), expected, "CRC32.checksum of the input as an array")
  // Split where the input's first byte says: update continues a checksum.
  let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
  let head = CRC32.checksum(UnsafeRawBufferPointer(rebasing: input[0..<split]))
  let whole = CRC32.update(head, with: UnsafeRawBufferPointer(rebasing: input[split...]))
  checkEqual(whole, expected, "CRC32.update after \(split) bytes")
}

func decodeAsIs(_ input: UnsafeRawBufferPointer) {
  let expected = expectedFrameError(input)
  do {
    let frame = try WeatherFrame(decoding: input)
    check(expected == nil, "the input decodes although the spec says \(expected!)")
    note("input decodes")
    checkDecoded(frame, [UInt8](input), "input")
  } catch {
    checkEqual(error, expected, "decoding error")
    note("input: \(errorKind(error))")
    check(!error.description.isEmpty, "the error describes itself")
  }
  do {
    let frame = try WeatherFrame(decoding: [UInt8](input))
    check(expected == nil, "the input as an array decodes although the spec says \(expected!)")
    _ = frame
  } catch {
    checkEqual(error, expected, "decoding error from an array")
  }
}

/// Decodes valid bytes from an array, an aligned buffer and a buffer at an odd address: the three
/// must be equal.
func decodeAll(_ frame: [UInt8]) -> WeatherFrame {
  let decoded: WeatherFrame
  do { decoded = try WeatherFrame(decoding: frame) } catch {
    fail("a sealed frame does not decode: \(error)")
  }
  let unaligned = UnsafeMutableRawBufferPointer.allocate(byteCount: frameSize + 1, alignment: 16)
  defer { unaligned.deallocate() }
  let odd = UnsafeMutableRawBufferPointer(rebasing: unaligned[1...])
  odd.copyBytes(from: frame)
  do {
    let again = try WeatherFrame(decoding: UnsafeRawBufferPointer(odd))
    check(again == decoded, "decoding at an odd address gives the same frame")
  } catch {
    fail("a sealed frame at an odd address does not decode: \(error)")
  }
  return decoded
}

func errorKind(_ error: FrameError) -> String {
  switch error {
  case .truncated: "truncated"
  case .tooLong: "tooLong"
  case .badMagic: "badMagic"
  case .unsupportedVersion: "unsupportedVersion"
  case .checksumMismatch: "checksumMismatch"
  case .outOfRange: "outOfRange"
  case .bufferTooSmall: "bufferTooSmall"
  @unknown default: "other"
  }
}
