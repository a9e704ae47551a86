// Open-Meteo answers in the service's exact shape (keys, nesting, units blocks, integer Unix
// times from timeformat=unixtime), with values made up for these tests.
enum ProviderFixtures {
  /// One location, everything the provider asks for. A place at UTC+5:45 (20 700 s), 2025-03-10
  /// local (day 20157), grid cell 27.75/85.375 while the request asked for 27.70169/85.3206.
  static let fullSingle = """
    {
      "latitude": 27.75,
      "longitude": 85.375,
      "generationtime_ms": 0.2231597900390625,
      "utc_offset_seconds": 20700,
      "timezone": "Asia/Kathmandu",
      "timezone_abbreviation": "GMT+5:45",
      "elevation": 1337.0,
      "current_units": {
        "time": "unixtime", "interval": "seconds", "temperature_2m": "°C",
        "relative_humidity_2m": "%", "apparent_temperature": "°C", "is_day": "",
        "precipitation": "mm", "weather_code": "wmo code", "cloud_cover": "%",
        "pressure_msl": "hPa", "wind_speed_10m": "m/s", "wind_direction_10m": "°",
        "wind_gusts_10m": "m/s", "uv_index": "", "visibility": "m"
      },
      "current": {
        "time": 1741596300, "interval": 900, "temperature_2m": 21.4, "relative_humidity_2m": 38,
        "apparent_temperature": 20.1, "is_day": 1, "precipitation": 0.00, "weather_code": 2,
        "cloud_cover": 45, "pressure_msl": 1016.2, "wind_speed_10m": 2.70,
        "wind_direction_10m": 247, "wind_gusts_10m": 6.10, "uv_index": 5.35,
        "visibility": 24140.00
      },
      "hourly_units": {
        "time": "unixtime", "temperature_2m": "°C", "weather_code": "wmo code",
        "precipitation_probability": "%"
      },
      "hourly": {
        "time": [1741544100, 1741547700, 1741551300, 1741554900, 1741558500, 1741562100],
        "temperature_2m": [9.8, 9.1, 8.7, 8.2, 7.9, 7.6],
        "weather_code": [0, 0, 1, 1, 2, 3],
        "precipitation_probability": [0, 0, 2, 5, 8, 10]
      },
      "daily_units": {
        "time": "unixtime", "weather_code": "wmo code", "temperature_2m_max": "°C",
        "temperature_2m_min": "°C", "precipitation_probability_max": "%", "sunrise": "unixtime",
        "sunset": "unixtime", "daylight_duration": "s"
      },
      "daily": {
        "time": [1741544100, 1741630500, 1741716900],
        "weather_code": [2, 61, 80],
        "temperature_2m_max": [23.9, 19.4, 21.0],
        "temperature_2m_min": [7.6, 10.2, 9.5],
        "precipitation_probability_max": [10, 85, 60],
        "sunrise": [1741567140, 1741653480, 1741739820],
        "sunset": [1741609680, 1741696140, 1741782540],
        "daylight_duration": [42540.37, 42661.02, 42719.88]
      }
    }
    """

  /// Polar night at UTC+1 (2025-01-05 local, day 20093): no `current` block at all, nulls in every
  /// array, arrays shorter than `time`, a null time, `precipitation_probability` and `sunrise`
  /// left out.
  static let nullsAndGaps = """
    {
      "latitude": 78.22,
      "longitude": 15.66,
      "generationtime_ms": 0.0851154327392578,
      "utc_offset_seconds": 3600,
      "timezone": "Arctic/Longyearbyen",
      "timezone_abbreviation": "GMT+1",
      "elevation": 21.0,
      "hourly_units": { "time": "unixtime", "temperature_2m": "°C", "weather_code": "wmo code" },
      "hourly": {
        "time": [1736031600, 1736035200, null, 1736042400, 1736046000],
        "temperature_2m": [-12.5, null, -11.0],
        "weather_code": [3, 3, 3, null, 45]
      },
      "daily_units": {
        "time": "unixtime", "weather_code": "wmo code", "temperature_2m_max": "°C",
        "temperature_2m_min": "°C", "precipitation_probability_max": "%", "sunset": "unixtime",
        "daylight_duration": "s"
      },
      "daily": {
        "time": [1736031600, 1736118000],
        "weather_code": [null, 71],
        "temperature_2m_max": [null, -4.0],
        "temperature_2m_min": [-14.5, null],
        "precipitation_probability_max": [null, null],
        "sunset": [null, 1736150000],
        "daylight_duration": [0.0, 0.0]
      }
    }
    """

  /// Only the header: no current, hourly or daily block.
  static let headerOnly = """
    {"latitude":48.14,"longitude":11.58,"generationtime_ms":0.01,"utc_offset_seconds":3600,
    "timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":524.0}
    """

