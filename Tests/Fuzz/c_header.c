/* Fuzz target c_header: firmware-notes/skyframe_frame.h on its own, built by clang with
 * -fsanitize=fuzzer,address,undefined (every UBSan report is fatal).
 * Seeds: frames
 * Max length: 400
 *
 * 1. skyframe_frame_decode of the input as it is and sealed (its first 192 bytes with magic,
 *    version 1 and the CRC made right): the spec's error, in the spec's order; *out untouched on
 *    an error; every field as the spec reads it (a reference reader below); buffers of exactly
 *    the length given (ASan sees any read past them), at an odd address too. NULL arguments.
 * 2. The helpers on the decoded frame: has_weather, age_seconds, every v1.1 helper against the
 *    wire (the moon against libm), the name functions.
 * 3. With values from the input: skyframe_format_fixed against snprintf into buffers of every
 *    size (exactly that size, so ASan sees an overflow), skyframe_date_from_days, _weekday,
 *    _local_day, _local_minute_of_day against 64-bit references (and days -> date -> days),
 *    the unit conversions against their documented integer formulas and within 0.75 of the
 *    exact factor, and the request builders: their return code from the documented rules and
 *    every byte they write into a buffer of exactly 64 bytes. skyframe_crc32 against a bitwise
 *    CRC-32. */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;
static const uint8_t *g_data;
static size_t g_size;

static void fail(const char *format, ...) {
    va_list args;
    size_t i;
    fprintf(stderr, "\nFUZZ CHECK FAILED: ");
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n  input (%zu bytes): ", g_size);
    for (i = 0; i < g_size && i < 1024; i++) fprintf(stderr, "%02x", g_data[i]);
    fprintf(stderr, "\n");
    abort();
}

#define CHECK_EQ(actual, expected, what)                                                          \
    do {                                                                                          \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                           \
        if (a_ != e_) fail("%s: got %lld, expected %lld (line %d)", what, a_, e_, __LINE__);      \
    } while (0)

/* ---- Reference readers and CRC ------------------------------------------------------------ */

static uint32_t ref_crc32(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int bit;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (bit = 0; bit < 8; bit++) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}
static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }
static int64_t se16(const uint8_t *p) { int64_t v = le16(p); return v >= 0x8000 ? v - 0x10000 : v; }
static int64_t se32(const uint8_t *p) {
    int64_t v = le32(p);
    return v >= 0x80000000LL ? v - 0x100000000LL : v;
}
static int is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/* Values from the input, 0 past its end. */
typedef struct { const uint8_t *p; size_t n, at; } reader;
static uint8_t r8(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }
static uint16_t r16(reader *r) {
    uint16_t lo = r8(r);
    return (uint16_t)(lo | (uint16_t)r8(r) << 8);
}
static uint32_t r32(reader *r) { uint32_t lo = r16(r); return lo | (uint32_t)r16(r) << 16; }

/* ---- 1. Decoding --------------------------------------------------------------------------- */

static int expected_error(const uint8_t *b, size_t n) {
    if (n < SKYFRAME_FRAME_SIZE) return SKYFRAME_ERR_TRUNCATED;
    if (n > SKYFRAME_FRAME_SIZE) return SKYFRAME_ERR_TOO_LONG;
    if (b[0] != 0x53 || b[1] != 0x46) return SKYFRAME_ERR_BAD_MAGIC;
    if (b[2] != 1) return SKYFRAME_ERR_BAD_VERSION;
    if (le32(b + 188) != ref_crc32(b, 188)) return SKYFRAME_ERR_CRC;
    return SKYFRAME_OK;
}

