// What build.sh links to show that the request writers of RequestEncoder/ stand on Decoder/ alone
// and fit a device: one call to each, into a 64-byte buffer on the stack. Returns 0 when all
// three wrote a request whose CRC checks, else the failing step.

@_cdecl("skyframe_write_every_request")
public func writeEveryRequest(_ bytes: UnsafeRawPointer, _ count: Int) -> Int32 {
  var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
    (0, 0, 0, 0, 0, 0, 0, 0)
  return withUnsafeMutableBytes(of: &buffer) { request -> Int32 in
    // The place name: the frame's own name field, "Berlin".
    let name = ProfileView(unchecked: bytes, kind: .standard).text(StandardLayout.name)
    do throws(RequestEncodeError) {
      try BinaryRequest.writeCoordinates(
        latitude: 5_252_000, longitude: 1_340_500, id: 7, into: request)
      guard sealed(request) else { return 1 }
      try BinaryRequest.writePlace(
        name, country: CountryCode(UInt8(ascii: "D"), UInt8(ascii: "E")), id: 8, into: request)
      guard sealed(request) else { return 2 }
      try BinaryRequest.writeRefresh(id: 9, into: request)
      guard sealed(request) else { return 3 }
    } catch {
      return 10 &+ Int32(error.rawValue)
    }
    return 0
  }
}

func sealed(_ request: UnsafeMutableRawBufferPointer) -> Bool {
  CRC32.checksum(UnsafeRawBufferPointer(start: request.baseAddress!, count: 60))
    == UInt32(littleEndian: request.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
}
