// A battery weather display on an ESP32 that asks a Skyframe gateway over HTTP (docs/devices/
// http.md), then sleeps: wake, join Wi-Fi, one GET, draw only when the weather changed, deep sleep
// until newer data can exist. Everything happens in setup(); deep sleep ends in a reset.
//
// The ETag of what the screen shows lives in RTC memory, which keeps its contents through deep
// sleep (not through a power-up or a reset button): each wake sends it back as If-None-Match.
//   200: a new frame. Decoded (CRC checked), drawn (here: show_frame() prints it), ETag kept.
//   304: the screen is still right. No body, no redraw: the e-paper refresh is the wake's
//        costliest part after Wi-Fi.
//   400/404/500/503: an error frame, printed; the screen keeps the last weather.
//   429: asked too often (Retry-After says how long to wait).
// It sleeps Cache-Control's max-age (the frame's next_update) or Retry-After seconds, within
// [MIN_SLEEP_S, MAX_SLEEP_S]; after a failed wake (no Wi-Fi, no gateway) MIN_SLEEP_S.
//
// Needs the Skyframe library (the decoder) and this library (show_frame()); HTTPClient comes with
// the ESP32 core. Change the Wi-Fi name and password and URL below; the gateway must listen on the
// network (http.host: 0.0.0.0).
#include <WiFi.h>
#include <HTTPClient.h>
#include <esp_sleep.h>
#include <skyframe_frame.h>  // the library compiles the decoder: no SKYFRAME_FRAME_IMPLEMENTATION here
#include <show_frame.h>      // the Skyframe ESP32 library

#define WIFI_NAME "ssid"
#define WIFI_PASSWORD "password"
#define URL "http://gateway.local:8080/v1/frame/kitchen?q=Berlin,DE"  // one place, standard: 192 B
const uint32_t MIN_SLEEP_S = 60;
const uint32_t MAX_SLEEP_S = 3600;
const unsigned long WIFI_TIMEOUT_MS = 15000;

RTC_DATA_ATTR char etag[24];  // "" after a power-up: the first wake always draws
RTC_DATA_ATTR uint32_t wakes = 0;

// Seconds from a header value: "max-age=593" (Cache-Control) or "60" (Retry-After); 0 if none.
static uint32_t secondsIn(const String &value, const char *prefix) {
  const char *at = strstr(value.c_str(), prefix);
  return at != NULL ? (uint32_t)strtoul(at + strlen(prefix), NULL, 10) : 0;
}

// One GET: draws a new frame, keeps its ETag, and returns how long to sleep.
static uint32_t askAndDraw() {
  HTTPClient http;
  if (!http.begin(URL)) return MIN_SLEEP_S;
  http.setTimeout(5000);
  const char *keep[] = {"ETag", "Cache-Control", "Retry-After"};
  http.collectHeaders(keep, 3);
  if (etag[0] != '\0') http.addHeader("If-None-Match", etag);
  int code = http.GET();
  if (code < 0) {
    Serial.printf("request failed: %s\n", HTTPClient::errorToString(code).c_str());
    http.end();
    return MIN_SLEEP_S;
  }
  int length = http.getSize();
  Serial.printf("HTTP %d, %d bytes\n", code, length);
  if (code == 304) {
    Serial.println("not modified: the screen is still right, no redraw");
  } else if (length == SKYFRAME_FRAME_SIZE) {
    uint8_t bytes[SKYFRAME_FRAME_SIZE];
    skyframe_frame f;
    int rc = SKYFRAME_ERR_TRUNCATED;
    if (http.getStream().readBytes(bytes, sizeof bytes) == sizeof bytes) {
      rc = skyframe_frame_decode(bytes, sizeof bytes, &f);
    }
    if (rc != SKYFRAME_OK) {
      Serial.printf("frame dropped: %s\n", skyframe_error_name(rc));  // keep the last screen
    } else {
      show_frame(&f);  // a display draws here; an error frame says its status
      if (code == 200) snprintf(etag, sizeof etag, "%s", http.header("ETag").c_str());
    }
  } else if (length > 0) {
    Serial.println("not one standard frame: ask for one place");
  }
  uint32_t retry = secondsIn(http.header("Retry-After"), "");
  uint32_t maxAge = secondsIn(http.header("Cache-Control"), "max-age=");
  http.end();
  uint32_t sleepS = retry > 0 ? retry : maxAge;
  return sleepS < MIN_SLEEP_S ? MIN_SLEEP_S : sleepS > MAX_SLEEP_S ? MAX_SLEEP_S : sleepS;
}

void setup() {
  Serial.begin(115200);
  wakes++;
  Serial.printf("wake %u, ETag %s\n", (unsigned)wakes, etag[0] != '\0' ? etag : "none");
  uint32_t sleepS = MIN_SLEEP_S;
  WiFi.begin(WIFI_NAME, WIFI_PASSWORD);
  unsigned long started = millis();
  while (WiFi.status() != WL_CONNECTED && millis() - started < WIFI_TIMEOUT_MS) delay(100);
  if (WiFi.status() == WL_CONNECTED) {
    sleepS = askAndDraw();
  } else {
    Serial.println("no Wi-Fi");
  }
  WiFi.disconnect(true);
  Serial.printf("deep sleep %u s\n", (unsigned)sleepS);
  Serial.flush();
  esp_sleep_enable_timer_wakeup((uint64_t)sleepS * 1000000ULL);
  esp_deep_sleep_start();  // does not return: the next wake starts in setup() again
}

void loop() {}  // never reached
