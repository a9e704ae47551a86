/*
 * skyframe_frame.h - decoder for the Skyframe weather frame v1 (192 bytes), single header, C99.
 * Reads frame v1.1 (schemas/frame-v1.md) and the other profiles of schemas/frame-profiles.md:
 * `large` (960 bytes), `tiny` (48 bytes), `unchanged` (16 bytes); see VERSIONS below.
 *
 * USAGE (stb style)
 *   Every file that needs the types and functions:
 *       #include "skyframe_frame.h"
 *   Exactly ONE .c/.cpp/.ino file of the program also compiles the code:
 *       #define SKYFRAME_FRAME_IMPLEMENTATION
 *       #include "skyframe_frame.h"
 *   (Defining it in two files gives "multiple definition" link errors; defining it in none gives
 *   "undefined reference".) The header compiles as C99 and as C++ (Arduino sketches).
 *
 * WHAT IT DOES NOT DO
 *   No malloc, no stdio, no floating point, no libm, no global state. Includes only <stdint.h>,
 *   <stddef.h> and <string.h>. Fields are read byte by byte, little-endian, so the input buffer
 *   may sit at any address (the MQTT library's payload pointer usually is unaligned) and the
 *   code works on big- and little-endian CPUs alike.
 *
 * UNITS
 *   skyframe_frame keeps every value in WIRE units, exactly as sent: temperatures in 0.1 degC,
 *   pressure 0.1 hPa, wind 0.1 m/s, precipitation 0.1 mm, UV index 0.1, visibility 10 m,
 *   latitude/longitude 1e-5 degree, times Unix seconds (UTC), daily_start days since 1970-01-01.
 *   A missing value holds its sentinel: test with the SKYFRAME_HAS_* macros before showing it.
 *
 * v1.1 FIELDS (frame-v1.md sections 5.5-5.8, 6.9)
 *   Air quality, weather alerts, moon phase, precipitation in the next hour and a "next update"
 *   hint live in bytes that v1.0 reserved. On the wire each is 0 when absent, so a frame from a
 *   v1.0 gateway reads as "absent" everywhere. skyframe_frame holds them as wire values at its
 *   end (air_quality, alerts, moon, precip_next_hour, next_update; 0 = absent); read them with
 *   the skyframe_has_*() tests and the helpers below, which also decode the bit fields. Every
 *   value helper returns -1 when the field is absent (and for a NULL frame).
 *
 * PROFILES (frame-profiles.md, see "Frame profiles" below)
 *   skyframe_message_kind() says which message a payload is; skyframe_large_decode(),
 *   skyframe_tiny_decode() and skyframe_unchanged_decode() fill skyframe_large / _tiny /
 *   _unchanged; skyframe_content_check() computes the check a device sends back
 *   (skyframe_request_set_check()) to get `unchanged` instead of a frame it already shows.
 *   SKYFRAME_LARGE (default 1, 0 on AVR) compiles the large profile's struct and decoder.
 *
 * LORAWAN (schemas/lorawan-uplink-v1.md)
 *   skyframe_uplink_coordinates(), skyframe_uplink_place() and skyframe_uplink_refresh() write
 *   the uplink request (at most 10 bytes); the downlink that answers is a tiny frame, unchanged
 *   or a tiny error frame, read with the profile decoders.
 *
 * VERSIONS
 *   lorawan  Adds the uplink writers skyframe_uplink_*() (SKYFRAME_UPLINK_VERSION 1; older
 *         headers lack it: #ifdef). Nothing else changes.
 *   profiles  Adds the frame profiles (SKYFRAME_PROFILES_VERSION 1; older headers lack it:
 *         #ifdef) and the request helpers skyframe_request_set_profile() / _set_check(). The
 *         standard frame's API and behaviour are unchanged (the CRC routine is now shared).
 *   v1.1  Reads the v1.1 fields: new struct members appended to skyframe_frame, helpers
 *         skyframe_has_air_quality() ... skyframe_next_update_seconds(), SKYFRAME_AQI_*,
 *         SKYFRAME_ALERT_*, SKYFRAME_MOON_*, SKYFRAME_PRECIP_NO_CHANGE and
 *         SKYFRAME_FRAME_MINOR_VERSION (1; the v1.0 header lacks it: #ifdef). Every v1.0
 *         name, field and function is unchanged, so v1.0 code compiles as before. Byte 87 is
 *         still reserved and ignored.
 *   v1.0  First version. It ignores bytes 38-39, 84-87 and 186-187, so it still reads every v1.1
 *         frame (all v1.0 fields, none of the new ones): updating the header is optional.
 *   The wire `version` byte is 1 for both: a v2 frame is rejected (SKYFRAME_ERR_BAD_VERSION).
 *   SKYFRAME_LIBRARY_VERSION ("1.1.0") numbers the releases of the device libraries (this
 *   header, the Arduino/PlatformIO/ESP-IDF library, skyframe.py): PATCH for a fix, MINOR when
 *   something is added, MAJOR only if code written for an older release would break. It is
 *   independent of the gateway's version: the two meet in the wire formats (1.1.0 reads every
 *   message kind gateway 0.12.0 sends). Headers before it lack it: #ifdef.
 *
 * Source of truth: Sources/SkyframeCodec/FrameLayout.swift and WeatherFrame+Decoding.swift; for
 * the profiles schemas/frame-profiles.md with its layouts frame-large.json and frame-tiny.json.
 */
#ifndef SKYFRAME_FRAME_H
#define SKYFRAME_FRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sizes and identification ------------------------------------------------------------- */
#define SKYFRAME_FRAME_SIZE 192   /* every frame, success or error, is exactly this long */
#define SKYFRAME_FRAME_VERSION 1
#define SKYFRAME_FRAME_MINOR_VERSION 1 /* this header reads frame v1.1 (not on the wire) */
/* The release of the Skyframe device libraries this header belongs to (semver of their API; the
 * same number as library.properties and skyframe.py's VERSION). Not the gateway's version, and
 * not a wire format's: see VERSIONS above. */
#define SKYFRAME_LIBRARY_VERSION "1.1.0"
#define SKYFRAME_LIBRARY_VERSION_MAJOR 1
#define SKYFRAME_LIBRARY_VERSION_MINOR 1
#define SKYFRAME_LIBRARY_VERSION_PATCH 0
#define SKYFRAME_FRAME_MAGIC0 0x53 /* 'S' */
#define SKYFRAME_FRAME_MAGIC1 0x46 /* 'F' */
#define SKYFRAME_CRC_OFFSET 188    /* CRC-32 of bytes 0..187, little-endian, in bytes 188..191 */
#define SKYFRAME_HOURLY_COUNT 12
#define SKYFRAME_DAILY_COUNT 7
#define SKYFRAME_NAME_BYTES 24     /* UTF-8, zero padded; a full 24-byte name has no NUL on wire */
#define SKYFRAME_CRC32_CHECK 0xCBF43926UL /* skyframe_crc32("123456789", 9) */

/* ---- Status (byte 3): what the frame answers ------------------------------------------------ */
#define SKYFRAME_STATUS_OK 0                   /* fresh weather */
#define SKYFRAME_STATUS_STALE 1                /* cached weather, service failed; see fetched_at */
#define SKYFRAME_STATUS_NOT_FOUND 2            /* no place matches the name */
#define SKYFRAME_STATUS_BAD_REQUEST 3          /* request not understood */
#define SKYFRAME_STATUS_UPSTREAM_UNAVAILABLE 4 /* service down and nothing cached */
#define SKYFRAME_STATUS_RATE_LIMITED 5         /* asking too often / budget spent, nothing cached */
#define SKYFRAME_STATUS_TOO_MANY_LOCATIONS 6   /* request names more places than allowed */
#define SKYFRAME_STATUS_INTERNAL_ERROR 7       /* the gateway failed */
/* Any other value: a newer gateway's status. Treat as an error without weather. */

/* ---- Service (byte 8): who delivered the data ----------------------------------------------- */
#define SKYFRAME_SERVICE_NONE 0 /* error frames */
#define SKYFRAME_SERVICE_OPEN_METEO 1
#define SKYFRAME_SERVICE_OPENWEATHERMAP 2
#define SKYFRAME_SERVICE_WEATHERAPI 3
#define SKYFRAME_SERVICE_MET_NORWAY 4 /* v1.1 */

/* ---- Sun state (byte 10) -------------------------------------------------------------------- */
#define SKYFRAME_SUN_NORMAL 0      /* sun rises and sets (sunrise/sunset may still be missing) */
#define SKYFRAME_SUN_POLAR_DAY 1   /* midnight sun: no sunset */
#define SKYFRAME_SUN_POLAR_NIGHT 2 /* no sunrise */

/* ---- Missing-value sentinels ---------------------------------------------------------------- */
#define SKYFRAME_MISSING_U8 0xFF                   /* uint8_t fields, also is_day and sun */
#define SKYFRAME_MISSING_U16 0xFFFF                /* uint16_t fields, also daily_start */
#define SKYFRAME_MISSING_I16 (-32767 - 1)          /* int16_t fields (temperatures, utc offset) */
#define SKYFRAME_MISSING_I32 (-2147483647L - 1L)   /* latitude, longitude */
#define SKYFRAME_MISSING_TIME 0                    /* Unix-second fields: 0 = missing */

#define SKYFRAME_HAS_U8(v) ((v) != SKYFRAME_MISSING_U8)
#define SKYFRAME_HAS_U16(v) ((v) != SKYFRAME_MISSING_U16)
#define SKYFRAME_HAS_I16(v) ((v) != SKYFRAME_MISSING_I16)
#define SKYFRAME_HAS_I32(v) ((v) != SKYFRAME_MISSING_I32)
#define SKYFRAME_HAS_TIME(v) ((v) != SKYFRAME_MISSING_TIME)

/* ---- Return codes (0 = success, negative = error) ------------------------------------------ */
#define SKYFRAME_OK 0
#define SKYFRAME_ERR_TRUNCATED (-1)   /* fewer than 192 bytes (library buffer too small?);
                                       * profiles: fewer than the message's size */
#define SKYFRAME_ERR_TOO_LONG (-2)    /* more than 192 bytes; profiles: more than its size */
#define SKYFRAME_ERR_BAD_MAGIC (-3)   /* first two bytes are not "SF" */
#define SKYFRAME_ERR_BAD_VERSION (-4) /* frame version other than 1; profiles: byte 2 is not the
                                       * kind the decoder reads ("unsupported kind") */
#define SKYFRAME_ERR_CRC (-5)         /* stored CRC-32 does not match the bytes */
#define SKYFRAME_ERR_NULL (-6)        /* a NULL pointer argument */
#define SKYFRAME_ERR_RANGE (-7)       /* request helpers: a value the request cannot carry */

/* ---- The decoded frame, wire units ---------------------------------------------------------- */
typedef struct skyframe_current {
    int16_t temperature;     /* 0.1 degC            (SKYFRAME_MISSING_I16) */
    int16_t feels_like;      /* 0.1 degC            (SKYFRAME_MISSING_I16) */
    uint16_t pressure;       /* 0.1 hPa, sea level  (SKYFRAME_MISSING_U16) */
    uint16_t wind_speed;     /* 0.1 m/s             (SKYFRAME_MISSING_U16) */
    uint16_t wind_gust;      /* 0.1 m/s             (SKYFRAME_MISSING_U16) */
    uint16_t wind_direction; /* degrees 0..359 the wind comes FROM, 0 = north (MISSING_U16) */
    uint16_t visibility;     /* 10 m                (SKYFRAME_MISSING_U16) */
    uint16_t precipitation;  /* 0.1 mm, last hour   (SKYFRAME_MISSING_U16) */
    uint8_t humidity;        /* %                   (SKYFRAME_MISSING_U8) */
    uint8_t weather_code;    /* WMO code 0..99      (SKYFRAME_MISSING_U8) */
    uint8_t cloud_cover;     /* %                   (SKYFRAME_MISSING_U8) */
    uint8_t uv_index;        /* 0.1                 (SKYFRAME_MISSING_U8) */
} skyframe_current;

typedef struct skyframe_hourly {
    int16_t temperature;        /* 0.1 degC (SKYFRAME_MISSING_I16) */
    uint8_t weather_code;       /* WMO      (SKYFRAME_MISSING_U8) */
    uint8_t precip_probability; /* %        (SKYFRAME_MISSING_U8) */
} skyframe_hourly;

typedef struct skyframe_daily {
    int16_t temperature_min;    /* 0.1 degC (SKYFRAME_MISSING_I16) */
    int16_t temperature_max;    /* 0.1 degC (SKYFRAME_MISSING_I16) */
    uint8_t weather_code;       /* WMO      (SKYFRAME_MISSING_U8) */
    uint8_t precip_probability; /* %        (SKYFRAME_MISSING_U8) */
} skyframe_daily;

