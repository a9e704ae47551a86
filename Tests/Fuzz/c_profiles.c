/* Fuzz target c_profiles: the profile functions of firmware-notes/skyframe_frame.h on their own
 * (skyframe_message_kind, skyframe_large_decode, skyframe_tiny_decode, skyframe_unchanged_decode,
 * skyframe_content_check, skyframe_tiny_utc_offset_min, the name functions), built by clang with
 * -fsanitize=fuzzer,address,undefined (every UBSan report is fatal).
 * Seeds: large tiny unchanged frames
 * Max length: 1024
 *
 * Every input as it is and sealed once per message (its first 960, 48, 16 or 192 bytes,
 * zero-padded, with magic, kind byte and CRC-32 made right), and each sealed message with
 * corruptions (bad magic, another kind byte, a broken CRC, one byte cut or added, and a mix the
 * input's last three bytes choose: any length, any kind byte, resealed or not). For each byte
 * string, copied into a buffer of exactly its length (ASan sees any read past it), at an aligned
 * and an odd address:
 *   - each of the three decoders returns the error schemas/frame-profiles.md 1.1 gives, in its
 *     order (length, magic, kind byte, CRC; SKYFRAME_ERR_BAD_VERSION for "unsupported kind"),
 *     and leaves *out untouched (0xA5) on an error; on success every field is the reference
 *     reader's (tables below, written row for row from schemas/frame-large.json and
 *     frame-tiny.json, and from 4 of the markdown for unchanged), sentinels kept, with the
 *     normalisations the header documents (is_day, sun, daily sun, country, air_quality,
 *     alerts, precip_next_hour); texts are the bytes before the first zero, NUL-terminated, the
 *     rest of the array 0; aligned and odd copies decode to identical structs;
 *   - skyframe_message_kind: 1.1 without the CRC (a length error split as the header documents);
 *   - skyframe_content_check: 5 (CRC-32 with the zeroed ranges) against a reference, for
 *     standard, large and tiny; SKYFRAME_ERR_BAD_VERSION for unchanged; on an error the
 *     message_kind code and *out untouched;
 *   - NULL arguments give SKYFRAME_ERR_NULL; skyframe_tiny_utc_offset_min, _kind_name and
 *     _profile_name against their documented values.
 * Once: the reference tables cover each message byte by byte, and every row is read by a check
 * (a field added to the JSON and not checked here fails). */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *g_data;
static size_t g_size;
static const char *g_label = "";

