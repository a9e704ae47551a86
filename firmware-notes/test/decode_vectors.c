/*
 * decode_vectors.c - test driver for skyframe_frame.h.
 *
 *   decode_vectors            reads one hex frame per line on stdin, prints one JSON object per
 *                             line: the decoded frame in wire units (null for a missing value),
 *                             the v1.1 fields as wire values ("*_wire") and as the helpers read
 *                             them (an object, or null when absent),
 *                             or {"ok":false,"error":"<skyframe_error_name>",...}.
 *   decode_vectors --self-test runs the built-in checks (errors, CRC, helpers), prints one line
 *                             per check and "self-test: N passed, M failed"; exit 1 on failure.
 *   decode_vectors --request   reads "refresh ID", "coordinates ID LAT_E5 LON_E5" or
 *                             "place ID COUNTRY|- NAME_HEX" lines, each optionally followed by
 *                             " profile=N" and " check=HEX", prints the 64-byte binary
 *                             request as hex (or "error <name>"), one line each.
 *   decode_vectors --uplink    reads "coordinates ID LAT_E5 LON_E5", "place ID INDEX" or
 *                             "refresh ID" lines, each optionally followed by " check=HEX", and
 *                             prints the LoRaWAN uplink request skyframe_uplink_* writes as hex
 *                             (or "error <name>"), one line each (compare.py's fourth argument).
 *   decode_vectors --profiles  reads "DECODER HEX" lines, DECODER one of any, standard, large,
 *                             tiny, unchanged (any: skyframe_message_kind() picks the decoder),
 *                             prints one JSON object per line (boards/profile_json.h): a message
 *                             of frame-profiles.md in wire units with its content check, or the
 *                             error (compare.py --profiles). Needs a header with the profiles.
 *
 * Built with -DSKYFRAME_TEST_V1_0 it uses the unchanged v1.0 header test/v1.0/skyframe_frame.h
 * instead (run.sh's compatibility test): no v1.1 fields in the JSON, no v1.1 self-test checks,
 * no profiles (TEST_PROFILES 0: no --profiles, no profile self-test checks).
 * -DSKYFRAME_TEST_BUFFER_OFFSET=0 decodes the vectors from a 4-byte aligned buffer (default 1:
 * an odd address); -DSKYFRAME_TEST_DECODE=fn decodes them with another decoder of the same
 * signature (e.g. an Embedded Swift one; --profiles always uses the header's decoders). The JSON
 * printers are boards/frame_json.h and boards/profile_json.h (shared with the AVR driver). This
 * file also runs on emulated Arm and RISC-V boards (boards/run.sh); its profile checks share one
 * scratch buffer so that the micro:bit image keeps 2 KB for the heap.
 *
 * Used by run.sh / compare.py. Plain C99 + stdio (and libm for the self-test's reference moon
 * values); the header itself needs neither.
 */
#define SKYFRAME_FRAME_IMPLEMENTATION
#ifdef SKYFRAME_TEST_V1_0
#include "v1.0/skyframe_frame.h"
#else
#include "../skyframe_frame.h"
#endif

/* TEST_V1_1: the header reads the v1.1 fields (it defines SKYFRAME_FRAME_MINOR_VERSION >= 1). */
#ifdef SKYFRAME_FRAME_MINOR_VERSION
#if SKYFRAME_FRAME_MINOR_VERSION >= 1
#define TEST_V1_1 1
#endif
#endif
#ifndef TEST_V1_1
#define TEST_V1_1 0
#endif
#if defined(SKYFRAME_TEST_V1_0) && TEST_V1_1
#error "SKYFRAME_TEST_V1_0 but the header included reads v1.1"
#endif
/* TEST_PROFILES: the header reads large, tiny and unchanged (frame-profiles.md). */
#ifdef SKYFRAME_PROFILES_VERSION
#define TEST_PROFILES 1
#else
#define TEST_PROFILES 0
#endif

/* TEST_UPLINK: the header writes the LoRaWAN uplink request (lorawan-uplink-v1.md). */
#ifdef SKYFRAME_UPLINK_VERSION
#define TEST_UPLINK 1
#else
#define TEST_UPLINK 0
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON output: boards/frame_json.h, shared with the AVR driver ------------------------- */

#define SFJ_PUTC(c) putchar(c)
#include "boards/frame_json.h"
#if TEST_PROFILES
#include "boards/profile_json.h"
#endif

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

#define MAX_INPUT 1024

/* The decoder the vector path calls (decode_stdin; the self-test always tests the header's).
 * Another implementation with the same signature and return codes can be linked in instead,
 * e.g. -DSKYFRAME_TEST_DECODE=skyframe_swift_frame_decode and its object file (see
 * boards/build-arm.sh: EXTRA_CFLAGS, EXTRA_OBJECTS). It fills the same skyframe_frame. */
#ifndef SKYFRAME_TEST_DECODE
#define SKYFRAME_TEST_DECODE skyframe_frame_decode
#else
int SKYFRAME_TEST_DECODE(const uint8_t *buf, size_t len, skyframe_frame *out);
#endif

/* The vector path decodes from SKYFRAME_TEST_BUFFER_OFFSET bytes past a 4-byte aligned address:
 * 1 (the default) is an odd address, as an MQTT library's payload pointer often is; 0 is an
 * aligned buffer. The boards run both (on the Cortex-M4 with unaligned accesses trapping). */
#ifndef SKYFRAME_TEST_BUFFER_OFFSET
#define SKYFRAME_TEST_BUFFER_OFFSET 1
#endif

/* One JSON line per input line: a standard frame's hex (profiles 0), or "DECODER HEX" (profiles
 * 1: decode_vectors --profiles). */
static int decode_stdin(int profiles) {
    static char line[2 * MAX_INPUT + 64];
    static union {
        uint32_t align;
        uint8_t bytes[MAX_INPUT + 4];
    } storage;
    uint8_t *buf = storage.bytes + SKYFRAME_TEST_BUFFER_OFFSET;
    if (((uintptr_t)buf & 3u) != (SKYFRAME_TEST_BUFFER_OFFSET & 3u)) {
        fprintf(stderr, "decode buffer at %p, not %d past a 4-byte boundary\n", (void *)buf,
                SKYFRAME_TEST_BUFFER_OFFSET);
        return 1;
    }
    while (fgets(line, (int)sizeof line, stdin) != NULL) {
        size_t n = strlen(line), len = 0, i;
        int bad = 0, rc;
        char decoder = 0;
        const char *hex = line;
        skyframe_frame f;
        if (n > 0 && line[n - 1] != '\n' && !feof(stdin)) {
            sfj_print_input_error(SFJ_LIT("input_line_too_long"));
            return 1;
        }
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (profiles) { /* "DECODER HEX": the decoder's first letter, the hex after the space */
            const char *space = strchr(line, ' ');
            static const char *const names[] = {"any", "standard", "large", "tiny", "unchanged"};
            for (i = 0; space != NULL && i < 5; i++)
                if ((size_t)(space - line) == strlen(names[i]) &&
                    strncmp(line, names[i], strlen(names[i])) == 0)
                    decoder = names[i][0];
            if (decoder == 0) {
                sfj_print_input_error(SFJ_LIT("unknown_decoder"));
                continue;
            }
            hex = space + 1;
            n -= (size_t)(hex - line);
        }
        if (n % 2 != 0 || n / 2 > MAX_INPUT) bad = 1;
        for (i = 0; !bad && i < n; i += 2) {
            int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
            if (hi < 0 || lo < 0) bad = 1;
            else buf[len++] = (uint8_t)(hi * 16 + lo);
        }
        if (bad) {
            sfj_print_input_error(SFJ_LIT("bad_hex"));
            continue;
        }
#if TEST_PROFILES
        if (profiles) {
            sfj_profile_line(decoder, buf, len);
            continue;
        }
#endif
        rc = SKYFRAME_TEST_DECODE(buf, len, &f);
        if (rc != SKYFRAME_OK)
            sfj_print_error(rc, (unsigned long)len);
        else
            sfj_print_frame(&f);
    }
    return 0;
}

/* ---- Self-test ---------------------------------------------------------------------------- */

static int passed, failed;

static void check(int cond, const char *what) {
    if (cond) {
        passed++;
        printf("ok   %s\n", what);
    } else {
        failed++;
        printf("FAIL %s\n", what);
    }
}

static void put16(uint8_t *p, unsigned v) {
    p[0] = (uint8_t)(v & 0xFF);
    p[1] = (uint8_t)((v >> 8) & 0xFF);
}
static void put32(uint8_t *p, unsigned long v) {
    p[0] = (uint8_t)(v & 0xFF);
    p[1] = (uint8_t)((v >> 8) & 0xFF);
    p[2] = (uint8_t)((v >> 16) & 0xFF);
    p[3] = (uint8_t)((v >> 24) & 0xFF);
}
static void reseal(uint8_t *p) { put32(p + 188, skyframe_crc32(p, 188)); }

/* Independent bitwise CRC, the definition the nibble table must agree with. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFUL;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320UL & (0UL - (crc & 1UL)));
    }
    return ~crc;
}

/* A frame written field by field from FrameLayout.swift's offsets, independently of the
 * decoder's table: Wellington-ish, negative/positive values, sentinels, a full 24-byte name. */
static void build_frame(uint8_t *p) {
    int i;
    memset(p, 0, 192);
    p[0] = 'S'; p[1] = 'F'; p[2] = 1; p[3] = 1; /* stale */
    put16(p + 4, 0xBEEF);
    p[6] = 2; p[7] = 3; p[8] = 3; /* slot 2 of 3, weatherapi */
    p[9] = 0; p[10] = 2; p[11] = 3; /* night, polar night, 3 h step */
    put32(p + 12, (unsigned long)(uint32_t)-4128655L); /* -41.28655 */
    put32(p + 16, 17477700UL);                          /* 174.777 */
    put32(p + 20, 1700000000UL);
    put32(p + 24, 1700000123UL);
    put32(p + 28, 1700002800UL);
    put16(p + 32, 780); /* +13:00 */
    put16(p + 34, 19676); /* 2023-11-15 */
    p[36] = 'n'; p[37] = 'z'; /* lower case on the wire: decoded upper-case */
    memcpy(p + 40, "Abcdefghijklmnopqrstuvwx", 24); /* fills the field: no NUL on the wire */
    put16(p + 64, (unsigned)(uint16_t)(int16_t)-123);
    put16(p + 66, 0x8000); /* feels_like missing */
    put16(p + 68, 10132); put16(p + 70, 34); put16(p + 72, 0xFFFF); put16(p + 74, 359);
    put16(p + 76, 2414); put16(p + 78, 0);
    p[80] = 100; p[81] = 0xFF; p[82] = 0; p[83] = 250;
    /* v1.1 (the examples of frame-v1.md 5.5-5.8); a v1.0 decoder ignores them */
    put16(p + 38, 0x8000u | 43u); /* US AQI 42 */
    p[84] = (2 << 3) | 5;         /* two alerts, the worst severe */
    p[85] = 192;                  /* last quarter */
    p[86] = 0x9F;                 /* raining, stops in 30 min */
    p[87] = 0xA5;                 /* reserved: must be ignored */
    put32(p + 88, 0); put32(p + 92, 1700040000UL);
    for (i = 0; i < 12; i++) {
        put16(p + 96 + 2 * i, (unsigned)(uint16_t)(int16_t)(-1000 + 150 * i));
        p[120 + i] = (uint8_t)(i == 5 ? 0xFF : 60 + i);
        p[132 + i] = (uint8_t)(i * 9);
    }
    for (i = 0; i < 7; i++) {
        put16(p + 144 + 2 * i, (unsigned)(uint16_t)(int16_t)(-50 * i));
        put16(p + 158 + 2 * i, (unsigned)(i == 6 ? 0x8000 : 1000 - i));
        p[172 + i] = (uint8_t)(95 + i % 5);
        p[179 + i] = (uint8_t)(i == 0 ? 0xFF : 100 - i);
    }
    put16(p + 186, 540); /* v1.1 next update: 540 s */
    reseal(p);
}