typedef struct skyframe_frame {
    uint8_t version;        /* always SKYFRAME_FRAME_VERSION after a successful decode */
    uint8_t status;         /* SKYFRAME_STATUS_*; unknown values are kept as sent */
    uint16_t request_id;    /* echoed from the request, 0 if it had none */
    uint8_t slot_index;     /* which place of the request this frame answers, from 0 */
    uint8_t slot_count;     /* how many places the request named, >= 1 */
    uint8_t service;        /* SKYFRAME_SERVICE_*; unknown values are kept as sent */
    uint8_t is_day;         /* 1 day, 0 night, SKYFRAME_MISSING_U8 unknown (other bytes too) */
    uint8_t sun;            /* SKYFRAME_SUN_*, SKYFRAME_MISSING_U8 if missing or unknown */
    uint8_t hourly_step_h;  /* hours between hourly slots (1 or 3); 0 = no hourly data */
    int16_t utc_offset_min; /* place's offset from UTC, minutes, east positive (MISSING_I16) */
    int32_t latitude;       /* 1e-5 degree, north positive (SKYFRAME_MISSING_I32) */
    int32_t longitude;      /* 1e-5 degree, east positive  (SKYFRAME_MISSING_I32) */
    uint32_t observed_at;   /* Unix s, when the service observed "current" (0 = missing) */
    uint32_t fetched_at;    /* Unix s, when the gateway fetched it: the data's age (0 = missing) */
    uint32_t sunrise;       /* Unix s, today (0 = missing) */
    uint32_t sunset;        /* Unix s, today (0 = missing) */
    uint32_t hourly_start;  /* Unix s of hourly[0] (0 = missing) */
    uint16_t daily_start;   /* local date of daily[0], days since 1970-01-01 (MISSING_U16) */
    char country[3];        /* ISO 3166 alpha-2, upper case, "" if missing */
    char name[SKYFRAME_NAME_BYTES + 1]; /* UTF-8, NUL-terminated, "" if missing */
    skyframe_current current;
    skyframe_hourly hourly[SKYFRAME_HOURLY_COUNT]; /* hourly[i] at hourly_start + i*step h */
    skyframe_daily daily[SKYFRAME_DAILY_COUNT];    /* daily[0] is "today" at the place */
    uint32_t crc32;         /* the frame's CRC: equal CRC = identical frame (skip a redraw) */

    /* v1.1: wire values, 0 = absent (always 0 in a frame from a v1.0 gateway). A value the
     * spec says a decoder reads as absent is stored as 0 too. Use the helpers below. */
    uint16_t air_quality;     /* bit 15 scale, bits 0..14 index + 1 (skyframe_air_quality_*) */
    uint8_t alerts;           /* bits 0..2 highest severity 1..6, bits 3..7 count (_alert_*) */
    uint8_t moon;             /* 1..255: phase (moon - 1) / 255 of a synodic month (_moon_*) */
    uint8_t precip_next_hour; /* bit 7 precipitation now; bits 0..6 1..61 or 127 (_precip_*) */
    uint16_t next_update;     /* s until newer data is expected (65535: that long or longer) */
} skyframe_frame;

/* CRC-32/ISO-HDLC (zlib, PNG, Ethernet) of n bytes; 16-entry table, 64 bytes of flash. */
uint32_t skyframe_crc32(const uint8_t *p, size_t n);

/* Checks length, magic, version and CRC (in that order, like the Swift decoder), then fills
 * *out directly (no copy of the frame on the stack). Returns SKYFRAME_OK or a SKYFRAME_ERR_* code;
 * on error *out is left untouched. buf and out must not overlap. */
int skyframe_frame_decode(const uint8_t *buf, size_t len, skyframe_frame *out);

/* Names: never NULL. Unknown values give "unknown" (the v1.1 names below: "absent"). */
const char *skyframe_error_name(int err);          /* "crc_mismatch", ... */
const char *skyframe_status_name(uint8_t status);  /* "ok", "not_found", ... */
const char *skyframe_service_name(uint8_t service); /* "open-meteo", ... */
const char *skyframe_sun_name(uint8_t sun);        /* "normal", "polar_day", "polar_night" */

/* 1 if the frame carries weather (status ok or stale), else 0 (error frame). */
int skyframe_frame_has_weather(const skyframe_frame *f);

/* Seconds since the gateway fetched the data: now_unix - fetched_at. Returns -1 when unknown:
 * fetched_at missing, or now_unix before 2020-01-01 (device clock not set by SNTP yet).
 * A device clock slightly behind the gateway's gives 0, not a negative age. */
int32_t skyframe_frame_age_seconds(const skyframe_frame *f, uint32_t now_unix);

/* Unit conversions, integer only, rounded half away from zero. A missing input (sentinel)
 * gives the same sentinel back; results that do not fit saturate. */
int16_t skyframe_c10_to_f10(int16_t c10);          /* 0.1 degC -> 0.1 degF: 215 -> 707 */
uint16_t skyframe_ms10_to_kmh10(uint16_t ms10);    /* 0.1 m/s -> 0.1 km/h: 34 -> 122 */
uint16_t skyframe_ms10_to_mph10(uint16_t ms10);    /* 0.1 m/s -> 0.1 mph:  34 -> 76 */
uint16_t skyframe_ms10_to_knots10(uint16_t ms10);  /* 0.1 m/s -> 0.1 kn:   34 -> 66 */
uint16_t skyframe_hpa10_to_inhg100(uint16_t hpa10); /* 0.1 hPa -> 0.01 inHg: 10132 -> 2992 */
uint16_t skyframe_mm10_to_in100(uint16_t mm10);    /* 0.1 mm -> 0.01 in: 254 -> 100 */

/* Writes a wire value as decimal text with `decimals` digits after the point (0..5), e.g.
 * (-5, 1) -> "-0.5", (10132, 1) -> "1013.2", (2992, 2) -> "29.92", (5252000, 5) -> "52.52000".
 * No stdio. Returns the length, or -1 (and "" if size > 0) if out is too small; 13 bytes
 * always suffice. Check the sentinel first: this formats any number. */
int skyframe_format_fixed(char *out, size_t size, int32_t value, uint8_t decimals);

/* Local time at the place. Minutes after local midnight (0..1439) of a Unix time, e.g. for
 * sunrise: h = m / 60, min = m % 60. -1 if the time or the offset is missing. */
int16_t skyframe_local_minute_of_day(uint32_t unix_s, int16_t utc_offset_min);
/* Local date of a Unix time in days since 1970-01-01 (compare with daily_start: today's index in
 * daily[] is skyframe_local_day(now, off) - daily_start). -1 if time or offset is missing. */
int32_t skyframe_local_day(uint32_t unix_s, int16_t utc_offset_min);
/* Day of the week of a day number: 0 = Sunday .. 6 = Saturday (1970-01-01 was a Thursday). */
uint8_t skyframe_weekday(int32_t days);
/* Calendar date of a day number (proleptic Gregorian). Any pointer may be NULL. */
void skyframe_date_from_days(int32_t days, int32_t *year, uint8_t *month, uint8_t *day);

/* ---- v1.1 fields ------------------------------------------------------------------------------
 * All take the decoded frame and accept NULL. skyframe_has_*() return 1 or 0; the value helpers
 * return -1 when the field is absent, so "if (v >= 0) show(v)" is always safe. */

/* Air quality (byte 38, frame-v1.md 5.5). An index of 0 is the cleanest air, not "absent". */
#define SKYFRAME_AQI_EUROPEAN 0 /* European AQI (EEA/CAMS): 0-20 good ... 80-100 very poor, >100 */
#define SKYFRAME_AQI_US 1       /* US EPA AQI: 0-50 good ... 301+ hazardous (500 = top) */
int skyframe_has_air_quality(const skyframe_frame *f);
/* 0..999 (a decoder does not range-check: up to 32766 as sent), -1 absent */
int skyframe_air_quality_index(const skyframe_frame *f);
int skyframe_air_quality_scale(const skyframe_frame *f); /* SKYFRAME_AQI_*, -1 absent */
/* "european_aqi", "us_aqi"; any other value (-1 included) gives "absent". */
const char *skyframe_air_quality_scale_name(int scale);

/* Weather alerts in force at the place (byte 84, 5.6): how many and the highest severity. */
#define SKYFRAME_ALERT_NONE 1     /* no alert in force (count 0) */
#define SKYFRAME_ALERT_UNKNOWN 2  /* alerts in force, severity not given */
#define SKYFRAME_ALERT_MINOR 3
#define SKYFRAME_ALERT_MODERATE 4
#define SKYFRAME_ALERT_SEVERE 5
#define SKYFRAME_ALERT_EXTREME 6
#define SKYFRAME_ALERT_COUNT_MAX 31 /* a count of 31 means "31 or more" */
int skyframe_has_alerts(const skyframe_frame *f);     /* 1 also when none are in force */
int skyframe_alert_count(const skyframe_frame *f);    /* 0..31, -1 absent */
int skyframe_alert_severity(const skyframe_frame *f); /* SKYFRAME_ALERT_* 1..6, -1 absent */
/* "none", "unknown", "minor", "moderate", "severe", "extreme" for 1..6; any other value
 * (-1, and the 0 and 7 that are never sent) gives "absent" ("unknown" is a real severity). */
const char *skyframe_alert_severity_name(int severity);

/* Moon (byte 85, 5.7): the phase on the place's local date at 12:00 local time. */
#define SKYFRAME_MOON_NEW 0
#define SKYFRAME_MOON_WAXING_CRESCENT 1
#define SKYFRAME_MOON_FIRST_QUARTER 2
#define SKYFRAME_MOON_WAXING_GIBBOUS 3
#define SKYFRAME_MOON_FULL 4
#define SKYFRAME_MOON_WANING_GIBBOUS 5
#define SKYFRAME_MOON_LAST_QUARTER 6
#define SKYFRAME_MOON_WANING_CRESCENT 7
int skyframe_has_moon(const skyframe_frame *f);
/* One of 8 icons, SKYFRAME_MOON_*: round(phase * 8) mod 8 in integers (no phase is a tie).
 * -1 absent. */
int skyframe_moon_phase_icon(const skyframe_frame *f);
/* "new_moon", "waxing_crescent", "first_quarter", "waxing_gibbous", "full_moon",
 * "waning_gibbous", "last_quarter", "waning_crescent" for 0..7; any other value gives "absent". */
const char *skyframe_moon_phase_name(int icon);
/* Illuminated part of the disc, 0..100 %: round(100 * (1 - cos(2 pi phase)) / 2), computed
 * with 32-bit integers (no libm, no float). It is EXACT: equal to that formula for all 255
 * wire values (the self-test checks each against libm), never off by one. -1 absent. */
int skyframe_moon_illumination_pct(const skyframe_frame *f);

/* Precipitation in the next hour (byte 86, 5.8). */
#define SKYFRAME_PRECIP_NO_CHANGE (-2) /* skyframe_precip_change_in_min(): none within 60 min */
int skyframe_has_precip_next_hour(const skyframe_frame *f);
int skyframe_precip_now(const skyframe_frame *f); /* 1 rain/snow now, 0 dry now, -1 absent */
/* Minutes 0..60 until it starts (dry now) or stops (precipitation now), counted from
 * fetched_at (rounded up) to the start of the first data step that differs from now.
 * SKYFRAME_PRECIP_NO_CHANGE (-2) when it does not change within the next 60 minutes (a dry
 * hour, or it does not stop). -1 absent. */
int skyframe_precip_change_in_min(const skyframe_frame *f);

/* Next update (bytes 186-187, 6.9): seconds from sending until the gateway expects newer data
 * for the place (on stale, upstream_unavailable, rate_limited: when asking again may help).
 * A battery display may sleep that long. 1..65535 (65535 = that long or longer), -1 absent. */
int skyframe_has_next_update(const skyframe_frame *f);
int32_t skyframe_next_update_seconds(const skyframe_frame *f);

/* ---- Frame profiles: large, tiny and unchanged (schemas/frame-profiles.md) -------------------
 * A device that asked for another profile (request-v1.md 2.4, 3) receives `large` (960 bytes),
 * `tiny` (48 bytes) or, in place of a frame it already shows, `unchanged` (16 bytes). Byte 2 of
 * every message is its kind: profile in the high nibble, version in the low one (a standard
 * frame's `version` byte 1 is kind 0x01). skyframe_message_kind() says which message a payload
 * is; each decoder checks length, magic, kind and CRC, in that order, and then fills a struct of
 * native integers in WIRE units (as skyframe_frame: sentinels for missing values, text copied
 * with a terminating NUL). On error *out is left untouched. The error codes are the ones above:
 * SKYFRAME_ERR_BAD_VERSION ("unsupported_version") also stands for "byte 2 is not the kind this
 * decoder reads" (frame-profiles.md 1.1 calls it "unsupported kind"). Normalised as in
 * skyframe_frame_decode: is_day other than 0/1 and sun / daily sun above 2 read as
 * SKYFRAME_MISSING_U8, a country that is not two ASCII letters as "", air_quality, alerts and
 * precip_next_hour values frame-v1.md reads as absent as 0. */