/* Every field of f against the spec's reading of the 192 bytes b. */
static void check_fields(const skyframe_frame *f, const uint8_t *b) {
    int i;
    uint8_t c0 = b[36], c1 = b[37], name_len = 0;
    uint32_t aq = le16(b + 38);
    uint8_t m;
    CHECK_EQ(f->version, 1, "version");
    CHECK_EQ(f->status, b[3], "status");
    CHECK_EQ(f->request_id, le16(b + 4), "request_id");
    CHECK_EQ(f->slot_index, b[6], "slot_index");
    CHECK_EQ(f->slot_count, b[7], "slot_count");
    CHECK_EQ(f->service, b[8], "service");
    CHECK_EQ(f->is_day, b[9] <= 1 ? b[9] : 0xFF, "is_day");
    CHECK_EQ(f->sun, b[10] <= 2 ? b[10] : 0xFF, "sun");
    CHECK_EQ(f->hourly_step_h, b[11], "hourly_step_h");
    CHECK_EQ(f->latitude, se32(b + 12), "latitude");
    CHECK_EQ(f->longitude, se32(b + 16), "longitude");
    CHECK_EQ(f->observed_at, le32(b + 20), "observed_at");
    CHECK_EQ(f->fetched_at, le32(b + 24), "fetched_at");
    CHECK_EQ(f->hourly_start, le32(b + 28), "hourly_start");
    CHECK_EQ(f->utc_offset_min, se16(b + 32), "utc_offset_min");
    CHECK_EQ(f->daily_start, le16(b + 34), "daily_start");
    if (is_letter(c0) && is_letter(c1)) {
        CHECK_EQ((uint8_t)f->country[0], c0 & 0xDF, "country[0]");
        CHECK_EQ((uint8_t)f->country[1], c1 & 0xDF, "country[1]");
    } else {
        CHECK_EQ(f->country[0], 0, "country[0] of a missing country");
        CHECK_EQ(f->country[1], 0, "country[1] of a missing country");
    }
    CHECK_EQ(f->country[2], 0, "country[2]");
    while (name_len < 24 && b[40 + name_len] != 0) name_len++;
    for (i = 0; i < 25; i++)
        CHECK_EQ((uint8_t)f->name[i], i < name_len ? b[40 + i] : 0, "name byte");
    CHECK_EQ(f->current.temperature, se16(b + 64), "temperature");
    CHECK_EQ(f->current.feels_like, se16(b + 66), "feels_like");
    CHECK_EQ(f->current.pressure, le16(b + 68), "pressure");
    CHECK_EQ(f->current.wind_speed, le16(b + 70), "wind_speed");
    CHECK_EQ(f->current.wind_gust, le16(b + 72), "wind_gust");
    CHECK_EQ(f->current.wind_direction, le16(b + 74), "wind_direction");
    CHECK_EQ(f->current.visibility, le16(b + 76), "visibility");
    CHECK_EQ(f->current.precipitation, le16(b + 78), "precipitation");
    CHECK_EQ(f->current.humidity, b[80], "humidity");
    CHECK_EQ(f->current.weather_code, b[81], "weather_code");
    CHECK_EQ(f->current.cloud_cover, b[82], "cloud_cover");
    CHECK_EQ(f->current.uv_index, b[83], "uv_index");
    CHECK_EQ(f->sunrise, le32(b + 88), "sunrise");
    CHECK_EQ(f->sunset, le32(b + 92), "sunset");
    for (i = 0; i < 12; i++) {
        CHECK_EQ(f->hourly[i].temperature, se16(b + 96 + 2 * i), "hourly temperature");
        CHECK_EQ(f->hourly[i].weather_code, b[120 + i], "hourly weather_code");
        CHECK_EQ(f->hourly[i].precip_probability, b[132 + i], "hourly precip_probability");
    }
    for (i = 0; i < 7; i++) {
        CHECK_EQ(f->daily[i].temperature_min, se16(b + 144 + 2 * i), "daily min");
        CHECK_EQ(f->daily[i].temperature_max, se16(b + 158 + 2 * i), "daily max");
        CHECK_EQ(f->daily[i].weather_code, b[172 + i], "daily weather_code");
        CHECK_EQ(f->daily[i].precip_probability, b[179 + i], "daily precip_probability");
    }
    CHECK_EQ(f->crc32, le32(b + 188), "crc32");
    /* v1.1: 0 when absent or read as absent (frame-v1.md 5.5-5.8) */
    CHECK_EQ(f->air_quality, (aq & 0x7FFF) ? aq : 0, "air_quality");
    CHECK_EQ(f->alerts, ((b[84] & 7) >= 1 && (b[84] & 7) <= 6) ? b[84] : 0, "alerts");
    CHECK_EQ(f->moon, b[85], "moon");
    m = b[86] & 0x7F;
    CHECK_EQ(f->precip_next_hour, ((m >= 1 && m <= 61) || m == 127) ? b[86] : 0,
             "precip_next_hour");
    CHECK_EQ(f->next_update, le16(b + 186), "next_update");
}

static void check_names(const char *name, const char *what) {
    if (name == NULL || strlen(name) == 0) fail("%s gives NULL or an empty name", what);
}

