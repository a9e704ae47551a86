import CoreMetrics
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// The desk's place names: what a name stands for, cached (misses too) for the geocoding TTL,
/// one look-up per name however many ask, and told to what stands in front of the fetcher (the
/// fleet shares it; `adopt` takes what another member looked up).
extension WeatherDesk {
  /// Takes a name another member looked up, unless this cache knows it for longer already or
  /// the entry has expired. Returns whether it was taken.
  @discardableResult
  package func adopt(_ entry: CachedPlace, for key: GeocodeKey) -> Bool {
    guard entry.expiresAt > now() else { return false }
    let count = places.withLock { places -> Int? in
      if let current = places.peek(key), current.expiresAt >= entry.expiresAt { return nil }
      places.set(entry, forKey: key)
      return places.count
    }
    guard let count else { return false }
    placeEntries?.record(count)
    return true
  }

  /// The place a name stands for, as far as it is known without a call.
  func cachedPlace(named name: String, countryCode: String?) -> Lookup<Forecast.Place?> {
    let key = GeocodeKey(name: name.lowercased(), countryCode: countryCode?.uppercased())
    let time = now()
    return places.withLock { places in
      guard let cached = places.value(forKey: key) else { return .unknown }
      return cached.expiresAt > time ? .known(cached.place) : .expired
    }
  }

  /// The place a name stands for: cached (misses too) for the geocoding TTL, one call per name.
  func place(named name: String, countryCode: String?) async -> Result<
    Forecast.Place?, ProviderError
  > {
    let key = GeocodeKey(name: name.lowercased(), countryCode: countryCode?.uppercased())
    if let cached = places.withLock({ $0.value(forKey: key) }), cached.expiresAt > now() {
      return .success(cached.place)
    }
    return await placeFetches.run(key) { [self] in
      let (services, ttl) = settings.withLock { ($0.services, $0.geocodingTTLSeconds) }
      var firstError: ProviderError?
      for batcher in services {
        do throws(ProviderError) {
          let place = try await batcher.provider.geocode(name: name, countryCode: countryCode)
          // A miss is cached for an hour at most, so a typo fixed upstream is not stuck for a day.
          let lifetime = place == nil ? min(ttl, 3_600) : ttl
          let entry = CachedPlace(place: place, expiresAt: now() + lifetime)
          let count = places.withLock { places in
            places.set(entry, forKey: key)
            return places.count
          }
          placeEntries?.record(count)
          front?.lookedUp(entry, for: key)
          return .success(place)
        } catch {
          if firstError == nil { firstError = error }
          if case .rejected = error { break }
        }
      }
      return .failure(firstError ?? .unavailable("no weather service configured"))
    }
  }
}

extension WeatherDesk {
  /// A name for the place at `point`: from OpenWeatherMap's reverse geocoding or the GeoNames
  /// file, cached per cell; nil when there is neither or nothing is near.
  func placeName(at point: GeoPoint) async -> Forecast.Place? {
    let (geocoder, ttl) = settings.withLock { ($0.reverseGeocoder, $0.geocodingTTLSeconds) }
    switch geocoder {
    case .none:
      return nil
    case .geonames(let index, let maximumMetres):
      return Self.nearest(in: index, to: point, within: maximumMetres)
    case .service(let provider):
      let cell = cell(of: point)
      if let cached = names.withLock({ $0.value(forKey: cell) }), cached.expiresAt > now() {
        return cached.place
      }
      return await nameFetches.run(cell) { [self] in
        do throws(ProviderError) {
          let place = try await provider.reverseGeocode(point)
          let count = names.withLock { names in
            names.set(CachedPlace(place: place, expiresAt: now() + ttl), forKey: cell)
            return names.count
          }
          nameEntries?.record(count)
          return place
        } catch {
          // No name is no failure: the frame then says the coordinates. Retried next time.
          return nil
        }
      }
    }
  }
}