#define SKYFRAME_PROFILES_VERSION 1 /* this header reads large, tiny, unchanged v1 (not on wire) */
#define SKYFRAME_KIND_OFFSET 2
#define SKYFRAME_KIND_STANDARD 0x01  /* frame v1, 192 bytes (its version byte) */
#define SKYFRAME_KIND_LARGE 0x11     /* 960 bytes */
#define SKYFRAME_KIND_TINY 0x21      /* 48 bytes */
#define SKYFRAME_KIND_UNCHANGED 0x31 /* 16 bytes */
#define SKYFRAME_LARGE_SIZE 960
#define SKYFRAME_TINY_SIZE 48
#define SKYFRAME_UNCHANGED_SIZE 16
/* Profile numbers (frame-profiles.md 1.2): requests and skyframe_unchanged.profile. */
#define SKYFRAME_PROFILE_STANDARD 0
#define SKYFRAME_PROFILE_LARGE 1
#define SKYFRAME_PROFILE_TINY 2
#define SKYFRAME_LARGE_HOURLY_COUNT 48
#define SKYFRAME_LARGE_DAILY_COUNT 8
#define SKYFRAME_LARGE_MINUTELY_COUNT 4  /* 15-minute steps of the next hour */
#define SKYFRAME_LARGE_ALERT_COUNT 3
#define SKYFRAME_LARGE_NAME_BYTES 48     /* UTF-8, zero padded; 48 bytes long: no NUL on wire */
#define SKYFRAME_ALERT_EVENT_BYTES 64    /* UTF-8, zero padded; 64 bytes long: no NUL on wire */
#define SKYFRAME_TINY_DAILY_COUNT 4
#define SKYFRAME_MISSING_I8 (-127 - 1)   /* int8_t fields of tiny (daily min/max, utc offset) */
#define SKYFRAME_HAS_I8(v) ((v) != SKYFRAME_MISSING_I8)

/* SKYFRAME_LARGE: 1 compiles the large profile's struct and decoder, 0 leaves them out. The
 * default is 1, except on AVR (__AVR__): an ATmega328P's 2 KB of RAM cannot hold a 960-byte
 * message and the decoded skyframe_large (about 1 KB) at once, and its MQTT client could not
 * receive it anyway. Define SKYFRAME_LARGE 1 before including the header for an AVR with more
 * RAM (ATmega2560: 8 KB). skyframe_message_kind() and skyframe_content_check() know large
 * messages either way (they need no RAM beyond the caller's buffer). */
#ifndef SKYFRAME_LARGE
#if defined(__AVR__)
#define SKYFRAME_LARGE 0
#else
#define SKYFRAME_LARGE 1
#endif
#endif

/* Which message a payload is, from its length and byte 2, after the magic: SKYFRAME_KIND_*
 * (> 0), or SKYFRAME_ERR_NULL; SKYFRAME_ERR_TRUNCATED / SKYFRAME_ERR_TOO_LONG when the length
 * is none of 16, 48, 192, 960 (compared with the size of the kind byte 2 names when the magic is
 * right and the kind known, else truncated below 960 and too long above it);
 * SKYFRAME_ERR_BAD_MAGIC; SKYFRAME_ERR_BAD_VERSION when byte 2 is not the kind of that length.
 * It does not check the CRC: the decoder it leads to does. */
int skyframe_message_kind(const uint8_t *bytes, size_t length);
/* "standard", "large", "tiny", "unchanged"; anything else "unknown". */
const char *skyframe_kind_name(int kind);
/* "standard", "large", "tiny" for 0..2 (frame-profiles.md 1.2); anything else "unknown". */
const char *skyframe_profile_name(uint8_t profile);

/* The content check (frame-profiles.md 5): CRC-32 of a standard, large or tiny frame's bytes
 * before its crc32 field, with request_id, slot_index, slot_count, fetched_at (and observed_at
 * in standard and large), next_update (and large's minutely_start) taken as zero. Equal checks:
 * nothing a display draws
 * has changed. Computed on the buffer itself (no copy; the zeroed bytes are fed as zeros).
 * Checks length, magic and kind as skyframe_message_kind() does, not the CRC: give it a frame
 * that decoded. Returns SKYFRAME_OK and *out, or an error code (SKYFRAME_ERR_BAD_VERSION for an
 * `unchanged` message, which has no content check); on error *out is left untouched. */
int skyframe_content_check(const uint8_t *bytes, size_t length, uint32_t *out);

#if SKYFRAME_LARGE
typedef struct skyframe_large_hourly {
    int16_t temperature;        /* 0.1 degC                          (SKYFRAME_MISSING_I16) */
    uint16_t precip_amount;     /* 0.1 mm in the step (3 h: 3 hours) (SKYFRAME_MISSING_U16) */
    uint8_t weather_code;       /* WMO                               (SKYFRAME_MISSING_U8) */
    uint8_t precip_probability; /* %                                 (SKYFRAME_MISSING_U8) */
    uint8_t wind_speed;         /* 0.5 m/s, 254 = 127 m/s or more    (SKYFRAME_MISSING_U8) */
    uint8_t wind_gust;          /* 0.5 m/s, 254 = 127 m/s or more    (SKYFRAME_MISSING_U8) */
} skyframe_large_hourly;

typedef struct skyframe_large_daily {
    uint32_t sunrise;           /* Unix s (0 = missing; always 0 on a polar day or night) */
    uint32_t sunset;            /* Unix s (0 = missing; always 0 on a polar day or night) */
    int16_t temperature_min;    /* 0.1 degC                   (SKYFRAME_MISSING_I16) */
    int16_t temperature_max;    /* 0.1 degC                   (SKYFRAME_MISSING_I16) */
    uint16_t precip_sum;        /* 0.1 mm, the day's total    (SKYFRAME_MISSING_U16) */
    uint8_t weather_code;       /* WMO                        (SKYFRAME_MISSING_U8) */
    uint8_t precip_probability; /* %                          (SKYFRAME_MISSING_U8) */
    uint8_t uv_max;             /* 0.1, the day's highest UV  (SKYFRAME_MISSING_U8) */
    uint8_t wind_max;           /* 0.5 m/s, 254 = 127 or more (SKYFRAME_MISSING_U8) */
    uint8_t sun;                /* SKYFRAME_SUN_* of the day  (SKYFRAME_MISSING_U8) */
} skyframe_large_daily;

typedef struct skyframe_large_alert {
    uint32_t onset;    /* Unix s; 0 = unknown: in force since before fetched_at */
    uint32_t end;      /* Unix s; 0 = unknown: until further notice */
    uint8_t severity;  /* SKYFRAME_ALERT_UNKNOWN .. SKYFRAME_ALERT_EXTREME; 0 = empty entry */
    char event[SKYFRAME_ALERT_EVENT_BYTES + 1]; /* UTF-8 event name, NUL-terminated, "" if none */
} skyframe_large_alert;

/* frame-profiles.md 2. About 900 bytes (908 on 32-bit Arm and x86-64): keep it static or global
 * on a small MCU, not on the stack. */
typedef struct skyframe_large {
    uint8_t kind;           /* always SKYFRAME_KIND_LARGE after a successful decode */
    uint8_t status;         /* SKYFRAME_STATUS_*; unknown values are kept as sent */
    uint16_t request_id;
    uint8_t slot_index;
    uint8_t slot_count;
    uint8_t service;        /* SKYFRAME_SERVICE_* */
    uint8_t is_day;         /* 1 day, 0 night, SKYFRAME_MISSING_U8 unknown */
    uint8_t sun;            /* day 0: equals daily[0].sun */
    uint8_t hourly_step_h;  /* hours between hourly steps (1 or 3); 0 = no hourly data */
    int16_t utc_offset_min; /* minutes, east positive (SKYFRAME_MISSING_I16) */
    int32_t latitude;       /* 1e-5 degree (SKYFRAME_MISSING_I32) */
    int32_t longitude;      /* 1e-5 degree (SKYFRAME_MISSING_I32) */
    uint32_t observed_at;   /* Unix s (0 = missing) */
    uint32_t fetched_at;    /* Unix s (0 = missing) */
    uint32_t hourly_start;  /* Unix s of hourly[0] (0 = missing) */
    uint32_t sunrise;       /* day 0: equals daily[0].sunrise */
    uint32_t sunset;        /* day 0: equals daily[0].sunset */
    uint16_t daily_start;   /* local date of daily[0], days since 1970-01-01 (MISSING_U16) */
    char country[3];        /* ISO 3166 alpha-2, upper case, "" if missing */
    char name[SKYFRAME_LARGE_NAME_BYTES + 1]; /* UTF-8, NUL-terminated; error frames: reason */
    skyframe_current current;
    int16_t dew_point;      /* 0.1 degC, the service's dew point at 2 m (SKYFRAME_MISSING_I16) */
    /* wire values as in skyframe_frame, 0 = absent (frame-v1.md 5.5-5.8, 6.9) */
    uint16_t air_quality;
    uint8_t alerts;         /* count and highest severity of ALL alerts in force */
    uint8_t moon;
    uint8_t precip_next_hour;
    uint16_t next_update;
    skyframe_large_hourly hourly[SKYFRAME_LARGE_HOURLY_COUNT];
    skyframe_large_daily daily[SKYFRAME_LARGE_DAILY_COUNT];
    uint32_t minutely_start; /* Unix s of minutely_precip[0], a multiple of 900 (0 = none) */
    uint8_t minutely_precip[SKYFRAME_LARGE_MINUTELY_COUNT]; /* 0.1 mm per 15 min (MISSING_U8) */
    skyframe_large_alert alert[SKYFRAME_LARGE_ALERT_COUNT]; /* worst first; see severity */
    uint32_t crc32;
} skyframe_large;

int skyframe_large_decode(const uint8_t *buf, size_t len, skyframe_large *out);
#endif /* SKYFRAME_LARGE */

typedef struct skyframe_tiny_daily {
    int8_t temperature_min;     /* 1 degC (SKYFRAME_MISSING_I8) */
    int8_t temperature_max;     /* 1 degC (SKYFRAME_MISSING_I8) */
    uint8_t weather_code;       /* WMO    (SKYFRAME_MISSING_U8) */
    uint8_t precip_probability; /* %      (SKYFRAME_MISSING_U8) */
} skyframe_tiny_daily;

/* frame-profiles.md 3 */
typedef struct skyframe_tiny {
    uint8_t kind;             /* always SKYFRAME_KIND_TINY after a successful decode */
    uint8_t status;           /* SKYFRAME_STATUS_*; unknown values are kept as sent */
    uint16_t request_id;
    uint8_t slot_index;
    uint8_t slot_count;
    uint8_t weather_code;     /* WMO (SKYFRAME_MISSING_U8) */
    uint8_t is_day;           /* 1 day, 0 night, SKYFRAME_MISSING_U8 unknown */
    uint8_t wind_speed;       /* 0.5 m/s, 254 = 127 m/s or more (SKYFRAME_MISSING_U8) */
    uint8_t wind_gust;        /* 0.5 m/s, 254 = 127 m/s or more (SKYFRAME_MISSING_U8) */
    uint8_t wind_direction;   /* 2 degrees FROM: 0..179 is 0..358 deg (SKYFRAME_MISSING_U8) */
    int8_t utc_offset_15min;  /* quarter hours, east positive (SKYFRAME_MISSING_I8) */
    uint8_t humidity;         /* % (SKYFRAME_MISSING_U8) */
    uint8_t uv_index;         /* 0.1 (SKYFRAME_MISSING_U8) */
    /* wire values as in skyframe_frame, 0 = absent (frame-v1.md 5.5, 5.6, 5.8, 6.9) */
    uint8_t alerts;
    uint8_t precip_next_hour;
    int16_t temperature;      /* 0.1 degC (SKYFRAME_MISSING_I16) */
    uint16_t air_quality;
    uint16_t next_update;
    uint32_t fetched_at;      /* Unix s (0 = missing); local time: skyframe_tiny_utc_offset_min */
    skyframe_tiny_daily daily[SKYFRAME_TINY_DAILY_COUNT]; /* daily[0] is "today" at the place */
    uint32_t crc32;
} skyframe_tiny;

int skyframe_tiny_decode(const uint8_t *buf, size_t len, skyframe_tiny *out);
/* utc_offset_15min in minutes (x 15), or SKYFRAME_MISSING_I16, for skyframe_local_*():
 * skyframe_local_minute_of_day(t.fetched_at, skyframe_tiny_utc_offset_min(&t)). NULL: missing. */
int16_t skyframe_tiny_utc_offset_min(const skyframe_tiny *t);

/* frame-profiles.md 4: "the frame you show for this slot is still right". */
typedef struct skyframe_unchanged {
    uint8_t kind;        /* always SKYFRAME_KIND_UNCHANGED after a successful decode */
    uint8_t profile;     /* SKYFRAME_PROFILE_* asked for; kept as sent */
    uint16_t request_id;
    uint8_t slot_index;  /* the slot whose frame is unchanged */
    uint8_t slot_count;
    uint16_t next_update; /* s until newer data is expected, as the frame would carry; 0 = none */
    uint32_t crc32;
} skyframe_unchanged;

int skyframe_unchanged_decode(const uint8_t *buf, size_t len, skyframe_unchanged *out);

/* ---- Binary request v1 (64 bytes), published to skyframe/v1/req/{device} ------------------
 * The text form ("52.52,13.41", "Berlin,DE", "#7 Berlin;Paris", "refresh") is simpler; it may be
 * published with or without its terminating NUL (strlen(text) or strlen(text) + 1 bytes: one
 * NUL at the very end is not part of the request, request-v1.md 2.2). These build the fixed
 * binary form for devices that prefer it; it is always exactly 64 bytes, never followed by a
 * NUL. Return SKYFRAME_OK, or SKYFRAME_ERR_NULL / SKYFRAME_ERR_RANGE (out is then
 * unspecified). */
