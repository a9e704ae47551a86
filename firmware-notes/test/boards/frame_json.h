/*
 * frame_json.h - prints a decoded skyframe_frame as the one JSON line compare.py reads.
 *
 * Shared by test/decode_vectors.c (host, ARM and RISC-V boards) and boards/avr/decode_flash.c
 * (ATmega328P), so that every target prints exactly the same format. No stdio, no printf: numbers
 * are written by hand, one character at a time through SFJ_PUTC.
 *
 * Include it once, after skyframe_frame.h, with:
 *   SFJ_PUTC(c)       writes one character (required)
 *   TEST_V1_1         1 if the header reads the v1.1 fields (print them), else 0
 *   SFJ_LIT(s)        wraps every string literal of this file (default: the literal itself;
 *                     AVR: PSTR(s), so that the ~1 KB of key names stay in flash, not in RAM)
 *   SFJ_LIT_PUTS(p)   writes such a wrapped literal (default: sfj_puts; AVR: read from flash)
 *   SFJ_NO_FRAME_PRINTER  (optional) leaves out sfj_print_frame, for a driver that prints only
 *                     profile_json.h's lines (the AVR's profile build)
 * Strings that come from the header (skyframe_*_name) and the frame are in RAM: sfj_puts.
 */
#ifndef SKYFRAME_TEST_FRAME_JSON_H
#define SKYFRAME_TEST_FRAME_JSON_H

#ifndef SFJ_PUTC
#error "define SFJ_PUTC(c) before including frame_json.h"
#endif
#ifndef TEST_V1_1
#error "define TEST_V1_1 (0 or 1) before including frame_json.h"
#endif
#ifndef SFJ_LIT
#define SFJ_LIT(s) (s)
#define SFJ_LIT_PUTS(p) sfj_puts(p)
#endif

static void sfj_puts(const char *s) {
    while (*s != '\0') SFJ_PUTC(*s++);
}

static void sfj_ulong(unsigned long v) {
    char digits[10]; /* 2^32 - 1 has 10 digits */
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0 && n < 10);
    while (n > 0) SFJ_PUTC(digits[--n]);
}

static void sfj_long(long v) {
    if (v < 0) {
        SFJ_PUTC('-');
        sfj_ulong(0UL - (unsigned long)v); /* also right for LONG_MIN */
    } else {
        sfj_ulong((unsigned long)v);
    }
}

static void sfj_sep(int *first) {
    if (!*first) SFJ_PUTC(',');
    *first = 0;
}
/* "key": (key is a SFJ_LIT literal) */
static void sfj_key(int *first, const char *k) {
    sfj_sep(first);
    SFJ_PUTC('"');
    SFJ_LIT_PUTS(k);
    SFJ_PUTC('"');
    SFJ_PUTC(':');
}
static void sfj_null(void) { SFJ_LIT_PUTS(SFJ_LIT("null")); }
static void sfj_bool(int v) {
    if (v) SFJ_LIT_PUTS(SFJ_LIT("true"));
    else SFJ_LIT_PUTS(SFJ_LIT("false"));
}
static void j_long(int *first, const char *k, long v, int present) {
    sfj_key(first, k);
    if (present) sfj_long(v); else sfj_null();
}
static void j_ulong(int *first, const char *k, unsigned long v, int present) {
    sfj_key(first, k);
    if (present) sfj_ulong(v); else sfj_null();
}
/* s in RAM: only library-provided ASCII names and the country code (no escaping needed) */
static void j_str(int *first, const char *k, const char *s) {
    sfj_key(first, k);
    if (s == NULL) {
        sfj_null();
        return;
    }
    SFJ_PUTC('"');
    sfj_puts(s);
    SFJ_PUTC('"');
}
#if !defined(SFJ_NO_FRAME_PRINTER) || (defined(SKYFRAME_LARGE) && SKYFRAME_LARGE)
/* "..." with s (in RAM) as lower-case hex: a name may hold any byte (sfj_print_frame and
 * profile_json.h's large printer) */
