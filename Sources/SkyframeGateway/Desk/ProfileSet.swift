import SkyframeCodec

/// Which frames a cached cell holds, or what an answer needs of it: the standard frame always
/// (`tiny` and `unchanged` answers are written from it), the large frame once something asked
/// for the cell in that profile (then at every later fetch of the cell).
package struct ProfileSet: OptionSet, Sendable, Hashable {
  package let rawValue: UInt8

  package init(rawValue: UInt8) { self.rawValue = rawValue }

  package static let standard = ProfileSet(rawValue: 1 << 0)
  package static let large = ProfileSet(rawValue: 1 << 1)

  /// What an answer in `profile` needs.
  package init(_ profile: FrameProfile) {
    self = profile == .large ? [.standard, .large] : .standard
  }

  /// What answers in every one of `profiles` need (a named place's several).
  package init(_ profiles: some Sequence<FrameProfile>) {
    self = profiles.reduce(into: ProfileSet.standard) { $0.formUnion(ProfileSet($1)) }
  }
}