#define SKYFRAME_REQUEST_SIZE 64
#define SKYFRAME_REQUEST_NAME_BYTES 40
#define SKYFRAME_REQUEST_KIND_COORDINATES 1
#define SKYFRAME_REQUEST_KIND_NAME 2
#define SKYFRAME_REQUEST_KIND_REFRESH 3
/* lat_e5/lon_e5 in 1e-5 degree: 52.52 N 13.405 E is 5252000, 1340500. */
int skyframe_request_coordinates(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id,
                                 int32_t lat_e5, int32_t lon_e5);
/* name: 1..40 bytes UTF-8 without control characters or leading/trailing space (UTF-8 validity
 * is left to the gateway); country: NULL, "" or two ASCII letters in either case. */
int skyframe_request_place(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id,
                           const char *name, const char *country);
int skyframe_request_refresh(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id);
/* Profile and content check (request-v1.md 3, frame-profiles.md 7) for a request the functions
 * above built (they write profile 0, standard, and no check); each writes the CRC again and
 * leaves out unchanged on error (SKYFRAME_ERR_RANGE also when out is not a request v1). */
#define SKYFRAME_REQUEST_FLAG_CHECK 0x01     /* byte 7 bit 0: bytes 56..59 hold a check */
#define SKYFRAME_REQUEST_CHECK_NAME_BYTES 36 /* a place name with a check: at most 36 bytes */
/* Byte 6 = profile of the answer: SKYFRAME_PROFILE_STANDARD, _LARGE or _TINY (else RANGE). */
int skyframe_request_set_profile(uint8_t out[SKYFRAME_REQUEST_SIZE], uint8_t profile);
/* Byte 7 bit 0 set and bytes 56..59 = check: the skyframe_content_check() of the frame the
 * device shows for the place (any profile), so that the gateway answers `unchanged` while it
 * is still right. A second call replaces the check. SKYFRAME_ERR_RANGE for a place name longer
 * than 36 bytes (bytes 56..59 are in use). Refresh requests may carry one too. */
int skyframe_request_set_check(uint8_t out[SKYFRAME_REQUEST_SIZE], uint32_t check);

/* ---- LoRaWAN uplink request v1 (schemas/lorawan-uplink-v1.md), at most 10 bytes ------------
 * The payload a LoRaWAN display sends up (it fits US915 DR0's 11 bytes); the gateway answers
 * with one downlink: a tiny frame, unchanged, or a tiny error frame. Byte 0: version 1 in bits
 * 7..5, bit 4 when the 4-byte content check ends the payload, the kind in bits 3..0; byte 1 the
 * request id (0..255, echoed by the answer); then the kind's body and the check. check: NULL,
 * or the skyframe_content_check() of the tiny frame the device shows for the place (so that the
 * gateway answers `unchanged` while it is still right). Each writes byte by byte (any alignment)
 * and returns the number of bytes to send (2..10), or SKYFRAME_ERR_NULL / SKYFRAME_ERR_RANGE
 * (out is then unchanged). */
#define SKYFRAME_UPLINK_MAX_SIZE 10
#define SKYFRAME_UPLINK_VERSION 1
#define SKYFRAME_UPLINK_KIND_COORDINATES 1
#define SKYFRAME_UPLINK_KIND_PLACE 2
#define SKYFRAME_UPLINK_KIND_REFRESH 3
#define SKYFRAME_UPLINK_FLAG_CHECK 0x10 /* byte 0 bit 4 */
/* lat_e5/lon_e5 in 1e-5 degree (as skyframe_request_coordinates), sent rounded half away from
 * zero to 0.01 degree (the gateway's cache cell): 5252499 -> 52.52, 1340500 -> 13.41. */
int skyframe_uplink_coordinates(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id,
                                int32_t lat_e5, int32_t lon_e5, const uint32_t *check);
/* index: one of the places configured for the device at the gateway, from 0. */
int skyframe_uplink_place(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id, uint8_t index,
                          const uint32_t *check);
/* The device's last request again (nothing remembered: its place 0, else the receiving
 * gateway's location as the network server reports it). */
int skyframe_uplink_refresh(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id,
                            const uint32_t *check);

#ifdef __cplusplus
}
#endif

#endif /* SKYFRAME_FRAME_H */

/* =============================================================================================
 * Implementation
 * ============================================================================================= */
#ifdef SKYFRAME_FRAME_IMPLEMENTATION
#ifndef SKYFRAME_FRAME_IMPLEMENTATION_DONE
#define SKYFRAME_FRAME_IMPLEMENTATION_DONE

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wire offsets of frame v1 (FrameLayout.swift). */
enum {
    SKYFRAME_OFF_MAGIC = 0, SKYFRAME_OFF_VERSION = 2, SKYFRAME_OFF_STATUS = 3,
    SKYFRAME_OFF_REQUEST_ID = 4, SKYFRAME_OFF_SLOT_INDEX = 6, SKYFRAME_OFF_SLOT_COUNT = 7,
    SKYFRAME_OFF_SERVICE = 8, SKYFRAME_OFF_IS_DAY = 9, SKYFRAME_OFF_SUN = 10,
    SKYFRAME_OFF_HOURLY_STEP = 11, SKYFRAME_OFF_LATITUDE = 12, SKYFRAME_OFF_LONGITUDE = 16,
    SKYFRAME_OFF_OBSERVED_AT = 20, SKYFRAME_OFF_FETCHED_AT = 24, SKYFRAME_OFF_HOURLY_START = 28,
    SKYFRAME_OFF_UTC_OFFSET = 32, SKYFRAME_OFF_DAILY_START = 34, SKYFRAME_OFF_COUNTRY = 36,
    SKYFRAME_OFF_AIR_QUALITY = 38,         /* v1.1, u16 */
    SKYFRAME_OFF_NAME = 40,
    SKYFRAME_OFF_TEMPERATURE = 64, SKYFRAME_OFF_FEELS_LIKE = 66, SKYFRAME_OFF_PRESSURE = 68,
    SKYFRAME_OFF_WIND_SPEED = 70, SKYFRAME_OFF_WIND_GUST = 72, SKYFRAME_OFF_WIND_DIRECTION = 74,
    SKYFRAME_OFF_VISIBILITY = 76, SKYFRAME_OFF_PRECIPITATION = 78, SKYFRAME_OFF_HUMIDITY = 80,
    SKYFRAME_OFF_WEATHER_CODE = 81, SKYFRAME_OFF_CLOUD_COVER = 82, SKYFRAME_OFF_UV_INDEX = 83,
    SKYFRAME_OFF_ALERTS = 84, SKYFRAME_OFF_MOON = 85, SKYFRAME_OFF_PRECIP_NEXT_HOUR = 86, /* v1.1 */
    /* 87 reserved */
    SKYFRAME_OFF_SUNRISE = 88, SKYFRAME_OFF_SUNSET = 92,
    SKYFRAME_OFF_HOURLY_TEMPERATURE = 96,  /* 12 x i16 */
    SKYFRAME_OFF_HOURLY_CODE = 120,        /* 12 x u8 */
    SKYFRAME_OFF_HOURLY_PRECIP = 132,      /* 12 x u8 */
    SKYFRAME_OFF_DAILY_MIN = 144,          /* 7 x i16 */
    SKYFRAME_OFF_DAILY_MAX = 158,          /* 7 x i16 */
    SKYFRAME_OFF_DAILY_CODE = 172,         /* 7 x u8 */
    SKYFRAME_OFF_DAILY_PRECIP = 179,       /* 7 x u8 */
    SKYFRAME_OFF_NEXT_UPDATE = 186         /* v1.1, u16; 188 CRC */
};

static uint16_t skyframe_priv_u16(const uint8_t *p) {
    return (uint16_t)((uint16_t)p[0] | (uint16_t)((uint16_t)p[1] << 8));
}
static int16_t skyframe_priv_i16(const uint8_t *p) {
    uint16_t v = skyframe_priv_u16(p);
    /* two's complement without implementation-defined conversions */
    return v >= 0x8000u ? (int16_t)((int32_t)v - 65536) : (int16_t)v;
}
/* Byte by byte, so that any buffer address works. GCC may merge the four loads into one word
 * load; on a core that traps unaligned access (Cortex-M3/M4/M7 with SCB->CCR.UNALIGN_TRP set)
 * build with -mno-unaligned-access, or hand the decoder a 4-byte-aligned buffer. */
static uint32_t skyframe_priv_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static int32_t skyframe_priv_i32(const uint8_t *p) {
    uint32_t v = skyframe_priv_u32(p);
    return v >= 0x80000000UL ? -(int32_t)(~v) - 1 : (int32_t)v;
}
static void skyframe_priv_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)(v >> 8);
}
static void skyframe_priv_put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)((v >> 8) & 0xFFu);
    p[2] = (uint8_t)((v >> 16) & 0xFFu);
    p[3] = (uint8_t)((v >> 24) & 0xFFu);
}

/* v1.1 values a decoder reads as absent (frame-v1.md 5.5, 5.6, 5.8): 0, an air quality with
 * bits 0..14 zero, an alert severity of 0 or 7, a precipitation time other than 1..61 and 127. */
static int skyframe_priv_aqi_ok(uint16_t v) { return (v & 0x7FFFu) != 0; }
static int skyframe_priv_alerts_ok(uint8_t v) {
    return (v & 0x07u) >= SKYFRAME_ALERT_NONE && (v & 0x07u) <= SKYFRAME_ALERT_EXTREME;
}
static int skyframe_priv_precip_ok(uint8_t v) {
    uint8_t m = (uint8_t)(v & 0x7Fu);
    return (m >= 1u && m <= 61u) || m == 127u;
}

static int8_t skyframe_priv_i8(uint8_t b) {
    return b >= 0x80u ? (int8_t)((int)b - 256) : (int8_t)b;
}
/* frame-v1.md 5.3, 5.4: the v1 decoder reads any other is_day or sun value as unknown. */
static uint8_t skyframe_priv_is_day(uint8_t b) {
    return (b == 0 || b == 1) ? b : (uint8_t)SKYFRAME_MISSING_U8;
}
static uint8_t skyframe_priv_sun(uint8_t b) {
    return b <= SKYFRAME_SUN_POLAR_NIGHT ? b : (uint8_t)SKYFRAME_MISSING_U8;
}
/* v1.1-style fields: what frame-v1.md reads as absent becomes 0. */
static uint16_t skyframe_priv_aqi(uint16_t v) { return skyframe_priv_aqi_ok(v) ? v : (uint16_t)0; }
static uint8_t skyframe_priv_alerts(uint8_t v) { return skyframe_priv_alerts_ok(v) ? v : (uint8_t)0; }
static uint8_t skyframe_priv_precip(uint8_t v) { return skyframe_priv_precip_ok(v) ? v : (uint8_t)0; }
/* Two ASCII letters, upper-cased, into out[3]; anything else (0 0 included) gives "". */
static void skyframe_priv_country(const uint8_t *p, char *out) {
    int i;
    for (i = 0; i < 2; i++) {
        uint8_t b = p[i];
        if (b >= 'a' && b <= 'z') b = (uint8_t)(b - 32);
        if (b < 'A' || b > 'Z') {
            out[0] = out[1] = out[2] = '\0';
            return;
        }
        out[i] = (char)b;
    }
    out[2] = '\0';
}
/* The bytes before the first zero, at most n, into out[n + 1] with a NUL (UTF-8 kept as sent). */
static void skyframe_priv_text(const uint8_t *p, size_t n, char *out) {
    size_t i;
    for (i = 0; i < n && p[i] != 0; i++) out[i] = (char)p[i];
    out[i] = '\0';
}

/* The CRC register after n more bytes: p[0..n-1], or n zero bytes when p is NULL (the content
 * check's zeroed fields, without a copy of the frame). */
static uint32_t skyframe_priv_crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
    /* Reflected polynomial 0xEDB88320, one entry per nibble value. */
    static const uint32_t table[16] = {
        0x00000000UL, 0x1DB71064UL, 0x3B6E20C8UL, 0x26D930ACUL, 0x76DC4190UL, 0x6B6B51F4UL,
        0x4DB26158UL, 0x5005713CUL, 0xEDB88320UL, 0xF00F9344UL, 0xD6D6A3E8UL, 0xCB61B38CUL,
        0x9B64C2B0UL, 0x86D3D2D4UL, 0xA00AE278UL, 0xBDBDF21CUL};
    size_t i;
    for (i = 0; i < n; i++) {
        if (p != NULL) crc ^= p[i];
        crc = (crc >> 4) ^ table[crc & 0x0Fu];
        crc = (crc >> 4) ^ table[crc & 0x0Fu];
    }
    return crc;
}

uint32_t skyframe_crc32(const uint8_t *p, size_t n) {
    if (p == NULL) return 0;
    return skyframe_priv_crc32_update(0xFFFFFFFFUL, p, n) ^ 0xFFFFFFFFUL;
}

