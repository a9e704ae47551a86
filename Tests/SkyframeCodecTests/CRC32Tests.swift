import Testing

@testable import SkyframeCodec

@Suite struct CRC32Tests {
  @Test func checkValueOfTheStandard() {
    let check = Array("123456789".utf8)
    #expect(CRC32.checksum(check) == CRC32.checkValue)
    check.withUnsafeBytes { bytes in
      #expect(CRC32.bitwise(bytes) == 0xCBF4_3926)
      #expect(~CRC32.nibbleWise(0xFFFF_FFFF, bytes) == 0xCBF4_3926)
    }
  }

  @Test func emptyInputIsZero() {
    #expect(CRC32.checksum([]) == 0)
  }

  @Test func everyImplementationAgreesOnRandomInputs() {
    var random = SeededRandom(seed: 0xC4C)
    for length in 0..<600 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      bytes.withUnsafeBytes { raw in
        let reference = CRC32.bitwise(raw)
        #expect(CRC32.checksum(raw) == reference, "length \(length)")
        #expect(~CRC32.nibbleWise(0xFFFF_FFFF, raw) == reference, "length \(length)")
      }
    }
  }

  @Test func updateContinuesAChecksum() {
    let whole = Array("Skyframe weather frames".utf8)
    let split = 9
    let first = CRC32.checksum(Array(whole[..<split]))
    let continued = Array(whole[split...]).withUnsafeBytes { CRC32.update(first, with: $0) }
    #expect(continued == CRC32.checksum(whole))
  }
}
