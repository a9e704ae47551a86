/// CRC-32 as used by zlib, PNG and Ethernet (CRC-32/ISO-HDLC): polynomial 0x04C11DB7
/// (reflected 0xEDB88320), initial value and final XOR 0xFFFFFFFF, input and output reflected.
/// Its standard check value, the CRC of the ASCII bytes "123456789", is 0xCBF43926.
///
/// On a host it runs slicing-by-16 (a 16 KiB table built once): about one table load per byte
/// with no dependency between the sixteen loads of a block. Embedded builds read a constant 16-entry nibble table instead: a few
/// microseconds per frame on a microcontroller, and 64 bytes of flash instead of 16 KiB of RAM.
public enum CRC32 {
  /// The CRC of "123456789": every implementation of this CRC must produce it.
  public static let checkValue: UInt32 = 0xCBF4_3926

  /// The CRC of `bytes`.
  public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    update(0, with: bytes)
  }

  /// The CRC of `bytes`.
  public static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { update(0, with: $0) }
  }

  /// Continues a CRC: `update(checksum(a), with: b) == checksum(a + b)`.
  public static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
    #if hasFeature(Embedded)
      return ~nibbleWise(~crc, bytes)
    #else
      return ~slicingBy16(~crc, bytes)
    #endif
  }

  static let reflectedPolynomial: UInt32 = 0xEDB8_8320

  /// The one-bit-at-a-time definition, kept as the reference the fast paths are tested against.
  static func bitwise(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 {
        crc = (crc >> 1) ^ (reflectedPolynomial & (0 &- (crc & 1)))
      }
    }
    return ~crc
  }

  /// The CRC of every nibble value: the 16-entry table of the embedded path, 64 bytes of constant
  /// data laid out by the compiler and read in place. Embedded builds put it in a section of its
  /// own, so that a linker dropping unused sections keeps this table and nothing else of the
  /// module's constants.
  #if hasFeature(Embedded)
    @section(".rodata.skyframe_crc32_nibbles")
  #endif
  static let nibbleTable: InlineArray<16, UInt32> = [
    0x0000_0000, 0x1DB7_1064, 0x3B6E_20C8, 0x26D9_30AC, 0x76DC_4190, 0x6B6B_51F4, 0x4DB2_6158,
    0x5005_713C, 0xEDB8_8320, 0xF00F_9344, 0xD6D6_A3E8, 0xCB61_B38C, 0x9B64_C2B0, 0x86D3_D2D4,
    0xA00A_E278, 0xBDBD_F21C,
  ]

  /// Four bits at a time: two table loads per byte.
  static func nibbleWise(_ start: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc = start
    for byte in bytes {
      crc ^= UInt32(byte)
      crc = (crc >> 4) ^ nibbleTable[Int(crc & 0xF)]
      crc = (crc >> 4) ^ nibbleTable[Int(crc & 0xF)]
    }
    return crc
  }

  #if !hasFeature(Embedded)
    /// Sixteen 256-entry tables, one after another (16 KiB, inside a core's L1 cache): entry
    /// `k * 256 + b` is the CRC contribution of byte `b` followed by `k` zero bytes. Built once,
    /// never freed; a pointer rather than an array so that reading it costs no reference counting.
    nonisolated(unsafe) static let tables: UnsafePointer<UInt32> = {
      let tables = UnsafeMutablePointer<UInt32>.allocate(capacity: 16 * 256)
      for byte in 0..<256 {
        var crc = UInt32(byte)
        for _ in 0..<8 {
          crc = (crc >> 1) ^ (reflectedPolynomial & (0 &- (crc & 1)))
        }
        tables[byte] = crc
      }
      for slice in 1..<16 {
        for byte in 0..<256 {
          let previous = tables[(slice - 1) * 256 + byte]
          tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
        }
      }
      return UnsafePointer(tables)
    }()

    /// Moves a raw CRC register (the register `slicingBy16` runs on: no initial value, no final
    /// XOR) past `count` zero bytes with four table loads instead of `count` steps. A step is
    /// linear in the register, so the result is the XOR of what each of its four bytes becomes;
    /// the four 256-entry tables hold that. Made once per gap of a fixed layout.
    struct ZeroRun: Sendable {
      nonisolated(unsafe) private let table: UnsafePointer<UInt32>

      init(count: Int) {
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 4 * 256)
        let byteTable = CRC32.tables
        for position in 0..<4 {
          for byte in 0..<256 {
            var register = UInt32(byte) << (8 * UInt32(position))
            for _ in 0..<count {
              register = (register >> 8) ^ byteTable[Int(register & 0xFF)]
            }
            table[position * 256 + byte] = register
          }
        }
        self.table = UnsafePointer(table)
      }

      func skip(_ register: UInt32) -> UInt32 {
        table[Int(register & 0xFF)] ^ table[256 &+ Int((register >> 8) & 0xFF)]
          ^ table[512 &+ Int((register >> 16) & 0xFF)] ^ table[768 &+ Int(register >> 24)]
      }
    }

    static func slicingBy16(_ start: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
      let table = tables
      @inline(__always) func entry(_ slice: Int, _ word: UInt32, _ shift: UInt32) -> UInt32 {
        table[slice &* 256 &+ Int((word >> shift) & 0xFF)]
      }
      var crc = start
      var offset = 0
      let count = bytes.count
      while count &- offset >= 16 {
        let first =
          UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) ^ crc
        let second = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 4, as: UInt32.self))
        let third = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 8, as: UInt32.self))
        let fourth = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 12, as: UInt32.self))
        let a =
          entry(15, first, 0) ^ entry(14, first, 8) ^ entry(13, first, 16) ^ entry(12, first, 24)
        let b =
          entry(11, second, 0) ^ entry(10, second, 8) ^ entry(9, second, 16) ^ entry(8, second, 24)
        let c = entry(7, third, 0) ^ entry(6, third, 8) ^ entry(5, third, 16) ^ entry(4, third, 24)
        let d =
          entry(3, fourth, 0) ^ entry(2, fourth, 8) ^ entry(1, fourth, 16) ^ entry(0, fourth, 24)
        crc = (a ^ b) ^ (c ^ d)
        offset &+= 16
      }
      while offset < count {
        crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)]
        offset &+= 1
      }
      return crc
    }
  #endif
}