static void sfj_hex_text(const char *s) {
    static const char hex[] = "0123456789abcdef";
    SFJ_PUTC('"');
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        SFJ_PUTC(hex[c >> 4]);
        SFJ_PUTC(hex[c & 0x0Fu]);
    }
    SFJ_PUTC('"');
}
#endif
static void sfj_line_end(void) {
    SFJ_PUTC('}');
    SFJ_PUTC('\n');
}

/* {"ok":false,"error":"<skyframe_error_name>","code":-5,"length":192} */
static void sfj_print_error(int rc, unsigned long len) {
    int first = 1;
    SFJ_PUTC('{');
    sfj_key(&first, SFJ_LIT("ok"));
    sfj_bool(0);
    j_str(&first, SFJ_LIT("error"), skyframe_error_name(rc));
    j_long(&first, SFJ_LIT("code"), rc, 1);
    j_ulong(&first, SFJ_LIT("length"), len, 1);
    sfj_line_end();
}

/* {"ok":false,"error":"<what>"} for input the driver could not turn into bytes (what: SFJ_LIT) */
static void sfj_print_input_error(const char *what) {
    int first = 1;
    SFJ_PUTC('{');
    sfj_key(&first, SFJ_LIT("ok"));
    sfj_bool(0);
    sfj_key(&first, SFJ_LIT("error"));
    SFJ_PUTC('"');
    SFJ_LIT_PUTS(what);
    SFJ_PUTC('"');
    sfj_line_end();
}

#ifndef SFJ_NO_FRAME_PRINTER /* defined by a driver that prints only profile_json.h's lines */
/* "key":"<s as hex>" */
static void j_hex(int *first, const char *k, const char *s) {
    sfj_key(first, k);
    sfj_hex_text(s);
}

#if TEST_V1_1
/* The v1.1 fields: the struct's wire values, and what the helpers read (null when absent). */
static void sfj_print_v1_1(int *first, const skyframe_frame *f) {
    int o;
    j_ulong(first, SFJ_LIT("air_quality_wire"), f->air_quality, 1);
    sfj_key(first, SFJ_LIT("air_quality"));
    if (skyframe_has_air_quality(f)) {
        o = 1;
        SFJ_PUTC('{');
        j_long(&o, SFJ_LIT("index"), skyframe_air_quality_index(f), 1);
        j_long(&o, SFJ_LIT("scale"), skyframe_air_quality_scale(f), 1);
        j_str(&o, SFJ_LIT("scale_name"),
              skyframe_air_quality_scale_name(skyframe_air_quality_scale(f)));
        SFJ_PUTC('}');
    } else {
        sfj_null();
    }
    j_ulong(first, SFJ_LIT("alerts_wire"), f->alerts, 1);
    sfj_key(first, SFJ_LIT("alerts"));
    if (skyframe_has_alerts(f)) {
        o = 1;
        SFJ_PUTC('{');
        j_long(&o, SFJ_LIT("count"), skyframe_alert_count(f), 1);
        j_long(&o, SFJ_LIT("severity"), skyframe_alert_severity(f), 1);
        j_str(&o, SFJ_LIT("severity_name"),
              skyframe_alert_severity_name(skyframe_alert_severity(f)));
        SFJ_PUTC('}');
    } else {
        sfj_null();
    }
    j_ulong(first, SFJ_LIT("moon_wire"), f->moon, 1);
    sfj_key(first, SFJ_LIT("moon"));
    if (skyframe_has_moon(f)) {
        o = 1;
        SFJ_PUTC('{');
        j_long(&o, SFJ_LIT("icon"), skyframe_moon_phase_icon(f), 1);
        j_str(&o, SFJ_LIT("name"), skyframe_moon_phase_name(skyframe_moon_phase_icon(f)));
        j_long(&o, SFJ_LIT("illumination_pct"), skyframe_moon_illumination_pct(f), 1);
        SFJ_PUTC('}');
    } else {
        sfj_null();
    }
    j_ulong(first, SFJ_LIT("precip_next_hour_wire"), f->precip_next_hour, 1);
    sfj_key(first, SFJ_LIT("precip_next_hour"));
    if (skyframe_has_precip_next_hour(f)) {
        int m = skyframe_precip_change_in_min(f);
        o = 1;
        SFJ_PUTC('{');
        sfj_key(&o, SFJ_LIT("now"));
        sfj_bool(skyframe_precip_now(f));
        /* null: no change within 60 min */
        j_long(&o, SFJ_LIT("change_in_min"), m, m != SKYFRAME_PRECIP_NO_CHANGE);
        SFJ_PUTC('}');
    } else {
        sfj_null();
    }
    j_ulong(first, SFJ_LIT("next_update_wire"), f->next_update, 1);
    j_long(first, SFJ_LIT("next_update_s"), (long)skyframe_next_update_seconds(f),
           skyframe_has_next_update(f));
}
#endif