  /// Three locations in request order: UTC+0, UTC−10 and UTC+11, all on 2025-03-10 local.
  static let threeLocations = """
    [{"latitude":64.125,"longitude":-21.875,"generationtime_ms":0.05,"utc_offset_seconds":0,
    "timezone":"Atlantic/Reykjavik","timezone_abbreviation":"GMT","elevation":40.0,
    "current_units":{"time":"unixtime","interval":"seconds","temperature_2m":"°C"},
    "current":{"time":1741600800,"interval":900,"temperature_2m":-1.5},
    "hourly_units":{"time":"unixtime","temperature_2m":"°C"},
    "hourly":{"time":[1741564800,1741568400],"temperature_2m":[-3.0,-3.5]},
    "daily_units":{"time":"unixtime","temperature_2m_max":"°C"},
    "daily":{"time":[1741564800],"temperature_2m_max":[1.5]}},
    {"latitude":21.3,"longitude":-157.875,"generationtime_ms":0.04,"utc_offset_seconds":-36000,
    "timezone":"Pacific/Honolulu","timezone_abbreviation":"GMT-10","elevation":12.0,
    "current_units":{"time":"unixtime","interval":"seconds","temperature_2m":"°C"},
    "current":{"time":1741600800,"interval":900,"temperature_2m":24.5},
    "hourly_units":{"time":"unixtime","temperature_2m":"°C"},
    "hourly":{"time":[1741600800,1741604400],"temperature_2m":[22.0,22.5]},
    "daily_units":{"time":"unixtime","temperature_2m_max":"°C"},
    "daily":{"time":[1741600800],"temperature_2m_max":[27.5]}},
    {"latitude":-33.875,"longitude":151.25,"generationtime_ms":0.06,"utc_offset_seconds":39600,
    "timezone":"Australia/Sydney","timezone_abbreviation":"GMT+11","elevation":39.0,
    "current_units":{"time":"unixtime","interval":"seconds","temperature_2m":"°C"},
    "current":{"time":1741600800,"interval":900,"temperature_2m":19.0},
    "hourly_units":{"time":"unixtime","temperature_2m":"°C"},
    "hourly":{"time":[1741525200,1741528800],"temperature_2m":[18.0,17.5]},
    "daily_units":{"time":"unixtime","temperature_2m_max":"°C"},
    "daily":{"time":[1741525200],"temperature_2m_max":[23.0]}}]
    """

  /// A location whose hourly temperatures include a string where a number belongs.
  static let wrongType = """
    {"latitude":48.14,"longitude":11.58,"generationtime_ms":0.01,"utc_offset_seconds":3600,
    "timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":524.0,
    "hourly_units":{"time":"unixtime","temperature_2m":"°C"},
    "hourly":{"time":[1741561200,1741564800],"temperature_2m":[4.5,"5.0"]}}
    """

  /// Geocoding: three candidates, the first only starting like the query.
  static let geocodingSpringfield = """
    {"results":[
    {"id":4951788,"name":"Springfield Gardens","latitude":40.66312,"longitude":-73.76221,
    "elevation":7.0,"feature_code":"PPL","country_code":"US","admin1_id":5128638,
    "timezone":"America/New_York","population":25000,"country_id":6252001,
    "country":"United States","admin1":"New York"},
    {"id":4250542,"name":"Springfield","latitude":39.80172,"longitude":-89.64371,
    "elevation":182.0,"feature_code":"PPLA","country_code":"US","admin1_id":4896861,
    "admin2_id":4250575,"timezone":"America/Chicago","population":116250,
    "postcodes":["62701","62702"],"country_id":6252001,"country":"United States",
    "admin1":"Illinois","admin2":"Sangamon"},
    {"id":4409896,"name":"Springfield","latitude":37.21533,"longitude":-93.29824,
    "elevation":397.0,"feature_code":"PPLA2","country_code":"US","admin1_id":4398678,
    "timezone":"America/Chicago","population":169176,"country_id":6252001,
    "country":"United States","admin1":"Missouri"}],
    "generationtime_ms":0.6120205}
    """

  /// Geocoding: one exact hit with a non-ASCII name.
  static let geocodingZurich = """
    {"results":[{"id":2657896,"name":"Zürich","latitude":47.36667,"longitude":8.55,
    "elevation":429.0,"feature_code":"PPLA","country_code":"CH","admin1_id":2657895,
    "timezone":"Europe/Zurich","population":341730,"country_id":2658434,"country":"Switzerland",
    "admin1":"Zurich"}],"generationtime_ms":0.4210472}
    """

  /// Geocoding without a match: the service leaves `results` out.
  static let geocodingEmpty = #"{"generationtime_ms":0.3108978}"#

  static let error400 =
    #"{"error":true,"reason":"Forecast days is invalid. Allowed range 0 to 16."}"#
  static let error429 =
    #"{"error":true,"reason":"Too many requests from this address. Slow down."}"#
}
