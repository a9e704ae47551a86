/*
 * show_frame.c - prints a decoded Skyframe frame with printf. It shows how to read the wire
 * units and sentinels of skyframe_frame (firmware-notes/README.md, section 3): test a value with
 * SKYFRAME_HAS_* before showing it, format it with skyframe_format_fixed (no floating point),
 * and convert units with the integer helpers. Include skyframe_frame.h here WITHOUT
 * SKYFRAME_FRAME_IMPLEMENTATION; the program's main file defines it.
 */
#include <stdio.h>
#include <time.h>

#include "show_frame.h"

static const char *const WDAY[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

/* 16-point compass, three characters per point (padded with spaces), 0 = from north. */
static const char COMPASS[] = "N  NNENE ENEE  ESESE SSES  SSWSW WSWW  WNWNW NNW";

void show_frame(const skyframe_frame *f) {
    char t[13], u[13];
    int i;
    if (!skyframe_frame_has_weather(f)) { /* error frame: status 2..7 or newer */
        printf("%s: %s (%u)\n", f->name[0] ? f->name : "request",
               skyframe_status_name(f->status), (unsigned)f->status);
        return;
    }
    int32_t age = skyframe_frame_age_seconds(f, (uint32_t)time(NULL)); /* -1: clock not set */
    printf("%s %s%s\n", f->name, f->country,
           f->status == SKYFRAME_STATUS_STALE ? " (service down, cached data)" : "");
    if (age >= 0) printf("  updated %ld min ago\n", (long)(age / 60));
    const skyframe_current *c = &f->current;
    if (SKYFRAME_HAS_I16(c->temperature)) {
        skyframe_format_fixed(t, sizeof t, c->temperature, 1);                      /* "-0.5" */
        skyframe_format_fixed(u, sizeof u, skyframe_c10_to_f10(c->temperature), 1); /* degF */
        printf("  %s C / %s F\n", t, u);
    }
    if (SKYFRAME_HAS_U16(c->wind_speed)) {
        skyframe_format_fixed(t, sizeof t, skyframe_ms10_to_kmh10(c->wind_speed), 1);
        printf("  wind %s km/h", t);
        if (SKYFRAME_HAS_U16(c->wind_direction))
            printf(" from %.3s",
                   &COMPASS[3 * (((uint32_t)c->wind_direction * 100 + 1125) / 2250 % 16)]);
        printf("\n");
    }
    if (SKYFRAME_HAS_U16(c->pressure) &&
        skyframe_format_fixed(t, sizeof t, skyframe_hpa10_to_inhg100(c->pressure), 2) > 0)
        printf("  %u hPa = %s inHg\n", (unsigned)((c->pressure + 5) / 10), t);
    int16_t m = skyframe_local_minute_of_day(f->sunrise, f->utc_offset_min);
    if (m >= 0) printf("  sunrise %02d:%02d local\n", m / 60, m % 60);
    if (f->sun == SKYFRAME_SUN_POLAR_DAY) printf("  midnight sun\n");
    int p = skyframe_precip_change_in_min(f); /* v1.1; -1 absent, -2 no change in 60 min */
    if (p >= 0)
        printf("  precipitation %s in %d min\n", skyframe_precip_now(f) ? "stops" : "starts", p);
    if (skyframe_alert_count(f) > 0) /* v1.1; 31 means 31 or more */
        printf("  %d alert(s), worst %s\n", skyframe_alert_count(f),
               skyframe_alert_severity_name(skyframe_alert_severity(f)));
    for (i = 0; i < SKYFRAME_DAILY_COUNT && SKYFRAME_HAS_U16(f->daily_start); i++) {
        const skyframe_daily *d = &f->daily[i];
        if (!SKYFRAME_HAS_I16(d->temperature_min) || !SKYFRAME_HAS_I16(d->temperature_max))
            continue;
        skyframe_format_fixed(t, sizeof t, d->temperature_min, 1);
        skyframe_format_fixed(u, sizeof u, d->temperature_max, 1);
        printf("  %s %s..%s C\n", WDAY[skyframe_weekday((int32_t)f->daily_start + i)], t, u);
    }
}
