/// A row's range as the gateway uses it.
extension LayoutField {
  /// `value` moved into the row's range (unchanged for a row without one).
  @inlinable public func clamp<T: FixedWidthInteger>(_ value: T) -> T {
    let wide = Int64(value)
    if let minimum, wide < minimum { return T(truncatingIfNeeded: minimum) }
    if let maximum, wide > maximum { return T(truncatingIfNeeded: maximum) }
    return value
  }
}