static int frames_equal(const skyframe_frame *a, const skyframe_frame *b) {
    return memcmp(a, b, sizeof *a) == 0; /* both came from memset'ed locals in the decoder */
}

/* Equal in every v1.0 field (the v1.1 fields and the CRC may differ). */
static int v1_0_fields_equal(const skyframe_frame *a, const skyframe_frame *b) {
    skyframe_frame x = *a, y = *b;
    x.crc32 = y.crc32 = 0;
#if TEST_V1_1
    x.air_quality = y.air_quality = 0;
    x.alerts = y.alerts = 0;
    x.moon = y.moon = 0;
    x.precip_next_hour = y.precip_next_hour = 0;
    x.next_update = y.next_update = 0;
#endif
    return frames_equal(&x, &y);
}

static void from_hex(const char *hex, uint8_t *out) {
    size_t i, n = strlen(hex) / 2;
    for (i = 0; i < n; i++) out[i] = (uint8_t)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
}

/* The two worked examples of schemas/frame-v1.md section 10, byte for byte. */
static const char spec_berlin_hex[] =
        "534601002a00000101010001a023500054741400a48a8767d08b8767208787673c00874e444500004265726c696e0000"
        "000000000000000000000000000000001800f3ffe6272a006100fa006e0900005603640400000000845f876788d38767"
        "18001c001f0021000080008000800080008000800080008003033d3dffffffffffffffff0a142d3cffffffffffffffff"
        "f4ffe2ff0080008000800080008029001900008000800080008000803d47ffffffffff3c28ffffffffff000096eccf16";
static const char spec_not_found_hex[] =
        "534601020700010200ffff0000000080000000800000000000000000000000000080ffff0000000041746c616e746973"
        "0000000000000000000000000000000000800080ffffffffffffffffffffffffffffffff000000000000000000000000"
        "008000800080008000800080008000800080008000800080ffffffffffffffffffffffffffffffffffffffffffffffff"
        "00800080008000800080008000800080008000800080008000800080ffffffffffffffffffffffffffff000069997d51";

#if TEST_V1_1
/* base with `width` (1 or 2) bytes at `off` set to `value` and a new CRC, decoded from an odd
 * address. */
static int redecode(const uint8_t *base, int off, unsigned value, int width, skyframe_frame *out) {
    static uint8_t storage[193];
    uint8_t *p = storage + 1;
    memcpy(p, base, 192);
    if (width == 2) put16(p + off, value); else p[off] = (uint8_t)value;
    reseal(p);
    return skyframe_frame_decode(p, 192, out);
}

/* Every v1.1 helper says "absent". */
static int all_v1_1_absent(const skyframe_frame *f) {
    return !skyframe_has_air_quality(f) && skyframe_air_quality_index(f) == -1 &&
           skyframe_air_quality_scale(f) == -1 && !skyframe_has_alerts(f) &&
           skyframe_alert_count(f) == -1 && skyframe_alert_severity(f) == -1 &&
           !skyframe_has_moon(f) && skyframe_moon_phase_icon(f) == -1 &&
           skyframe_moon_illumination_pct(f) == -1 && !skyframe_has_precip_next_hour(f) &&
           skyframe_precip_now(f) == -1 && skyframe_precip_change_in_min(f) == -1 &&
           !skyframe_has_next_update(f) && skyframe_next_update_seconds(f) == -1 &&
           (f == NULL || (f->air_quality == 0 && f->alerts == 0 && f->moon == 0 &&
                          f->precip_next_hour == 0 && f->next_update == 0));
}

static int aqi_is(const uint8_t *base, unsigned wire, int index, int scale, const char *name) {
    skyframe_frame g;
    return redecode(base, 38, wire, 2, &g) == SKYFRAME_OK && g.air_quality == wire &&
           skyframe_has_air_quality(&g) && skyframe_air_quality_index(&g) == index &&
           skyframe_air_quality_scale(&g) == scale &&
           strcmp(skyframe_air_quality_scale_name(skyframe_air_quality_scale(&g)), name) == 0;
}
static int alerts_are(const uint8_t *base, unsigned wire, int count, int severity,
                      const char *name) {
    skyframe_frame g;
    return redecode(base, 84, wire, 1, &g) == SKYFRAME_OK && g.alerts == wire &&
           skyframe_has_alerts(&g) && skyframe_alert_count(&g) == count &&
           skyframe_alert_severity(&g) == severity &&
           strcmp(skyframe_alert_severity_name(skyframe_alert_severity(&g)), name) == 0;
}
static int moon_is(const uint8_t *base, unsigned wire, int icon, const char *name, int pct) {
    skyframe_frame g;
    return redecode(base, 85, wire, 1, &g) == SKYFRAME_OK && g.moon == wire &&
           skyframe_has_moon(&g) && skyframe_moon_phase_icon(&g) == icon &&
           strcmp(skyframe_moon_phase_name(skyframe_moon_phase_icon(&g)), name) == 0 &&
           skyframe_moon_illumination_pct(&g) == pct;
}
static int precip_is(const uint8_t *base, unsigned wire, int now, int minutes) {
    skyframe_frame g;
    return redecode(base, 86, wire, 1, &g) == SKYFRAME_OK && g.precip_next_hour == wire &&
           skyframe_has_precip_next_hour(&g) && skyframe_precip_now(&g) == now &&
           skyframe_precip_change_in_min(&g) == minutes;
}

static void self_test_v1_1(const uint8_t *frame, const skyframe_frame *f) {
    static uint8_t copy[192];
    skyframe_frame g;
    int i, all;
    char msg[160];
    const double pi = 3.14159265358979323846;

    check(f->air_quality == 0x802Bu && f->alerts == 0x15u && f->moon == 192u &&
              f->precip_next_hour == 0x9Fu && f->next_update == 540u,
          "v1.1: built frame's wire values in the struct");
    check(skyframe_air_quality_index(f) == 42 && skyframe_air_quality_scale(f) == SKYFRAME_AQI_US &&
              skyframe_alert_count(f) == 2 && skyframe_alert_severity(f) == SKYFRAME_ALERT_SEVERE &&
              skyframe_moon_phase_icon(f) == SKYFRAME_MOON_LAST_QUARTER &&
              skyframe_moon_illumination_pct(f) == 50 && skyframe_precip_now(f) == 1 &&
              skyframe_precip_change_in_min(f) == 30 && skyframe_next_update_seconds(f) == 540,
          "v1.1: built frame through the helpers (US AQI 42, 2 alerts severe, last quarter, "
          "raining for 30 min, 540 s)");

    /* A v1.0 frame: zeros in every v1.1 byte */
    from_hex(spec_berlin_hex, copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_OK && all_v1_1_absent(&g),
          "v1.1: a v1.0 frame (spec example, zeros) reads every v1.1 field as absent");
    from_hex(spec_not_found_hex, copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_OK && all_v1_1_absent(&g),
          "v1.1: a v1.0 error frame reads every v1.1 field as absent");
    memcpy(copy, frame, 192);
    memset(copy + 38, 0, 2);
    memset(copy + 84, 0, 4);
    memset(copy + 186, 0, 2);
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_OK && all_v1_1_absent(&g),
          "v1.1: built frame with 38-39, 84-87, 186-187 zero: every v1.1 field absent");
    check(all_v1_1_absent(NULL), "v1.1: NULL frame: every helper says absent");
    check(strcmp(skyframe_air_quality_scale_name(-1), "absent") == 0 &&
              strcmp(skyframe_alert_severity_name(-1), "absent") == 0 &&
              strcmp(skyframe_moon_phase_name(-1), "absent") == 0,
          "v1.1: names of an absent value (-1) are \"absent\"");

    /* Air quality, frame-v1.md 5.5 */
    check(aqi_is(frame, 0x0001u, 0, SKYFRAME_AQI_EUROPEAN, "european_aqi"),
          "AQI wire 1 (\"01 00\") is European index 0, not absent");
    check(aqi_is(frame, 0x8001u, 0, SKYFRAME_AQI_US, "us_aqi"), "AQI wire 0x8001 is US index 0");
    check(aqi_is(frame, 0x802Bu, 42, SKYFRAME_AQI_US, "us_aqi"),
          "AQI \"2b 80\" is US AQI 42 (spec example)");
    check(aqi_is(frame, 1000u, 999, SKYFRAME_AQI_EUROPEAN, "european_aqi") &&
              aqi_is(frame, 0x8000u | 1000u, 999, SKYFRAME_AQI_US, "us_aqi"),
          "AQI index 999 on both scales");
    check(aqi_is(frame, 0xFFFFu, 32766, SKYFRAME_AQI_US, "us_aqi"),
          "AQI above 999 is passed on, not range-checked (0xFFFF: US 32766)");
    check(redecode(frame, 38, 0, 2, &g) == SKYFRAME_OK && !skyframe_has_air_quality(&g) &&
              skyframe_air_quality_index(&g) == -1 && skyframe_air_quality_scale(&g) == -1,
          "AQI wire 0 is absent");
    check(redecode(frame, 38, 0x8000u, 2, &g) == SKYFRAME_OK && g.air_quality == 0 &&
              !skyframe_has_air_quality(&g) && skyframe_air_quality_index(&g) == -1,
          "AQI wire 0x8000 (US scale, no index) is absent");
    check(strcmp(skyframe_air_quality_scale_name(2), "absent") == 0, "AQI scale 2 is named absent");

    /* Alerts, 5.6 */
    check(alerts_are(frame, 0x15u, 2, SKYFRAME_ALERT_SEVERE, "severe"),
          "alerts 0x15: two, the worst severe (spec example)");
    check(alerts_are(frame, 0x01u, 0, SKYFRAME_ALERT_NONE, "none"),
          "alerts 0x01: none in force (present, count 0)");
    check(alerts_are(frame, 0xFEu, 31, SKYFRAME_ALERT_EXTREME, "extreme") &&
              alerts_are(frame, 0x0Au, 1, SKYFRAME_ALERT_UNKNOWN, "unknown") &&
              alerts_are(frame, 0x0Bu, 1, SKYFRAME_ALERT_MINOR, "minor") &&
              alerts_are(frame, 0x1Cu, 3, SKYFRAME_ALERT_MODERATE, "moderate"),
          "alerts: 31 (or more) extreme, every severity name");
    all = 1;
    for (i = 0; i < 256; i++) {
        int sev = i & 7, valid = sev >= 1 && sev <= 6;
        all &= redecode(frame, 84, (unsigned)i, 1, &g) == SKYFRAME_OK;
        all &= valid ? g.alerts == i && skyframe_alert_count(&g) == (i >> 3) &&
                           skyframe_alert_severity(&g) == sev
                     : g.alerts == 0 && !skyframe_has_alerts(&g) &&
                           skyframe_alert_count(&g) == -1 && skyframe_alert_severity(&g) == -1;
    }
    check(all, "alerts: all 256 bytes; severity 0 and 7 (any count) read as absent");
    check(strcmp(skyframe_alert_severity_name(0), "absent") == 0 &&
              strcmp(skyframe_alert_severity_name(7), "absent") == 0,
          "alert severities 0 and 7 are named absent");

    /* Moon, 5.7: icon round(8p) mod 8 and illumination round(100 (1 - cos 2 pi p) / 2), p =
     * (wire - 1) / 255, for every wire value against libm */
    check(moon_is(frame, 1u, SKYFRAME_MOON_NEW, "new_moon", 0) &&
              moon_is(frame, 65u, SKYFRAME_MOON_FIRST_QUARTER, "first_quarter", 50) &&
              moon_is(frame, 128u, SKYFRAME_MOON_FULL, "full_moon", 100) &&
              moon_is(frame, 192u, SKYFRAME_MOON_LAST_QUARTER, "last_quarter", 50),
          "moon: 1 new, 65 first quarter, 128 full, 192 last quarter (spec)");
    check(redecode(frame, 85, 0, 1, &g) == SKYFRAME_OK && !skyframe_has_moon(&g) &&
              skyframe_moon_phase_icon(&g) == -1 && skyframe_moon_illumination_pct(&g) == -1,
          "moon 0 is absent");
    all = 1;
    g = *f;
    for (i = 1; i <= 255; i++) {
        double phase = (i - 1) / 255.0;
        int icon = (int)floor(phase * 8 + 0.5) % 8;
        int pct = (int)floor(100 * (1 - cos(2 * pi * phase)) / 2 + 0.5);
        g.moon = (uint8_t)i;
        if (skyframe_moon_phase_icon(&g) != icon || skyframe_moon_illumination_pct(&g) != pct ||
            !moon_is(frame, (unsigned)i, icon, skyframe_moon_phase_name(icon), pct)) {
            all = 0;
            sprintf(msg, "moon %d: icon %d, %d %% (libm: icon %d, %d %%)", i,
                    skyframe_moon_phase_icon(&g), skyframe_moon_illumination_pct(&g), icon, pct);
            check(0, msg);
        }
    }
    check(all, "moon: icon and illumination of all 255 values equal the libm formulas "
               "(illumination exact, not +-1)");
    {
        static const char *const names[8] = {"new_moon", "waxing_crescent", "first_quarter",
                                              "waxing_gibbous", "full_moon", "waning_gibbous",
                                              "last_quarter", "waning_crescent"};
        all = 1;
        for (i = 0; i < 8; i++) all &= strcmp(skyframe_moon_phase_name(i), names[i]) == 0;
        check(all && strcmp(skyframe_moon_phase_name(8), "absent") == 0, "moon icon names 0..7");
    }

    /* Precipitation in the next hour, 5.8 */
    check(precip_is(frame, 0x10u, 0, 15), "precip 0x10: dry, starts in 15 min (spec)");
    check(precip_is(frame, 0x9Fu, 1, 30), "precip 0x9F: raining, stops in 30 min (spec)");
    check(precip_is(frame, 0x7Fu, 0, SKYFRAME_PRECIP_NO_CHANGE),
          "precip 0x7F: a dry hour (no change within 60 min) (spec)");
    check(precip_is(frame, 0xFFu, 1, SKYFRAME_PRECIP_NO_CHANGE),
          "precip 0xFF: raining, does not stop within 60 min");
    check(precip_is(frame, 0x01u, 0, 0) && precip_is(frame, 0x81u, 1, 0) &&
              precip_is(frame, 61u, 0, 60) && precip_is(frame, 0x80u | 61u, 1, 60),
          "precip: 0 and 60 minutes, dry and raining");
    all = 1;
    for (i = 62; i <= 126; i++) {
        int bit7;
        for (bit7 = 0; bit7 <= 0x80; bit7 += 0x80) {
            all &= redecode(frame, 86, (unsigned)(i | bit7), 1, &g) == SKYFRAME_OK &&
                   g.precip_next_hour == 0 && !skyframe_has_precip_next_hour(&g) &&
                   skyframe_precip_now(&g) == -1 && skyframe_precip_change_in_min(&g) == -1;
        }
    }
    check(all, "precip: 62..126 (dry or raining) read as absent");
    check(redecode(frame, 86, 0, 1, &g) == SKYFRAME_OK && !skyframe_has_precip_next_hour(&g) &&
              redecode(frame, 86, 0x80u, 1, &g) == SKYFRAME_OK && g.precip_next_hour == 0 &&
              !skyframe_has_precip_next_hour(&g) && skyframe_precip_now(&g) == -1,
          "precip 0 and 0x80 (raining, no time) read as absent");
    all = 1;
    for (i = 0; i < 256; i++) {
        int m = i & 0x7F, valid = (m >= 1 && m <= 61) || m == 127;
        all &= redecode(frame, 86, (unsigned)i, 1, &g) == SKYFRAME_OK &&
               skyframe_has_precip_next_hour(&g) == valid &&
               g.precip_next_hour == (valid ? i : 0);
    }
    check(all, "precip: all 256 bytes: present exactly for 1..61 and 127, with or without bit 7");

    /* Next update, 6.9 */
    check(redecode(frame, 186, 1, 2, &g) == SKYFRAME_OK && skyframe_next_update_seconds(&g) == 1 &&
              redecode(frame, 186, 65535u, 2, &g) == SKYFRAME_OK &&
              skyframe_next_update_seconds(&g) == 65535L && skyframe_has_next_update(&g),
          "next update 1 s and 65535 s (that long or longer)");
    check(redecode(frame, 186, 0, 2, &g) == SKYFRAME_OK && !skyframe_has_next_update(&g) &&
              skyframe_next_update_seconds(&g) == -1,
          "next update 0 is absent (no hint)");

    /* Byte 87 is still reserved: 0 or 0xA5 (as built), the same frame but for its CRC */
    all = redecode(frame, 87, 0x00, 1, &g) == SKYFRAME_OK && g.crc32 != f->crc32;
    g.crc32 = f->crc32;
    check(all && frames_equal(f, &g), "byte 87 (still reserved) is ignored");
}
#endif