static void fail(const char *format, ...) {
    va_list args;
    size_t i;
    fprintf(stderr, "\nFUZZ CHECK FAILED (%s): ", g_label);
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

/* ---- Reference tables ----------------------------------------------------------------------- */

enum { T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_CHAR, T_UTF8 };
typedef struct {
    const char *name;
    int offset, type, count, length;
    int has_sentinel;
    long long sentinel;
    int used; /* read by a check */
} spec_field;

/* schemas/frame-large.json, field by field. */
static spec_field large_fields[] = {
    {"magic", 0, T_U8, 2, 1, 0, 0, 0},
    {"kind", 2, T_U8, 1, 1, 0, 0, 0},
    {"status", 3, T_U8, 1, 1, 0, 0, 0},
    {"request_id", 4, T_U16, 1, 1, 0, 0, 0},
    {"slot_index", 6, T_U8, 1, 1, 0, 0, 0},
    {"slot_count", 7, T_U8, 1, 1, 0, 0, 0},
    {"service", 8, T_U8, 1, 1, 0, 0, 0},
    {"is_day", 9, T_U8, 1, 1, 1, 255, 0},
    {"sun", 10, T_U8, 1, 1, 1, 255, 0},
    {"hourly_step_h", 11, T_U8, 1, 1, 0, 0, 0},
    {"latitude", 12, T_I32, 1, 1, 1, -2147483647LL - 1, 0},
    {"longitude", 16, T_I32, 1, 1, 1, -2147483647LL - 1, 0},
    {"observed_at", 20, T_U32, 1, 1, 1, 0, 0},
    {"fetched_at", 24, T_U32, 1, 1, 1, 0, 0},
    {"hourly_start", 28, T_U32, 1, 1, 1, 0, 0},
    {"utc_offset_min", 32, T_I16, 1, 1, 1, -32768, 0},
    {"daily_start", 34, T_U16, 1, 1, 1, 65535, 0},
    {"country", 36, T_CHAR, 2, 1, 1, 0, 0},
    {"air_quality", 38, T_U16, 1, 1, 1, 0, 0},
    {"next_update", 40, T_U16, 1, 1, 1, 0, 0},
    {"alerts", 42, T_U8, 1, 1, 1, 0, 0},
    {"moon", 43, T_U8, 1, 1, 1, 0, 0},
    {"precip_next_hour", 44, T_U8, 1, 1, 1, 0, 0},
    {"reserved_45", 45, T_U8, 3, 1, 0, 0, 0},
    {"name", 48, T_UTF8, 1, 48, 1, 0, 0},
    {"temperature", 96, T_I16, 1, 1, 1, -32768, 0},
    {"feels_like", 98, T_I16, 1, 1, 1, -32768, 0},
    {"dew_point", 100, T_I16, 1, 1, 1, -32768, 0},
    {"pressure", 102, T_U16, 1, 1, 1, 65535, 0},
    {"wind_speed", 104, T_U16, 1, 1, 1, 65535, 0},
    {"wind_gust", 106, T_U16, 1, 1, 1, 65535, 0},
    {"wind_direction", 108, T_U16, 1, 1, 1, 65535, 0},
    {"visibility", 110, T_U16, 1, 1, 1, 65535, 0},
    {"precipitation", 112, T_U16, 1, 1, 1, 65535, 0},
    {"humidity", 114, T_U8, 1, 1, 1, 255, 0},
    {"weather_code", 115, T_U8, 1, 1, 1, 255, 0},
    {"cloud_cover", 116, T_U8, 1, 1, 1, 255, 0},
    {"uv_index", 117, T_U8, 1, 1, 1, 255, 0},
    {"reserved_118", 118, T_U8, 2, 1, 0, 0, 0},
    {"sunrise", 120, T_U32, 1, 1, 1, 0, 0},
    {"sunset", 124, T_U32, 1, 1, 1, 0, 0},
    {"hourly_temperature", 128, T_I16, 48, 1, 1, -32768, 0},
    {"hourly_precip_amount", 224, T_U16, 48, 1, 1, 65535, 0},
    {"hourly_weather_code", 320, T_U8, 48, 1, 1, 255, 0},
    {"hourly_precip_probability", 368, T_U8, 48, 1, 1, 255, 0},
    {"hourly_wind_speed", 416, T_U8, 48, 1, 1, 255, 0},
    {"hourly_wind_gust", 464, T_U8, 48, 1, 1, 255, 0},
    {"daily_min", 512, T_I16, 8, 1, 1, -32768, 0},
    {"daily_max", 528, T_I16, 8, 1, 1, -32768, 0},
    {"daily_precip_sum", 544, T_U16, 8, 1, 1, 65535, 0},
    {"daily_sunrise", 560, T_U32, 8, 1, 1, 0, 0},
    {"daily_sunset", 592, T_U32, 8, 1, 1, 0, 0},
    {"daily_weather_code", 624, T_U8, 8, 1, 1, 255, 0},
    {"daily_precip_probability", 632, T_U8, 8, 1, 1, 255, 0},
    {"daily_uv_max", 640, T_U8, 8, 1, 1, 255, 0},
    {"daily_wind_max", 648, T_U8, 8, 1, 1, 255, 0},
    {"daily_sun", 656, T_U8, 8, 1, 1, 255, 0},
    {"minutely_start", 664, T_U32, 1, 1, 1, 0, 0},
    {"minutely_precip", 668, T_U8, 4, 1, 1, 255, 0},
    {"alert_onset", 672, T_U32, 3, 1, 1, 0, 0},
    {"alert_end", 684, T_U32, 3, 1, 1, 0, 0},
    {"alert_severity", 696, T_U8, 3, 1, 1, 0, 0},
    {"reserved_699", 699, T_U8, 1, 1, 0, 0, 0},
    {"alert_event", 700, T_UTF8, 3, 64, 1, 0, 0},
    {"reserved_892", 892, T_U8, 64, 1, 0, 0, 0},
    {"crc32", 956, T_U32, 1, 1, 0, 0, 0},
};
/* schemas/frame-tiny.json, field by field. */
static spec_field tiny_fields[] = {
    {"magic", 0, T_U8, 2, 1, 0, 0, 0},
    {"kind", 2, T_U8, 1, 1, 0, 0, 0},
    {"status", 3, T_U8, 1, 1, 0, 0, 0},
    {"request_id", 4, T_U16, 1, 1, 0, 0, 0},
    {"slot_index", 6, T_U8, 1, 1, 0, 0, 0},
    {"slot_count", 7, T_U8, 1, 1, 0, 0, 0},
    {"fetched_at", 8, T_U32, 1, 1, 1, 0, 0},
    {"next_update", 12, T_U16, 1, 1, 1, 0, 0},
    {"temperature", 14, T_I16, 1, 1, 1, -32768, 0},
    {"air_quality", 16, T_U16, 1, 1, 1, 0, 0},
    {"weather_code", 18, T_U8, 1, 1, 1, 255, 0},
    {"is_day", 19, T_U8, 1, 1, 1, 255, 0},
    {"alerts", 20, T_U8, 1, 1, 1, 0, 0},
    {"precip_next_hour", 21, T_U8, 1, 1, 1, 0, 0},
    {"wind_speed", 22, T_U8, 1, 1, 1, 255, 0},
    {"wind_gust", 23, T_U8, 1, 1, 1, 255, 0},
    {"wind_direction", 24, T_U8, 1, 1, 1, 255, 0},
    {"utc_offset_min", 25, T_I8, 1, 1, 1, -128, 0}, /* 15 min a step */
    {"humidity", 26, T_U8, 1, 1, 1, 255, 0},
    {"uv_index", 27, T_U8, 1, 1, 1, 255, 0},
    {"daily_min", 28, T_I8, 4, 1, 1, -128, 0},
    {"daily_max", 32, T_I8, 4, 1, 1, -128, 0},
    {"daily_weather_code", 36, T_U8, 4, 1, 1, 255, 0},
    {"daily_precip_probability", 40, T_U8, 4, 1, 1, 255, 0},
    {"crc32", 44, T_U32, 1, 1, 0, 0, 0},
};

/* frame-profiles.md 4. */
static spec_field unchanged_fields[] = {
    {"magic", 0, T_U8, 2, 1, 0, 0, 0},       {"kind", 2, T_U8, 1, 1, 0, 0, 0},
    {"profile", 3, T_U8, 1, 1, 0, 0, 0},     {"request_id", 4, T_U16, 1, 1, 0, 0, 0},
    {"slot_index", 6, T_U8, 1, 1, 0, 0, 0},  {"slot_count", 7, T_U8, 1, 1, 0, 0, 0},
    {"next_update", 8, T_U16, 1, 1, 1, 0, 0}, {"reserved_10", 10, T_U8, 2, 1, 0, 0, 0},
    {"crc32", 12, T_U32, 1, 1, 0, 0, 0},
};

typedef struct {
    const char *name;
    uint8_t kind;
    size_t size;
    spec_field *fields;
    size_t field_count;
    size_t zeroed[4][2]; /* 5, half-open; {0, 0} unused */
    int has_content;
} spec_message;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
static const spec_message specs[4] = {
    {"standard", 0x01, 192, NULL, 0, {{4, 8}, {20, 28}, {186, 188}, {0, 0}}, 1},
    {"large", 0x11, 960, large_fields, COUNT(large_fields),
     {{4, 8}, {20, 28}, {40, 42}, {664, 668}}, 1},
    {"tiny", 0x21, 48, tiny_fields, COUNT(tiny_fields), {{4, 8}, {8, 12}, {12, 14}, {0, 0}}, 1},
    {"unchanged", 0x31, 16, unchanged_fields, COUNT(unchanged_fields), {{0, 0}}, 0},
};
#define STANDARD (&specs[0])
#define LARGE (&specs[1])
#define TINY (&specs[2])
#define UNCHANGED (&specs[3])

static const spec_message *spec_of_size(size_t n) {
    int i;
    for (i = 0; i < 4; i++)
        if (specs[i].size == n) return &specs[i];
    return NULL;
}
static const spec_message *spec_of_kind(uint8_t kind) {
    int i;
    for (i = 0; i < 4; i++)
        if (specs[i].kind == kind) return &specs[i];
    return NULL;
}

static spec_field *field(const spec_message *m, const char *name) {
    size_t i;
    for (i = 0; i < m->field_count; i++)
        if (strcmp(m->fields[i].name, name) == 0) {
            m->fields[i].used = 1;
            return &m->fields[i];
        }
    fail("no field %s in the %s reference table", name, m->name);
    return NULL;
}

static int element_size(const spec_field *f) {
    switch (f->type) {
    case T_U16: case T_I16: return 2;
    case T_U32: case T_I32: return 4;
    default: return 1;
    }
}

/* Element i as the spec reads it: little-endian, two's complement when signed. */
static long long rd(const uint8_t *b, const spec_field *f, int i) {
    int size = element_size(f), k;
    const uint8_t *p = b + f->offset + i * size * f->length;
    unsigned long long v = 0;
    if (i < 0 || i >= f->count) fail("%s[%d] outside the field", f->name, i);
    for (k = 0; k < size; k++) v |= (unsigned long long)p[k] << (8 * k);
    if ((f->type == T_I8 || f->type == T_I16 || f->type == T_I32) && (v >> (8 * size - 1)))
        return (long long)v - (1LL << (8 * size));
    return (long long)v;
}
#define RD(m, b, name, i) rd((b), field((m), (name)), (i))

/* ---- CRC-32 and the checks of 1.1 ----------------------------------------------------------- */

static uint32_t crc_table[256];
static void make_crc_table(void) {
    uint32_t n, crc;
    int bit;
    for (n = 0; n < 256; n++) {
        crc = n;
        for (bit = 0; bit < 8; bit++) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        crc_table[n] = crc;
    }
}
static uint32_t ref_crc32(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}
static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A decoder that reads one message: length, magic, kind, CRC. */
static int spec_decode_error(const uint8_t *b, size_t n, const spec_message *m) {
    if (n < m->size) return SKYFRAME_ERR_TRUNCATED;
    if (n > m->size) return SKYFRAME_ERR_TOO_LONG;
    if (b[0] != 0x53 || b[1] != 0x46) return SKYFRAME_ERR_BAD_MAGIC;
    if (b[2] != m->kind) return SKYFRAME_ERR_BAD_VERSION;
    if (le32(b + m->size - 4) != ref_crc32(b, m->size - 4)) return SKYFRAME_ERR_CRC;
    return SKYFRAME_OK;
}

/* skyframe_message_kind: 1.1 without the CRC. A length that is no message's: truncated or too
 * long against the size byte 2 names when the magic is right and the kind known, else 960 (the
 * header's documented split; 1.1 says only that the length must be one the decoder reads). */
static int spec_message_kind(const uint8_t *b, size_t n) {
    const spec_message *m = spec_of_size(n);
    if (m == NULL) {
        size_t size = 960;
        const spec_message *named = n >= 3 && b[0] == 0x53 && b[1] == 0x46 ? spec_of_kind(b[2]) : NULL;
        if (named != NULL) size = named->size;
        return n < size ? SKYFRAME_ERR_TRUNCATED : SKYFRAME_ERR_TOO_LONG;
    }
    if (b[0] != 0x53 || b[1] != 0x46) return SKYFRAME_ERR_BAD_MAGIC;
    if (b[2] != m->kind) return SKYFRAME_ERR_BAD_VERSION;
    return m->kind;
}

/* 5: CRC-32 of the bytes before the CRC with the zeroed ranges as zero. */
static uint32_t spec_content_check(const uint8_t *b, const spec_message *m) {
    uint8_t copy[960];
    int r;
    size_t i;
    memcpy(copy, b, m->size - 4);
    for (r = 0; r < 4; r++)
        for (i = m->zeroed[r][0]; i < m->zeroed[r][1]; i++) copy[i] = 0;
    return ref_crc32(copy, m->size - 4);
}

/* ---- Fields --------------------------------------------------------------------------------- */

static int is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static long long norm_is_day(long long v) { return v <= 1 ? v : 0xFF; }
static long long norm_sun(long long v) { return v <= 2 ? v : 0xFF; }
static long long norm_aqi(long long v) { return (v & 0x7FFF) ? v : 0; }
static long long norm_alerts(long long v) { return ((v & 7) >= 1 && (v & 7) <= 6) ? v : 0; }
static long long norm_precip(long long v) {
    long long m = v & 0x7F;
    return ((m >= 1 && m <= 61) || m == 127) ? v : 0;
}

/* A text field: the bytes before the first zero (at most length), then zeros to out[length]. */
static void check_text(const char *out, const uint8_t *b, const spec_field *f, int i,
                       const char *what) {
    const uint8_t *p = b + f->offset + i * f->length;
    int n = 0, k;
    while (n < f->length && p[n] != 0) n++;
    for (k = 0; k <= f->length; k++) CHECK_EQ((uint8_t)out[k], k < n ? p[k] : 0, what);
}

static void check_country(const char *out, const uint8_t *b, const spec_message *m) {
    long long c0 = RD(m, b, "country", 0), c1 = RD(m, b, "country", 1);
    if (is_letter((uint8_t)c0) && is_letter((uint8_t)c1)) {
        CHECK_EQ((uint8_t)out[0], c0 & 0xDF, "country[0]");
        CHECK_EQ((uint8_t)out[1], c1 & 0xDF, "country[1]");
    } else {
        CHECK_EQ(out[0], 0, "country[0] of a missing country");
        CHECK_EQ(out[1], 0, "country[1] of a missing country");
    }
    CHECK_EQ(out[2], 0, "country[2]");
}

static void mark_unread(const spec_message *m, const char *const *names) {
    for (; *names != NULL; names++) (void)field(m, *names);
}

static void check_large(const skyframe_large *o, const uint8_t *b) {
    const spec_message *m = LARGE;
    static const char *const unread[] = {"magic", "reserved_45", "reserved_118", "reserved_699",
                                         "reserved_892", NULL};
    int i;
    mark_unread(m, unread);
    CHECK_EQ(o->kind, RD(m, b, "kind", 0), "large kind");
    CHECK_EQ(o->kind, SKYFRAME_KIND_LARGE, "large kind");
    CHECK_EQ(o->status, RD(m, b, "status", 0), "status");
    CHECK_EQ(o->request_id, RD(m, b, "request_id", 0), "request_id");
    CHECK_EQ(o->slot_index, RD(m, b, "slot_index", 0), "slot_index");
    CHECK_EQ(o->slot_count, RD(m, b, "slot_count", 0), "slot_count");
    CHECK_EQ(o->service, RD(m, b, "service", 0), "service");
    CHECK_EQ(o->is_day, norm_is_day(RD(m, b, "is_day", 0)), "is_day");
    CHECK_EQ(o->sun, norm_sun(RD(m, b, "sun", 0)), "sun");
    CHECK_EQ(o->hourly_step_h, RD(m, b, "hourly_step_h", 0), "hourly_step_h");
    CHECK_EQ(o->latitude, RD(m, b, "latitude", 0), "latitude");
    CHECK_EQ(o->longitude, RD(m, b, "longitude", 0), "longitude");
    CHECK_EQ(o->observed_at, RD(m, b, "observed_at", 0), "observed_at");
    CHECK_EQ(o->fetched_at, RD(m, b, "fetched_at", 0), "fetched_at");
    CHECK_EQ(o->hourly_start, RD(m, b, "hourly_start", 0), "hourly_start");
    CHECK_EQ(o->utc_offset_min, RD(m, b, "utc_offset_min", 0), "utc_offset_min");
    CHECK_EQ(o->daily_start, RD(m, b, "daily_start", 0), "daily_start");
    check_country(o->country, b, m);
    CHECK_EQ(o->air_quality, norm_aqi(RD(m, b, "air_quality", 0)), "air_quality");
    CHECK_EQ(o->next_update, RD(m, b, "next_update", 0), "next_update");
    CHECK_EQ(o->alerts, norm_alerts(RD(m, b, "alerts", 0)), "alerts");
    CHECK_EQ(o->moon, RD(m, b, "moon", 0), "moon");
    CHECK_EQ(o->precip_next_hour, norm_precip(RD(m, b, "precip_next_hour", 0)), "precip_next_hour");
    check_text(o->name, b, field(m, "name"), 0, "name");
    CHECK_EQ(o->current.temperature, RD(m, b, "temperature", 0), "temperature");
    CHECK_EQ(o->current.feels_like, RD(m, b, "feels_like", 0), "feels_like");
    CHECK_EQ(o->dew_point, RD(m, b, "dew_point", 0), "dew_point");
    CHECK_EQ(o->current.pressure, RD(m, b, "pressure", 0), "pressure");
    CHECK_EQ(o->current.wind_speed, RD(m, b, "wind_speed", 0), "wind_speed");
    CHECK_EQ(o->current.wind_gust, RD(m, b, "wind_gust", 0), "wind_gust");
    CHECK_EQ(o->current.wind_direction, RD(m, b, "wind_direction", 0), "wind_direction");
    CHECK_EQ(o->current.visibility, RD(m, b, "visibility", 0), "visibility");
    CHECK_EQ(o->current.precipitation, RD(m, b, "precipitation", 0), "precipitation");
    CHECK_EQ(o->current.humidity, RD(m, b, "humidity", 0), "humidity");
    CHECK_EQ(o->current.weather_code, RD(m, b, "weather_code", 0), "weather_code");
    CHECK_EQ(o->current.cloud_cover, RD(m, b, "cloud_cover", 0), "cloud_cover");
    CHECK_EQ(o->current.uv_index, RD(m, b, "uv_index", 0), "uv_index");
    CHECK_EQ(o->sunrise, RD(m, b, "sunrise", 0), "sunrise");
    CHECK_EQ(o->sunset, RD(m, b, "sunset", 0), "sunset");
    {
        const spec_field *temp = field(m, "hourly_temperature"),
                         *amount = field(m, "hourly_precip_amount"),
                         *code = field(m, "hourly_weather_code"),
                         *prob = field(m, "hourly_precip_probability"),
                         *wind = field(m, "hourly_wind_speed"), *gust = field(m, "hourly_wind_gust");
        CHECK_EQ(temp->count, SKYFRAME_LARGE_HOURLY_COUNT, "hourly steps");
        for (i = 0; i < SKYFRAME_LARGE_HOURLY_COUNT; i++) {
            CHECK_EQ(o->hourly[i].temperature, rd(b, temp, i), "hourly temperature");
            CHECK_EQ(o->hourly[i].precip_amount, rd(b, amount, i), "hourly precip_amount");
            CHECK_EQ(o->hourly[i].weather_code, rd(b, code, i), "hourly weather_code");
            CHECK_EQ(o->hourly[i].precip_probability, rd(b, prob, i), "hourly precip_probability");
            CHECK_EQ(o->hourly[i].wind_speed, rd(b, wind, i), "hourly wind_speed");
            CHECK_EQ(o->hourly[i].wind_gust, rd(b, gust, i), "hourly wind_gust");
        }
    }
    {
        const spec_field *lo = field(m, "daily_min"), *hi = field(m, "daily_max"),
                         *sum = field(m, "daily_precip_sum"), *rise = field(m, "daily_sunrise"),
                         *set = field(m, "daily_sunset"), *code = field(m, "daily_weather_code"),
                         *prob = field(m, "daily_precip_probability"), *uv = field(m, "daily_uv_max"),
                         *wind = field(m, "daily_wind_max"), *sun = field(m, "daily_sun");
        CHECK_EQ(lo->count, SKYFRAME_LARGE_DAILY_COUNT, "days");
        for (i = 0; i < SKYFRAME_LARGE_DAILY_COUNT; i++) {
            CHECK_EQ(o->daily[i].temperature_min, rd(b, lo, i), "daily min");
            CHECK_EQ(o->daily[i].temperature_max, rd(b, hi, i), "daily max");
            CHECK_EQ(o->daily[i].precip_sum, rd(b, sum, i), "daily precip_sum");
            CHECK_EQ(o->daily[i].sunrise, rd(b, rise, i), "daily sunrise");
            CHECK_EQ(o->daily[i].sunset, rd(b, set, i), "daily sunset");
            CHECK_EQ(o->daily[i].weather_code, rd(b, code, i), "daily weather_code");
            CHECK_EQ(o->daily[i].precip_probability, rd(b, prob, i), "daily precip_probability");
            CHECK_EQ(o->daily[i].uv_max, rd(b, uv, i), "daily uv_max");
            CHECK_EQ(o->daily[i].wind_max, rd(b, wind, i), "daily wind_max");
            CHECK_EQ(o->daily[i].sun, norm_sun(rd(b, sun, i)), "daily sun");
        }
    }
    CHECK_EQ(o->minutely_start, RD(m, b, "minutely_start", 0), "minutely_start");
    for (i = 0; i < SKYFRAME_LARGE_MINUTELY_COUNT; i++)
        CHECK_EQ(o->minutely_precip[i], RD(m, b, "minutely_precip", i), "minutely_precip");
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) {
        CHECK_EQ(o->alert[i].onset, RD(m, b, "alert_onset", i), "alert onset");
        CHECK_EQ(o->alert[i].end, RD(m, b, "alert_end", i), "alert end");
        CHECK_EQ(o->alert[i].severity, RD(m, b, "alert_severity", i), "alert severity");
        check_text(o->alert[i].event, b, field(m, "alert_event"), i, "alert event");
    }
    CHECK_EQ(o->crc32, RD(m, b, "crc32", 0), "crc32");
}

