/// A row's range and scale as the gateway uses them: clamping a value into the field, and wire
/// integers to values in the row's unit and back.
extension LayoutField {
  /// `value` moved into the row's range (unchanged for a row without one).
  @inlinable @inline(__always) public func clamp<T: FixedWidthInteger>(_ value: T) -> T {
    let wide = Int64(value)
    if let minimum, wide < minimum { return T(truncatingIfNeeded: minimum) }
    if let maximum, wide > maximum { return T(truncatingIfNeeded: maximum) }
    return value
  }

  /// The row's scale as a fraction of whole numbers: `steps` wire steps make `units` of its
  /// unit (10 in 1 for a scale of 0.1, 1 in 10 for a scale of 10). A scale below 1 is one over a
  /// whole number (the layout test checks it), so its inverse is taken whole: 1 / 1e-5 is
  /// 99999.99999999999 in binary, but there are 100,000 steps in a degree. (Adding a half and
  /// truncating: `rounded()` is a library call on the baseline x86-64.)
  @inlinable @inline(__always) public var stepFraction: (steps: Int64, units: Int64) {
    scale < 1 ? (Int64(1 / scale + 0.5), 1) : (1, Int64(scale))
  }

  /// Wire steps in one `unit`: 10 for a scale of 0.1, 0.1 for a scale of 10.
  @inlinable @inline(__always) public var stepsPerUnit: Double {
    let (steps, units) = stepFraction
    return Double(steps) / Double(units)
  }

  /// The wire integer `raw` in the row's unit. Scales below 1 divide by their inverse, so 215
  /// becomes exactly 21.5 and 5252000 exactly 52.52 (215 × 0.1 would give 21.500000000000004).
  @inlinable @inline(__always) public func measure<T: FixedWidthInteger>(_ raw: T) -> Double {
    scale < 1 ? Double(raw) / stepsPerUnit : Double(raw) * scale
  }
}
