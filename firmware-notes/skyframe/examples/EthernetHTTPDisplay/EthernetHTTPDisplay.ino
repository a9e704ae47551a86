// Skyframe over HTTP on an Arduino Uno with an Ethernet shield (W5100/W5500, the Ethernet library
// that comes with the Arduino IDE): one HTTP/1.1 GET to the gateway's HTTP way in
// (docs/devices/http.md), the answer's frame decoded and printed on the serial console, then a
// wait until the weather can have changed.
//
//   GET /v1/frame/uno?q=~tiny+Berlin,DE HTTP/1.1      (48 bytes back; "Berlin,DE": 192)
//   If-None-Match: "5e1f03a2"                         (the ETag of the frame shown, once there is one)
//
// 200: the frame; it is decoded (CRC checked), printed, and its ETag kept.
// 304: what is shown is still right: nothing to read, nothing to redraw.
// 400/404/500/503: an error frame, printed like any frame; the last weather stays shown.
// 429: asked too often; the body is the error frame once a minute, then empty.
// Next request: after Cache-Control max-age (the frame's next_update) or Retry-After seconds,
// within [MIN_WAIT_S, MAX_WAIT_S].
//
// RAM is the Uno's limit (2 KB): one place, one buffer of 192 bytes, the decoded frame in a union.
// Change MAC, GATEWAY_IP, GATEWAY_PORT, DEVICE and QUERY below; the gateway must listen on the
// network (http.host: 0.0.0.0). The decoder comes from this library: include the header and do NOT
// define SKYFRAME_FRAME_IMPLEMENTATION.
#include <SPI.h>
#include <Ethernet.h>
#include <skyframe_frame.h>

static byte MAC[] = {0x02, 0x53, 0x4B, 0x59, 0x00, 0x01};  // locally administered: any unique one
static const IPAddress GATEWAY_IP(192, 168, 1, 20);        // the Skyframe gateway
const uint16_t GATEWAY_PORT = 8080;
#define DEVICE "uno"                 // 1-32 of a-z A-Z 0-9 - _ .
#define QUERY "~tiny+Berlin,DE"      // the MQTT request text, URL-encoded: '+' for a space
const unsigned long MIN_WAIT_S = 60;
const unsigned long MAX_WAIT_S = 3600;
const unsigned long READ_TIMEOUT_MS = 5000;

static EthernetClient client;
static char etag[12];                      // one place: 8 hex digits in quotes
static uint8_t body[SKYFRAME_FRAME_SIZE];  // the largest frame the Uno keeps (not large: 960)
static union {
  skyframe_frame standard;
  skyframe_tiny tiny;
} decoded;
static unsigned long waitS = 0, lastAsk = 0;

// Reads one header line into line (without CR LF; a longer line is cut, the rest skipped).
// Returns its length, or -1 when the connection ends or stays silent for READ_TIMEOUT_MS.
static int readLine(char *line, size_t size) {
  size_t n = 0;
  unsigned long last = millis();
  for (;;) {
    int c = client.read();
    if (c < 0) {
      if (!client.connected() || millis() - last > READ_TIMEOUT_MS) return -1;
      continue;
    }
    last = millis();
    if (c == '\n') break;
    if (c != '\r' && n + 1 < size) line[n++] = (char)c;
  }
  line[n] = '\0';
  return (int)n;
}

// The value after "Name:" when line is that header (names compare without case), else NULL.
static const char *headerValue(const char *line, const __FlashStringHelper *name) {
  size_t length = strlen_P((const char *)name);
  if (strncasecmp_P(line, (const char *)name, length) != 0 || line[length] != ':') return NULL;
  const char *value = line + length + 1;
  while (*value == ' ' || *value == '\t') value++;
  return value;
}

static void printFixed(const __FlashStringHelper *name, int32_t value, uint8_t decimals,
                       bool present) {
  char text[16];
  Serial.print(name);
  Serial.print(' ');
  if (present && skyframe_format_fixed(text, sizeof text, value, decimals) >= 0) {
    Serial.println(text);
  } else {
    Serial.println('-');
  }
}

