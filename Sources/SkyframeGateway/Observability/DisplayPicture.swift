import CSkyframeRender
import Synchronization

/// A frame drawn as a display shows it, as PNG, by the virtual display's own renderer
/// (`Sources/CSkyframeRender`, which `firmware-notes/examples/virtual-display` compiles too):
/// one renderer in the project. The renderer draws into one screen buffer of its own, so
/// pictures are made one at a time.
enum DisplayPicture {
  /// The status page draws standard frames (296×128) at twice their size.
  static let pageScale = 2

  private static let drawing = Mutex(())

  static func size(scale: Int) -> (width: Int, height: Int) {
    (296 * scale, 128 * scale)
  }

  /// The PNG, or nil when `frame` is not a frame the renderer draws.
  static func png(of frame: [UInt8], now: Int64, scale: Int = pageScale) -> [UInt8]? {
    drawing.withLock { _ in
      var picture: UnsafeMutablePointer<UInt8>?
      let length = frame.withUnsafeBufferPointer { bytes in
        skyframe_render_png(
          bytes.baseAddress, bytes.count, UInt32(clamping: now), Int32(scale), &picture)
      }
      guard length > 0, let picture else { return nil }
      defer { skyframe_render_free(picture) }
      return Array(UnsafeBufferPointer(start: picture, count: length))
    }
  }
}
