/* What build.sh links and measures for the C header: decode a frame with skyframe_frame_decode
 * into a struct on the stack and read every field, folding the values into one number so the
 * compiler cannot drop a read. ReadEveryField.swift does the same with the Swift FrameView. */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

#define FOLD(v) (hash += (uint32_t)(v))

int32_t skyframe_c_read_every_field(const void *bytes, int count) {
    skyframe_frame f;
    uint32_t hash = 0;
    int i, rc = skyframe_frame_decode((const uint8_t *)bytes, (size_t)count, &f);
    if (rc != SKYFRAME_OK) return rc;
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
    FOLD((uint8_t)f.country[0] << 8 | (uint8_t)f.country[1]);
    for (i = 0; f.name[i] != 0; i++) FOLD((uint8_t)f.name[i]);
    FOLD(f.current.temperature);
    FOLD(f.current.feels_like);
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
    FOLD(f.air_quality);
    FOLD(f.alerts);
    FOLD(f.moon);
    FOLD(f.precip_next_hour);
    FOLD(f.next_update);
    for (i = 0; i < SKYFRAME_HOURLY_COUNT; i++) {
        FOLD(f.hourly[i].temperature);
        FOLD(f.hourly[i].weather_code);
        FOLD(f.hourly[i].precip_probability);
    }
    for (i = 0; i < SKYFRAME_DAILY_COUNT; i++) {
        FOLD(f.daily[i].temperature_min);
        FOLD(f.daily[i].temperature_max);
        FOLD(f.daily[i].weather_code);
        FOLD(f.daily[i].precip_probability);
    }
    FOLD(f.crc32);
    return (int32_t)(hash & 0x7FFFFFFFu);
}
