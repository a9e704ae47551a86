/// SplitMix64: a small, fast generator whose sequence is fixed by its seed, so a failing property
/// test fails the same way on every machine.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// `value` about three times in four, nil otherwise: missing values are common upstream.
  mutating func maybe<T>(_ make: (inout SeededRandom) -> T) -> T? {
    Int.random(in: 0..<4, using: &self) == 0 ? nil : make(&self)
  }
}