int skyframe_frame_decode(const uint8_t *buf, size_t len, skyframe_frame *out) {
    uint32_t stored;
    int i;

    if (buf == NULL || out == NULL) return SKYFRAME_ERR_NULL;
    if (len < SKYFRAME_FRAME_SIZE) return SKYFRAME_ERR_TRUNCATED;
    if (len > SKYFRAME_FRAME_SIZE) return SKYFRAME_ERR_TOO_LONG;
    if (buf[0] != SKYFRAME_FRAME_MAGIC0 || buf[1] != SKYFRAME_FRAME_MAGIC1)
        return SKYFRAME_ERR_BAD_MAGIC;
    if (buf[SKYFRAME_OFF_VERSION] != SKYFRAME_FRAME_VERSION) return SKYFRAME_ERR_BAD_VERSION;
    stored = skyframe_priv_u32(buf + SKYFRAME_CRC_OFFSET);
    if (stored != skyframe_crc32(buf, SKYFRAME_CRC_OFFSET)) return SKYFRAME_ERR_CRC;

    /* Every check passed: from here on the fields go straight into *out (no copy on the stack). */
    memset(out, 0, sizeof *out);
    out->version = buf[SKYFRAME_OFF_VERSION];
    out->status = buf[SKYFRAME_OFF_STATUS];
    out->request_id = skyframe_priv_u16(buf + SKYFRAME_OFF_REQUEST_ID);
    out->slot_index = buf[SKYFRAME_OFF_SLOT_INDEX];
    out->slot_count = buf[SKYFRAME_OFF_SLOT_COUNT];
    out->service = buf[SKYFRAME_OFF_SERVICE];
    out->is_day = skyframe_priv_is_day(buf[SKYFRAME_OFF_IS_DAY]);
    out->sun = skyframe_priv_sun(buf[SKYFRAME_OFF_SUN]);
    out->hourly_step_h = buf[SKYFRAME_OFF_HOURLY_STEP];
    out->latitude = skyframe_priv_i32(buf + SKYFRAME_OFF_LATITUDE);
    out->longitude = skyframe_priv_i32(buf + SKYFRAME_OFF_LONGITUDE);
    out->observed_at = skyframe_priv_u32(buf + SKYFRAME_OFF_OBSERVED_AT);
    out->fetched_at = skyframe_priv_u32(buf + SKYFRAME_OFF_FETCHED_AT);
    out->hourly_start = skyframe_priv_u32(buf + SKYFRAME_OFF_HOURLY_START);
    out->utc_offset_min = skyframe_priv_i16(buf + SKYFRAME_OFF_UTC_OFFSET);
    out->daily_start = skyframe_priv_u16(buf + SKYFRAME_OFF_DAILY_START);

    /* Country: two ASCII letters, upper-cased; anything else (0 0 included) is missing. */
    skyframe_priv_country(buf + SKYFRAME_OFF_COUNTRY, out->country);
    /* Name: the bytes before the first zero, at most 24; kept as sent (UTF-8 not validated). */
    skyframe_priv_text(buf + SKYFRAME_OFF_NAME, SKYFRAME_NAME_BYTES, out->name);

    out->current.temperature = skyframe_priv_i16(buf + SKYFRAME_OFF_TEMPERATURE);
    out->current.feels_like = skyframe_priv_i16(buf + SKYFRAME_OFF_FEELS_LIKE);
    out->current.pressure = skyframe_priv_u16(buf + SKYFRAME_OFF_PRESSURE);
    out->current.wind_speed = skyframe_priv_u16(buf + SKYFRAME_OFF_WIND_SPEED);
    out->current.wind_gust = skyframe_priv_u16(buf + SKYFRAME_OFF_WIND_GUST);
    out->current.wind_direction = skyframe_priv_u16(buf + SKYFRAME_OFF_WIND_DIRECTION);
    out->current.visibility = skyframe_priv_u16(buf + SKYFRAME_OFF_VISIBILITY);
    out->current.precipitation = skyframe_priv_u16(buf + SKYFRAME_OFF_PRECIPITATION);
    out->current.humidity = buf[SKYFRAME_OFF_HUMIDITY];
    out->current.weather_code = buf[SKYFRAME_OFF_WEATHER_CODE];
    out->current.cloud_cover = buf[SKYFRAME_OFF_CLOUD_COVER];
    out->current.uv_index = buf[SKYFRAME_OFF_UV_INDEX];
    out->sunrise = skyframe_priv_u32(buf + SKYFRAME_OFF_SUNRISE);
    out->sunset = skyframe_priv_u32(buf + SKYFRAME_OFF_SUNSET);

    for (i = 0; i < SKYFRAME_HOURLY_COUNT; i++) {
        out->hourly[i].temperature = skyframe_priv_i16(buf + SKYFRAME_OFF_HOURLY_TEMPERATURE + 2 * i);
        out->hourly[i].weather_code = buf[SKYFRAME_OFF_HOURLY_CODE + i];
        out->hourly[i].precip_probability = buf[SKYFRAME_OFF_HOURLY_PRECIP + i];
    }
    for (i = 0; i < SKYFRAME_DAILY_COUNT; i++) {
        out->daily[i].temperature_min = skyframe_priv_i16(buf + SKYFRAME_OFF_DAILY_MIN + 2 * i);
        out->daily[i].temperature_max = skyframe_priv_i16(buf + SKYFRAME_OFF_DAILY_MAX + 2 * i);
        out->daily[i].weather_code = buf[SKYFRAME_OFF_DAILY_CODE + i];
        out->daily[i].precip_probability = buf[SKYFRAME_OFF_DAILY_PRECIP + i];
    }

    /* v1.1: 0 in a v1.0 frame = absent; values the spec reads as absent are stored as 0 */
    out->air_quality = skyframe_priv_aqi(skyframe_priv_u16(buf + SKYFRAME_OFF_AIR_QUALITY));
    out->alerts = skyframe_priv_alerts(buf[SKYFRAME_OFF_ALERTS]);
    out->moon = buf[SKYFRAME_OFF_MOON];
    out->precip_next_hour = skyframe_priv_precip(buf[SKYFRAME_OFF_PRECIP_NEXT_HOUR]);
    out->next_update = skyframe_priv_u16(buf + SKYFRAME_OFF_NEXT_UPDATE);
    out->crc32 = stored;
    return SKYFRAME_OK;
}

const char *skyframe_error_name(int err) {
    switch (err) {
    case SKYFRAME_OK: return "ok";
    case SKYFRAME_ERR_TRUNCATED: return "truncated";
    case SKYFRAME_ERR_TOO_LONG: return "too_long";
    case SKYFRAME_ERR_BAD_MAGIC: return "bad_magic";
    case SKYFRAME_ERR_BAD_VERSION: return "unsupported_version";
    case SKYFRAME_ERR_CRC: return "crc_mismatch";
    case SKYFRAME_ERR_NULL: return "null_argument";
    case SKYFRAME_ERR_RANGE: return "out_of_range";
    default: return "unknown";
    }
}

const char *skyframe_status_name(uint8_t status) {
    switch (status) {
    case SKYFRAME_STATUS_OK: return "ok";
    case SKYFRAME_STATUS_STALE: return "stale";
    case SKYFRAME_STATUS_NOT_FOUND: return "not_found";
    case SKYFRAME_STATUS_BAD_REQUEST: return "bad_request";
    case SKYFRAME_STATUS_UPSTREAM_UNAVAILABLE: return "upstream_unavailable";
    case SKYFRAME_STATUS_RATE_LIMITED: return "rate_limited";
    case SKYFRAME_STATUS_TOO_MANY_LOCATIONS: return "too_many_locations";
    case SKYFRAME_STATUS_INTERNAL_ERROR: return "internal_error";
    default: return "unknown";
    }
}

const char *skyframe_service_name(uint8_t service) {
    switch (service) {
    case SKYFRAME_SERVICE_NONE: return "none";
    case SKYFRAME_SERVICE_OPEN_METEO: return "open-meteo";
    case SKYFRAME_SERVICE_OPENWEATHERMAP: return "openweathermap";
    case SKYFRAME_SERVICE_WEATHERAPI: return "weatherapi";
    case SKYFRAME_SERVICE_MET_NORWAY: return "met-norway";
    default: return "unknown";
    }
}

const char *skyframe_sun_name(uint8_t sun) {
    switch (sun) {
    case SKYFRAME_SUN_NORMAL: return "normal";
    case SKYFRAME_SUN_POLAR_DAY: return "polar_day";
    case SKYFRAME_SUN_POLAR_NIGHT: return "polar_night";
    default: return "unknown";
    }
}

int skyframe_frame_has_weather(const skyframe_frame *f) {
    return f != NULL && (f->status == SKYFRAME_STATUS_OK || f->status == SKYFRAME_STATUS_STALE);
}

int32_t skyframe_frame_age_seconds(const skyframe_frame *f, uint32_t now_unix) {
    uint32_t age;
    if (f == NULL || f->fetched_at == SKYFRAME_MISSING_TIME) return -1;
    if (now_unix < 1577836800UL) return -1; /* 2020-01-01T00:00Z: clock not set */
    if (now_unix <= f->fetched_at) return 0;
    age = now_unix - f->fetched_at;
    return age > 0x7FFFFFFFUL ? (int32_t)0x7FFFFFFFL : (int32_t)age;
}

/* n / d rounded half away from zero, d > 0. */
static int32_t skyframe_priv_div_round(int32_t n, int32_t d) {
    return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}
static uint16_t skyframe_priv_scale_u16(uint16_t v, uint32_t mul, uint32_t div) {
    uint32_t r;
    if (v == SKYFRAME_MISSING_U16) return (uint16_t)SKYFRAME_MISSING_U16;
    r = ((uint32_t)v * mul + div / 2u) / div; /* v * mul < 2^32 for every mul used here */
    return r >= 0xFFFFUL ? (uint16_t)0xFFFEu : (uint16_t)r;
}

int16_t skyframe_c10_to_f10(int16_t c10) {
    int32_t f10;
    if (c10 == SKYFRAME_MISSING_I16) return (int16_t)SKYFRAME_MISSING_I16;
    f10 = skyframe_priv_div_round((int32_t)c10 * 9, 5) + 320;
    if (f10 > 32767) f10 = 32767;
    if (f10 < -32767) f10 = -32767;
    return (int16_t)f10;
}
uint16_t skyframe_ms10_to_kmh10(uint16_t ms10) { return skyframe_priv_scale_u16(ms10, 36u, 10u); }
uint16_t skyframe_ms10_to_mph10(uint16_t ms10) {
    return skyframe_priv_scale_u16(ms10, 22369UL, 10000UL); /* 1 m/s = 2.23694 mph */
}
uint16_t skyframe_ms10_to_knots10(uint16_t ms10) {
    return skyframe_priv_scale_u16(ms10, 19438UL, 10000UL); /* 1 m/s = 1.94384 kn */
}
uint16_t skyframe_hpa10_to_inhg100(uint16_t hpa10) {
    return skyframe_priv_scale_u16(hpa10, 2953UL, 10000UL); /* 1 hPa = 0.02953 inHg */
}
uint16_t skyframe_mm10_to_in100(uint16_t mm10) {
    return skyframe_priv_scale_u16(mm10, 3937UL, 10000UL); /* 1 mm = 0.03937 in */
}

int skyframe_format_fixed(char *out, size_t size, int32_t value, uint8_t decimals) {
    char digits[12]; /* reversed */
    uint32_t mag = value < 0 ? (uint32_t)0 - (uint32_t)value : (uint32_t)value;
    size_t n = 0, len, i = 0;
    if (out == NULL) return -1;
    if (decimals > 5) decimals = 5;
    do {
        digits[n++] = (char)('0' + (char)(mag % 10u));
        mag /= 10u;
    } while (mag != 0 || n <= decimals); /* at least one digit before the point */
    len = n + (value < 0 ? 1u : 0u) + (decimals > 0 ? 1u : 0u);
    if (len + 1 > size) {
        if (size > 0) out[0] = '\0';
        return -1;
    }
    if (value < 0) out[i++] = '-';
    while (n > 0) {
        if (n == decimals) out[i++] = '.';
        out[i++] = digits[--n];
    }
    out[i] = '\0';
    return (int)i;
}

int16_t skyframe_local_minute_of_day(uint32_t unix_s, int16_t utc_offset_min) {
    int32_t m;
    if (unix_s == SKYFRAME_MISSING_TIME || utc_offset_min == SKYFRAME_MISSING_I16) return -1;
    m = (int32_t)((unix_s / 60UL) % 1440UL) + (int32_t)utc_offset_min;
    m %= 1440;
    if (m < 0) m += 1440;
    return (int16_t)m;
}

int32_t skyframe_local_day(uint32_t unix_s, int16_t utc_offset_min) {
    int32_t day, sec;
    if (unix_s == SKYFRAME_MISSING_TIME || utc_offset_min == SKYFRAME_MISSING_I16) return -1;
    day = (int32_t)(unix_s / 86400UL);
    sec = (int32_t)(unix_s % 86400UL) + (int32_t)utc_offset_min * 60;
    while (sec < 0) { sec += 86400; day--; }
    while (sec >= 86400) { sec -= 86400; day++; }
    return day;
}