/* The helpers on a decoded frame, against the wire. */
static void check_helpers(skyframe_frame *f, uint32_t now) {
    uint16_t aq = f->air_quality;
    uint8_t m = (uint8_t)(f->precip_next_hour & 0x7F);
    int64_t age;
    CHECK_EQ(skyframe_frame_has_weather(f), f->status <= 1, "has_weather");
    age = f->fetched_at == 0 || now < 1577836800u ? -1
          : now <= f->fetched_at                  ? 0
                                                  : (int64_t)now - f->fetched_at;
    if (age > 0x7FFFFFFF) age = 0x7FFFFFFF;
    CHECK_EQ(skyframe_frame_age_seconds(f, now), age, "age_seconds");
    CHECK_EQ(skyframe_has_air_quality(f), aq != 0, "has_air_quality");
    CHECK_EQ(skyframe_air_quality_index(f), aq ? (int)(aq & 0x7FFF) - 1 : -1, "air_quality_index");
    CHECK_EQ(skyframe_air_quality_scale(f), aq ? aq >> 15 : -1, "air_quality_scale");
    CHECK_EQ(skyframe_has_alerts(f), f->alerts != 0, "has_alerts");
    CHECK_EQ(skyframe_alert_count(f), f->alerts ? f->alerts >> 3 : -1, "alert_count");
    CHECK_EQ(skyframe_alert_severity(f), f->alerts ? f->alerts & 7 : -1, "alert_severity");
    CHECK_EQ(skyframe_has_moon(f), f->moon != 0, "has_moon");
    if (f->moon) {
        double phase = (f->moon - 1) / 255.0;
        CHECK_EQ(skyframe_moon_phase_icon(f), (long long)llround(phase * 8) % 8, "moon icon");
        CHECK_EQ(skyframe_moon_illumination_pct(f), llround(100 * (1 - cos(2 * pi * phase)) / 2),
                 "moon illumination");
    } else {
        CHECK_EQ(skyframe_moon_phase_icon(f), -1, "moon icon when absent");
        CHECK_EQ(skyframe_moon_illumination_pct(f), -1, "moon illumination when absent");
    }
    CHECK_EQ(skyframe_has_precip_next_hour(f), f->precip_next_hour != 0, "has_precip_next_hour");
    CHECK_EQ(skyframe_precip_now(f), f->precip_next_hour ? f->precip_next_hour >> 7 : -1,
             "precip_now");
    CHECK_EQ(skyframe_precip_change_in_min(f),
             !f->precip_next_hour ? -1 : m == 127 ? SKYFRAME_PRECIP_NO_CHANGE : m - 1,
             "precip_change_in_min");
    CHECK_EQ(skyframe_has_next_update(f), f->next_update != 0, "has_next_update");
    CHECK_EQ(skyframe_next_update_seconds(f), f->next_update ? f->next_update : -1, "next_update");
    check_names(skyframe_status_name(f->status), "skyframe_status_name");
    check_names(skyframe_service_name(f->service), "skyframe_service_name");
    check_names(skyframe_sun_name(f->sun), "skyframe_sun_name");
    check_names(skyframe_air_quality_scale_name(skyframe_air_quality_scale(f)), "scale_name");
    check_names(skyframe_alert_severity_name(skyframe_alert_severity(f)), "severity_name");
    check_names(skyframe_moon_phase_name(skyframe_moon_phase_icon(f)), "moon_phase_name");
}

/* Decodes n bytes copied into a buffer of exactly n bytes (at an odd address when odd). */
static int decode_copy(const uint8_t *b, size_t n, int odd, skyframe_frame *out) {
    /* exactly n bytes after the copy's start: ASan sees any read past them */
    uint8_t *block = (uint8_t *)malloc(n + (odd ? 1 : 0));
    uint8_t *copy = block + (odd ? 1 : 0);
    int rc;
    if (block == NULL && n + (odd ? 1 : 0) > 0) abort();
    if (n) memcpy(copy, b, n);
    rc = skyframe_frame_decode(copy, n, out);
    free(block);
    return rc;
}

