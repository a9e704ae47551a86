/*
 * profile_json.h - decodes one message of schemas/frame-profiles.md with the header and prints
 * the one JSON line compare.py --profiles reads.
 *
 * Shared by test/decode_vectors.c (--profiles: host, Arm and RISC-V boards) and
 * boards/avr/decode_flash.c (-DSKYFRAME_TEST_PROFILES), after frame_json.h (whose sfj_* helpers
 * and SFJ_PUTC / SFJ_LIT it uses). Needs a header with SKYFRAME_PROFILES_VERSION.
 *
 * sfj_profile_line(decoder, buf, len) decodes buf with
 *   'a'  skyframe_message_kind(), then the decoder of that kind ("any": what a device does),
 *   's'  skyframe_frame_decode, 'l' skyframe_large_decode, 't' skyframe_tiny_decode,
 *   'u'  skyframe_unchanged_decode,
 * and prints {"ok":false,"error":"<skyframe_error_name>","code":-5,"length":N} on an error, else
 * {"ok":true,"kind":17,"profile":"large", ...}: every field of the profile's table (but magic,
 * kind, reserved and crc32) under its table name (frame-large.json, frame-tiny.json), as the
 * struct holds it (wire units; sentinels as they are, compare.py knows them; tiny's
 * utc_offset_min is the struct's utc_offset_15min, and "utc_offset_minutes" the header's
 * skyframe_tiny_utc_offset_min()), texts as hex
 * ("name_hex", "alert_event_hex"), the country as its letters or null, "crc32", and for frames
 * "content_check" (skyframe_content_check() on buf, 8 hex digits). A standard frame prints only
 * status, request_id, crc32 and content_check: its fields are compared by compare.py without
 * --profiles. `unchanged` prints "of" (the profile number) and "of_name".
 * The decoded message is kept in a static union (skyframe_large is about 900 bytes: not on a
 * small board's stack). Without SKYFRAME_LARGE (AVR) 'l', and 'a' of a large message, print
 * {"ok":false,"error":"large_not_compiled"}.
 */
#ifndef SKYFRAME_TEST_PROFILE_JSON_H
#define SKYFRAME_TEST_PROFILE_JSON_H

#ifndef SKYFRAME_TEST_FRAME_JSON_H
#error "include frame_json.h before profile_json.h"
#endif
#ifndef SKYFRAME_PROFILES_VERSION
#error "profile_json.h needs a skyframe_frame.h that reads the frame profiles"
#endif

/* "key":"xxxxxxxx" (8 lower-case hex digits) */
static void sfj_hex32(int *first, const char *k, uint32_t v) {
    static const char hex[] = "0123456789abcdef";
    int shift;
    sfj_key(first, k);
    SFJ_PUTC('"');
    for (shift = 28; shift >= 0; shift -= 4) SFJ_PUTC(hex[(v >> shift) & 0x0Fu]);
    SFJ_PUTC('"');
}

/* "key":[e(0),e(1),...] with i_ the index in EXPR; signed and unsigned (times need all 32 bits
 * even where long is 32 bits). */
#define SFJ_LIST_LONG(first, k, count, expr)                                                   \
    do {                                                                                       \
        int i_;                                                                                \
        sfj_key(first, k);                                                                     \
        SFJ_PUTC('[');                                                                         \
        for (i_ = 0; i_ < (count); i_++) {                                                     \
            if (i_) SFJ_PUTC(',');                                                             \
            sfj_long((long)(expr));                                                            \
        }                                                                                      \
        SFJ_PUTC(']');                                                                         \
    } while (0)
#define SFJ_LIST_ULONG(first, k, count, expr)                                                  \
    do {                                                                                       \
        int i_;                                                                                \
        sfj_key(first, k);                                                                     \
        SFJ_PUTC('[');                                                                         \
        for (i_ = 0; i_ < (count); i_++) {                                                     \
            if (i_) SFJ_PUTC(',');                                                             \
            sfj_ulong((unsigned long)(expr));                                                  \
        }                                                                                      \
        SFJ_PUTC(']');                                                                         \
    } while (0)

static void sfj_profile_start(int *first, int kind) {
    SFJ_PUTC('{');
    sfj_key(first, SFJ_LIT("ok"));
    sfj_bool(1);
    j_long(first, SFJ_LIT("kind"), kind, 1);
    j_str(first, SFJ_LIT("profile"), skyframe_kind_name(kind));
}