uint8_t skyframe_weekday(int32_t days) {
    int32_t w = (days % 7 + 4) % 7; /* 1970-01-01 was a Thursday (4) */
    if (w < 0) w += 7;
    return (uint8_t)w;
}

void skyframe_date_from_days(int32_t days, int32_t *year, uint8_t *month, uint8_t *day) {
    /* Howard Hinnant's civil_from_days in 32-bit arithmetic, for every int32_t day: the days are
     * split into whole 400-year eras first, so that adding the 719468-day shift cannot overflow. */
    int32_t q = days / 146097;
    int32_t r = days % 146097;
    if (r < 0) {
        r += 146097;
        q -= 1;
    }
    int32_t z = r + 719468;
    int32_t era = q + z / 146097;
    int32_t doe = z % 146097;
    int32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int32_t mp = (5 * doy + 2) / 153;
    int32_t d = doy - (153 * mp + 2) / 5 + 1;
    int32_t m = mp < 10 ? mp + 3 : mp - 9;
    int32_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    if (year != NULL) *year = y;
    if (month != NULL) *month = (uint8_t)m;
    if (day != NULL) *day = (uint8_t)d;
}

/* ---- v1.1 fields ---------------------------------------------------------------------------- */

int skyframe_has_air_quality(const skyframe_frame *f) {
    return f != NULL && skyframe_priv_aqi_ok(f->air_quality);
}
int skyframe_air_quality_index(const skyframe_frame *f) {
    if (!skyframe_has_air_quality(f)) return -1;
    return (int)(f->air_quality & 0x7FFFu) - 1; /* <= 32766: fits a 16-bit int */
}
int skyframe_air_quality_scale(const skyframe_frame *f) {
    if (!skyframe_has_air_quality(f)) return -1;
    return (f->air_quality & 0x8000u) != 0 ? SKYFRAME_AQI_US : SKYFRAME_AQI_EUROPEAN;
}
const char *skyframe_air_quality_scale_name(int scale) {
    switch (scale) {
    case SKYFRAME_AQI_EUROPEAN: return "european_aqi";
    case SKYFRAME_AQI_US: return "us_aqi";
    default: return "absent";
    }
}

int skyframe_has_alerts(const skyframe_frame *f) {
    return f != NULL && skyframe_priv_alerts_ok(f->alerts);
}
int skyframe_alert_count(const skyframe_frame *f) {
    return skyframe_has_alerts(f) ? (int)(f->alerts >> 3) : -1;
}
int skyframe_alert_severity(const skyframe_frame *f) {
    return skyframe_has_alerts(f) ? (int)(f->alerts & 0x07u) : -1;
}
const char *skyframe_alert_severity_name(int severity) {
    switch (severity) {
    case SKYFRAME_ALERT_NONE: return "none";
    case SKYFRAME_ALERT_UNKNOWN: return "unknown";
    case SKYFRAME_ALERT_MINOR: return "minor";
    case SKYFRAME_ALERT_MODERATE: return "moderate";
    case SKYFRAME_ALERT_SEVERE: return "severe";
    case SKYFRAME_ALERT_EXTREME: return "extreme";
    default: return "absent";
    }
}

int skyframe_has_moon(const skyframe_frame *f) { return f != NULL && f->moon != 0; }
int skyframe_moon_phase_icon(const skyframe_frame *f) {
    uint16_t k;
    if (!skyframe_has_moon(f)) return -1;
    k = (uint16_t)(f->moon - 1u); /* phase = k / 255 */
    /* round(8k / 255) = floor((16k + 255) / 510); 8k / 255 is never exactly x.5 */
    return (int)(((16u * k + 255u) / 510u) % 8u);
}
const char *skyframe_moon_phase_name(int icon) {
    switch (icon) {
    case SKYFRAME_MOON_NEW: return "new_moon";
    case SKYFRAME_MOON_WAXING_CRESCENT: return "waxing_crescent";
    case SKYFRAME_MOON_FIRST_QUARTER: return "first_quarter";
    case SKYFRAME_MOON_WAXING_GIBBOUS: return "waxing_gibbous";
    case SKYFRAME_MOON_FULL: return "full_moon";
    case SKYFRAME_MOON_WANING_GIBBOUS: return "waning_gibbous";
    case SKYFRAME_MOON_LAST_QUARTER: return "last_quarter";
    case SKYFRAME_MOON_WANING_CRESCENT: return "waning_crescent";
    default: return "absent";
    }
}
int skyframe_moon_illumination_pct(const skyframe_frame *f) {
    /* (1 - cos(2 pi k/255)) / 2 = sin^2(pi m/255), m = k folded onto the waxing half 0..127.
     * Up to the first quarter (m <= 63) that is sin^2(pi a/510) with a = 2m; after it,
     * 1 - sin^2(pi a/510) with a = 255 - 2m. So the angle is at most pi/4 and a 4-term Taylor
     * series of sin (error < 4e-7) in Q16 fixed point suffices: 100 sin^2 comes out within
     * 0.0025 of the exact value, and no exact value lies closer than 0.0058 to a rounding
     * boundary (x.5), so the result is exactly rounded for every wire value. Every product
     * below stays under 2^32. */
    const uint32_t one = (uint32_t)65536UL, half = (uint32_t)32768UL; /* Q16 1 and 1/2 */
    uint32_t k, m, a, t, t2, p, s, x;
    if (!skyframe_has_moon(f)) return -1;
    k = (uint32_t)f->moon - 1u;
    m = k <= 127u ? k : 255u - k;
    a = m <= 63u ? 2u * m : 255u - 2u * m;                /* 0..127 */
    t = (a * (uint32_t)103347UL + 128u) >> 8;             /* angle pi a/510, Q16: <= 51270 */
    t2 = (t * t + half) >> 16;                            /* angle^2, Q16 */
    p = one - (t2 + 21u) / 42u;                           /* sin(x)/x = 1 - x^2/6 (1 - */
    p = one - (((t2 * p + half) >> 16) + 10u) / 20u;      /*   x^2/20 (1 - x^2/42)), Q16 */
    p = one - (((t2 * p + half) >> 16) + 3u) / 6u;
    s = (t * p + half) >> 16;                             /* sin, Q16: <= 46341 */
    s = (s * s + 128u) >> 8;                              /* sin^2, Q24 */
    x = (s * 100u + (uint32_t)0x800000UL) >> 24;          /* 100 sin^2, rounded */
    return (int)(m <= 63u ? x : 100u - x);
}

int skyframe_has_precip_next_hour(const skyframe_frame *f) {
    return f != NULL && skyframe_priv_precip_ok(f->precip_next_hour);
}
int skyframe_precip_now(const skyframe_frame *f) {
    if (!skyframe_has_precip_next_hour(f)) return -1;
    return (f->precip_next_hour & 0x80u) != 0 ? 1 : 0;
}
int skyframe_precip_change_in_min(const skyframe_frame *f) {
    uint8_t m;
    if (!skyframe_has_precip_next_hour(f)) return -1;
    m = (uint8_t)(f->precip_next_hour & 0x7Fu);
    return m == 127u ? SKYFRAME_PRECIP_NO_CHANGE : (int)m - 1;
}

int skyframe_has_next_update(const skyframe_frame *f) { return f != NULL && f->next_update != 0; }
int32_t skyframe_next_update_seconds(const skyframe_frame *f) {
    return skyframe_has_next_update(f) ? (int32_t)f->next_update : -1;
}

/* ---- Frame profiles (frame-profiles.md) ------------------------------------------------------ */

/* Wire offsets of large v1 (frame-profiles.md 2, frame-large.json). */
enum {
    SKYFRAME_LARGE_OFF_STATUS = 3, SKYFRAME_LARGE_OFF_REQUEST_ID = 4,
    SKYFRAME_LARGE_OFF_SLOT_INDEX = 6, SKYFRAME_LARGE_OFF_SLOT_COUNT = 7,
    SKYFRAME_LARGE_OFF_SERVICE = 8, SKYFRAME_LARGE_OFF_IS_DAY = 9, SKYFRAME_LARGE_OFF_SUN = 10,
    SKYFRAME_LARGE_OFF_HOURLY_STEP = 11, SKYFRAME_LARGE_OFF_LATITUDE = 12,
    SKYFRAME_LARGE_OFF_LONGITUDE = 16, SKYFRAME_LARGE_OFF_OBSERVED_AT = 20,
    SKYFRAME_LARGE_OFF_FETCHED_AT = 24, SKYFRAME_LARGE_OFF_HOURLY_START = 28,
    SKYFRAME_LARGE_OFF_UTC_OFFSET = 32, SKYFRAME_LARGE_OFF_DAILY_START = 34,
    SKYFRAME_LARGE_OFF_COUNTRY = 36, SKYFRAME_LARGE_OFF_AIR_QUALITY = 38,
    SKYFRAME_LARGE_OFF_NEXT_UPDATE = 40, SKYFRAME_LARGE_OFF_ALERTS = 42,
    SKYFRAME_LARGE_OFF_MOON = 43, SKYFRAME_LARGE_OFF_PRECIP_NEXT_HOUR = 44, /* 45-47 reserved */
    SKYFRAME_LARGE_OFF_NAME = 48,
    SKYFRAME_LARGE_OFF_TEMPERATURE = 96, SKYFRAME_LARGE_OFF_FEELS_LIKE = 98,
    SKYFRAME_LARGE_OFF_DEW_POINT = 100, SKYFRAME_LARGE_OFF_PRESSURE = 102,
    SKYFRAME_LARGE_OFF_WIND_SPEED = 104, SKYFRAME_LARGE_OFF_WIND_GUST = 106,
    SKYFRAME_LARGE_OFF_WIND_DIRECTION = 108, SKYFRAME_LARGE_OFF_VISIBILITY = 110,
    SKYFRAME_LARGE_OFF_PRECIPITATION = 112, SKYFRAME_LARGE_OFF_HUMIDITY = 114,
    SKYFRAME_LARGE_OFF_WEATHER_CODE = 115, SKYFRAME_LARGE_OFF_CLOUD_COVER = 116,
    SKYFRAME_LARGE_OFF_UV_INDEX = 117, /* 118-119 reserved */
    SKYFRAME_LARGE_OFF_SUNRISE = 120, SKYFRAME_LARGE_OFF_SUNSET = 124,
    SKYFRAME_LARGE_OFF_HOURLY_TEMPERATURE = 128, /* 48 x i16 */
    SKYFRAME_LARGE_OFF_HOURLY_AMOUNT = 224,      /* 48 x u16 */
    SKYFRAME_LARGE_OFF_HOURLY_CODE = 320,        /* 48 x u8 */
    SKYFRAME_LARGE_OFF_HOURLY_PRECIP = 368,      /* 48 x u8 */
    SKYFRAME_LARGE_OFF_HOURLY_WIND = 416,        /* 48 x u8 */
    SKYFRAME_LARGE_OFF_HOURLY_GUST = 464,        /* 48 x u8 */
    SKYFRAME_LARGE_OFF_DAILY_MIN = 512,          /* 8 x i16 */
    SKYFRAME_LARGE_OFF_DAILY_MAX = 528,          /* 8 x i16 */
    SKYFRAME_LARGE_OFF_DAILY_SUM = 544,          /* 8 x u16 */
    SKYFRAME_LARGE_OFF_DAILY_SUNRISE = 560,      /* 8 x u32 */
    SKYFRAME_LARGE_OFF_DAILY_SUNSET = 592,       /* 8 x u32 */
    SKYFRAME_LARGE_OFF_DAILY_CODE = 624,         /* 8 x u8 */
    SKYFRAME_LARGE_OFF_DAILY_PRECIP = 632,       /* 8 x u8 */
    SKYFRAME_LARGE_OFF_DAILY_UV = 640,           /* 8 x u8 */
    SKYFRAME_LARGE_OFF_DAILY_WIND = 648,         /* 8 x u8 */
    SKYFRAME_LARGE_OFF_DAILY_SUN = 656,          /* 8 x u8 */
    SKYFRAME_LARGE_OFF_MINUTELY_START = 664, SKYFRAME_LARGE_OFF_MINUTELY_PRECIP = 668, /* 4 x u8 */
    SKYFRAME_LARGE_OFF_ALERT_ONSET = 672,        /* 3 x u32 */
    SKYFRAME_LARGE_OFF_ALERT_END = 684,          /* 3 x u32 */
    SKYFRAME_LARGE_OFF_ALERT_SEVERITY = 696,     /* 3 x u8; 699 reserved */
    SKYFRAME_LARGE_OFF_ALERT_EVENT = 700,        /* 3 x 64 bytes; 892-955 reserved */
    SKYFRAME_LARGE_OFF_CRC = 956
};

