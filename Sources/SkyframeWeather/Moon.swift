import Foundation
import SkyframeCodec

/// The moon's phase, computed (no service is asked): the Moon's elongation from the Sun in
/// ecliptic longitude, from the mean elements and the largest periodic terms of the lunar and
/// solar theories (Meeus, *Astronomical Algorithms*, ch. 22 and 47, truncated). Good to about
/// 0.3° of elongation — under 0.001 of a cycle, far inside one of the frame's 255 steps.
public enum Moon {
  /// The fraction of the synodic month since new moon at `unixSeconds`, 0 ≤ phase < 1
  /// (0 new, 0.25 first quarter, 0.5 full, 0.75 last quarter).
  public static func phase(atUnix unixSeconds: Int64) -> Double {
    // Days since J2000.0 (2000-01-01 12:00 TT; the ~1 min TT−UTC difference does not matter here).
    let d = (Double(unixSeconds) - 946_728_000) / 86_400
    let t = d / 36_525
    func normalized(_ degrees: Double) -> Double {
      let value = degrees.truncatingRemainder(dividingBy: 360)
      return value < 0 ? value + 360 : value
    }
    func sine(_ degrees: Double) -> Double { sin(degrees * .pi / 180) }
    // Mean elements, degrees.
    let sunLongitude = 280.46646 + 36_000.76983 * t
    let sunAnomaly = 357.52911 + 35_999.05029 * t
    let moonLongitude = 218.3164477 + 481_267.88123421 * t
    let elongation = 297.8501921 + 445_267.1114034 * t
    let moonAnomaly = 134.9633964 + 477_198.8675055 * t
    let latitudeArgument = 93.2720950 + 483_202.0175233 * t
    // True longitudes: the largest terms.
    let sun = sunLongitude + 1.914602 * sine(sunAnomaly) + 0.019993 * sine(2 * sunAnomaly)
    let moon =
      moonLongitude
      + 6.288774 * sine(moonAnomaly)
      + 1.274027 * sine(2 * elongation - moonAnomaly)
      + 0.658314 * sine(2 * elongation)
      + 0.213618 * sine(2 * moonAnomaly)
      - 0.185116 * sine(sunAnomaly)
      - 0.114332 * sine(2 * latitudeArgument)
      + 0.058793 * sine(2 * elongation - 2 * moonAnomaly)
      + 0.057066 * sine(2 * elongation - sunAnomaly - moonAnomaly)
      + 0.053322 * sine(2 * elongation + moonAnomaly)
      + 0.045758 * sine(2 * elongation - sunAnomaly)
    return normalized(moon - sun) / 360
  }

  /// The phase for a frame: on the local date `daysSinceEpoch` at 12:00 local time.
  public static func phase(onLocalDay daysSinceEpoch: Int, utcOffsetSeconds: Int) -> MoonPhase {
    let noon = Int64(daysSinceEpoch) * 86_400 + 43_200 - Int64(utcOffsetSeconds)
    return MoonPhase(fraction: phase(atUnix: noon))
  }
}
