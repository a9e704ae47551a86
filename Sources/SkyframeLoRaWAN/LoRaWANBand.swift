import SkyframeGateway

/// A LoRaWAN region's data rates as far as the gateway needs them to size a class A downlink
/// (LoRaWAN Regional Parameters RP002-1.0.4): which data rate each receive window uses, and the
/// largest application payload (N, not repeater compatible) each downlink data rate carries.
///
/// The uplink does not say all of this (`schemas/lorawan-uplink-v1.md` §6.2): the band, the RX2
/// data rate and the RX1 offset are configured per network server connection.
public enum LoRaWANBand: String, Sendable, Equatable, CaseIterable {
  case eu868
  case us915
  case au915
  /// AS923-1 to -4 (their data rates and sizes are the same; the channels differ).
  case as923

  /// The data rates an uplink may use (LR-FHSS ones left out: the gateway refuses to size them).
  public var uplinkDataRates: ClosedRange<Int> {
    switch self {
    case .eu868, .as923: 0...7
    case .us915: 0...4
    case .au915: 0...6
    }
  }

  /// The data rates a downlink may use; under AS923 downlink dwell time DR0 and DR1 are not
  /// allowed.
  public func downlinkDataRates(dwellTime: Bool) -> ClosedRange<Int> {
    switch self {
    case .eu868: 0...7
    case .as923: dwellTime ? 2...7 : 0...7
    case .us915, .au915: 8...13
    }
  }

  /// The RX1 data-rate offsets the region defines.
  public var rx1OffsetRange: ClosedRange<Int> {
    switch self {
    case .eu868, .au915: 0...5
    case .us915: 0...3
    case .as923: 0...7
    }
  }

  /// The region's default RX2 data rate (The Things Network's EU868 plan uses DR3 instead).
  public var defaultRX2DataRate: Int {
    switch self {
    case .eu868: 0
    case .us915, .au915: 8
    case .as923: 2
    }
  }

  /// The largest application payload (N) at a downlink data rate; nil where the rate is not a
  /// downlink rate of the region (or not allowed under dwell time).
  public func maximumPayload(downlinkDataRate rate: Int, dwellTime: Bool) -> Int? {
    guard downlinkDataRates(dwellTime: dwellTime).contains(rate) else { return nil }
    switch self {
    case .eu868:
      return [51, 51, 51, 115, 242, 242, 242, 242][rate]
    case .as923:
      return dwellTime
        ? [0, 0, 11, 53, 125, 242, 242, 242][rate] : [51, 51, 51, 115, 242, 242, 242, 242][rate]
    case .us915, .au915:
      return [53, 129, 242, 242, 242, 242][rate - 8]
    }
  }

  /// The RX1 downlink data rate for an uplink at `uplink` with the RX1 offset `offset`; nil for
  /// an uplink data rate or offset the region does not have.
  public func rx1DataRate(uplink: Int, offset: Int, dwellTime: Bool) -> Int? {
    guard uplinkDataRates.contains(uplink), rx1OffsetRange.contains(offset) else { return nil }
    switch self {
    case .eu868:
      return max(0, uplink - offset)
    case .us915:
      return min(13, max(8, 10 + uplink - offset))
    case .au915:
      return min(13, max(8, 8 + uplink - offset))
    case .as923:
      // Offsets 6 and 7 mean -1 and -2 (a faster RX1); under dwell time never below DR2.
      let effective = offset <= 5 ? offset : 5 - offset
      return min(5, max(dwellTime ? 2 : 0, uplink - effective))
    }
  }

  /// The uplink data rate of a LoRa modulation (The Things Stack gives no index); nil when the
  /// region has no such uplink rate.
  public func uplinkDataRate(spreadingFactor: Int, bandwidth: Int) -> Int? {
    switch (self, bandwidth) {
    case (.eu868, 125_000), (.as923, 125_000), (.au915, 125_000):
      return (7...12).contains(spreadingFactor) ? 12 - spreadingFactor : nil
    case (.eu868, 250_000), (.as923, 250_000):
      return spreadingFactor == 7 ? 6 : nil
    case (.us915, 125_000):
      return (7...10).contains(spreadingFactor) ? 10 - spreadingFactor : nil
    case (.us915, 500_000):
      return spreadingFactor == 8 ? 4 : nil
    case (.au915, 500_000):
      return spreadingFactor == 8 ? 6 : nil
    default:
      return nil
    }
  }

  /// The FSK uplink data rate, where the region has one.
  public var fskDataRate: Int? {
    switch self {
    case .eu868, .as923: 7
    case .us915, .au915: nil
    }
  }
}

/// The downlink size rule (`schemas/lorawan-uplink-v1.md` §6.2): the network server may answer in
/// RX1 or RX2, so a downlink must fit both.
public struct DownlinkSizer: Sendable, Equatable {
  public var band: LoRaWANBand
  public var rx2DataRate: Int
  public var rx1Offset: Int
  public var dwellTime: Bool

  public init(band: LoRaWANBand, rx2DataRate: Int, rx1Offset: Int, dwellTime: Bool) {
    self.band = band
    self.rx2DataRate = rx2DataRate
    self.rx1Offset = rx1Offset
    self.dwellTime = dwellTime
  }

  /// The largest downlink payload that fits both receive windows after an uplink at
  /// `uplinkDataRate`; 0 when nothing may be sent (an unknown data rate, an RX window that
  /// carries nothing).
  public func limit(uplinkDataRate: Int) -> Int {
    guard
      let rx1 = band.rx1DataRate(uplink: uplinkDataRate, offset: rx1Offset, dwellTime: dwellTime),
      let first = band.maximumPayload(downlinkDataRate: rx1, dwellTime: dwellTime),
      let second = band.maximumPayload(downlinkDataRate: rx2DataRate, dwellTime: dwellTime)
    else { return 0 }
    return min(first, second)
  }
}