#if TEST_PROFILES
/* ---- Self-test: frame profiles (frame-profiles.md) ----------------------------------------- */

static void reseal_n(uint8_t *p, size_t n) { put32(p + n - 4, skyframe_crc32(p, n - 4)); }

/* One scratch buffer for every copy the profile checks make (the micro:bit has 16 KB of RAM):
 * a large frame at offsets up to 7, or 961 bytes. */
static uint8_t scratch[SKYFRAME_LARGE_SIZE + 8];

/* CRC of a decoded struct's bytes: two decodes are equal when their hashes are (the decoders
 * memset the struct first, so padding is 0), without a second ~900-byte struct. */
static uint32_t struct_hash(const void *s, size_t n) { return crc_bitwise((const uint8_t *)s, n); }

/* The content check the slow way: a copy with the zeroed ranges cleared, the bitwise CRC. */
static uint32_t check_by_copy(const uint8_t *p, size_t covered, const int *zero, int ranges) {
    int i;
    memcpy(scratch, p, covered);
    for (i = 0; i < ranges; i++)
        memset(scratch + zero[2 * i], 0, (size_t)(zero[2 * i + 1] - zero[2 * i]));
    return crc_bitwise(scratch, covered);
}

/* A tiny frame written field by field from the table of frame-profiles.md 3. */
static void build_tiny(uint8_t *p) {
    memset(p, 0, SKYFRAME_TINY_SIZE);
    p[0] = 'S'; p[1] = 'F'; p[2] = 0x21; p[3] = 1; /* stale */
    put16(p + 4, 0xBEEF);
    p[6] = 2; p[7] = 3;
    put32(p + 8, 1700000123UL);
    put16(p + 12, 900);
    put16(p + 14, (unsigned)(uint16_t)-123); /* -12.3 degC */
    put16(p + 16, 0x802B);                  /* US AQI 42 */
    p[18] = 71; p[19] = 0; p[20] = 0x15; p[21] = 0x9F;
    p[22] = 254; p[23] = 0xFF; p[24] = 179; p[25] = (uint8_t)-48;
    p[26] = 100; p[27] = 250;
    p[28] = (uint8_t)-127; p[29] = (uint8_t)-1; p[30] = 0; p[31] = 0x80; /* min: -127 -1 0 missing */
    p[32] = 127; p[33] = 1; p[34] = 0x80; p[35] = 5;
    p[36] = 0; p[37] = 99; p[38] = 0xFF; p[39] = 45;
    p[40] = 100; p[41] = 0; p[42] = 0xFF; p[43] = 50;
    reseal_n(p, SKYFRAME_TINY_SIZE);
}

static void build_unchanged(uint8_t *p) {
    memset(p, 0, SKYFRAME_UNCHANGED_SIZE);
    p[0] = 'S'; p[1] = 'F'; p[2] = 0x31; p[3] = 2;
    put16(p + 4, 65535u);
    p[6] = 254; p[7] = 255;
    put16(p + 8, 540);
    reseal_n(p, SKYFRAME_UNCHANGED_SIZE);
}

/* A large frame from the table of frame-profiles.md 2: every block non-trivial, a 48-byte name
 * and a 64-byte event without a terminating zero, another event ended by a zero. */
static void build_large(uint8_t *p) {
    int i;
    memset(p, 0, SKYFRAME_LARGE_SIZE);
    p[0] = 'S'; p[1] = 'F'; p[2] = 0x11; p[3] = 0;
    put16(p + 4, 4242); p[6] = 0; p[7] = 1;
    p[8] = 3; p[9] = 1; p[10] = 1; p[11] = 3; /* polar day: sunrise, sunset 0 */
    put32(p + 12, (unsigned long)(uint32_t)-4128655L);
    put32(p + 16, (unsigned long)(uint32_t)-17477700L);
    put32(p + 20, 1700000000UL); put32(p + 24, 1700000123UL); put32(p + 28, 1699995600UL);
    put16(p + 32, (unsigned)(uint16_t)-210); put16(p + 34, 19675);
    p[36] = 'n'; p[37] = 'z'; /* lower case: read as "NZ" */
    put16(p + 38, 28); put16(p + 40, 65535u); p[42] = 0x1D; p[43] = 200; p[44] = 0x7F;
    for (i = 0; i < 48; i++) p[48 + i] = (uint8_t)('A' + i % 26); /* 48 bytes, no zero */
    put16(p + 96, (unsigned)(uint16_t)-1000); put16(p + 98, 0x8000); put16(p + 100, 1000);
    put16(p + 102, 20000); put16(p + 104, 5000); put16(p + 106, 0xFFFF); put16(p + 108, 359);
    put16(p + 110, 65534u); put16(p + 112, 0);
    p[114] = 100; p[115] = 0xFF; p[116] = 0; p[117] = 250;
    for (i = 0; i < 48; i++) {
        put16(p + 128 + 2 * i, (unsigned)(uint16_t)(-1000 + 40 * i));
        put16(p + 224 + 2 * i, i == 7 ? 0xFFFFu : (unsigned)(100 * i));
        p[320 + i] = (uint8_t)(i % 100); p[368 + i] = (uint8_t)(2 * i);
        p[416 + i] = (uint8_t)(5 * i + 19); p[464 + i] = i == 47 ? 0xFF : (uint8_t)(5 * i + 20);
    }
    for (i = 0; i < 8; i++) {
        put16(p + 512 + 2 * i, (unsigned)(uint16_t)(-100 * i));
        put16(p + 528 + 2 * i, (unsigned)(100 * i + 5));
        put16(p + 544 + 2 * i, (unsigned)(10 * i));
        put32(p + 560 + 4 * i, i < 2 ? 0 : 1699990000UL + 86400UL * (unsigned long)i);
        put32(p + 592 + 4 * i, i < 2 ? 0 : 1700030000UL + 86400UL * (unsigned long)i);
        p[624 + i] = (uint8_t)(60 + i); p[632 + i] = (uint8_t)(10 * i);
        p[640 + i] = (uint8_t)(30 * i); p[648 + i] = (uint8_t)(254 - i);
        p[656 + i] = i == 0 ? 1 : i == 1 ? 2 : i == 7 ? 3 : 0; /* 3: unknown -> missing */
    }
    put32(p + 664, 1699999200UL); p[668] = 0; p[669] = 1; p[670] = 254; p[671] = 0xFF;
    put32(p + 672, 0); put32(p + 676, 1700000000UL); put32(p + 680, 0xFFFFFFFFUL);
    put32(p + 684, 1700086400UL); put32(p + 688, 0); put32(p + 692, 0xFFFFFFFFUL);
    p[696] = 6; p[697] = 2; p[698] = 0;
    for (i = 0; i < 64; i++) p[700 + i] = (uint8_t)('a' + i % 26); /* 64 bytes, no zero */
    memcpy(p + 764, "Frost\0ignored", 13);                       /* a zero ends the text */
    reseal_n(p, SKYFRAME_LARGE_SIZE);
}