static void sfj_profile_status(int *first, uint8_t status) {
    j_ulong(first, SFJ_LIT("status"), status, 1);
    j_str(first, SFJ_LIT("status_name"), skyframe_status_name(status));
}

static void sfj_profile_end(int *first, uint32_t crc32, const uint8_t *buf, size_t len) {
    uint32_t check = 0;
    j_ulong(first, SFJ_LIT("crc32"), (unsigned long)crc32, 1);
    if (skyframe_content_check(buf, len, &check) == SKYFRAME_OK)
        sfj_hex32(first, SFJ_LIT("content_check"), check);
    sfj_line_end();
}

#if SKYFRAME_LARGE
static void sfj_print_large(const skyframe_large *f, const uint8_t *buf, size_t len) {
    const skyframe_current *c = &f->current;
    int first = 1, i;
    sfj_profile_start(&first, f->kind);
    sfj_profile_status(&first, f->status);
    j_ulong(&first, SFJ_LIT("request_id"), f->request_id, 1);
    j_ulong(&first, SFJ_LIT("slot_index"), f->slot_index, 1);
    j_ulong(&first, SFJ_LIT("slot_count"), f->slot_count, 1);
    j_ulong(&first, SFJ_LIT("service"), f->service, 1);
    j_str(&first, SFJ_LIT("service_name"), skyframe_service_name(f->service));
    j_ulong(&first, SFJ_LIT("is_day"), f->is_day, 1);
    j_ulong(&first, SFJ_LIT("sun"), f->sun, 1);
    j_ulong(&first, SFJ_LIT("hourly_step_h"), f->hourly_step_h, 1);
    j_long(&first, SFJ_LIT("latitude"), (long)f->latitude, 1);
    j_long(&first, SFJ_LIT("longitude"), (long)f->longitude, 1);
    j_ulong(&first, SFJ_LIT("observed_at"), f->observed_at, 1);
    j_ulong(&first, SFJ_LIT("fetched_at"), f->fetched_at, 1);
    j_ulong(&first, SFJ_LIT("hourly_start"), f->hourly_start, 1);
    j_long(&first, SFJ_LIT("utc_offset_min"), f->utc_offset_min, 1);
    j_ulong(&first, SFJ_LIT("daily_start"), f->daily_start, 1);
    j_str(&first, SFJ_LIT("country"), f->country[0] ? f->country : NULL);
    j_ulong(&first, SFJ_LIT("air_quality"), f->air_quality, 1);
    j_ulong(&first, SFJ_LIT("next_update"), f->next_update, 1);
    j_ulong(&first, SFJ_LIT("alerts"), f->alerts, 1);
    j_ulong(&first, SFJ_LIT("moon"), f->moon, 1);
    j_ulong(&first, SFJ_LIT("precip_next_hour"), f->precip_next_hour, 1);
    sfj_key(&first, SFJ_LIT("name_hex"));
    sfj_hex_text(f->name);
    j_long(&first, SFJ_LIT("temperature"), c->temperature, 1);
    j_long(&first, SFJ_LIT("feels_like"), c->feels_like, 1);
    j_long(&first, SFJ_LIT("dew_point"), f->dew_point, 1);
    j_ulong(&first, SFJ_LIT("pressure"), c->pressure, 1);
    j_ulong(&first, SFJ_LIT("wind_speed"), c->wind_speed, 1);
    j_ulong(&first, SFJ_LIT("wind_gust"), c->wind_gust, 1);
    j_ulong(&first, SFJ_LIT("wind_direction"), c->wind_direction, 1);
    j_ulong(&first, SFJ_LIT("visibility"), c->visibility, 1);
    j_ulong(&first, SFJ_LIT("precipitation"), c->precipitation, 1);
    j_ulong(&first, SFJ_LIT("humidity"), c->humidity, 1);
    j_ulong(&first, SFJ_LIT("weather_code"), c->weather_code, 1);
    j_ulong(&first, SFJ_LIT("cloud_cover"), c->cloud_cover, 1);
    j_ulong(&first, SFJ_LIT("uv_index"), c->uv_index, 1);
    j_ulong(&first, SFJ_LIT("sunrise"), f->sunrise, 1);
    j_ulong(&first, SFJ_LIT("sunset"), f->sunset, 1);
    SFJ_LIST_LONG(&first, SFJ_LIT("hourly_temperature"), SKYFRAME_LARGE_HOURLY_COUNT,
                  f->hourly[i_].temperature);
    SFJ_LIST_ULONG(&first, SFJ_LIT("hourly_precip_amount"), SKYFRAME_LARGE_HOURLY_COUNT,
                   f->hourly[i_].precip_amount);
    SFJ_LIST_ULONG(&first, SFJ_LIT("hourly_weather_code"), SKYFRAME_LARGE_HOURLY_COUNT,
                   f->hourly[i_].weather_code);
    SFJ_LIST_ULONG(&first, SFJ_LIT("hourly_precip_probability"), SKYFRAME_LARGE_HOURLY_COUNT,
                   f->hourly[i_].precip_probability);
    SFJ_LIST_ULONG(&first, SFJ_LIT("hourly_wind_speed"), SKYFRAME_LARGE_HOURLY_COUNT,
                   f->hourly[i_].wind_speed);
    SFJ_LIST_ULONG(&first, SFJ_LIT("hourly_wind_gust"), SKYFRAME_LARGE_HOURLY_COUNT,
                   f->hourly[i_].wind_gust);
    SFJ_LIST_LONG(&first, SFJ_LIT("daily_min"), SKYFRAME_LARGE_DAILY_COUNT,
                  f->daily[i_].temperature_min);
    SFJ_LIST_LONG(&first, SFJ_LIT("daily_max"), SKYFRAME_LARGE_DAILY_COUNT,
                  f->daily[i_].temperature_max);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_precip_sum"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].precip_sum);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_sunrise"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].sunrise);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_sunset"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].sunset);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_weather_code"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].weather_code);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_precip_probability"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].precip_probability);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_uv_max"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].uv_max);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_wind_max"), SKYFRAME_LARGE_DAILY_COUNT,
                   f->daily[i_].wind_max);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_sun"), SKYFRAME_LARGE_DAILY_COUNT, f->daily[i_].sun);
    j_ulong(&first, SFJ_LIT("minutely_start"), f->minutely_start, 1);
    SFJ_LIST_ULONG(&first, SFJ_LIT("minutely_precip"), SKYFRAME_LARGE_MINUTELY_COUNT,
                   f->minutely_precip[i_]);
    SFJ_LIST_ULONG(&first, SFJ_LIT("alert_onset"), SKYFRAME_LARGE_ALERT_COUNT, f->alert[i_].onset);
    SFJ_LIST_ULONG(&first, SFJ_LIT("alert_end"), SKYFRAME_LARGE_ALERT_COUNT, f->alert[i_].end);
    SFJ_LIST_ULONG(&first, SFJ_LIT("alert_severity"), SKYFRAME_LARGE_ALERT_COUNT,
                   f->alert[i_].severity);
    sfj_key(&first, SFJ_LIT("alert_event_hex"));
    SFJ_PUTC('[');
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) {
        if (i) SFJ_PUTC(',');
        sfj_hex_text(f->alert[i].event);
    }
    SFJ_PUTC(']');
    sfj_profile_end(&first, f->crc32, buf, len);
}
#endif

