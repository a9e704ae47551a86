// Skyframe on a board without a network (an Arduino Uno: 2 KB of RAM, 32 KB of flash) that asks
// through a serial bridge: a computer, a Raspberry Pi or an ESP-01 next to it that speaks MQTT.
//
// Board -> bridge: one text line per request, "REQ " then the request text (schemas/request-v1.md),
//   e.g. "REQ #1 Berlin,DE". The bridge publishes the text to skyframe/v1/req/{device}.
// Bridge -> board: every message the gateway sends on skyframe/v1/frame/{device}, as it is, bytes
//   only (no framing): each one starts with "SF" and a kind byte that gives its length (192
//   standard, 48 tiny, 16 unchanged, 960 large). A message cut short is dropped after 200 ms
//   without a byte; one that fails its CRC is reported and the board keeps its last frame.
//   extras/serial_bridge.py is such a bridge for a computer (pyserial and paho-mqtt).
//
// It prints every message as "key value" lines, then a line "--". Values are in the units the
// key names; "-" is a missing value. The Uno keeps standard, tiny and unchanged messages; a large
// one (960 bytes) does not fit its RAM and is skipped (ask with "~tiny " or nothing).
//
// The decoder comes from the Skyframe library (library.properties): include the header and do
// NOT define SKYFRAME_FRAME_IMPLEMENTATION (the library compiles it once).
#include <skyframe_frame.h>

#define REQUEST "Berlin,DE"  // a place, "52.52,13.41", or options first: "~tiny Berlin,DE"
const unsigned long ASK_EVERY_MS = 15UL * 60UL * 1000UL;
const unsigned long GAP_MS = 200;  // a message cut short is dropped after this long without a byte

static uint8_t message[SKYFRAME_FRAME_SIZE];  // the largest kind the Uno keeps
static uint16_t have = 0;                      // bytes of the message read so far
static uint16_t expected = 0;                  // its length, from the kind byte
static uint16_t skipping = 0;                  // bytes of a large message still to skip
static unsigned long lastByte = 0, lastAsk = 0;
static uint16_t requestId = 0;
static skyframe_frame frame;  // static: 2 KB of RAM leaves little stack for a struct this size
static skyframe_tiny tiny;
static skyframe_unchanged unchanged;

static void ask() {
  requestId = requestId % 65535u + 1u;  // 1..65535, echoed in the answer's request_id
  Serial.print(F("REQ #"));
  Serial.print(requestId);
  Serial.println(F(" " REQUEST));
  lastAsk = millis();
}

static void key(const __FlashStringHelper *name) {
  Serial.print(name);
  Serial.print(' ');
}

static void printMissing() { Serial.println('-'); }

// value / 10^decimals, without floating point (skyframe_format_fixed), or "-" when missing.
static void printFixed(const __FlashStringHelper *name, int32_t value, uint8_t decimals,
                       bool present) {
  char text[16];
  key(name);
  if (!present || skyframe_format_fixed(text, sizeof text, value, decimals) < 0) {
    printMissing();
    return;
  }
  Serial.println(text);
}

static void printI16(const __FlashStringHelper *name, int16_t v, uint8_t decimals) {
  printFixed(name, v, decimals, SKYFRAME_HAS_I16(v));
}
static void printU16(const __FlashStringHelper *name, uint16_t v, uint8_t decimals) {
  printFixed(name, v, decimals, SKYFRAME_HAS_U16(v));
}
static void printU8(const __FlashStringHelper *name, uint8_t v, uint8_t decimals) {
  printFixed(name, v, decimals, SKYFRAME_HAS_U8(v));
}

static void printTime(const __FlashStringHelper *name, uint32_t t) {
  key(name);
  if (t == SKYFRAME_MISSING_TIME) {
    printMissing();
    return;
  }
  Serial.println(t);
}

// HH:MM at the place (UTC + its offset), or "-".
static void printLocalTime(const __FlashStringHelper *name, uint32_t t, int16_t offsetMin) {
  int16_t m = skyframe_local_minute_of_day(t, offsetMin);
  key(name);
  if (m < 0) {
    printMissing();
    return;
  }
  if (m / 60 < 10) Serial.print('0');
  Serial.print(m / 60);
  Serial.print(':');
  if (m % 60 < 10) Serial.print('0');
  Serial.println(m % 60);
}