/* Single-bit errors of a message of n bytes (all 8n, or with all_bits 0 one bit per byte) are
 * rejected with the error of the first check they fail: magic, kind, else CRC. */
static int every_bit_rejected(const uint8_t *msg, size_t n, int all_bits,
                              int (*decode)(const uint8_t *, size_t, void *), void *out) {
    uint8_t *copy = scratch;
    size_t i;
    int bit, all = 1;
    char text[96];
    for (i = 0; i < n; i++) {
        for (bit = 0; bit < 8; bit++) {
            int want = i < 2 ? SKYFRAME_ERR_BAD_MAGIC : i == 2 ? SKYFRAME_ERR_BAD_VERSION
                                                               : SKYFRAME_ERR_CRC;
            int rc;
            if (!all_bits && bit != (int)(i % 8)) continue;
            memcpy(copy, msg, n);
            copy[i] ^= (uint8_t)(1u << bit);
            rc = decode(copy, n, out);
            if (rc != want) {
                all = 0;
                sprintf(text, "%lu-byte message: bit %d of byte %lu -> %s", (unsigned long)n, bit,
                        (unsigned long)i, skyframe_error_name(rc));
                check(0, text);
            }
        }
    }
    return all;
}
static int decode_tiny_any(const uint8_t *b, size_t n, void *o) {
    return skyframe_tiny_decode(b, n, (skyframe_tiny *)o);
}
static int decode_unchanged_any(const uint8_t *b, size_t n, void *o) {
    return skyframe_unchanged_decode(b, n, (skyframe_unchanged *)o);
}
#if SKYFRAME_LARGE
static int decode_large_any(const uint8_t *b, size_t n, void *o) {
    return skyframe_large_decode(b, n, (skyframe_large *)o);
}
#endif

/* skyframe_message_kind of p (n bytes) with byte 2 = kind (when n > 2) and magic "SF" or "SQ". */
static int kind_of(size_t n, uint8_t kind, int good_magic) {
    memset(scratch, 0, sizeof scratch);
    scratch[0] = 'S'; scratch[1] = good_magic ? 'F' : 'Q'; scratch[2] = kind;
    return skyframe_message_kind(scratch, n);
}