/* The decoded frame in wire units, null for a missing value (SKYFRAME_HAS_*). */
static void sfj_print_frame(const skyframe_frame *f) {
    int first = 1, i;
    SFJ_PUTC('{');
    sfj_key(&first, SFJ_LIT("ok"));
    sfj_bool(1);
    j_ulong(&first, SFJ_LIT("version"), f->version, 1);
    j_ulong(&first, SFJ_LIT("status"), f->status, 1);
    j_str(&first, SFJ_LIT("status_name"), skyframe_status_name(f->status));
    sfj_key(&first, SFJ_LIT("has_weather"));
    sfj_bool(skyframe_frame_has_weather(f));
    j_ulong(&first, SFJ_LIT("request_id"), f->request_id, 1);
    j_ulong(&first, SFJ_LIT("slot_index"), f->slot_index, 1);
    j_ulong(&first, SFJ_LIT("slot_count"), f->slot_count, 1);
    j_ulong(&first, SFJ_LIT("service"), f->service, 1);
    j_str(&first, SFJ_LIT("service_name"), skyframe_service_name(f->service));
    j_long(&first, SFJ_LIT("latitude"), (long)f->latitude, SKYFRAME_HAS_I32(f->latitude));
    j_long(&first, SFJ_LIT("longitude"), (long)f->longitude, SKYFRAME_HAS_I32(f->longitude));
    j_hex(&first, SFJ_LIT("name_hex"), f->name);
    j_str(&first, SFJ_LIT("country"), f->country[0] ? f->country : NULL);
    j_ulong(&first, SFJ_LIT("observed_at"), f->observed_at, SKYFRAME_HAS_TIME(f->observed_at));
    j_ulong(&first, SFJ_LIT("fetched_at"), f->fetched_at, SKYFRAME_HAS_TIME(f->fetched_at));
    j_long(&first, SFJ_LIT("utc_offset_min"), f->utc_offset_min,
           SKYFRAME_HAS_I16(f->utc_offset_min));
    sfj_key(&first, SFJ_LIT("is_day"));
    if (f->is_day == 1 || f->is_day == 0) sfj_bool(f->is_day == 1); else sfj_null();
    j_ulong(&first, SFJ_LIT("sun"), f->sun, SKYFRAME_HAS_U8(f->sun));
    j_str(&first, SFJ_LIT("sun_name"), SKYFRAME_HAS_U8(f->sun) ? skyframe_sun_name(f->sun) : NULL);
    j_ulong(&first, SFJ_LIT("sunrise"), f->sunrise, SKYFRAME_HAS_TIME(f->sunrise));
    j_ulong(&first, SFJ_LIT("sunset"), f->sunset, SKYFRAME_HAS_TIME(f->sunset));

    sfj_key(&first, SFJ_LIT("current"));
    {
        const skyframe_current *c = &f->current;
        int cf = 1;
        SFJ_PUTC('{');
        j_long(&cf, SFJ_LIT("temperature"), c->temperature, SKYFRAME_HAS_I16(c->temperature));
        j_long(&cf, SFJ_LIT("feels_like"), c->feels_like, SKYFRAME_HAS_I16(c->feels_like));
        j_ulong(&cf, SFJ_LIT("humidity"), c->humidity, SKYFRAME_HAS_U8(c->humidity));
        j_ulong(&cf, SFJ_LIT("pressure"), c->pressure, SKYFRAME_HAS_U16(c->pressure));
        j_ulong(&cf, SFJ_LIT("wind_speed"), c->wind_speed, SKYFRAME_HAS_U16(c->wind_speed));
        j_ulong(&cf, SFJ_LIT("wind_gust"), c->wind_gust, SKYFRAME_HAS_U16(c->wind_gust));
        j_ulong(&cf, SFJ_LIT("wind_direction"), c->wind_direction,
                SKYFRAME_HAS_U16(c->wind_direction));
        j_ulong(&cf, SFJ_LIT("weather_code"), c->weather_code, SKYFRAME_HAS_U8(c->weather_code));
        j_ulong(&cf, SFJ_LIT("cloud_cover"), c->cloud_cover, SKYFRAME_HAS_U8(c->cloud_cover));
        j_ulong(&cf, SFJ_LIT("precipitation"), c->precipitation,
                SKYFRAME_HAS_U16(c->precipitation));
        j_ulong(&cf, SFJ_LIT("uv_index"), c->uv_index, SKYFRAME_HAS_U8(c->uv_index));
        j_ulong(&cf, SFJ_LIT("visibility"), c->visibility, SKYFRAME_HAS_U16(c->visibility));
        SFJ_PUTC('}');
    }
    j_ulong(&first, SFJ_LIT("hourly_start"), f->hourly_start, SKYFRAME_HAS_TIME(f->hourly_start));
    j_ulong(&first, SFJ_LIT("hourly_step_h"), f->hourly_step_h, 1);
    sfj_key(&first, SFJ_LIT("hourly"));
    SFJ_PUTC('[');
    for (i = 0; i < SKYFRAME_HOURLY_COUNT; i++) {
        const skyframe_hourly *h = &f->hourly[i];
        int hf = 1;
        if (i) SFJ_PUTC(',');
        SFJ_PUTC('{');
        j_long(&hf, SFJ_LIT("temperature"), h->temperature, SKYFRAME_HAS_I16(h->temperature));
        j_ulong(&hf, SFJ_LIT("weather_code"), h->weather_code, SKYFRAME_HAS_U8(h->weather_code));
        j_ulong(&hf, SFJ_LIT("precip_probability"), h->precip_probability,
                SKYFRAME_HAS_U8(h->precip_probability));
        SFJ_PUTC('}');
    }
    SFJ_PUTC(']');
    j_ulong(&first, SFJ_LIT("daily_start"), f->daily_start, SKYFRAME_HAS_U16(f->daily_start));
    sfj_key(&first, SFJ_LIT("daily"));
    SFJ_PUTC('[');
    for (i = 0; i < SKYFRAME_DAILY_COUNT; i++) {
        const skyframe_daily *d = &f->daily[i];
        int df = 1;
        if (i) SFJ_PUTC(',');
        SFJ_PUTC('{');
        j_long(&df, SFJ_LIT("temperature_min"), d->temperature_min,
               SKYFRAME_HAS_I16(d->temperature_min));
        j_long(&df, SFJ_LIT("temperature_max"), d->temperature_max,
               SKYFRAME_HAS_I16(d->temperature_max));
        j_ulong(&df, SFJ_LIT("weather_code"), d->weather_code, SKYFRAME_HAS_U8(d->weather_code));
        j_ulong(&df, SFJ_LIT("precip_probability"), d->precip_probability,
                SKYFRAME_HAS_U8(d->precip_probability));
        SFJ_PUTC('}');
    }
    SFJ_PUTC(']');
#if TEST_V1_1
    sfj_print_v1_1(&first, f);
#endif
    j_ulong(&first, SFJ_LIT("crc32"), (unsigned long)f->crc32, 1);
    sfj_line_end();
}
#endif /* SFJ_NO_FRAME_PRINTER */

#endif /* SKYFRAME_TEST_FRAME_JSON_H */