// The status by name; a status this header does not know (a newer gateway) by its number.
static void printStatus(uint8_t status) {
  key(F("status"));
  if (status <= SKYFRAME_STATUS_INTERNAL_ERROR) {
    Serial.println(skyframe_status_name(status));
  } else {
    Serial.println(status);
  }
}

// The service by name; one this header does not name (reserved for v1.x: a newer gateway) by its
// number, as frame-v1.md 5.2 asks.
static void printService(uint8_t service) {
  key(F("service"));
  const char *name = skyframe_service_name(service);
  if (strcmp(name, "unknown") != 0) {
    Serial.println(name);
  } else {
    Serial.println(service);
  }
}

static void printSlot(uint16_t requestIdSeen, uint8_t index, uint8_t count) {
  key(F("request_id"));
  Serial.println(requestIdSeen);
  key(F("slot"));
  Serial.print(index);
  Serial.print(F(" of "));
  Serial.println(count);
}

static void printIsDay(uint8_t isDay) {
  key(F("is_day"));
  if (isDay == SKYFRAME_MISSING_U8) {
    printMissing();
  } else {
    Serial.println(isDay ? F("yes") : F("no"));
  }
}

static void printStandard(const skyframe_frame *f) {
  printStatus(f->status);
  printSlot(f->request_id, f->slot_index, f->slot_count);
  key(F("name"));
  Serial.println(f->name);  // UTF-8 as sent; the serial monitor shows it
  key(F("country"));
  if (f->country[0] != '\0') {
    Serial.println(f->country);
  } else {
    printMissing();
  }
  if (!skyframe_frame_has_weather(f)) return;  // an error frame: the status says it all
  printService(f->service);
  printTime(F("fetched_at"), f->fetched_at);
  printI16(F("temperature_c"), f->current.temperature, 1);
  printI16(F("feels_like_c"), f->current.feels_like, 1);
  printU8(F("humidity_pct"), f->current.humidity, 0);
  printU16(F("pressure_hpa"), f->current.pressure, 1);
  printU16(F("wind_speed_ms"), f->current.wind_speed, 1);
  printU16(F("wind_gust_ms"), f->current.wind_gust, 1);
  printU16(F("wind_direction_deg"), f->current.wind_direction, 0);
  printU8(F("weather_code"), f->current.weather_code, 0);
  printIsDay(f->is_day);
  printLocalTime(F("sunrise_local"), f->sunrise, f->utc_offset_min);
  printLocalTime(F("sunset_local"), f->sunset, f->utc_offset_min);
  for (uint8_t i = 0; i < SKYFRAME_DAILY_COUNT; i++) {
    const skyframe_daily *d = &f->daily[i];
    key(F("day"));
    Serial.println(i);
    printI16(F("min_c"), d->temperature_min, 1);
    printI16(F("max_c"), d->temperature_max, 1);
    printU8(F("weather_code"), d->weather_code, 0);
    printU8(F("precip_probability_pct"), d->precip_probability, 0);
  }
  if (skyframe_has_air_quality(f)) {
    key(F("air_quality"));
    Serial.print(skyframe_air_quality_index(f));
    Serial.print(' ');
    Serial.println(skyframe_air_quality_scale_name(skyframe_air_quality_scale(f)));
  }
  if (skyframe_has_alerts(f)) {
    key(F("alerts"));
    Serial.print(skyframe_alert_count(f));
    Serial.print(' ');
    Serial.println(skyframe_alert_severity_name(skyframe_alert_severity(f)));
  }
  if (skyframe_has_moon(f)) {
    key(F("moon"));
    Serial.print(skyframe_moon_phase_name(skyframe_moon_phase_icon(f)));
    Serial.print(' ');
    Serial.println(skyframe_moon_illumination_pct(f));
  }
  if (skyframe_has_next_update(f)) {
    key(F("next_update_s"));
    Serial.println(skyframe_next_update_seconds(f));
  }
}