static void self_test_profiles(const uint8_t *standard) {
    static uint8_t tiny[SKYFRAME_TINY_SIZE], unchanged[SKYFRAME_UNCHANGED_SIZE];
    uint8_t *copy = scratch;
    static skyframe_tiny t, t2, t_untouched;
    static skyframe_unchanged u, u2;
    static const int standard_zero[] = {4, 8, 20, 28, 186, 188};
    static const int large_zero[] = {4, 8, 20, 28, 40, 42, 664, 668};
    static const int tiny_zero[] = {4, 8, 8, 12, 12, 14};
    uint32_t c1, c2;
    int i, all, rc;

    /* Kinds (frame-profiles.md 1.1) */
    check(SKYFRAME_KIND_STANDARD == 0x01 && SKYFRAME_KIND_LARGE == 0x11 &&
              SKYFRAME_KIND_TINY == 0x21 && SKYFRAME_KIND_UNCHANGED == 0x31 &&
              SKYFRAME_LARGE_SIZE == 960 && SKYFRAME_TINY_SIZE == 48 &&
              SKYFRAME_UNCHANGED_SIZE == 16 && SKYFRAME_PROFILE_TINY == 2,
          "profiles: kind bytes 0x01 0x11 0x21 0x31, sizes 192 960 48 16");
    check(kind_of(192, 0x01, 1) == SKYFRAME_KIND_STANDARD && kind_of(960, 0x11, 1) == SKYFRAME_KIND_LARGE &&
              kind_of(48, 0x21, 1) == SKYFRAME_KIND_TINY && kind_of(16, 0x31, 1) == SKYFRAME_KIND_UNCHANGED,
          "message kind: each size with its kind byte");
    all = 1;
    {
        static const size_t sizes[4] = {192, 960, 48, 16};
        static const uint8_t kinds[8] = {0x01, 0x11, 0x21, 0x31, 0x02, 0x12, 0x00, 0xFF};
        int s, k;
        for (s = 0; s < 4; s++)
            for (k = 0; k < 8; k++) {
                int want = k == s ? (int)kinds[k] : SKYFRAME_ERR_BAD_VERSION;
                all &= kind_of(sizes[s], kinds[k], 1) == want;
                all &= kind_of(sizes[s], kinds[k], 0) == SKYFRAME_ERR_BAD_MAGIC;
            }
    }
    check(all, "message kind: any other pair of length and kind byte -> unsupported_version; "
               "magic checked before the kind");
    check(kind_of(0, 0, 1) == SKYFRAME_ERR_TRUNCATED && kind_of(2, 0, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(15, 0x31, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(17, 0x31, 1) == SKYFRAME_ERR_TOO_LONG &&
              kind_of(47, 0x21, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(49, 0x21, 1) == SKYFRAME_ERR_TOO_LONG &&
              kind_of(191, 0x01, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(193, 0x01, 1) == SKYFRAME_ERR_TOO_LONG &&
              kind_of(959, 0x11, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(961, 0x11, 1) == SKYFRAME_ERR_TOO_LONG &&
              kind_of(193, 0x11, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(193, 0x99, 1) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(193, 0x01, 0) == SKYFRAME_ERR_TRUNCATED &&
              kind_of(961, 0x99, 1) == SKYFRAME_ERR_TOO_LONG &&
              skyframe_message_kind(NULL, 48) == SKYFRAME_ERR_NULL,
          "message kind: other lengths are truncated / too long against the kind byte's size "
          "(else 960); NULL");
    check(strcmp(skyframe_kind_name(SKYFRAME_KIND_LARGE), "large") == 0 &&
              strcmp(skyframe_kind_name(SKYFRAME_KIND_UNCHANGED), "unchanged") == 0 &&
              strcmp(skyframe_kind_name(SKYFRAME_ERR_CRC), "unknown") == 0 &&
              strcmp(skyframe_profile_name(0), "standard") == 0 &&
              strcmp(skyframe_profile_name(2), "tiny") == 0 &&
              strcmp(skyframe_profile_name(3), "unknown") == 0,
          "kind and profile names");

    /* Tiny */
    build_tiny(tiny);
    memset(&t, 0xA5, sizeof t);
    rc = skyframe_tiny_decode(tiny, sizeof tiny, &t);
    check(rc == SKYFRAME_OK && t.kind == SKYFRAME_KIND_TINY && t.status == SKYFRAME_STATUS_STALE &&
              t.request_id == 0xBEEF && t.slot_index == 2 && t.slot_count == 3 &&
              t.fetched_at == 1700000123UL && t.next_update == 900 && t.temperature == -123 &&
              t.air_quality == 0x802Bu && t.weather_code == 71 && t.is_day == 0 &&
              t.alerts == 0x15 && t.precip_next_hour == 0x9F && t.wind_speed == 254 &&
              !SKYFRAME_HAS_U8(t.wind_gust) && t.wind_direction == 179 &&
              t.utc_offset_15min == -48 && t.humidity == 100 && t.uv_index == 250 &&
              t.crc32 == skyframe_crc32(tiny, 44),
          "tiny: built frame, every field");
    check(t.daily[0].temperature_min == -127 && t.daily[1].temperature_min == -1 &&
              t.daily[2].temperature_min == 0 && !SKYFRAME_HAS_I8(t.daily[3].temperature_min) &&
              t.daily[0].temperature_max == 127 && t.daily[3].temperature_max == 5 &&
              !SKYFRAME_HAS_I8(t.daily[2].temperature_max) && t.daily[1].weather_code == 99 &&
              !SKYFRAME_HAS_U8(t.daily[2].weather_code) && t.daily[3].precip_probability == 50,
          "tiny: daily whole degrees -127..127, -128 missing");
    check(skyframe_tiny_utc_offset_min(&t) == -720, "tiny: utc offset -48 quarter hours = -720 min");
    t2 = t;
    t2.utc_offset_15min = 23;
    all = skyframe_tiny_utc_offset_min(&t2) == 345;
    t2.utc_offset_15min = 55;
    all &= skyframe_tiny_utc_offset_min(&t2) == 825;
    t2.utc_offset_15min = -14;
    all &= skyframe_tiny_utc_offset_min(&t2) == -210;
    t2.utc_offset_15min = SKYFRAME_MISSING_I8;
    all &= skyframe_tiny_utc_offset_min(&t2) == SKYFRAME_MISSING_I16 &&
           skyframe_tiny_utc_offset_min(NULL) == SKYFRAME_MISSING_I16;
    check(all, "tiny: utc offset 23 -> 345, 55 -> 825, -14 -> -210, missing and NULL -> missing");
    all = 1;
    for (i = 1; i < 8; i++) {
        memcpy(copy + i, tiny, sizeof tiny);
        all &= skyframe_tiny_decode(copy + i, sizeof tiny, &t2) == SKYFRAME_OK &&
               memcmp(&t, &t2, sizeof t) == 0;
    }
    check(all, "tiny: decode from unaligned addresses (offsets 1..7)");
    memcpy(copy, tiny, sizeof tiny);
    copy[19] = 2; copy[20] = 0x17; put16(copy + 16, 0x8000); copy[21] = 62;
    reseal_n(copy, sizeof tiny);
    check(skyframe_tiny_decode(copy, sizeof tiny, &t2) == SKYFRAME_OK &&
              t2.is_day == SKYFRAME_MISSING_U8 && t2.alerts == 0 && t2.air_quality == 0 &&
              t2.precip_next_hour == 0,
          "tiny: is_day 2 -> missing; alerts severity 7, AQI 0x8000, next hour 62 -> absent (0)");
    memset(&t_untouched, 0x5A, sizeof t_untouched);
    t2 = t_untouched;
    memcpy(copy, tiny, sizeof tiny);
    copy[48] = 0;
    check(skyframe_tiny_decode(tiny, 47, &t2) == SKYFRAME_ERR_TRUNCATED &&
              skyframe_tiny_decode(copy, 49, &t2) == SKYFRAME_ERR_TOO_LONG &&
              skyframe_tiny_decode(NULL, 48, &t2) == SKYFRAME_ERR_NULL &&
              skyframe_tiny_decode(tiny, 48, NULL) == SKYFRAME_ERR_NULL &&
              skyframe_tiny_decode(standard, 192, &t2) == SKYFRAME_ERR_TOO_LONG &&
              memcmp(&t2, &t_untouched, sizeof t2) == 0,
          "tiny: 47 / 49 bytes, NULL, a standard frame: refused, output untouched");
    memcpy(copy, tiny, sizeof tiny);
    copy[2] = 0x31;
    reseal_n(copy, sizeof tiny);
    rc = skyframe_tiny_decode(copy, sizeof tiny, &t2);
    copy[0] = 's';
    check(rc == SKYFRAME_ERR_BAD_VERSION &&
              skyframe_tiny_decode(copy, sizeof tiny, &t2) == SKYFRAME_ERR_BAD_MAGIC,
          "tiny: kind 0x31 with a valid CRC -> unsupported_version; and magic \"sF\" -> bad_magic");
    check(every_bit_rejected(tiny, sizeof tiny, 1, decode_tiny_any, &t2),
          "tiny: every single-bit error (384) rejected: magic, kind, CRC");

    /* Unchanged */
    build_unchanged(unchanged);
    rc = skyframe_unchanged_decode(unchanged, sizeof unchanged, &u);
    check(rc == SKYFRAME_OK && u.kind == SKYFRAME_KIND_UNCHANGED && u.profile == SKYFRAME_PROFILE_TINY &&
              u.request_id == 65535u && u.slot_index == 254 && u.slot_count == 255 &&
              u.next_update == 540 && u.crc32 == skyframe_crc32(unchanged, 12),
          "unchanged: built message, every field");
    memcpy(copy + 3, unchanged, sizeof unchanged);
    check(skyframe_unchanged_decode(copy + 3, sizeof unchanged, &u2) == SKYFRAME_OK &&
              memcmp(&u, &u2, sizeof u) == 0 &&
              skyframe_unchanged_decode(unchanged, 15, &u2) == SKYFRAME_ERR_TRUNCATED &&
              skyframe_unchanged_decode(tiny, 48, &u2) == SKYFRAME_ERR_TOO_LONG,
          "unchanged: odd address; 15 bytes, a tiny frame refused");
    check(every_bit_rejected(unchanged, sizeof unchanged, 1, decode_unchanged_any, &u2),
          "unchanged: every single-bit error (128) rejected: magic, kind, CRC");

#if SKYFRAME_LARGE
    {
        static uint8_t large[SKYFRAME_LARGE_SIZE];
        static skyframe_large l; /* one struct: decodes are compared by struct_hash */
        uint32_t hash;
        build_large(large);
        memset(&l, 0xA5, sizeof l);
        rc = skyframe_large_decode(large, sizeof large, &l);
        check(rc == SKYFRAME_OK && l.kind == SKYFRAME_KIND_LARGE && l.status == SKYFRAME_STATUS_OK &&
                  l.request_id == 4242 && l.slot_count == 1 && l.service == SKYFRAME_SERVICE_WEATHERAPI &&
                  l.is_day == 1 && l.sun == SKYFRAME_SUN_POLAR_DAY && l.hourly_step_h == 3 &&
                  l.latitude == -4128655L && l.longitude == -17477700L &&
                  l.observed_at == 1700000000UL && l.fetched_at == 1700000123UL &&
                  l.hourly_start == 1699995600UL && l.utc_offset_min == -210 &&
                  l.daily_start == 19675 && strcmp(l.country, "NZ") == 0 &&
                  l.air_quality == 28 && l.next_update == 65535u && l.alerts == 0x1D &&
                  l.moon == 200 && l.precip_next_hour == 0x7F && l.sunrise == 0 && l.sunset == 0,
              "large: built frame, header (lower-case country upper-cased)");
        check(strlen(l.name) == 48 && l.name[0] == 'A' && l.name[47] == 'V' && l.name[48] == '\0',
              "large: 48-byte name without a zero on the wire is terminated");
        check(l.current.temperature == -1000 && !SKYFRAME_HAS_I16(l.current.feels_like) &&
                  l.dew_point == 1000 && l.current.pressure == 20000 &&
                  l.current.wind_speed == 5000 && !SKYFRAME_HAS_U16(l.current.wind_gust) &&
                  l.current.wind_direction == 359 && l.current.visibility == 65534u &&
                  l.current.precipitation == 0 && l.current.humidity == 100 &&
                  !SKYFRAME_HAS_U8(l.current.weather_code) && l.current.cloud_cover == 0 &&
                  l.current.uv_index == 250,
              "large: current block and dew point, sentinels");
        all = 1;
        for (i = 0; i < 48; i++)
            all &= l.hourly[i].temperature == -1000 + 40 * i &&
                   l.hourly[i].precip_amount == (i == 7 ? 0xFFFFu : (unsigned)(100 * i)) &&
                   l.hourly[i].weather_code == i % 100 && l.hourly[i].precip_probability == 2 * i &&
                   l.hourly[i].wind_speed == 5 * i + 19 &&
                   l.hourly[i].wind_gust == (i == 47 ? 0xFF : 5 * i + 20);
        check(all, "large: hourly[48]");
        all = 1;
        for (i = 0; i < 8; i++)
            all &= l.daily[i].temperature_min == -100 * i && l.daily[i].temperature_max == 100 * i + 5 &&
                   l.daily[i].precip_sum == 10 * i &&
                   l.daily[i].sunrise == (i < 2 ? 0 : 1699990000UL + 86400UL * (unsigned long)i) &&
                   l.daily[i].sunset == (i < 2 ? 0 : 1700030000UL + 86400UL * (unsigned long)i) &&
                   l.daily[i].weather_code == 60 + i && l.daily[i].precip_probability == 10 * i &&
                   l.daily[i].uv_max == 30 * i && l.daily[i].wind_max == 254 - i &&
                   l.daily[i].sun == (i == 0 ? 1 : i == 1 ? 2 : i == 7 ? SKYFRAME_MISSING_U8 : 0);
        check(all, "large: daily[8], daily sun 3 -> missing");
        check(l.minutely_start == 1699999200UL && l.minutely_precip[0] == 0 &&
                  l.minutely_precip[1] == 1 && l.minutely_precip[2] == 254 &&
                  !SKYFRAME_HAS_U8(l.minutely_precip[3]),
              "large: next hour in 15-minute steps");
        check(l.alert[0].onset == 0 && l.alert[1].onset == 1700000000UL &&
                  l.alert[2].onset == 0xFFFFFFFFUL && l.alert[0].end == 1700086400UL &&
                  l.alert[1].end == 0 && l.alert[2].end == 0xFFFFFFFFUL &&
                  l.alert[0].severity == SKYFRAME_ALERT_EXTREME &&
                  l.alert[1].severity == SKYFRAME_ALERT_UNKNOWN && l.alert[2].severity == 0 &&
                  strlen(l.alert[0].event) == 64 && l.alert[0].event[63] == 'l' &&
                  strcmp(l.alert[1].event, "Frost") == 0 && l.alert[2].event[0] == '\0' &&
                  l.crc32 == skyframe_crc32(large, 956),
              "large: alerts (64-byte event terminated, a zero ends an event, empty entry)");
        hash = struct_hash(&l, sizeof l);
        all = 1;
        for (i = 1; i < 8; i++) {
            memset(&l, 0x5A, sizeof l);
            memcpy(copy + i, large, sizeof large);
            all &= skyframe_large_decode(copy + i, sizeof large, &l) == SKYFRAME_OK &&
                   struct_hash(&l, sizeof l) == hash;
        }
        check(all, "large: decode from unaligned addresses (offsets 1..7)");
        memcpy(copy, large, sizeof large);
        copy[2] = 0x01;
        reseal_n(copy, sizeof large);
        check(skyframe_large_decode(copy, sizeof large, &l) == SKYFRAME_ERR_BAD_VERSION &&
                  skyframe_large_decode(large, 959, &l) == SKYFRAME_ERR_TRUNCATED &&
                  skyframe_large_decode(tiny, 48, &l) == SKYFRAME_ERR_TRUNCATED &&
                  skyframe_large_decode(standard, 192, &l) == SKYFRAME_ERR_TRUNCATED &&
                  skyframe_large_decode(NULL, 960, &l) == SKYFRAME_ERR_NULL &&
                  struct_hash(&l, sizeof l) == hash,
              "large: kind 0x01 in 960 bytes, 959 bytes, tiny and standard frames, NULL: refused, "
              "output untouched");
        check(every_bit_rejected(large, sizeof large, 0, decode_large_any, &l) &&
                  struct_hash(&l, sizeof l) == hash,
              "large: a single-bit error in every byte (960) rejected: magic, kind, CRC");

        /* content check of large */
        rc = skyframe_content_check(large, sizeof large, &c1);
        check(rc == SKYFRAME_OK && c1 == check_by_copy(large, 956, large_zero, 4),
              "content check of large = CRC of bytes 0..955 with 4-7, 20-27, 40-41, 664-667 zero");
        memcpy(copy, large, sizeof large);
        put16(copy + 4, 1); copy[6] = 3; copy[7] = 9; put32(copy + 20, 1); put32(copy + 24, 2);
        put16(copy + 40, 60); put32(copy + 664, 900); reseal_n(copy, sizeof large);
        rc = skyframe_content_check(copy, sizeof large, &c2);
        check(rc == SKYFRAME_OK && c2 == c1,
              "content check of large: request id, slots, observed_at, fetched_at, next_update, "
              "minutely_start changed -> same check");
        all = 1;
        for (i = 3; i < 956; i++) { /* 0..2: magic and kind, refused */
            int zeroed = (i >= 4 && i < 8) || (i >= 20 && i < 28) || (i >= 40 && i < 42) ||
                         (i >= 664 && i < 668);
            memcpy(copy, large, sizeof large);
            copy[i] ^= 0x01;
            all &= skyframe_content_check(copy, sizeof large, &c2) == SKYFRAME_OK &&
                   (c2 == c1) == zeroed;
        }
        check(all, "content check of large: a bit flipped in bytes 3..955 changes it exactly "
                   "outside 4-7, 20-27, 40-41, 664-667 (status, hourly and daily starts, every "
                   "value, reserved bytes)");
    }
#endif

    /* content check of standard and tiny, unchanged, errors */
    rc = skyframe_content_check(standard, 192, &c1);
    check(rc == SKYFRAME_OK && c1 == check_by_copy(standard, 188, standard_zero, 3),
          "content check of standard = CRC of bytes 0..187 with 4-7, 20-27, 186-187 zero");
    memcpy(copy, standard, 192);
    put16(copy + 4, 7); copy[6] = 0; copy[7] = 1; put32(copy + 20, 5); put32(copy + 24, 6);
    put16(copy + 186, 1); reseal(copy);
    check(skyframe_content_check(copy, 192, &c2) == SKYFRAME_OK && c2 == c1,
          "content check of standard: ids, slots, times of observation and fetch, hint -> same");
    copy[64] ^= 1; reseal(copy);
    check(skyframe_content_check(copy, 192, &c2) == SKYFRAME_OK && c2 != c1,
          "content check of standard: a temperature changed -> another check");
    memcpy(copy, standard, 192);
    copy[3] = 0; reseal(copy); /* stale -> ok */
    check(skyframe_content_check(copy, 192, &c2) == SKYFRAME_OK && c2 != c1,
          "content check of standard: status stale -> ok changes it");
    rc = skyframe_content_check(tiny, sizeof tiny, &c1);
    check(rc == SKYFRAME_OK && c1 == check_by_copy(tiny, 44, tiny_zero, 3),
          "content check of tiny = CRC of bytes 0..43 with 4-13 zero");
    memcpy(copy + 1, tiny, sizeof tiny);
    put16(copy + 1 + 4, 1); put32(copy + 1 + 8, 77); put16(copy + 1 + 12, 3);
    all = skyframe_content_check(copy + 1, sizeof tiny, &c2) == SKYFRAME_OK && c2 == c1;
    copy[1 + 14] ^= 0x80;
    all &= skyframe_content_check(copy + 1, sizeof tiny, &c2) == SKYFRAME_OK && c2 != c1;
    check(all, "content check of tiny, odd address: request id, fetched_at, hint -> same; "
               "temperature -> another");
    c2 = 0x12345678UL;
    check(skyframe_content_check(unchanged, sizeof unchanged, &c2) == SKYFRAME_ERR_BAD_VERSION &&
              skyframe_content_check(tiny, 47, &c2) == SKYFRAME_ERR_TRUNCATED &&
              skyframe_content_check(NULL, 48, &c2) == SKYFRAME_ERR_NULL &&
              skyframe_content_check(tiny, 48, NULL) == SKYFRAME_ERR_NULL && c2 == 0x12345678UL,
          "content check: unchanged (none), 47 bytes, NULL refused, *out untouched");

    /* Requests with a profile and a check (request-v1.md 3) */
    {
        uint8_t r[64], before[64];
        int ok;
        ok = skyframe_request_place(r, 42, "Berlin", "DE") == SKYFRAME_OK &&
             skyframe_request_set_profile(r, SKYFRAME_PROFILE_TINY) == SKYFRAME_OK &&
             r[6] == 2 && r[7] == 0 &&
             (r[60] | (uint32_t)r[61] << 8 | (uint32_t)r[62] << 16 | (uint32_t)r[63] << 24) ==
                 crc_bitwise(r, 60);
        check(ok, "request: set_profile writes byte 6 and the CRC");
        ok = skyframe_request_set_check(r, 0x0C1F22AAUL) == SKYFRAME_OK && r[7] == 1 &&
             r[56] == 0xAA && r[57] == 0x22 && r[58] == 0x1F && r[59] == 0x0C &&
             r[60] == 0xD6 && r[61] == 0xE8 && r[62] == 0xF8 && r[63] == 0x55 &&
             memcmp(r + 20, "Berlin", 6) == 0;
        check(ok, "request: set_check writes byte 7 bit 0, bytes 56-59 little-endian and the CRC "
                  "(#42 ~tiny ~check=0c1f22aa Berlin,DE as binary: CRC 0x55F8E8D6)");
        ok = skyframe_request_set_check(r, 0x01020304UL) == SKYFRAME_OK && r[7] == 1 &&
             r[56] == 4 && r[59] == 1 && skyframe_crc32(r, 60) == crc_bitwise(r, 60);
        check(ok, "request: a second set_check replaces the check");
        ok = skyframe_request_place(r, 1, "012345678901234567890123456789012345", NULL) == SKYFRAME_OK &&
             skyframe_request_set_check(r, 5) == SKYFRAME_OK && r[55] == '5' && r[56] == 5;
        ok &= skyframe_request_place(r, 1, "0123456789012345678901234567890123456", NULL) == SKYFRAME_OK;
        memcpy(before, r, 64);
        ok &= skyframe_request_set_check(r, 5) == SKYFRAME_ERR_RANGE && memcmp(before, r, 64) == 0;
        ok &= skyframe_request_set_profile(r, 3) == SKYFRAME_ERR_RANGE && memcmp(before, r, 64) == 0;
        ok &= skyframe_request_set_profile(NULL, 1) == SKYFRAME_ERR_NULL &&
              skyframe_request_set_check(NULL, 1) == SKYFRAME_ERR_NULL;
        memset(r, 0, 64);
        ok &= skyframe_request_set_profile(r, 1) == SKYFRAME_ERR_RANGE &&
              skyframe_request_set_check(r, 1) == SKYFRAME_ERR_RANGE;
        check(ok, "request: a check with a 36-byte name; refused: 37 bytes, profile 3, NULL, "
                  "bytes that are not a request (left unchanged)");
        ok = skyframe_request_refresh(r, 77) == SKYFRAME_OK &&
             skyframe_request_set_profile(r, SKYFRAME_PROFILE_LARGE) == SKYFRAME_OK &&
             skyframe_request_set_check(r, 0xFFFFFFFFUL) == SKYFRAME_OK && r[3] == 3 &&
             r[6] == 1 && r[7] == 1 && r[56] == 0xFF && r[59] == 0xFF &&
             skyframe_crc32(r, 60) == crc_bitwise(r, 60) &&
             skyframe_request_coordinates(r, 7, 5252000L, 1340500L) == SKYFRAME_OK &&
             skyframe_request_set_profile(r, SKYFRAME_PROFILE_STANDARD) == SKYFRAME_OK &&
             r[60] == 0x39 && r[61] == 0x8C && r[62] == 0x19 && r[63] == 0x08;
        check(ok, "request: refresh with profile and check; profile 0 leaves request-v1.md's "
                  "example bytes as they were");
    }
}
#endif

#if TEST_UPLINK
/* The LoRaWAN uplink writers (lorawan-uplink-v1.md); the vectors are rebuilt by --uplink. */
static void self_test_uplink(void) {
    static uint8_t buf[SKYFRAME_UPLINK_MAX_SIZE + 2];
    uint8_t *odd = buf + 1, before[sizeof buf];
    uint32_t shown = 0x0C1F22AAUL;
    int ok, i;
    ok = skyframe_uplink_coordinates(odd, 42, 5252499L, 1340500L, &shown) == 10 &&
         odd[0] == 0x31 && odd[1] == 42 && odd[2] == 0x84 && odd[3] == 0x14 && odd[4] == 0x3D &&
         odd[5] == 0x05 && odd[6] == 0xAA && odd[7] == 0x22 && odd[8] == 0x1F && odd[9] == 0x0C;
    check(ok, "uplink: coordinates with a check at an odd address, rounded to 0.01 degree "
              "(lorawan-uplink-v1.md 5: 31 2a 84 14 3d 05 aa 22 1f 0c)");
    ok = skyframe_uplink_coordinates(odd, 1, -500L, 499L, NULL) == 6 && odd[0] == 0x21 &&
         odd[2] == 0xFF && odd[3] == 0xFF && odd[4] == 0 && odd[5] == 0 &&
         skyframe_uplink_coordinates(odd, 1, 8999999L, -17999500L, NULL) == 6 &&
         odd[2] == 0x28 && odd[3] == 0x23 && odd[4] == 0xB0 && odd[5] == 0xB9;
    check(ok, "uplink: half away from zero (-0.005 -> -0.01, 0.00499 -> 0, 89.99999 -> 90, "
              "-179.995 -> -180)");
    ok = skyframe_uplink_place(odd, 3, 2, NULL) == 3 && odd[0] == 0x22 && odd[2] == 2 &&
         skyframe_uplink_refresh(odd, 9, NULL) == 2 && odd[0] == 0x23 && odd[1] == 9 &&
         skyframe_uplink_refresh(odd, 200, &shown) == 6 && odd[0] == 0x33 && odd[5] == 0x0C;
    check(ok, "uplink: place 3 bytes, refresh 2, refresh with a check 6");
    for (i = 0; i < (int)sizeof buf; i++) buf[i] = (uint8_t)(0xA0 + i);
    memcpy(before, buf, sizeof buf);
    ok = skyframe_uplink_coordinates(odd, 1, 9000001L, 0, NULL) == SKYFRAME_ERR_RANGE &&
         skyframe_uplink_coordinates(odd, 1, 0, -18000001L, &shown) == SKYFRAME_ERR_RANGE &&
         skyframe_uplink_coordinates(NULL, 1, 0, 0, NULL) == SKYFRAME_ERR_NULL &&
         skyframe_uplink_coordinates(NULL, 1, 9000001L, 0, NULL) == SKYFRAME_ERR_NULL &&
         skyframe_uplink_place(NULL, 1, 0, NULL) == SKYFRAME_ERR_NULL &&
         skyframe_uplink_refresh(NULL, 1, &shown) == SKYFRAME_ERR_NULL &&
         memcmp(before, buf, sizeof buf) == 0;
    check(ok, "uplink: out-of-range coordinates and NULL refused, the buffer untouched");
}
#endif

static int self_test(void) {
    static uint8_t frame[192], copy[200], big[300];
    skyframe_frame f, g, untouched;
    int rc, i, bit, all;
    char msg[128];

    /* CRC */
    check(skyframe_crc32((const uint8_t *)"123456789", 9) == 0xCBF43926UL,
          "crc32(\"123456789\") == 0xCBF43926 (check value)");
    check(skyframe_crc32((const uint8_t *)"", 0) == 0, "crc32 of zero bytes is 0");
    for (i = 0; i < 300; i++) big[i] = (uint8_t)(i * 7 + 3);
    all = 1;
    for (i = 0; i <= 300; i++) all &= skyframe_crc32(big, (size_t)i) == crc_bitwise(big, (size_t)i);
    check(all, "nibble-table crc32 == bitwise crc32 for lengths 0..300");

    /* A good frame */
    build_frame(frame);
    memset(&f, 0xA5, sizeof f);
    rc = skyframe_frame_decode(frame, 192, &f);
    check(rc == SKYFRAME_OK, "built frame decodes");
    check(f.version == 1 && f.status == SKYFRAME_STATUS_STALE && f.request_id == 0xBEEF &&
              f.slot_index == 2 && f.slot_count == 3 && f.service == SKYFRAME_SERVICE_WEATHERAPI,
          "header bytes");
    check(f.is_day == 0 && f.sun == SKYFRAME_SUN_POLAR_NIGHT && f.hourly_step_h == 3,
          "is_day / sun / hourly step");
    check(f.latitude == -4128655L && f.longitude == 17477700L, "negative latitude, longitude");
    check(f.observed_at == 1700000000UL && f.fetched_at == 1700000123UL &&
              f.hourly_start == 1700002800UL && f.utc_offset_min == 780 && f.daily_start == 19676,
          "times, utc offset, daily start");
    check(strcmp(f.country, "NZ") == 0, "country upper-cased");
    check(strcmp(f.name, "Abcdefghijklmnopqrstuvwx") == 0 && f.name[24] == '\0',
          "24-byte name without NUL on the wire is terminated");
    check(f.current.temperature == -123 && !SKYFRAME_HAS_I16(f.current.feels_like) &&
              f.current.pressure == 10132 && f.current.wind_speed == 34 &&
              !SKYFRAME_HAS_U16(f.current.wind_gust) && f.current.wind_direction == 359 &&
              f.current.visibility == 2414 && f.current.precipitation == 0,
          "current 16-bit fields and sentinels");
    check(f.current.humidity == 100 && !SKYFRAME_HAS_U8(f.current.weather_code) &&
              f.current.cloud_cover == 0 && f.current.uv_index == 250,
          "current 8-bit fields and sentinels");
    check(!SKYFRAME_HAS_TIME(f.sunrise) && f.sunset == 1700040000UL, "sunrise missing, sunset");
    all = 1;
    for (i = 0; i < 12; i++)
        all &= f.hourly[i].temperature == -1000 + 150 * i &&
               f.hourly[i].weather_code == (i == 5 ? 0xFF : 60 + i) &&
               f.hourly[i].precip_probability == i * 9;
    check(all, "hourly[12]");
    all = 1;
    for (i = 0; i < 7; i++)
        all &= f.daily[i].temperature_min == -50 * i &&
               (i == 6 ? !SKYFRAME_HAS_I16(f.daily[i].temperature_max)
                       : f.daily[i].temperature_max == 1000 - i) &&
               f.daily[i].weather_code == 95 + i % 5 &&
               f.daily[i].precip_probability == (i == 0 ? 0xFF : 100 - i);
    check(all, "daily[7]");
    check(f.crc32 == skyframe_crc32(frame, 188), "crc32 field holds the stored CRC");
    check(skyframe_frame_has_weather(&f), "stale frame has weather");

    /* frame-v1.md section 10 */
    from_hex(spec_berlin_hex, copy);
    rc = skyframe_frame_decode(copy, 192, &g);
    check(rc == SKYFRAME_OK && g.status == SKYFRAME_STATUS_OK && g.request_id == 42 &&
              g.latitude == 5252000L && g.longitude == 1340500L && strcmp(g.name, "Berlin") == 0 &&
              strcmp(g.country, "DE") == 0 && g.current.temperature == 24 &&
              g.current.feels_like == -13 && g.current.pressure == 10214 &&
              g.current.visibility == 2414 && g.current.uv_index == 4 &&
              g.hourly[3].temperature == 33 && !SKYFRAME_HAS_I16(g.hourly[4].temperature) &&
              g.daily[0].temperature_min == -12 && g.daily[1].temperature_max == 25 &&
              !SKYFRAME_HAS_U8(g.daily[2].weather_code) && g.daily_start == 20103 &&
              g.crc32 == 0x16CFEC96UL,
          "spec example: Berlin frame");
    check(skyframe_local_minute_of_day(g.sunrise, g.utc_offset_min) == 8 * 60 + 11 &&
              skyframe_local_minute_of_day(g.sunset, g.utc_offset_min) == 16 * 60 + 26 &&
              skyframe_weekday(g.daily_start) == 3 &&
              skyframe_local_day(g.fetched_at, g.utc_offset_min) == g.daily_start &&
              skyframe_frame_age_seconds(&g, 1736936400UL + 600UL) == 600,
          "spec example: sunrise 08:11, sunset 16:26 local, Wednesday, today, age");
    from_hex(spec_not_found_hex, copy);
    rc = skyframe_frame_decode(copy, 192, &g);
    check(rc == SKYFRAME_OK && g.status == SKYFRAME_STATUS_NOT_FOUND && g.request_id == 7 &&
              g.slot_index == 1 && g.slot_count == 2 && g.service == SKYFRAME_SERVICE_NONE &&
              strcmp(g.name, "Atlantis") == 0 && g.country[0] == '\0' &&
              g.is_day == SKYFRAME_MISSING_U8 && g.sun == SKYFRAME_MISSING_U8 &&
              g.hourly_step_h == 0 && !SKYFRAME_HAS_I32(g.latitude) &&
              !SKYFRAME_HAS_TIME(g.fetched_at) && !SKYFRAME_HAS_U16(g.daily_start) &&
              !skyframe_frame_has_weather(&g) && skyframe_frame_age_seconds(&g, 1736936400UL) == -1 &&
              g.crc32 == 0x517D9969UL,
          "spec example: not_found error frame");

    /* Unaligned input at every offset gives the same result */
    all = 1;
    for (i = 1; i < 8; i++) {
        memcpy(copy + i, frame, 192);
        all &= skyframe_frame_decode(copy + i, 192, &g) == SKYFRAME_OK && frames_equal(&f, &g);
    }
    check(all, TEST_V1_1 ? "decode from unaligned addresses (offsets 1..7), v1.1 fields included"
                         : "decode from unaligned addresses (offsets 1..7)");

    /* Lengths */
    memset(&untouched, 0x5A, sizeof untouched);
    g = untouched;
    check(skyframe_frame_decode(frame, 191, &g) == SKYFRAME_ERR_TRUNCATED, "191 bytes -> truncated");
    check(skyframe_frame_decode(frame, 0, &g) == SKYFRAME_ERR_TRUNCATED, "0 bytes -> truncated");
    memcpy(copy, frame, 192);
    copy[192] = 0;
    check(skyframe_frame_decode(copy, 193, &g) == SKYFRAME_ERR_TOO_LONG, "193 bytes -> too_long");
    check(skyframe_frame_decode(NULL, 192, &g) == SKYFRAME_ERR_NULL, "NULL buffer -> null_argument");
    check(skyframe_frame_decode(frame, 192, NULL) == SKYFRAME_ERR_NULL, "NULL out -> null_argument");

    /* Magic and version, with a recomputed CRC so the CRC is not what fails */
    memcpy(copy, frame, 192);
    copy[1] = 'Q';
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_ERR_BAD_MAGIC, "\"SQ\" -> bad_magic");
    memcpy(copy, frame, 192);
    copy[2] = 2;
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_ERR_BAD_VERSION,
          "version 2, valid CRC -> unsupported_version");
    copy[2] = 0;
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_ERR_BAD_VERSION,
          "version 0, valid CRC -> unsupported_version");
    check(memcmp(&g, &untouched, sizeof g) == 0, "output untouched after errors");

    /* CRC: one flipped byte, the stored CRC itself, and every single-bit error */
    memcpy(copy, frame, 192);
    copy[100] ^= 0xFF;
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_ERR_CRC, "flipped byte 100 -> crc_mismatch");
    memcpy(copy, frame, 192);
    copy[191] ^= 0x01;
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_ERR_CRC, "flipped CRC byte -> crc_mismatch");
    all = 1;
    for (i = 0; i < 192; i++) {
        for (bit = 0; bit < 8; bit++) {
            int want = i < 2 ? SKYFRAME_ERR_BAD_MAGIC : i == 2 ? SKYFRAME_ERR_BAD_VERSION
                                                               : SKYFRAME_ERR_CRC;
            memcpy(copy, frame, 192);
            copy[i] ^= (uint8_t)(1u << bit);
            rc = skyframe_frame_decode(copy, 192, &g);
            if (rc != want) {
                all = 0;
                sprintf(msg, "bit %d of byte %d -> %s", bit, i, skyframe_error_name(rc));
                check(0, msg);
            }
        }
    }
    check(all, "every single-bit error (1536) is rejected");

    /* The bytes v1.0 reserved (38-39, 84-87, 186-187; v1.1 fields but 87) never change a v1.0
     * field: a v1.0 decoder reads v1.1 frames, a v1.1 decoder reads v1.0 frames */
    memcpy(copy, frame, 192);
    copy[38] = 0x77; copy[39] = 0x88; copy[84] = 0xFF; copy[85] = 0; copy[86] = 0x40;
    copy[87] = 0x5A; copy[186] = 0; copy[187] = 0;
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_OK && v1_0_fields_equal(&f, &g),
          "bytes 38-39, 84-87, 186-187 change no v1.0 field");
    memset(copy + 38, 0, 2);
    memset(copy + 84, 0, 4);
    memset(copy + 186, 0, 2);
    reseal(copy);
    check(skyframe_frame_decode(copy, 192, &g) == SKYFRAME_OK && v1_0_fields_equal(&f, &g),
          "the same frame with those bytes 0 (a v1.0 gateway's) reads the same v1.0 fields");

    /* Normalisation like the Swift decoder: is_day/sun outside the known set, bad country */
    memcpy(copy, frame, 192);
    copy[9] = 2; copy[10] = 3; copy[36] = '1'; copy[37] = 'A';
    memset(copy + 40, 0, 24);
    memcpy(copy + 40, "X\0Y", 3);
    reseal(copy);
    rc = skyframe_frame_decode(copy, 192, &g);
    check(rc == SKYFRAME_OK && g.is_day == SKYFRAME_MISSING_U8 && g.sun == SKYFRAME_MISSING_U8 &&
              g.country[0] == '\0' && strcmp(g.name, "X") == 0,
          "is_day 2 / sun 3 / country \"1A\" -> missing; name stops at first NUL");
    copy[3] = 9; copy[8] = 7;
    reseal(copy);
    rc = skyframe_frame_decode(copy, 192, &g);
    check(rc == SKYFRAME_OK && g.status == 9 && g.service == 7 &&
              strcmp(skyframe_status_name(g.status), "unknown") == 0 &&
              strcmp(skyframe_service_name(g.service), "unknown") == 0 &&
              !skyframe_frame_has_weather(&g),
          "unknown status/service kept as numbers, named \"unknown\", no weather");

    /* Names */
    {
        static const char *const st[] = {"ok", "stale", "not_found", "bad_request",
                                         "upstream_unavailable", "rate_limited",
                                         "too_many_locations", "internal_error"};
        all = 1;
        for (i = 0; i < 8; i++) all &= strcmp(skyframe_status_name((uint8_t)i), st[i]) == 0;
        check(all, "status names 0..7");
    }
    check(strcmp(skyframe_service_name(0), "none") == 0 &&
              strcmp(skyframe_service_name(1), "open-meteo") == 0 &&
              strcmp(skyframe_service_name(2), "openweathermap") == 0 &&
              strcmp(skyframe_service_name(3), "weatherapi") == 0,
          "service names");
    check(strcmp(skyframe_sun_name(0), "normal") == 0 &&
              strcmp(skyframe_sun_name(1), "polar_day") == 0 &&
              strcmp(skyframe_sun_name(2), "polar_night") == 0 &&
              strcmp(skyframe_sun_name(0xFF), "unknown") == 0,
          "sun names");
    check(strcmp(skyframe_error_name(SKYFRAME_ERR_TRUNCATED), "truncated") == 0 &&
              strcmp(skyframe_error_name(SKYFRAME_ERR_TOO_LONG), "too_long") == 0 &&
              strcmp(skyframe_error_name(SKYFRAME_ERR_BAD_MAGIC), "bad_magic") == 0 &&
              strcmp(skyframe_error_name(SKYFRAME_ERR_BAD_VERSION), "unsupported_version") == 0 &&
              strcmp(skyframe_error_name(SKYFRAME_ERR_CRC), "crc_mismatch") == 0 &&
              strcmp(skyframe_error_name(SKYFRAME_OK), "ok") == 0 &&
              strcmp(skyframe_error_name(-99), "unknown") == 0,
          "error names are distinct");

    /* Conversions */
    check(skyframe_c10_to_f10(215) == 707 && skyframe_c10_to_f10(0) == 320 &&
              skyframe_c10_to_f10(-400) == -400 && skyframe_c10_to_f10(1000) == 2120 &&
              skyframe_c10_to_f10(-1000) == -1480 && skyframe_c10_to_f10(1) == 322 &&
              skyframe_c10_to_f10(-1) == 318 && skyframe_c10_to_f10(-178) == 0 &&
              skyframe_c10_to_f10(SKYFRAME_MISSING_I16) == SKYFRAME_MISSING_I16 &&
              skyframe_c10_to_f10(32767) == 32767,
          "degC -> degF tenths (incl. rounding, -40, sentinel, saturation)");
    check(skyframe_ms10_to_kmh10(34) == 122 && skyframe_ms10_to_kmh10(10) == 36 &&
              skyframe_ms10_to_kmh10(0) == 0 && skyframe_ms10_to_kmh10(5000) == 18000 &&
              skyframe_ms10_to_kmh10(0xFFFF) == 0xFFFF && skyframe_ms10_to_kmh10(0xFFFE) == 0xFFFE,
          "m/s -> km/h tenths");
    check(skyframe_ms10_to_mph10(34) == 76 && skyframe_ms10_to_mph10(447) == 1000 &&
              skyframe_ms10_to_mph10(5000) == 11185 && skyframe_ms10_to_mph10(0xFFFF) == 0xFFFF,
          "m/s -> mph tenths");
    check(skyframe_ms10_to_knots10(34) == 66 && skyframe_ms10_to_knots10(0xFFFF) == 0xFFFF,
          "m/s -> knots tenths");
    check(skyframe_hpa10_to_inhg100(10132) == 2992 && skyframe_hpa10_to_inhg100(10000) == 2953 &&
              skyframe_hpa10_to_inhg100(0xFFFF) == 0xFFFF,
          "hPa -> inHg hundredths");
    check(skyframe_mm10_to_in100(254) == 100 && skyframe_mm10_to_in100(0xFFFF) == 0xFFFF,
          "mm -> in hundredths");

    /* Fixed-point text */
    {
        char t[13];
        int ok = 1;
        ok &= skyframe_format_fixed(t, sizeof t, -5, 1) == 4 && strcmp(t, "-0.5") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 5, 1) == 3 && strcmp(t, "0.5") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 0, 1) == 3 && strcmp(t, "0.0") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, -123, 1) == 5 && strcmp(t, "-12.3") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 10132, 1) == 6 && strcmp(t, "1013.2") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 2992, 2) == 5 && strcmp(t, "29.92") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 7, 2) == 4 && strcmp(t, "0.07") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, -4128655L, 5) == 9 && strcmp(t, "-41.28655") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, 42, 0) == 2 && strcmp(t, "42") == 0;
        ok &= skyframe_format_fixed(t, sizeof t, -2147483647L - 1, 1) == 12 &&
              strcmp(t, "-214748364.8") == 0;
        ok &= skyframe_format_fixed(t, 5, -123, 1) == -1 && t[0] == '\0';
        ok &= skyframe_format_fixed(t, 6, -123, 1) == 5 && strcmp(t, "-12.3") == 0;
        ok &= skyframe_format_fixed(NULL, 6, 1, 1) == -1;
        check(ok, "format_fixed (signs, leading zero, INT32_MIN, small buffer)");
    }

    /* Time helpers */
    check(skyframe_frame_age_seconds(&f, 1700000223UL) == 100, "age = now - fetched_at");
    check(skyframe_frame_age_seconds(&f, 1700000000UL) == 0, "device clock behind -> age 0");
    check(skyframe_frame_age_seconds(&f, 12345UL) == -1, "clock not set (1970) -> -1");
    g = f;
    g.fetched_at = 0;
    check(skyframe_frame_age_seconds(&g, 1700000223UL) == -1, "fetched_at missing -> -1");
    check(skyframe_frame_age_seconds(NULL, 1700000223UL) == -1, "NULL frame -> -1");
    /* 1700000000 = 2023-11-14 22:13:20 UTC = 2023-11-15 11:13 NZDT (+780) */
    check(skyframe_local_minute_of_day(1700000000UL, 780) == 11 * 60 + 13 &&
              skyframe_local_minute_of_day(1700000000UL, 0) == 22 * 60 + 13 &&
              skyframe_local_minute_of_day(1700000000UL, -600) == 12 * 60 + 13 &&
              skyframe_local_minute_of_day(1700000000UL, 345) == 3 * 60 + 58 &&
              skyframe_local_minute_of_day(0, 60) == -1 &&
              skyframe_local_minute_of_day(1700000000UL, SKYFRAME_MISSING_I16) == -1,
          "local minute of day (+13:00, UTC, -10:00, +05:45, missing)");
    check(skyframe_local_day(1700000000UL, 0) == 19675 &&
              skyframe_local_day(1700000000UL, 780) == 19676 &&
              skyframe_local_day(1700000000UL, -720) == 19675 &&
              skyframe_local_day(1700006400UL, -720) == 19675 &&
              skyframe_local_day(0, 0) == -1,
          "local day crosses midnight with the offset");
    {
        int32_t y;
        uint8_t m, d;
        int ok = 1;
        skyframe_date_from_days(19676, &y, &m, &d);
        ok &= y == 2023 && m == 11 && d == 15;
        skyframe_date_from_days(0, &y, &m, &d);
        ok &= y == 1970 && m == 1 && d == 1;
        skyframe_date_from_days(19737, &y, &m, &d);
        ok &= y == 2024 && m == 1 && d == 15;
        skyframe_date_from_days(19782, &y, &m, &d);
        ok &= y == 2024 && m == 2 && d == 29;
        skyframe_date_from_days(65534, &y, &m, &d);
        ok &= y == 2149 && m == 6 && d == 5;
        skyframe_date_from_days(-1, &y, &m, &d);
        ok &= y == 1969 && m == 12 && d == 31;
#if TEST_V1_1 /* fixed with v1.1: the v1.0 header overflows here */
        skyframe_date_from_days(INT32_MAX, &y, &m, &d);
        ok &= y == 5881580 && m == 7 && d == 11;
        skyframe_date_from_days(2146764180, &y, &m, &d);
        ok &= y == 5879610 && m == 9 && d == 10;
        skyframe_date_from_days(INT32_MIN, &y, &m, &d);
        ok &= y == -5877641 && m == 6 && d == 23;
        skyframe_date_from_days(-719469, &y, &m, &d);
        ok &= y == 0 && m == 2 && d == 29;
#endif
        skyframe_date_from_days(19676, NULL, NULL, NULL);
        check(ok, "date from days (epoch, leap day, 2149, -1, the int32_t extremes without overflow)");
    }
    check(skyframe_weekday(0) == 4 && skyframe_weekday(19676) == 3 && skyframe_weekday(-1) == 3 &&
              skyframe_weekday(19737) == 1,
          "weekday (1970-01-01 Thu, 2023-11-15 Wed, 2024-01-15 Mon)");

    /* Binary requests (BinaryRequest.swift layout) */
    {
        uint8_t r[64], z[64];
        int ok;
        memset(z, 0, sizeof z);
        rc = skyframe_request_coordinates(r, 7, 5252000L, -1340500L);
        ok = rc == SKYFRAME_OK && r[0] == 'S' && r[1] == 'Q' && r[2] == 1 && r[3] == 1 &&
             r[4] == 7 && r[5] == 0 && r[6] == 0 && r[7] == 0 &&
             r[8] == 0xA0 && r[9] == 0x23 && r[10] == 0x50 && r[11] == 0x00 &&
             r[12] == 0xAC && r[13] == 0x8B && r[14] == 0xEB && r[15] == 0xFF &&
             memcmp(r + 16, z, 44) == 0 &&
             (r[60] | (uint32_t)r[61] << 8 | (uint32_t)r[62] << 16 | (uint32_t)r[63] << 24) ==
                 crc_bitwise(r, 60);
        check(ok, "request: coordinates layout and CRC");
        rc = skyframe_request_place(r, 0x1234, "Frankfurt am Main", "de");
        ok = rc == SKYFRAME_OK && r[3] == 2 && r[4] == 0x34 && r[5] == 0x12 && r[16] == 'd' &&
             r[17] == 'e' && r[18] == 0 && r[19] == 0 && memcmp(r + 20, "Frankfurt am Main", 17) == 0 &&
             memcmp(r + 37, z, 23) == 0 && skyframe_crc32(r, 60) == crc_bitwise(r, 60) &&
             (r[60] | (uint32_t)r[61] << 8 | (uint32_t)r[62] << 16 | (uint32_t)r[63] << 24) ==
                 crc_bitwise(r, 60);
        check(ok, "request: place layout and CRC");
        ok = skyframe_request_place(r, 0, "Paris", NULL) == SKYFRAME_OK && r[16] == 0 && r[17] == 0;
        ok &= skyframe_request_place(r, 0, "", NULL) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "0123456789012345678901234567890123456789", NULL) ==
              SKYFRAME_OK;
        ok &= skyframe_request_place(r, 0, "01234567890123456789012345678901234567890", NULL) ==
              SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "Par\tis", NULL) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, " Paris", NULL) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "Paris ", NULL) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "Pa\xC2\x85ris", NULL) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "S\xC3\xA3o Paulo", "br") == SKYFRAME_OK;
        ok &= skyframe_request_place(r, 0, "Paris", "FRA") == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "Paris", "F") == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(r, 0, "Paris", "F1") == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_place(NULL, 0, "Paris", NULL) == SKYFRAME_ERR_NULL;
        ok &= skyframe_request_coordinates(r, 0, 9000001L, 0) == SKYFRAME_ERR_RANGE;
        ok &= skyframe_request_coordinates(r, 0, 0, -18000001L) == SKYFRAME_ERR_RANGE;
        check(ok, "request: range checks");
        /* request-v1.md section 3 examples: "#42 Berlin,DE", "#7 52.52,13.405", refresh id 77 */
        ok = skyframe_request_place(r, 42, "Berlin", "DE") == SKYFRAME_OK && r[60] == 0xA1 &&
             r[61] == 0x22 && r[62] == 0x98 && r[63] == 0xF5;
        ok &= skyframe_request_coordinates(r, 7, 5252000L, 1340500L) == SKYFRAME_OK &&
              r[60] == 0x39 && r[61] == 0x8C && r[62] == 0x19 && r[63] == 0x08;
        ok &= skyframe_request_refresh(r, 77) == SKYFRAME_OK && r[4] == 0x4D && r[60] == 0x37 &&
              r[61] == 0x9F && r[62] == 0x86 && r[63] == 0xD9;
        check(ok, "request: the three examples of request-v1.md section 3 (CRCs)");
        rc = skyframe_request_refresh(r, 65535u);
        check(rc == SKYFRAME_OK && r[3] == 3 && r[4] == 0xFF && r[5] == 0xFF &&
                  memcmp(r + 6, z, 54) == 0 && skyframe_crc32(r, 60) == crc_bitwise(r, 60),
              "request: refresh");
    }