static void sfj_print_tiny(const skyframe_tiny *f, const uint8_t *buf, size_t len) {
    int first = 1;
    sfj_profile_start(&first, f->kind);
    sfj_profile_status(&first, f->status);
    j_ulong(&first, SFJ_LIT("request_id"), f->request_id, 1);
    j_ulong(&first, SFJ_LIT("slot_index"), f->slot_index, 1);
    j_ulong(&first, SFJ_LIT("slot_count"), f->slot_count, 1);
    j_ulong(&first, SFJ_LIT("fetched_at"), f->fetched_at, 1);
    j_ulong(&first, SFJ_LIT("next_update"), f->next_update, 1);
    j_long(&first, SFJ_LIT("temperature"), f->temperature, 1);
    j_ulong(&first, SFJ_LIT("air_quality"), f->air_quality, 1);
    j_ulong(&first, SFJ_LIT("weather_code"), f->weather_code, 1);
    j_ulong(&first, SFJ_LIT("is_day"), f->is_day, 1);
    j_ulong(&first, SFJ_LIT("alerts"), f->alerts, 1);
    j_ulong(&first, SFJ_LIT("precip_next_hour"), f->precip_next_hour, 1);
    j_ulong(&first, SFJ_LIT("wind_speed"), f->wind_speed, 1);
    j_ulong(&first, SFJ_LIT("wind_gust"), f->wind_gust, 1);
    j_ulong(&first, SFJ_LIT("wind_direction"), f->wind_direction, 1);
    /* The table's utc_offset_min (15 min a step) is the struct's utc_offset_15min; and the
     * header's helper gives it in minutes. */
    j_long(&first, SFJ_LIT("utc_offset_min"), f->utc_offset_15min, 1);
    j_long(&first, SFJ_LIT("utc_offset_minutes"), skyframe_tiny_utc_offset_min(f), 1);
    j_ulong(&first, SFJ_LIT("humidity"), f->humidity, 1);
    j_ulong(&first, SFJ_LIT("uv_index"), f->uv_index, 1);
    SFJ_LIST_LONG(&first, SFJ_LIT("daily_min"), SKYFRAME_TINY_DAILY_COUNT,
                  f->daily[i_].temperature_min);
    SFJ_LIST_LONG(&first, SFJ_LIT("daily_max"), SKYFRAME_TINY_DAILY_COUNT,
                  f->daily[i_].temperature_max);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_weather_code"), SKYFRAME_TINY_DAILY_COUNT,
                   f->daily[i_].weather_code);
    SFJ_LIST_ULONG(&first, SFJ_LIT("daily_precip_probability"), SKYFRAME_TINY_DAILY_COUNT,
                   f->daily[i_].precip_probability);
    sfj_profile_end(&first, f->crc32, buf, len);
}

