// Every key of a frame document is written, a missing value as `null`, as in the golden vectors
// and frame-v1.md. The synthesized encoders leave the keys of missing values out: they call
// `encodeIfPresent` for every optional property. Declared here, in this module, these overloads
// are the ones this module's synthesized encoders call, and they write `null` instead; decoding is
// unchanged (a missing key still reads as nil). One overload per type the documents use.

extension KeyedEncodingContainer {
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    try encode(value, forKey: key)
  }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
    try encode(value, forKey: key)
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
    try encode(value, forKey: key)
  }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
    try encode(value, forKey: key)
  }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
    try encode(value, forKey: key)
  }
}