/* Wire offsets of tiny v1 (frame-profiles.md 3, frame-tiny.json) and unchanged v1 (4). */
enum {
    SKYFRAME_TINY_OFF_STATUS = 3, SKYFRAME_TINY_OFF_REQUEST_ID = 4, SKYFRAME_TINY_OFF_SLOT_INDEX = 6,
    SKYFRAME_TINY_OFF_SLOT_COUNT = 7, SKYFRAME_TINY_OFF_FETCHED_AT = 8,
    SKYFRAME_TINY_OFF_NEXT_UPDATE = 12, SKYFRAME_TINY_OFF_TEMPERATURE = 14,
    SKYFRAME_TINY_OFF_AIR_QUALITY = 16, SKYFRAME_TINY_OFF_WEATHER_CODE = 18,
    SKYFRAME_TINY_OFF_IS_DAY = 19, SKYFRAME_TINY_OFF_ALERTS = 20,
    SKYFRAME_TINY_OFF_PRECIP_NEXT_HOUR = 21, SKYFRAME_TINY_OFF_WIND_SPEED = 22,
    SKYFRAME_TINY_OFF_WIND_GUST = 23, SKYFRAME_TINY_OFF_WIND_DIRECTION = 24,
    SKYFRAME_TINY_OFF_UTC_OFFSET = 25, SKYFRAME_TINY_OFF_HUMIDITY = 26,
    SKYFRAME_TINY_OFF_UV_INDEX = 27,
    SKYFRAME_TINY_OFF_DAILY_MIN = 28,    /* 4 x i8 */
    SKYFRAME_TINY_OFF_DAILY_MAX = 32,    /* 4 x i8 */
    SKYFRAME_TINY_OFF_DAILY_CODE = 36,   /* 4 x u8 */
    SKYFRAME_TINY_OFF_DAILY_PRECIP = 40, /* 4 x u8 */
    SKYFRAME_TINY_OFF_CRC = 44,
    SKYFRAME_UNCHANGED_OFF_PROFILE = 3, SKYFRAME_UNCHANGED_OFF_REQUEST_ID = 4,
    SKYFRAME_UNCHANGED_OFF_SLOT_INDEX = 6, SKYFRAME_UNCHANGED_OFF_SLOT_COUNT = 7,
    SKYFRAME_UNCHANGED_OFF_NEXT_UPDATE = 8, /* 10-11 reserved */
    SKYFRAME_UNCHANGED_OFF_CRC = 12
};

/* The message size of a kind byte, 0 if unknown. */
static size_t skyframe_priv_kind_size(uint8_t kind) {
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: return SKYFRAME_FRAME_SIZE;
    case SKYFRAME_KIND_LARGE: return SKYFRAME_LARGE_SIZE;
    case SKYFRAME_KIND_TINY: return SKYFRAME_TINY_SIZE;
    case SKYFRAME_KIND_UNCHANGED: return SKYFRAME_UNCHANGED_SIZE;
    default: return 0;
    }
}

/* frame-profiles.md 1.1, in this order: length, magic, kind byte, CRC in the last 4 bytes. */
static int skyframe_priv_check(const uint8_t *buf, size_t len, size_t size, uint8_t kind) {
    if (len < size) return SKYFRAME_ERR_TRUNCATED;
    if (len > size) return SKYFRAME_ERR_TOO_LONG;
    if (buf[0] != SKYFRAME_FRAME_MAGIC0 || buf[1] != SKYFRAME_FRAME_MAGIC1)
        return SKYFRAME_ERR_BAD_MAGIC;
    if (buf[SKYFRAME_KIND_OFFSET] != kind) return SKYFRAME_ERR_BAD_VERSION;
    if (skyframe_priv_u32(buf + size - 4) != skyframe_crc32(buf, size - 4)) return SKYFRAME_ERR_CRC;
    return SKYFRAME_OK;
}

int skyframe_message_kind(const uint8_t *bytes, size_t length) {
    uint8_t kind;
    size_t size;
    if (bytes == NULL) return SKYFRAME_ERR_NULL;
    switch (length) {
    case SKYFRAME_FRAME_SIZE: kind = SKYFRAME_KIND_STANDARD; break;
    case SKYFRAME_LARGE_SIZE: kind = SKYFRAME_KIND_LARGE; break;
    case SKYFRAME_TINY_SIZE: kind = SKYFRAME_KIND_TINY; break;
    case SKYFRAME_UNCHANGED_SIZE: kind = SKYFRAME_KIND_UNCHANGED; break;
    default:
        /* No message is this long: shorter or longer than the one byte 2 names, if it can be
         * read, else than the longest. */
        size = 0;
        if (length >= 3 && bytes[0] == SKYFRAME_FRAME_MAGIC0 && bytes[1] == SKYFRAME_FRAME_MAGIC1)
            size = skyframe_priv_kind_size(bytes[SKYFRAME_KIND_OFFSET]);
        if (size == 0) size = SKYFRAME_LARGE_SIZE;
        return length < size ? SKYFRAME_ERR_TRUNCATED : SKYFRAME_ERR_TOO_LONG;
    }
    if (bytes[0] != SKYFRAME_FRAME_MAGIC0 || bytes[1] != SKYFRAME_FRAME_MAGIC1)
        return SKYFRAME_ERR_BAD_MAGIC;
    if (bytes[SKYFRAME_KIND_OFFSET] != kind) return SKYFRAME_ERR_BAD_VERSION;
    return (int)kind;
}

const char *skyframe_kind_name(int kind) {
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: return "standard";
    case SKYFRAME_KIND_LARGE: return "large";
    case SKYFRAME_KIND_TINY: return "tiny";
    case SKYFRAME_KIND_UNCHANGED: return "unchanged";
    default: return "unknown";
    }
}

const char *skyframe_profile_name(uint8_t profile) {
    switch (profile) {
    case SKYFRAME_PROFILE_STANDARD: return "standard";
    case SKYFRAME_PROFILE_LARGE: return "large";
    case SKYFRAME_PROFILE_TINY: return "tiny";
    default: return "unknown";
    }
}

/* CRC-32 of bytes[0..covered-1] with [a0, a1), [b0, b1), [c0, c1), [d0, d1) taken as zero
 * (ascending, disjoint, within covered; an empty range has equal ends). */
static uint32_t skyframe_priv_zeroed_crc(const uint8_t *bytes, size_t covered, size_t a0, size_t a1,
                                         size_t b0, size_t b1, size_t c0, size_t c1, size_t d0,
                                         size_t d1) {
    uint32_t crc = 0xFFFFFFFFUL;
    crc = skyframe_priv_crc32_update(crc, bytes, a0);
    crc = skyframe_priv_crc32_update(crc, NULL, a1 - a0);
    crc = skyframe_priv_crc32_update(crc, bytes + a1, b0 - a1);
    crc = skyframe_priv_crc32_update(crc, NULL, b1 - b0);
    crc = skyframe_priv_crc32_update(crc, bytes + b1, c0 - b1);
    crc = skyframe_priv_crc32_update(crc, NULL, c1 - c0);
    crc = skyframe_priv_crc32_update(crc, bytes + c1, d0 - c1);
    crc = skyframe_priv_crc32_update(crc, NULL, d1 - d0);
    crc = skyframe_priv_crc32_update(crc, bytes + d1, covered - d1);
    return crc ^ 0xFFFFFFFFUL;
}

int skyframe_content_check(const uint8_t *bytes, size_t length, uint32_t *out) {
    int kind = skyframe_message_kind(bytes, length);
    uint32_t check;
    if (out == NULL) return SKYFRAME_ERR_NULL;
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: /* request_id, slots; observed_at, fetched_at; next_update */
        check = skyframe_priv_zeroed_crc(bytes, SKYFRAME_CRC_OFFSET, 4, 8, 20, 28,
                                         SKYFRAME_OFF_NEXT_UPDATE, SKYFRAME_OFF_NEXT_UPDATE + 2,
                                         SKYFRAME_CRC_OFFSET, SKYFRAME_CRC_OFFSET);
        break;
    case SKYFRAME_KIND_LARGE: /* request_id, slots; observed_at, fetched_at; next_update;
                                 minutely_start (a quarter hour passing alone is no change) */
        check = skyframe_priv_zeroed_crc(bytes, SKYFRAME_LARGE_OFF_CRC, 4, 8, 20, 28,
                                         SKYFRAME_LARGE_OFF_NEXT_UPDATE,
                                         SKYFRAME_LARGE_OFF_NEXT_UPDATE + 2,
                                         SKYFRAME_LARGE_OFF_MINUTELY_START,
                                         SKYFRAME_LARGE_OFF_MINUTELY_START + 4);
        break;
    case SKYFRAME_KIND_TINY: /* request_id, slots, fetched_at, next_update: bytes 4..13 */
        check = skyframe_priv_zeroed_crc(bytes, SKYFRAME_TINY_OFF_CRC, 4, 14, 14, 14, 14, 14, 14,
                                         14);
        break;
    case SKYFRAME_KIND_UNCHANGED: return SKYFRAME_ERR_BAD_VERSION; /* it has no content */
    default: return kind; /* an error code */
    }
    *out = check;
    return SKYFRAME_OK;
}

#if SKYFRAME_LARGE
int skyframe_large_decode(const uint8_t *buf, size_t len, skyframe_large *out) {
    int rc, i;

    if (buf == NULL || out == NULL) return SKYFRAME_ERR_NULL;
    rc = skyframe_priv_check(buf, len, SKYFRAME_LARGE_SIZE, SKYFRAME_KIND_LARGE);
    if (rc != SKYFRAME_OK) return rc;

    memset(out, 0, sizeof *out);
    out->kind = buf[SKYFRAME_KIND_OFFSET];
    out->status = buf[SKYFRAME_LARGE_OFF_STATUS];
    out->request_id = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_REQUEST_ID);
    out->slot_index = buf[SKYFRAME_LARGE_OFF_SLOT_INDEX];
    out->slot_count = buf[SKYFRAME_LARGE_OFF_SLOT_COUNT];
    out->service = buf[SKYFRAME_LARGE_OFF_SERVICE];
    out->is_day = skyframe_priv_is_day(buf[SKYFRAME_LARGE_OFF_IS_DAY]);
    out->sun = skyframe_priv_sun(buf[SKYFRAME_LARGE_OFF_SUN]);
    out->hourly_step_h = buf[SKYFRAME_LARGE_OFF_HOURLY_STEP];
    out->latitude = skyframe_priv_i32(buf + SKYFRAME_LARGE_OFF_LATITUDE);
    out->longitude = skyframe_priv_i32(buf + SKYFRAME_LARGE_OFF_LONGITUDE);
    out->observed_at = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_OBSERVED_AT);
    out->fetched_at = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_FETCHED_AT);
    out->hourly_start = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_HOURLY_START);
    out->utc_offset_min = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_UTC_OFFSET);
    out->daily_start = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_DAILY_START);
    skyframe_priv_country(buf + SKYFRAME_LARGE_OFF_COUNTRY, out->country);
    out->air_quality = skyframe_priv_aqi(skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_AIR_QUALITY));
    out->next_update = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_NEXT_UPDATE);
    out->alerts = skyframe_priv_alerts(buf[SKYFRAME_LARGE_OFF_ALERTS]);
    out->moon = buf[SKYFRAME_LARGE_OFF_MOON];
    out->precip_next_hour = skyframe_priv_precip(buf[SKYFRAME_LARGE_OFF_PRECIP_NEXT_HOUR]);
    skyframe_priv_text(buf + SKYFRAME_LARGE_OFF_NAME, SKYFRAME_LARGE_NAME_BYTES, out->name);

    out->current.temperature = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_TEMPERATURE);
    out->current.feels_like = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_FEELS_LIKE);
    out->dew_point = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_DEW_POINT);
    out->current.pressure = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_PRESSURE);
    out->current.wind_speed = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_WIND_SPEED);
    out->current.wind_gust = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_WIND_GUST);
    out->current.wind_direction = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_WIND_DIRECTION);
    out->current.visibility = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_VISIBILITY);
    out->current.precipitation = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_PRECIPITATION);
    out->current.humidity = buf[SKYFRAME_LARGE_OFF_HUMIDITY];
    out->current.weather_code = buf[SKYFRAME_LARGE_OFF_WEATHER_CODE];
    out->current.cloud_cover = buf[SKYFRAME_LARGE_OFF_CLOUD_COVER];
    out->current.uv_index = buf[SKYFRAME_LARGE_OFF_UV_INDEX];
    out->sunrise = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_SUNRISE);
    out->sunset = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_SUNSET);

    for (i = 0; i < SKYFRAME_LARGE_HOURLY_COUNT; i++) {
        skyframe_large_hourly *h = &out->hourly[i];
        h->temperature = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_HOURLY_TEMPERATURE + 2 * i);
        h->precip_amount = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_HOURLY_AMOUNT + 2 * i);
        h->weather_code = buf[SKYFRAME_LARGE_OFF_HOURLY_CODE + i];
        h->precip_probability = buf[SKYFRAME_LARGE_OFF_HOURLY_PRECIP + i];
        h->wind_speed = buf[SKYFRAME_LARGE_OFF_HOURLY_WIND + i];
        h->wind_gust = buf[SKYFRAME_LARGE_OFF_HOURLY_GUST + i];
    }
    for (i = 0; i < SKYFRAME_LARGE_DAILY_COUNT; i++) {
        skyframe_large_daily *d = &out->daily[i];
        d->temperature_min = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_DAILY_MIN + 2 * i);
        d->temperature_max = skyframe_priv_i16(buf + SKYFRAME_LARGE_OFF_DAILY_MAX + 2 * i);
        d->precip_sum = skyframe_priv_u16(buf + SKYFRAME_LARGE_OFF_DAILY_SUM + 2 * i);
        d->sunrise = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_DAILY_SUNRISE + 4 * i);
        d->sunset = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_DAILY_SUNSET + 4 * i);
        d->weather_code = buf[SKYFRAME_LARGE_OFF_DAILY_CODE + i];
        d->precip_probability = buf[SKYFRAME_LARGE_OFF_DAILY_PRECIP + i];
        d->uv_max = buf[SKYFRAME_LARGE_OFF_DAILY_UV + i];
        d->wind_max = buf[SKYFRAME_LARGE_OFF_DAILY_WIND + i];
        d->sun = skyframe_priv_sun(buf[SKYFRAME_LARGE_OFF_DAILY_SUN + i]);
    }
    out->minutely_start = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_MINUTELY_START);
    for (i = 0; i < SKYFRAME_LARGE_MINUTELY_COUNT; i++)
        out->minutely_precip[i] = buf[SKYFRAME_LARGE_OFF_MINUTELY_PRECIP + i];
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) {
        skyframe_large_alert *a = &out->alert[i];
        a->onset = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_ALERT_ONSET + 4 * i);
        a->end = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_ALERT_END + 4 * i);
        a->severity = buf[SKYFRAME_LARGE_OFF_ALERT_SEVERITY + i];
        skyframe_priv_text(buf + SKYFRAME_LARGE_OFF_ALERT_EVENT + SKYFRAME_ALERT_EVENT_BYTES * i,
                           SKYFRAME_ALERT_EVENT_BYTES, a->event);
    }
    out->crc32 = skyframe_priv_u32(buf + SKYFRAME_LARGE_OFF_CRC);
    return SKYFRAME_OK;
}
#endif /* SKYFRAME_LARGE */