static void sfj_print_unchanged(const skyframe_unchanged *u) {
    int first = 1;
    sfj_profile_start(&first, u->kind);
    j_ulong(&first, SFJ_LIT("of"), u->profile, 1);
    j_str(&first, SFJ_LIT("of_name"), skyframe_profile_name(u->profile));
    j_ulong(&first, SFJ_LIT("request_id"), u->request_id, 1);
    j_ulong(&first, SFJ_LIT("slot_index"), u->slot_index, 1);
    j_ulong(&first, SFJ_LIT("slot_count"), u->slot_count, 1);
    j_ulong(&first, SFJ_LIT("next_update"), u->next_update, 1);
    j_ulong(&first, SFJ_LIT("crc32"), (unsigned long)u->crc32, 1);
    sfj_line_end();
}

static void sfj_print_standard_check(const skyframe_frame *f, const uint8_t *buf, size_t len) {
    int first = 1;
    sfj_profile_start(&first, SKYFRAME_KIND_STANDARD);
    sfj_profile_status(&first, f->status);
    j_ulong(&first, SFJ_LIT("request_id"), f->request_id, 1);
    sfj_profile_end(&first, f->crc32, buf, len);
}

/* One input line of compare.py --profiles: decoder 'a', 's', 'l', 't' or 'u' (see above). */
static void sfj_profile_line(char decoder, const uint8_t *buf, size_t len) {
    static union {
        skyframe_frame standard;
#if SKYFRAME_LARGE
        skyframe_large large;
#endif
        skyframe_tiny tiny;
        skyframe_unchanged unchanged;
    } m;
    int rc = SKYFRAME_OK;
    if (decoder == 'a') {
        rc = skyframe_message_kind(buf, len);
        if (rc < 0) {
            sfj_print_error(rc, (unsigned long)len);
            return;
        }
        switch (rc) {
        case SKYFRAME_KIND_STANDARD: decoder = 's'; break;
        case SKYFRAME_KIND_LARGE: decoder = 'l'; break;
        case SKYFRAME_KIND_TINY: decoder = 't'; break;
        default: decoder = 'u'; break;
        }
    }
    switch (decoder) {
    case 's':
        rc = skyframe_frame_decode(buf, len, &m.standard);
        if (rc == SKYFRAME_OK) sfj_print_standard_check(&m.standard, buf, len);
        break;
    case 'l':
#if SKYFRAME_LARGE
        rc = skyframe_large_decode(buf, len, &m.large);
        if (rc == SKYFRAME_OK) sfj_print_large(&m.large, buf, len);
#else
        sfj_print_input_error(SFJ_LIT("large_not_compiled"));
        return;
#endif
        break;
    case 't':
        rc = skyframe_tiny_decode(buf, len, &m.tiny);
        if (rc == SKYFRAME_OK) sfj_print_tiny(&m.tiny, buf, len);
        break;
    case 'u':
        rc = skyframe_unchanged_decode(buf, len, &m.unchanged);
        if (rc == SKYFRAME_OK) sfj_print_unchanged(&m.unchanged);
        break;
    default:
        sfj_print_input_error(SFJ_LIT("unknown_decoder"));
        return;
    }
    if (rc != SKYFRAME_OK) sfj_print_error(rc, (unsigned long)len);
}

#endif /* SKYFRAME_TEST_PROFILE_JSON_H */