#if TEST_V1_1
    self_test_v1_1(frame, &f);
#endif
#if TEST_PROFILES
    self_test_profiles(frame);
#endif
#if TEST_UPLINK
    self_test_uplink();
#endif

    printf("self-test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

#if TEST_PROFILES
/* The hex value after `key` in `line`, by byte loops only: the mps2 image traps unaligned
   accesses, which the C library's optimized string routines may make. */
static int option_hex(const char *line, const char *key, uint32_t *value) {
    size_t at, k;
    for (at = 0; line[at] != '\0'; at++) {
        for (k = 0; key[k] != '\0' && line[at + k] == key[k]; k++) {
        }
        if (key[k] != '\0') continue;
        *value = 0;
        for (at += k; hexval(line[at]) >= 0; at++) *value = *value << 4 | (uint32_t)hexval(line[at]);
        return 1;
    }
    return 0;
}
#endif

static int encode_requests(void) {
    static char line[512];
#if TEST_PROFILES
    uint32_t option = 0;
#endif
    while (fgets(line, (int)sizeof line, stdin) != NULL) {
        uint8_t r[SKYFRAME_REQUEST_SIZE];
        char kind[16], country[8], name_hex[200], name[101];
        long id = 0, lat = 0, lon = 0;
        int rc = SKYFRAME_ERR_RANGE, i;
        if (sscanf(line, "refresh %ld", &id) == 1) {
            rc = skyframe_request_refresh(r, (uint16_t)id);
        } else if (sscanf(line, "coordinates %ld %ld %ld", &id, &lat, &lon) == 3) {
            rc = skyframe_request_coordinates(r, (uint16_t)id, (int32_t)lat, (int32_t)lon);
        } else if (sscanf(line, "%15s %ld %7s %199s", kind, &id, country, name_hex) == 4 &&
                   strcmp(kind, "place") == 0 && strlen(name_hex) % 2 == 0 &&
                   strlen(name_hex) / 2 < sizeof name) {
            size_t n = strlen(name_hex) / 2, k;
            for (k = 0; k < n; k++) {
                int hi = hexval(name_hex[2 * k]), lo = hexval(name_hex[2 * k + 1]);
                name[k] = (char)(hi < 0 || lo < 0 ? 1 : hi * 16 + lo);
            }
            name[n] = '\0';
            rc = skyframe_request_place(r, (uint16_t)id, name,
                                        strcmp(country, "-") == 0 ? NULL : country);
        }
        /* Options after the place: " profile=N" and " check=HEX" (request-v1.md 3, bytes 6, 7,
           56-59), set as a device does, after the request is written. */
#if TEST_PROFILES
        if (rc == SKYFRAME_OK && option_hex(line, " profile=", &option))
            rc = skyframe_request_set_profile(r, (uint8_t)option);
        if (rc == SKYFRAME_OK && option_hex(line, " check=", &option))
            rc = skyframe_request_set_check(r, option);
#endif
        if (rc != SKYFRAME_OK) {
            printf("error %s\n", skyframe_error_name(rc));
            continue;
        }
        for (i = 0; i < SKYFRAME_REQUEST_SIZE; i++) printf("%02x", r[i]);
        fputc('\n', stdout);
    }
    return 0;
}

#if TEST_UPLINK
/* decode_vectors --uplink: one LoRaWAN uplink per line, written as a device writes it. */
static int encode_uplinks(void) {
    static char line[256];
    while (fgets(line, (int)sizeof line, stdin) != NULL) {
        uint8_t out[SKYFRAME_UPLINK_MAX_SIZE];
        uint32_t shown = 0;
        const uint32_t *with = option_hex(line, " check=", &shown) ? &shown : NULL;
        long id = 0, a = 0, b = 0;
        int n = SKYFRAME_ERR_RANGE, i;
        if (sscanf(line, "coordinates %ld %ld %ld", &id, &a, &b) == 3)
            n = skyframe_uplink_coordinates(out, (uint8_t)id, (int32_t)a, (int32_t)b, with);
        else if (sscanf(line, "place %ld %ld", &id, &a) == 2)
            n = skyframe_uplink_place(out, (uint8_t)id, (uint8_t)a, with);
        else if (sscanf(line, "refresh %ld", &id) == 1)
            n = skyframe_uplink_refresh(out, (uint8_t)id, with);
        if (n < 0) {
            printf("error %s\n", skyframe_error_name(n));
            continue;
        }
        for (i = 0; i < n; i++) printf("%02x", out[i]);
        fputc('\n', stdout);
    }
    return 0;
}
#endif

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--self-test") == 0) return self_test();
    if (argc == 2 && strcmp(argv[1], "--request") == 0) return encode_requests();
#if TEST_PROFILES
    if (argc == 2 && strcmp(argv[1], "--profiles") == 0) return decode_stdin(1);
#endif
#if TEST_UPLINK
    if (argc == 2 && strcmp(argv[1], "--uplink") == 0) return encode_uplinks();
#endif
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--self-test | --request%s%s]  (input on stdin, one per line)\n",
                argv[0], TEST_PROFILES ? " | --profiles" : "", TEST_UPLINK ? " | --uplink" : "");
        return 2;
    }
    return decode_stdin(0);
}