static void check_decode(const uint8_t *b, size_t n, uint32_t now, int must_decode) {
    skyframe_frame *out = (skyframe_frame *)malloc(sizeof *out);
    skyframe_frame *odd = (skyframe_frame *)malloc(sizeof *odd);
    unsigned char pattern[sizeof(skyframe_frame)];
    int expected = expected_error(b, n);
    int rc;
    if (out == NULL || odd == NULL) abort();
    memset(out, 0xA5, sizeof *out);
    memset(pattern, 0xA5, sizeof pattern);
    rc = decode_copy(b, n, 0, out);
    CHECK_EQ(rc, expected, "skyframe_frame_decode");
    if (must_decode) CHECK_EQ(rc, SKYFRAME_OK, "a sealed frame decodes");
    check_names(skyframe_error_name(rc), "skyframe_error_name");
    if (rc != SKYFRAME_OK) {
        if (memcmp(out, pattern, sizeof pattern) != 0) fail("*out written on error %d", rc);
    } else {
        check_fields(out, b);
        check_helpers(out, now);
        memset(odd, 0x5A, sizeof *odd);
        CHECK_EQ(decode_copy(b, n, 1, odd), SKYFRAME_OK, "decode at an odd address");
        if (memcmp(out, odd, sizeof *out) != 0) fail("decoding at an odd address differs");
    }
    free(out);
    free(odd);
}

/* ---- 3. Values ----------------------------------------------------------------------------- */

static void check_format(int32_t value, uint8_t decimals, size_t size) {
    char expected[32];
    int64_t magnitude = value < 0 ? -(int64_t)value : value;
    int d = decimals > 5 ? 5 : decimals;
    int64_t scale = 1;
    int len, i, rc;
    char *out = (char *)malloc(size); /* exactly size bytes: ASan sees a write past them */
    if (out == NULL && size > 0) abort();
    for (i = 0; i < d; i++) scale *= 10;
    if (d > 0)
        len = snprintf(expected, sizeof expected, "%s%lld.%0*lld", value < 0 ? "-" : "",
                       (long long)(magnitude / scale), d, (long long)(magnitude % scale));
    else
        len = snprintf(expected, sizeof expected, "%s%lld", value < 0 ? "-" : "",
                       (long long)magnitude);
    if (size > 0) memset(out, 'x', size);
    rc = skyframe_format_fixed(out, size, value, decimals);
    if ((size_t)len + 1 <= size) {
        CHECK_EQ(rc, len, "skyframe_format_fixed length");
        if (strcmp(out, expected) != 0)
            fail("skyframe_format_fixed(%d, %u) = \"%s\", expected \"%s\"", value, decimals, out,
                 expected);
    } else {
        CHECK_EQ(rc, -1, "skyframe_format_fixed into a small buffer");
        if (size > 0) CHECK_EQ(out[0], 0, "skyframe_format_fixed leaves \"\" when too small");
    }
    if (len + 1 > 13) fail("%d with %u decimals needs more than 13 bytes", value, decimals);
    free(out);
    CHECK_EQ(skyframe_format_fixed(NULL, 13, value, decimals), -1, "format_fixed(NULL)");
    (void)out;
}