static void check_tiny(const skyframe_tiny *o, const uint8_t *b) {
    const spec_message *m = TINY;
    static const char *const unread[] = {"magic", NULL};
    int i;
    mark_unread(m, unread);
    CHECK_EQ(o->kind, RD(m, b, "kind", 0), "tiny kind");
    CHECK_EQ(o->kind, SKYFRAME_KIND_TINY, "tiny kind");
    CHECK_EQ(o->status, RD(m, b, "status", 0), "status");
    CHECK_EQ(o->request_id, RD(m, b, "request_id", 0), "request_id");
    CHECK_EQ(o->slot_index, RD(m, b, "slot_index", 0), "slot_index");
    CHECK_EQ(o->slot_count, RD(m, b, "slot_count", 0), "slot_count");
    CHECK_EQ(o->fetched_at, RD(m, b, "fetched_at", 0), "fetched_at");
    CHECK_EQ(o->next_update, RD(m, b, "next_update", 0), "next_update");
    CHECK_EQ(o->temperature, RD(m, b, "temperature", 0), "temperature");
    CHECK_EQ(o->air_quality, norm_aqi(RD(m, b, "air_quality", 0)), "air_quality");
    CHECK_EQ(o->weather_code, RD(m, b, "weather_code", 0), "weather_code");
    CHECK_EQ(o->is_day, norm_is_day(RD(m, b, "is_day", 0)), "is_day");
    CHECK_EQ(o->alerts, norm_alerts(RD(m, b, "alerts", 0)), "alerts");
    CHECK_EQ(o->precip_next_hour, norm_precip(RD(m, b, "precip_next_hour", 0)), "precip_next_hour");
    CHECK_EQ(o->wind_speed, RD(m, b, "wind_speed", 0), "wind_speed");
    CHECK_EQ(o->wind_gust, RD(m, b, "wind_gust", 0), "wind_gust");
    CHECK_EQ(o->wind_direction, RD(m, b, "wind_direction", 0), "wind_direction");
    /* The table's utc_offset_min (15 min a step) is the member utc_offset_15min. */
    CHECK_EQ(o->utc_offset_15min, RD(m, b, "utc_offset_min", 0), "utc_offset_min");
    CHECK_EQ(o->humidity, RD(m, b, "humidity", 0), "humidity");
    CHECK_EQ(o->uv_index, RD(m, b, "uv_index", 0), "uv_index");
    CHECK_EQ(field(m, "daily_min")->count, SKYFRAME_TINY_DAILY_COUNT, "tiny days");
    for (i = 0; i < SKYFRAME_TINY_DAILY_COUNT; i++) {
        CHECK_EQ(o->daily[i].temperature_min, RD(m, b, "daily_min", i), "daily min");
        CHECK_EQ(o->daily[i].temperature_max, RD(m, b, "daily_max", i), "daily max");
        CHECK_EQ(o->daily[i].weather_code, RD(m, b, "daily_weather_code", i), "daily code");
        CHECK_EQ(o->daily[i].precip_probability, RD(m, b, "daily_precip_probability", i),
                 "daily precip_probability");
    }
    CHECK_EQ(o->crc32, RD(m, b, "crc32", 0), "crc32");
    {
        long long offset = RD(m, b, "utc_offset_min", 0);
        spec_field *f = field(m, "utc_offset_min");
        CHECK_EQ(skyframe_tiny_utc_offset_min(o), offset == f->sentinel ? SKYFRAME_MISSING_I16
                                                                        : offset * 15,
                 "skyframe_tiny_utc_offset_min");
    }
}

