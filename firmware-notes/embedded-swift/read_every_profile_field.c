/* What build.sh links and measures for the C header's decoders of the other messages
 * (schemas/frame-profiles.md): decode a `large`, `tiny` or `unchanged` message with
 * skyframe_large_decode / skyframe_tiny_decode / skyframe_unchanged_decode into a struct on the
 * stack and read every field, folding the values into one number so the compiler cannot drop a
 * read. ReadEveryProfileField.swift does the same with the Swift ProfileView; each image links
 * one of the three functions (-ffunction-sections, --gc-sections). */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

#define FOLD(v) (hash += (uint32_t)(v))

int32_t skyframe_c_read_every_large_field(const void *bytes, int count) {
    skyframe_large f;
    uint32_t hash;
    int i, j, rc = skyframe_large_decode((const uint8_t *)bytes, (size_t)count, &f);
    if (rc != SKYFRAME_OK) return rc;
    hash = f.kind;
    FOLD(f.status);
    FOLD(f.request_id);
    FOLD(f.slot_index);
    FOLD(f.slot_count);
    FOLD(f.service);
    FOLD(f.is_day);
    FOLD(f.sun);
    FOLD(f.hourly_step_h);
    FOLD(f.latitude);
    FOLD(f.longitude);
    FOLD(f.observed_at);
    FOLD(f.fetched_at);
    FOLD(f.hourly_start);
    FOLD(f.utc_offset_min);
    FOLD(f.daily_start);
    FOLD(f.air_quality);
    FOLD(f.next_update);
    FOLD(f.alerts);
    FOLD(f.moon);
    FOLD(f.precip_next_hour);
    FOLD(f.current.temperature);
    FOLD(f.current.feels_like);
    FOLD(f.dew_point);
    FOLD(f.current.pressure);
    FOLD(f.current.wind_speed);
    FOLD(f.current.wind_gust);
    FOLD(f.current.wind_direction);
    FOLD(f.current.visibility);
    FOLD(f.current.precipitation);
    FOLD(f.current.humidity);
    FOLD(f.current.weather_code);
    FOLD(f.current.cloud_cover);
    FOLD(f.current.uv_index);
    FOLD(f.sunrise);
    FOLD(f.sunset);
    FOLD(f.minutely_start);
    FOLD(f.crc32);
    FOLD((uint8_t)f.country[0] << 8 | (uint8_t)f.country[1]);
    for (i = 0; f.name[i] != 0; i++) FOLD((uint8_t)f.name[i]);
    for (i = 0; i < SKYFRAME_LARGE_HOURLY_COUNT; i++) {
        FOLD(f.hourly[i].temperature);
        FOLD(f.hourly[i].precip_amount);
        FOLD(f.hourly[i].weather_code);
        FOLD(f.hourly[i].precip_probability);
        FOLD(f.hourly[i].wind_speed);
        FOLD(f.hourly[i].wind_gust);
    }
    for (i = 0; i < SKYFRAME_LARGE_DAILY_COUNT; i++) {
        FOLD(f.daily[i].temperature_min);
        FOLD(f.daily[i].temperature_max);
        FOLD(f.daily[i].precip_sum);
        FOLD(f.daily[i].sunrise);
        FOLD(f.daily[i].sunset);
        FOLD(f.daily[i].weather_code);
        FOLD(f.daily[i].precip_probability);
        FOLD(f.daily[i].uv_max);
        FOLD(f.daily[i].wind_max);
        FOLD(f.daily[i].sun);
    }
    for (i = 0; i < SKYFRAME_LARGE_MINUTELY_COUNT; i++) FOLD(f.minutely_precip[i]);
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) {
        FOLD(f.alert[i].onset);
        FOLD(f.alert[i].end);
        FOLD(f.alert[i].severity);
        for (j = 0; f.alert[i].event[j] != 0; j++) FOLD((uint8_t)f.alert[i].event[j]);
    }
    return (int32_t)(hash & 0x7FFFFFFFu);
}

int32_t skyframe_c_read_every_tiny_field(const void *bytes, int count) {
    skyframe_tiny f;
    uint32_t hash;
    int i, rc = skyframe_tiny_decode((const uint8_t *)bytes, (size_t)count, &f);
    if (rc != SKYFRAME_OK) return rc;
    hash = f.kind;
    FOLD(f.status);
    FOLD(f.request_id);
    FOLD(f.slot_index);
    FOLD(f.slot_count);
    FOLD(f.fetched_at);
    FOLD(f.next_update);
    FOLD(f.temperature);
    FOLD(f.air_quality);
    FOLD(f.weather_code);
    FOLD(f.is_day);
    FOLD(f.alerts);
    FOLD(f.precip_next_hour);
    FOLD(f.wind_speed);
    FOLD(f.wind_gust);
    FOLD(f.wind_direction);
    FOLD(f.utc_offset_15min);
    FOLD(f.humidity);
    FOLD(f.uv_index);
    FOLD(f.crc32);
    for (i = 0; i < SKYFRAME_TINY_DAILY_COUNT; i++) {
        FOLD(f.daily[i].temperature_min);
        FOLD(f.daily[i].temperature_max);
        FOLD(f.daily[i].weather_code);
        FOLD(f.daily[i].precip_probability);
    }
    return (int32_t)(hash & 0x7FFFFFFFu);
}

int32_t skyframe_c_read_every_unchanged_field(const void *bytes, int count) {
    skyframe_unchanged f;
    uint32_t hash;
    int rc = skyframe_unchanged_decode((const uint8_t *)bytes, (size_t)count, &f);
    if (rc != SKYFRAME_OK) return rc;
    hash = f.kind;
    FOLD(f.profile);
    FOLD(f.request_id);
    FOLD(f.slot_index);
    FOLD(f.slot_count);
    FOLD(f.next_update);
    FOLD(f.crc32);
    return (int32_t)(hash & 0x7FFFFFFFu);
}