static int64_t floor_div(int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
static int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

/* Howard Hinnant's civil_from_days / days_from_civil in 64-bit arithmetic. */
static void ref_civil(int64_t z, int64_t *y, int64_t *m, int64_t *d) {
    int64_t era, doe, yoe, doy, mp;
    z += 719468;
    era = floor_div(z, 146097);
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yoe + era * 400 + (*m <= 2);
}
static int64_t ref_days(int64_t y, int64_t m, int64_t d) {
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = floor_div(y, 400);
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void check_calendar(int32_t days, uint32_t unix_s, int16_t offset) {
    int32_t year = 0;
    uint8_t month = 0, day = 0;
    int64_t y, m, d, minute, local_day;
    skyframe_date_from_days(days, &year, &month, &day);
    ref_civil(days, &y, &m, &d);
    CHECK_EQ(year, y, "date_from_days year");
    CHECK_EQ(month, m, "date_from_days month");
    CHECK_EQ(day, d, "date_from_days day");
    CHECK_EQ(ref_days(year, month, day), days, "date_from_days then back to days");
    skyframe_date_from_days(days, NULL, NULL, NULL);
    skyframe_date_from_days(days, &year, NULL, NULL);
    CHECK_EQ(skyframe_weekday(days), floor_mod((int64_t)days + 4, 7), "weekday");
    if (unix_s == 0 || offset == INT16_MIN) {
        minute = local_day = -1;
    } else {
        minute = floor_mod((int64_t)unix_s / 60 + offset, 1440);
        local_day = floor_div((int64_t)unix_s + (int64_t)offset * 60, 86400);
    }
    CHECK_EQ(skyframe_local_minute_of_day(unix_s, offset), minute, "local_minute_of_day");
    CHECK_EQ(skyframe_local_day(unix_s, offset), local_day, "local_day");
}

static int64_t div_round(int64_t n, int64_t d) {
    return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}

static void check_unit(uint16_t result, uint16_t v, uint32_t mul, uint32_t div, double exact,
                       uint16_t in_range, const char *what) {
    int64_t r;
    if (v == 0xFFFF) {
        CHECK_EQ(result, 0xFFFF, what);
        return;
    }
    r = ((int64_t)v * mul + div / 2) / div;
    CHECK_EQ(result, r >= 0xFFFF ? 0xFFFE : r, what);
    if (v <= in_range && fabs(result - v * exact) > 0.75)
        fail("%s(%u) = %u, the exact factor gives %.3f", what, v, result, v * exact);
}

static void check_units(int16_t c10, uint16_t v) {
    int64_t f10 = c10 == INT16_MIN ? INT16_MIN : div_round((int64_t)c10 * 9, 5) + 320;
    if (c10 != INT16_MIN && f10 > 32767) f10 = 32767;
    if (c10 != INT16_MIN && f10 < -32767) f10 = -32767;
    CHECK_EQ(skyframe_c10_to_f10(c10), f10, "c10_to_f10");
    check_unit(skyframe_ms10_to_kmh10(v), v, 36, 10, 3.6, 5000, "ms10_to_kmh10");
    check_unit(skyframe_ms10_to_mph10(v), v, 22369, 10000, 1 / 0.44704, 5000, "ms10_to_mph10");
    check_unit(skyframe_ms10_to_knots10(v), v, 19438, 10000, 3600 / 1852.0, 5000,
               "ms10_to_knots10");
    check_unit(skyframe_hpa10_to_inhg100(v), v, 2953, 10000, 10 / 33.86389, 20000,
               "hpa10_to_inhg100");
    check_unit(skyframe_mm10_to_in100(v), v, 3937, 10000, 10 / 25.4, 65534, "mm10_to_in100");
}

/* ---- The request builders ------------------------------------------------------------------ */

static void check_request_start(const uint8_t *out, uint8_t kind, uint16_t id) {
    CHECK_EQ(out[0], 'S', "request magic");
    CHECK_EQ(out[1], 'Q', "request magic");
    CHECK_EQ(out[2], 1, "request version");
    CHECK_EQ(out[3], kind, "request kind");
    CHECK_EQ(le16(out + 4), id, "request id");
    CHECK_EQ(le32(out + 60), ref_crc32(out, 60), "request CRC");
}

static void check_requests(reader *r) {
    uint8_t *out = (uint8_t *)malloc(SKYFRAME_REQUEST_SIZE);
    uint16_t id = r16(r);
    int32_t lat = (int32_t)r32(r), lon = (int32_t)r32(r);
    char name[48], country[4];
    size_t n, i;
    int ok, rc, has_country;
    uint8_t selector = r8(r);
    if (out == NULL) abort();
    if (selector & 1) lat %= 9000001; /* mostly in range */
    if (selector & 2) lon %= 18000001;

    memset(out, 0xEE, SKYFRAME_REQUEST_SIZE);
    rc = skyframe_request_coordinates(out, id, lat, lon);
    ok = lat >= -9000000 && lat <= 9000000 && lon >= -18000000 && lon <= 18000000;
    CHECK_EQ(rc, ok ? SKYFRAME_OK : SKYFRAME_ERR_RANGE, "request_coordinates");
    if (ok) {
        check_request_start(out, SKYFRAME_REQUEST_KIND_COORDINATES, id);
        CHECK_EQ(se32(out + 8), lat, "request latitude");
        CHECK_EQ(se32(out + 12), lon, "request longitude");
        for (i = 6; i < 60; i++)
            if ((i < 8 || i >= 16) && out[i] != 0) fail("request_coordinates: byte %zu not 0", i);
    }
    CHECK_EQ(skyframe_request_coordinates(NULL, id, 0, 0), SKYFRAME_ERR_NULL, "coordinates(NULL)");

    memset(out, 0xEE, SKYFRAME_REQUEST_SIZE);
    CHECK_EQ(skyframe_request_refresh(out, id), SKYFRAME_OK, "request_refresh");
    check_request_start(out, SKYFRAME_REQUEST_KIND_REFRESH, id);
    for (i = 6; i < 60; i++)
        if (out[i] != 0) fail("request_refresh: byte %zu not 0", i);
    CHECK_EQ(skyframe_request_refresh(NULL, id), SKYFRAME_ERR_NULL, "refresh(NULL)");

    n = r8(r) % 46;
    for (i = 0; i < n; i++) name[i] = (char)r8(r);
    name[n] = '\0';
    n = strlen(name);
    selector = r8(r);
    for (i = 0; i < 3; i++) country[i] = (char)r8(r);
    country[selector % 4] = '\0'; /* "", 1, 2 or 3 characters */
    has_country = (selector & 4) && country[0] != '\0';
    ok = n >= 1 && n <= 40 && name[0] != ' ' && name[n - 1] != ' ';
    for (i = 0; i < n; i++) {
        uint8_t c = (uint8_t)name[i];
        if (c < 0x20 || c == 0x7F) ok = 0;
        if (c == 0xC2 && i + 1 < n && (uint8_t)name[i + 1] < 0xA0) ok = 0;
    }
    if (has_country &&
        !(is_letter((uint8_t)country[0]) && is_letter((uint8_t)country[1]) && country[2] == '\0'))
        ok = 0;
    memset(out, 0xEE, SKYFRAME_REQUEST_SIZE);
    rc = skyframe_request_place(out, id, name, (selector & 4) ? country : NULL);
    CHECK_EQ(rc, ok ? SKYFRAME_OK : SKYFRAME_ERR_RANGE, "request_place");
    if (ok) {
        check_request_start(out, SKYFRAME_REQUEST_KIND_NAME, id);
        CHECK_EQ(out[16], has_country ? (uint8_t)country[0] : 0, "request country");
        CHECK_EQ(out[17], has_country ? (uint8_t)country[1] : 0, "request country");
        for (i = 0; i < 40; i++)
            CHECK_EQ(out[20 + i], i < n ? (uint8_t)name[i] : 0, "request name byte");
        for (i = 6; i < 16; i++)
            if (out[i] != 0) fail("request_place: byte %zu not 0", i);
        CHECK_EQ(out[18] | out[19], 0, "request reserved bytes");
    }
    CHECK_EQ(skyframe_request_place(NULL, id, "x", NULL), SKYFRAME_ERR_NULL, "place(NULL, ...)");
    CHECK_EQ(skyframe_request_place(out, id, NULL, NULL), SKYFRAME_ERR_NULL, "place(out, NULL)");
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *sealed = (uint8_t *)malloc(SKYFRAME_FRAME_SIZE);
    reader r;
    uint32_t now;
    int32_t value;
    uint8_t decimals;
    size_t buffer_size;
    g_data = data;
    g_size = size;
    if (sealed == NULL) abort();
    r.p = data;
    r.n = size;
    r.at = 0;

    CHECK_EQ(skyframe_crc32(data, size), ref_crc32(data, size), "skyframe_crc32");
    CHECK_EQ(skyframe_crc32(NULL, 5), 0, "skyframe_crc32(NULL)");
    CHECK_EQ(skyframe_frame_decode(NULL, 192, (skyframe_frame *)sealed), SKYFRAME_ERR_NULL,
             "decode(NULL, ...)");
    CHECK_EQ(skyframe_frame_decode(data, size, NULL), SKYFRAME_ERR_NULL, "decode(..., NULL)");

    now = size >= 4 ? le32(data + size - 4) : 0;
    check_decode(data, size, now, 0);
    memset(sealed, 0, SKYFRAME_FRAME_SIZE);
    memcpy(sealed, data, size < SKYFRAME_FRAME_SIZE ? size : SKYFRAME_FRAME_SIZE);
    sealed[0] = 0x53;
    sealed[1] = 0x46;
    sealed[2] = 1;
    {
        uint32_t crc = ref_crc32(sealed, 188);
        sealed[188] = (uint8_t)crc;
        sealed[189] = (uint8_t)(crc >> 8);
        sealed[190] = (uint8_t)(crc >> 16);
        sealed[191] = (uint8_t)(crc >> 24);
    }
    check_decode(sealed, SKYFRAME_FRAME_SIZE, now, 1);
    free(sealed);

    value = (int32_t)r32(&r);
    decimals = r8(&r);
    for (buffer_size = 0; buffer_size <= 14; buffer_size++)
        check_format(value, decimals, buffer_size);
    check_calendar((int32_t)r32(&r), r32(&r), (int16_t)r16(&r));
    check_calendar(value, (uint32_t)value, (int16_t)(decimals * 7 - 720));
    /* Days near 0 and just before a 400-year era starts, where the arithmetic turns. */
    check_calendar((int32_t)(int8_t)decimals, (uint32_t)value % 172800u, (int16_t)(int8_t)r8(&r));
    check_calendar(value / 146097 * 146097 - (decimals & 1), (uint32_t)value, 840);
    check_units((int16_t)r16(&r), r16(&r));
    check_requests(&r);
    return 0;
}