static void check_unchanged(const skyframe_unchanged *o, const uint8_t *b) {
    const spec_message *m = UNCHANGED;
    static const char *const unread[] = {"magic", "reserved_10", NULL};
    mark_unread(m, unread);
    CHECK_EQ(o->kind, RD(m, b, "kind", 0), "unchanged kind");
    CHECK_EQ(o->kind, SKYFRAME_KIND_UNCHANGED, "unchanged kind");
    CHECK_EQ(o->profile, RD(m, b, "profile", 0), "profile");
    CHECK_EQ(o->request_id, RD(m, b, "request_id", 0), "request_id");
    CHECK_EQ(o->slot_index, RD(m, b, "slot_index", 0), "slot_index");
    CHECK_EQ(o->slot_count, RD(m, b, "slot_count", 0), "slot_count");
    CHECK_EQ(o->next_update, RD(m, b, "next_update", 0), "next_update");
    CHECK_EQ(o->crc32, RD(m, b, "crc32", 0), "crc32");
}

/* ---- One byte string ------------------------------------------------------------------------ */

/* A copy of b in a block of exactly n bytes after `odd` leading bytes (ASan sees reads past it). */
static uint8_t *exact_copy(const uint8_t *b, size_t n, int odd, uint8_t **block) {
    size_t size = n + (size_t)odd;
    *block = (uint8_t *)malloc(size > 0 ? size : 1); /* malloc(0) may return NULL */
    if (*block == NULL) abort();
    if (n > 0) memcpy(*block + odd, b, n);
    return *block + odd;
}