// Decodes a frame (standard or tiny, by its kind byte) and prints what a display would draw.
// Returns false when the bytes are no frame (cut short, CRC, unknown kind).
static bool showFrame(const uint8_t *bytes, size_t length) {
  int kind = skyframe_message_kind(bytes, length);
  int rc = SKYFRAME_OK;
  if (kind == SKYFRAME_KIND_STANDARD) {
    rc = skyframe_frame_decode(bytes, length, &decoded.standard);
    if (rc == SKYFRAME_OK) {
      const skyframe_frame *f = &decoded.standard;
      Serial.print(F("status "));
      Serial.println(skyframe_status_name(f->status));
      if (!skyframe_frame_has_weather(f)) return true;
      Serial.print(F("name "));
      Serial.println(f->name);
      printFixed(F("temperature_c"), f->current.temperature, 1, SKYFRAME_HAS_I16(f->current.temperature));
      printFixed(F("weather_code"), f->current.weather_code, 0, SKYFRAME_HAS_U8(f->current.weather_code));
      printFixed(F("humidity_pct"), f->current.humidity, 0, SKYFRAME_HAS_U8(f->current.humidity));
      printFixed(F("today_min_c"), f->daily[0].temperature_min, 1, SKYFRAME_HAS_I16(f->daily[0].temperature_min));
      printFixed(F("today_max_c"), f->daily[0].temperature_max, 1, SKYFRAME_HAS_I16(f->daily[0].temperature_max));
      return true;
    }
  } else if (kind == SKYFRAME_KIND_TINY) {
    rc = skyframe_tiny_decode(bytes, length, &decoded.tiny);
    if (rc == SKYFRAME_OK) {
      const skyframe_tiny *t = &decoded.tiny;
      Serial.print(F("status "));
      Serial.println(skyframe_status_name(t->status));
      if (t->status > SKYFRAME_STATUS_STALE) return true;  // an error frame: the status says it
      printFixed(F("temperature_c"), t->temperature, 1, SKYFRAME_HAS_I16(t->temperature));
      printFixed(F("weather_code"), t->weather_code, 0, SKYFRAME_HAS_U8(t->weather_code));
      printFixed(F("humidity_pct"), t->humidity, 0, SKYFRAME_HAS_U8(t->humidity));
      // tiny keeps whole degrees for the days
      printFixed(F("today_min_c"), t->daily[0].temperature_min, 0, SKYFRAME_HAS_I8(t->daily[0].temperature_min));
      printFixed(F("today_max_c"), t->daily[0].temperature_max, 0, SKYFRAME_HAS_I8(t->daily[0].temperature_max));
      return true;
    }
  } else if (kind >= 0) {
    Serial.print(F("not asked for: "));  // large or unchanged
    Serial.println(skyframe_kind_name(kind));
    return false;
  } else {
    rc = kind;
  }
  Serial.print(F("frame dropped: "));
  Serial.println(skyframe_error_name(rc));
  return false;
}

// One request: sends it, reads the status line and headers, then the frame. Sets waitS.
static void ask() {
  waitS = MIN_WAIT_S;  // a failed request is tried again after the shortest wait
  if (!client.connect(GATEWAY_IP, GATEWAY_PORT)) {
    Serial.println(F("gateway unreachable"));
    return;
  }
  // The whole request in one write: the shield sends each write as a packet of its own.
  char request[128];
  strcpy_P(request, PSTR("GET /v1/frame/" DEVICE "?q=" QUERY " HTTP/1.1\r\nHost: skyframe\r\n"
                         "Connection: close\r\n"));
  if (etag[0] != '\0') {
    strcat_P(request, PSTR("If-None-Match: "));
    strcat(request, etag);
    strcat_P(request, PSTR("\r\n"));
  }
  strcat_P(request, PSTR("\r\n"));
  client.write((const uint8_t *)request, strlen(request));

  char line[64];
  int status = 0;
  if (readLine(line, sizeof line) > 12 && strncmp_P(line, PSTR("HTTP/1."), 7) == 0) {
    status = atoi(line + 9);
  }
  char newTag[sizeof etag] = "";
  long contentLength = -1;
  unsigned long maxAge = 0, retryAfter = 0;
  const char *value;
  while (status > 0 && readLine(line, sizeof line) > 0) {  // headers end with an empty line
    if ((value = headerValue(line, F("ETag"))) != NULL) {
      if (strlen(value) < sizeof newTag) strcpy(newTag, value);  // several places: too long, not kept
    } else if ((value = headerValue(line, F("Content-Length"))) != NULL) {
      contentLength = atol(value);
    } else if ((value = headerValue(line, F("Retry-After"))) != NULL) {
      retryAfter = strtoul(value, NULL, 10);
    } else if ((value = headerValue(line, F("Cache-Control"))) != NULL) {
      const char *age = strstr_P(value, PSTR("max-age="));
      if (age != NULL) maxAge = strtoul(age + 8, NULL, 10);
    }
  }
  Serial.print(F("HTTP "));
  Serial.println(status);

  if (status == 304) {
    Serial.println(F("not modified: the screen is still right"));
  } else if (status > 0 && contentLength > 0) {
    if ((size_t)contentLength > sizeof body) {
      Serial.println(F("answer too large for this board: ask one place, ~tiny or standard"));
    } else {
      client.setTimeout(READ_TIMEOUT_MS);
      size_t got = client.readBytes(body, (size_t)contentLength);
      // A 200 frame is the new screen: keep its ETag. An error frame leaves the screen as it was.
      if (showFrame(body, got) && status == 200) strcpy(etag, newTag);
    }
  }
  client.stop();

  unsigned long wait = retryAfter > 0 ? retryAfter : maxAge;
  if (wait < MIN_WAIT_S) wait = MIN_WAIT_S;
  if (wait > MAX_WAIT_S) wait = MAX_WAIT_S;
  waitS = wait;
  Serial.print(F("next request in s "));
  Serial.println(waitS);
  Serial.println(F("--"));
}

void setup() {
  Serial.begin(115200);
  // Ethernet.init(10);  // the shield's chip select, when it is not pin 10
  if (Ethernet.begin(MAC) == 0) {  // DHCP
    Serial.println(F("no address from DHCP"));
    for (;;) delay(1000);
  }
  delay(1000);  // the shield settles after DHCP
  ask();
  lastAsk = millis();
}

void loop() {
  Ethernet.maintain();  // renews the DHCP lease
  if (millis() - lastAsk >= waitS * 1000UL) {
    ask();
    lastAsk = millis();
  }
}
