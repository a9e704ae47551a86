extension WeatherFrame {
  /// Reads a frame from exactly 192 bytes, after checking length, magic, version and CRC-32, in that
  /// order. Values equal to a field's sentinel become `nil`; reserved bytes are ignored so that
  /// frames from a v1.x gateway still decode. Allocates nothing.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(FrameError) {
    try Self.check(bytes)
    self.init(validated: bytes)
  }

  /// Length, magic, version and CRC-32, in that order (`ProfileView(checking:as:)`), with the
  /// values involved in the error.
  static func check(_ bytes: UnsafeRawBufferPointer) throws(FrameError) {
    do throws(FrameCheckError) { _ = try ProfileView(checking: bytes, as: .standard) } catch {
      throw FrameError(profileError: error, bytes: bytes)
    }
  }

  /// Reads every field of bytes `check` has passed.
  init(validated bytes: UnsafeRawBufferPointer) {
    self.init(view: ProfileView(unchecked: bytes.baseAddress!, kind: .standard))
  }

  /// Reads every field of a standard frame through `view`, row by row.
  public init(view: ProfileView) {
    precondition(view.kind == .standard, "a standard frame")
    self.init()
    var reader = StandardRowReader(view: view)
    visitRows(&reader)
  }

  /// Reads a frame from an array of bytes.
  public init(decoding bytes: [UInt8]) throws(FrameError) {
    var result: Result<WeatherFrame, FrameError> = .failure(.truncated(count: 0))
    bytes.withUnsafeBytes { buffer in
      do throws(FrameError) { result = .success(try WeatherFrame(decoding: buffer)) } catch {
        result = .failure(error)
      }
    }
    self = try result.get()
  }
}