static void printTiny(const skyframe_tiny *t) {
  printStatus(t->status);
  printSlot(t->request_id, t->slot_index, t->slot_count);
  printTime(F("fetched_at"), t->fetched_at);
  printI16(F("temperature_c"), t->temperature, 1);
  printU8(F("weather_code"), t->weather_code, 0);
  printIsDay(t->is_day);
  printU8(F("humidity_pct"), t->humidity, 0);
  // tiny keeps wind in 0.5 m/s and its direction in 2-degree steps (frame-profiles.md 3)
  printFixed(F("wind_speed_ms"), 5L * t->wind_speed, 1, SKYFRAME_HAS_U8(t->wind_speed));
  printFixed(F("wind_direction_deg"), 2L * t->wind_direction, 0,
             SKYFRAME_HAS_U8(t->wind_direction));
  int16_t offset = skyframe_tiny_utc_offset_min(t);
  printI16(F("utc_offset_min"), offset, 0);
  for (uint8_t i = 0; i < SKYFRAME_TINY_DAILY_COUNT; i++) {
    const skyframe_tiny_daily *d = &t->daily[i];
    key(F("day"));
    Serial.println(i);
    // whole degrees: -128 is missing
    printFixed(F("min_c"), d->temperature_min, 0, d->temperature_min != SKYFRAME_MISSING_I8);
    printFixed(F("max_c"), d->temperature_max, 0, d->temperature_max != SKYFRAME_MISSING_I8);
    printU8(F("weather_code"), d->weather_code, 0);
    printU8(F("precip_probability_pct"), d->precip_probability, 0);
  }
}

static void printUnchanged(const skyframe_unchanged *u) {
  key(F("of"));
  Serial.println(skyframe_profile_name(u->profile));
  printSlot(u->request_id, u->slot_index, u->slot_count);
  printFixed(F("next_update_s"), u->next_update, 0, u->next_update != 0);
}

// One whole message: decode it by its kind and print it.
static void handle(const uint8_t *bytes, uint16_t length) {
  int kind = skyframe_message_kind(bytes, length);
  int rc = kind < 0 ? kind : SKYFRAME_OK;
  key(F("kind"));
  Serial.println(kind < 0 ? "?" : skyframe_kind_name(kind));
  if (kind == SKYFRAME_KIND_STANDARD) {
    rc = skyframe_frame_decode(bytes, length, &frame);
    if (rc == SKYFRAME_OK) printStandard(&frame);
  } else if (kind == SKYFRAME_KIND_TINY) {
    rc = skyframe_tiny_decode(bytes, length, &tiny);
    if (rc == SKYFRAME_OK) printTiny(&tiny);
  } else if (kind == SKYFRAME_KIND_UNCHANGED) {
    rc = skyframe_unchanged_decode(bytes, length, &unchanged);
    if (rc == SKYFRAME_OK) printUnchanged(&unchanged);  // the screen is still right
  }
  if (rc != SKYFRAME_OK) {
    key(F("error"));  // keep showing the last frame
    Serial.println(skyframe_error_name(rc));
  }
  Serial.println(F("--"));
}

// The length a kind byte announces, 0 for a kind this header does not know.
static uint16_t lengthOfKind(uint8_t kind) {
  switch (kind) {
  case SKYFRAME_KIND_STANDARD: return SKYFRAME_FRAME_SIZE;
  case SKYFRAME_KIND_LARGE: return SKYFRAME_LARGE_SIZE;
  case SKYFRAME_KIND_TINY: return SKYFRAME_TINY_SIZE;
  case SKYFRAME_KIND_UNCHANGED: return SKYFRAME_UNCHANGED_SIZE;
  default: return 0;
  }
}

static void receive(uint8_t b) {
  if (skipping > 0) {
    if (--skipping == 0) {
      Serial.println(F("kind large\nskipped 960 bytes: too large for this board\n--"));
    }
    return;
  }
  if (have == 0 && b != 'S') return;  // between messages: wait for "SF"
  if (have == 1 && b != 'F') {
    have = b == 'S' ? 1 : 0;
    return;
  }
  message[have++] = b;
  if (have == 3) {
    expected = lengthOfKind(b);
    if (expected == 0) {  // not a message start after all: look for the next "SF"
      have = 0;
    } else if (expected > sizeof message) {
      skipping = expected - 3;
      have = 0;
    }
  } else if (have > 3 && have == expected) {
    handle(message, have);
    have = 0;
  }
}

void setup() {
  Serial.begin(115200);
  ask();
}

void loop() {
  while (Serial.available() > 0) {
    receive((uint8_t)Serial.read());
    lastByte = millis();
  }
  if ((have > 0 || skipping > 0) && millis() - lastByte > GAP_MS) {
    Serial.println(F("partial message dropped\n--"));
    have = 0;
    skipping = 0;
  }
  if (millis() - lastAsk >= ASK_EVERY_MS) ask();
}