#define DECODE_CASE(type, decode, checker)                                                        \
    do {                                                                                          \
        type *out[2];                                                                             \
        unsigned char pattern[sizeof(type)];                                                      \
        int odd, rc[2], want = spec_decode_error(b, n, m);                                        \
        memset(pattern, 0xA5, sizeof pattern);                                                    \
        for (odd = 0; odd < 2; odd++) {                                                           \
            uint8_t *block, *copy = exact_copy(b, n, odd, &block);                                \
            out[odd] = (type *)malloc(sizeof(type));                                              \
            if (out[odd] == NULL) abort();                                                        \
            memset(out[odd], 0xA5, sizeof(type));                                                 \
            rc[odd] = decode(copy, n, out[odd]);                                                  \
            CHECK_EQ(rc[odd], want, #decode);                                                     \
            CHECK_EQ(decode(NULL, n, out[odd]), SKYFRAME_ERR_NULL, #decode "(NULL, ...)");         \
            CHECK_EQ(decode(copy, n, NULL), SKYFRAME_ERR_NULL, #decode "(..., NULL)");            \
            free(block);                                                                          \
            if (rc[odd] != SKYFRAME_OK) {                                                         \
                if (memcmp(out[odd], pattern, sizeof pattern) != 0)                              \
                    fail("%s wrote *out on error %d", #decode, rc[odd]);                          \
            } else {                                                                              \
                checker(out[odd], b);                                                             \
                decoded++;                                                                        \
            }                                                                                     \
        }                                                                                         \
        if (rc[0] == SKYFRAME_OK && memcmp(out[0], out[1], sizeof(type)) != 0)                    \
            fail("%s: the odd-address copy decodes differently", #decode);                        \
        free(out[0]);                                                                             \
        free(out[1]);                                                                             \
    } while (0)

static int decoded;

static void check_bytes(const uint8_t *b, size_t n, const char *label) {
    const spec_message *m;
    int odd, kind = spec_message_kind(b, n);
    uint32_t content = 0;
    g_label = label;
    if (kind > 0 && spec_of_kind((uint8_t)kind)->has_content)
        content = spec_content_check(b, spec_of_kind((uint8_t)kind));
    m = LARGE;
    DECODE_CASE(skyframe_large, skyframe_large_decode, check_large);
    m = TINY;
    DECODE_CASE(skyframe_tiny, skyframe_tiny_decode, check_tiny);
    m = UNCHANGED;
    DECODE_CASE(skyframe_unchanged, skyframe_unchanged_decode, check_unchanged);
    for (odd = 0; odd < 2; odd++) {
        uint8_t *block, *copy = exact_copy(b, n, odd, &block);
        uint32_t check = 0xA5A5A5A5u;
        int rc;
        CHECK_EQ(skyframe_message_kind(copy, n), kind, "skyframe_message_kind");
        rc = skyframe_content_check(copy, n, &check);
        if (kind > 0 && spec_of_kind((uint8_t)kind)->has_content) {
            CHECK_EQ(rc, SKYFRAME_OK, "skyframe_content_check");
            CHECK_EQ(check, content, "skyframe_content_check against 5");
        } else {
            CHECK_EQ(rc, kind > 0 ? SKYFRAME_ERR_BAD_VERSION : kind, "skyframe_content_check error");
            CHECK_EQ(check, 0xA5A5A5A5u, "skyframe_content_check wrote *out on an error");
        }
        CHECK_EQ(skyframe_content_check(copy, n, NULL), SKYFRAME_ERR_NULL, "content_check(NULL out)");
        free(block);
    }
    CHECK_EQ(skyframe_message_kind(NULL, n), SKYFRAME_ERR_NULL, "skyframe_message_kind(NULL)");
    CHECK_EQ(skyframe_content_check(NULL, n, NULL), SKYFRAME_ERR_NULL, "content_check(NULL)");
}

static void seal(uint8_t *msg, const uint8_t *data, size_t size, const spec_message *m) {
    memset(msg, 0, m->size);
    memcpy(msg, data, size < m->size ? size : m->size);
    msg[0] = 0x53;
    msg[1] = 0x46;
    msg[2] = m->kind;
    put32(msg + m->size - 4, ref_crc32(msg, m->size - 4));
}

static const uint8_t kinds[4] = {0x01, 0x11, 0x21, 0x31};
static const size_t sizes[4] = {16, 48, 192, 960};

/* The corruptions of a sealed message (as profile_decode.swift). */
static void check_corruptions(const uint8_t *sealed, const spec_message *m, uint8_t flags,
                              uint8_t first, uint8_t second) {
    uint8_t msg[960 + 128];
    size_t n = m->size, length;
    int here = 0, k;
    for (k = 0; k < 4; k++)
        if (kinds[k] == m->kind) here = k;

    memcpy(msg, sealed, n);
    msg[first & 1] ^= (uint8_t)(second | 1);
    check_bytes(msg, n, "bad magic");
    memcpy(msg, sealed, n);
    msg[2] = kinds[(here + 1 + first % 3) % 4];
    check_bytes(msg, n, "another kind");
    memcpy(msg, sealed, n);
    msg[n - 4 + first % 4] ^= (uint8_t)(second | 1);
    check_bytes(msg, n, "broken CRC");
    memcpy(msg, sealed, n);
    check_bytes(msg, n - 1, "one byte cut");
    msg[n] = first;
    check_bytes(msg, n + 1, "one byte added");

    if ((flags & 0x2F) == 0) return;
    memcpy(msg, sealed, n);
    length = n;
    if (flags & 0x01) msg[second & 1] ^= (uint8_t)(first | 1);
    if (flags & 0x02) msg[2] = (flags & 0x80) ? first : kinds[first % 4];
    if (flags & 0x04) {
        long long want = (flags & 0x10) ? (long long)sizes[second % 4]
                                        : (long long)n + (int8_t)second;
        length = want < 0 ? 0 : (size_t)want;
        if (length > n) memset(msg + n, first, length - n);
    }
    if ((flags & 0x20) && spec_of_size(length) != NULL) {
        put32(msg + length - 4, ref_crc32(msg, length - 4));
    } else if ((flags & 0x08) && length >= 4) {
        msg[length - 1 - first % 4] ^= (uint8_t)(second | 1);
    }
    check_bytes(msg, length, "mixed");
}

static void check_tables_once(void) {
    static int done;
    int i;
    size_t f;
    if (done) return;
    done = 1;
    make_crc_table();
    CHECK_EQ(ref_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u, "CRC-32 check value");
    for (i = 1; i < 4; i++) {
        int next = 0;
        for (f = 0; f < specs[i].field_count; f++) {
            const spec_field *row = &specs[i].fields[f];
            CHECK_EQ(row->offset, next, "reference table: fields follow each other");
            CHECK_EQ(row->offset % element_size(row), 0, "reference table: aligned");
            next = row->offset + element_size(row) * row->length * row->count;
        }
        CHECK_EQ(next, specs[i].size, "reference table: fields cover the message");
    }
    CHECK_EQ(SKYFRAME_LARGE_SIZE, 960, "SKYFRAME_LARGE_SIZE");
    CHECK_EQ(SKYFRAME_TINY_SIZE, 48, "SKYFRAME_TINY_SIZE");
    CHECK_EQ(SKYFRAME_UNCHANGED_SIZE, 16, "SKYFRAME_UNCHANGED_SIZE");
    CHECK_EQ(SKYFRAME_KIND_LARGE, 0x11, "SKYFRAME_KIND_LARGE");
    CHECK_EQ(SKYFRAME_KIND_TINY, 0x21, "SKYFRAME_KIND_TINY");
    CHECK_EQ(SKYFRAME_KIND_UNCHANGED, 0x31, "SKYFRAME_KIND_UNCHANGED");
}

/* Every row read by a check, once one message of each kind decoded. */
static void check_rows_read(void) {
    static int done;
    int i;
    size_t f;
    if (done) return;
    for (i = 1; i < 4; i++)
        for (f = 0; f < specs[i].field_count; f++)
            if (!specs[i].fields[f].used) {
                if (strcmp(specs[i].fields[f].name, "crc32") == 0 ||
                    strcmp(specs[i].fields[f].name, "kind") == 0)
                    continue;
                fail("%s: field %s is not checked", specs[i].name, specs[i].fields[f].name);
            }
    done = 1;
}

static void check_names(void) {
    CHECK_EQ(strcmp(skyframe_kind_name(SKYFRAME_KIND_LARGE), "large"), 0, "kind_name large");
    CHECK_EQ(strcmp(skyframe_kind_name(SKYFRAME_KIND_TINY), "tiny"), 0, "kind_name tiny");
    CHECK_EQ(strcmp(skyframe_kind_name(SKYFRAME_KIND_UNCHANGED), "unchanged"), 0, "kind_name");
    CHECK_EQ(strcmp(skyframe_kind_name(SKYFRAME_KIND_STANDARD), "standard"), 0, "kind_name");
    CHECK_EQ(strcmp(skyframe_profile_name(0), "standard"), 0, "profile_name 0");
    CHECK_EQ(strcmp(skyframe_profile_name(1), "large"), 0, "profile_name 1");
    CHECK_EQ(strcmp(skyframe_profile_name(2), "tiny"), 0, "profile_name 2");
    CHECK_EQ(skyframe_tiny_utc_offset_min(NULL), SKYFRAME_MISSING_I16, "tiny_utc_offset_min(NULL)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t sealed[960];
    uint8_t flags = 0, first = 0, second = 0;
    int i;
    g_data = data;
    g_size = size;
    check_tables_once();
    check_bytes(data, size, "input");
    if (size >= 1) flags = data[size - 1];
    if (size >= 2) second = data[size - 2];
    if (size >= 3) first = data[size - 3];
    {
        /* any kind byte and profile number has a name */
        int k = size >= 1 ? data[0] : 0;
        if (skyframe_kind_name(k) == NULL || skyframe_profile_name((uint8_t)k) == NULL)
            fail("a name function returned NULL");
        if (spec_of_kind((uint8_t)k) == NULL && strcmp(skyframe_kind_name(k), "unknown") != 0)
            fail("kind_name(%d) is not \"unknown\"", k);
        if (k > 2 && strcmp(skyframe_profile_name((uint8_t)k), "unknown") != 0)
            fail("profile_name(%d) is not \"unknown\"", k);
    }
    for (i = 0; i < 4; i++) {
        seal(sealed, data, size, &specs[i]);
        decoded = 0;
        check_bytes(sealed, specs[i].size, specs[i].name);
        if (i > 0) CHECK_EQ(decoded, 2, "a sealed message decodes at both addresses");
        check_corruptions(sealed, &specs[i], flags, first, second);
    }
    check_rows_read();
    check_names();
    return 0;
}