int skyframe_tiny_decode(const uint8_t *buf, size_t len, skyframe_tiny *out) {
    int rc, i;

    if (buf == NULL || out == NULL) return SKYFRAME_ERR_NULL;
    rc = skyframe_priv_check(buf, len, SKYFRAME_TINY_SIZE, SKYFRAME_KIND_TINY);
    if (rc != SKYFRAME_OK) return rc;

    memset(out, 0, sizeof *out);
    out->kind = buf[SKYFRAME_KIND_OFFSET];
    out->status = buf[SKYFRAME_TINY_OFF_STATUS];
    out->request_id = skyframe_priv_u16(buf + SKYFRAME_TINY_OFF_REQUEST_ID);
    out->slot_index = buf[SKYFRAME_TINY_OFF_SLOT_INDEX];
    out->slot_count = buf[SKYFRAME_TINY_OFF_SLOT_COUNT];
    out->fetched_at = skyframe_priv_u32(buf + SKYFRAME_TINY_OFF_FETCHED_AT);
    out->next_update = skyframe_priv_u16(buf + SKYFRAME_TINY_OFF_NEXT_UPDATE);
    out->temperature = skyframe_priv_i16(buf + SKYFRAME_TINY_OFF_TEMPERATURE);
    out->air_quality = skyframe_priv_aqi(skyframe_priv_u16(buf + SKYFRAME_TINY_OFF_AIR_QUALITY));
    out->weather_code = buf[SKYFRAME_TINY_OFF_WEATHER_CODE];
    out->is_day = skyframe_priv_is_day(buf[SKYFRAME_TINY_OFF_IS_DAY]);
    out->alerts = skyframe_priv_alerts(buf[SKYFRAME_TINY_OFF_ALERTS]);
    out->precip_next_hour = skyframe_priv_precip(buf[SKYFRAME_TINY_OFF_PRECIP_NEXT_HOUR]);
    out->wind_speed = buf[SKYFRAME_TINY_OFF_WIND_SPEED];
    out->wind_gust = buf[SKYFRAME_TINY_OFF_WIND_GUST];
    out->wind_direction = buf[SKYFRAME_TINY_OFF_WIND_DIRECTION];
    out->utc_offset_15min = skyframe_priv_i8(buf[SKYFRAME_TINY_OFF_UTC_OFFSET]);
    out->humidity = buf[SKYFRAME_TINY_OFF_HUMIDITY];
    out->uv_index = buf[SKYFRAME_TINY_OFF_UV_INDEX];
    for (i = 0; i < SKYFRAME_TINY_DAILY_COUNT; i++) {
        out->daily[i].temperature_min = skyframe_priv_i8(buf[SKYFRAME_TINY_OFF_DAILY_MIN + i]);
        out->daily[i].temperature_max = skyframe_priv_i8(buf[SKYFRAME_TINY_OFF_DAILY_MAX + i]);
        out->daily[i].weather_code = buf[SKYFRAME_TINY_OFF_DAILY_CODE + i];
        out->daily[i].precip_probability = buf[SKYFRAME_TINY_OFF_DAILY_PRECIP + i];
    }
    out->crc32 = skyframe_priv_u32(buf + SKYFRAME_TINY_OFF_CRC);
    return SKYFRAME_OK;
}

int16_t skyframe_tiny_utc_offset_min(const skyframe_tiny *t) {
    if (t == NULL || t->utc_offset_15min == SKYFRAME_MISSING_I8)
        return (int16_t)SKYFRAME_MISSING_I16;
    return (int16_t)(t->utc_offset_15min * 15);
}

int skyframe_unchanged_decode(const uint8_t *buf, size_t len, skyframe_unchanged *out) {
    int rc;

    if (buf == NULL || out == NULL) return SKYFRAME_ERR_NULL;
    rc = skyframe_priv_check(buf, len, SKYFRAME_UNCHANGED_SIZE, SKYFRAME_KIND_UNCHANGED);
    if (rc != SKYFRAME_OK) return rc;

    memset(out, 0, sizeof *out);
    out->kind = buf[SKYFRAME_KIND_OFFSET];
    out->profile = buf[SKYFRAME_UNCHANGED_OFF_PROFILE];
    out->request_id = skyframe_priv_u16(buf + SKYFRAME_UNCHANGED_OFF_REQUEST_ID);
    out->slot_index = buf[SKYFRAME_UNCHANGED_OFF_SLOT_INDEX];
    out->slot_count = buf[SKYFRAME_UNCHANGED_OFF_SLOT_COUNT];
    out->next_update = skyframe_priv_u16(buf + SKYFRAME_UNCHANGED_OFF_NEXT_UPDATE);
    out->crc32 = skyframe_priv_u32(buf + SKYFRAME_UNCHANGED_OFF_CRC);
    return SKYFRAME_OK;
}

static void skyframe_priv_request_start(uint8_t *out, uint8_t kind, uint16_t request_id) {
    memset(out, 0, SKYFRAME_REQUEST_SIZE);
    out[0] = 'S';
    out[1] = 'Q';
    out[2] = 1; /* request version */
    out[3] = kind;
    skyframe_priv_put_u16(out + 4, request_id);
}
static int skyframe_priv_request_finish(uint8_t *out) {
    skyframe_priv_put_u32(out + 60, skyframe_crc32(out, 60));
    return SKYFRAME_OK;
}

int skyframe_request_coordinates(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id,
                                 int32_t lat_e5, int32_t lon_e5) {
    if (out == NULL) return SKYFRAME_ERR_NULL;
    if (lat_e5 < -9000000L || lat_e5 > 9000000L || lon_e5 < -18000000L || lon_e5 > 18000000L)
        return SKYFRAME_ERR_RANGE;
    skyframe_priv_request_start(out, SKYFRAME_REQUEST_KIND_COORDINATES, request_id);
    skyframe_priv_put_u32(out + 8, (uint32_t)lat_e5);
    skyframe_priv_put_u32(out + 12, (uint32_t)lon_e5);
    return skyframe_priv_request_finish(out);
}

int skyframe_request_place(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id,
                           const char *name, const char *country) {
    size_t n, i;
    if (out == NULL || name == NULL) return SKYFRAME_ERR_NULL;
    n = strlen(name);
    if (n == 0 || n > SKYFRAME_REQUEST_NAME_BYTES) return SKYFRAME_ERR_RANGE;
    for (i = 0; i < n; i++) {
        uint8_t c = (uint8_t)name[i];
        if (c < 0x20 || c == 0x7F) return SKYFRAME_ERR_RANGE;
        /* C1 controls U+0080..U+009F are C2 80..C2 9F in UTF-8 */
        if (c == 0xC2 && i + 1 < n && (uint8_t)name[i + 1] < 0xA0) return SKYFRAME_ERR_RANGE;
    }
    if (name[0] == ' ' || name[n - 1] == ' ') return SKYFRAME_ERR_RANGE; /* gateway refuses */
    if (country != NULL && country[0] != '\0') {
        for (i = 0; i < 2; i++) {
            char c = country[i];
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return SKYFRAME_ERR_RANGE;
        }
        if (country[2] != '\0') return SKYFRAME_ERR_RANGE;
    }
    skyframe_priv_request_start(out, SKYFRAME_REQUEST_KIND_NAME, request_id);
    if (country != NULL && country[0] != '\0') {
        out[16] = (uint8_t)country[0];
        out[17] = (uint8_t)country[1];
    }
    memcpy(out + 20, name, n);
    return skyframe_priv_request_finish(out);
}

int skyframe_request_refresh(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t request_id) {
    if (out == NULL) return SKYFRAME_ERR_NULL;
    skyframe_priv_request_start(out, SKYFRAME_REQUEST_KIND_REFRESH, request_id);
    return skyframe_priv_request_finish(out);
}

/* "SQ", version 1: bytes a skyframe_request_* function wrote. */
static int skyframe_priv_is_request(const uint8_t *r) {
    return r[0] == 'S' && r[1] == 'Q' && r[2] == 1;
}

int skyframe_request_set_profile(uint8_t out[SKYFRAME_REQUEST_SIZE], uint8_t profile) {
    if (out == NULL) return SKYFRAME_ERR_NULL;
    if (!skyframe_priv_is_request(out) || profile > SKYFRAME_PROFILE_TINY) return SKYFRAME_ERR_RANGE;
    out[6] = profile;
    return skyframe_priv_request_finish(out);
}

int skyframe_request_set_check(uint8_t out[SKYFRAME_REQUEST_SIZE], uint32_t check) {
    if (out == NULL) return SKYFRAME_ERR_NULL;
    if (!skyframe_priv_is_request(out)) return SKYFRAME_ERR_RANGE;
    /* without the flag, bytes 56..59 are the end of a 37..40-byte place name */
    if ((out[7] & SKYFRAME_REQUEST_FLAG_CHECK) == 0 &&
        (out[56] | out[57] | out[58] | out[59]) != 0)
        return SKYFRAME_ERR_RANGE;
    out[7] = (uint8_t)(out[7] | SKYFRAME_REQUEST_FLAG_CHECK);
    skyframe_priv_put_u32(out + 56, check);
    return skyframe_priv_request_finish(out);
}

/* Header, id, body, check: the whole uplink written here, so out is only touched on success. */
static int skyframe_priv_uplink(uint8_t *out, uint8_t kind, uint8_t request_id,
                                const uint8_t *body, int body_len, const uint32_t *check) {
    int n = 0, i;
    if (out == NULL) return SKYFRAME_ERR_NULL;
    out[n++] = (uint8_t)(SKYFRAME_UPLINK_VERSION << 5 |
                         (check != NULL ? SKYFRAME_UPLINK_FLAG_CHECK : 0) | kind);
    out[n++] = request_id;
    for (i = 0; i < body_len; i++) out[n++] = body[i];
    if (check != NULL) {
        skyframe_priv_put_u32(out + n, *check);
        n += 4;
    }
    return n;
}

/* 1e-5 degree to 0.01 degree, half away from zero (C99 division truncates toward zero). */
static int16_t skyframe_priv_uplink_e2(int32_t e5) {
    return (int16_t)((e5 + (e5 < 0 ? -500L : 500L)) / 1000L);
}

int skyframe_uplink_coordinates(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id,
                                int32_t lat_e5, int32_t lon_e5, const uint32_t *check) {
    uint8_t body[4];
    if (lat_e5 < -9000000L || lat_e5 > 9000000L || lon_e5 < -18000000L || lon_e5 > 18000000L)
        return out == NULL ? SKYFRAME_ERR_NULL : SKYFRAME_ERR_RANGE;
    skyframe_priv_put_u16(body, (uint16_t)skyframe_priv_uplink_e2(lat_e5));
    skyframe_priv_put_u16(body + 2, (uint16_t)skyframe_priv_uplink_e2(lon_e5));
    return skyframe_priv_uplink(out, SKYFRAME_UPLINK_KIND_COORDINATES, request_id, body, 4, check);
}

int skyframe_uplink_place(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id, uint8_t index,
                          const uint32_t *check) {
    return skyframe_priv_uplink(out, SKYFRAME_UPLINK_KIND_PLACE, request_id, &index, 1, check);
}

int skyframe_uplink_refresh(uint8_t out[SKYFRAME_UPLINK_MAX_SIZE], uint8_t request_id,
                            const uint32_t *check) {
    return skyframe_priv_uplink(out, SKYFRAME_UPLINK_KIND_REFRESH, request_id, NULL, 0, check);
}

#ifdef __cplusplus
}
#endif

#endif /* SKYFRAME_FRAME_IMPLEMENTATION_DONE */
#endif /* SKYFRAME_FRAME_IMPLEMENTATION */
