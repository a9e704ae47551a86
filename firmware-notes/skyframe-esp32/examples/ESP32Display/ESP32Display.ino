// Skyframe on Arduino-ESP32 with PubSubClient 2.8+: connects Wi-Fi, sets the clock by SNTP (UTC),
// subscribes to its frame topic, asks for a place and prints every frame on the serial console
// (show_frame.c). Every 15 minutes it asks again with a new request id.
//
// PubSubClient publishes at QoS 0 only, so a request sent while the gateway restarts is lost:
// the broker keeps no QoS 0 message for a subscriber that is away. When no frame with the
// request's id comes within 10 s plus 0-5 s at random, the sketch sends the same request once
// more (same id, so a late answer to the first one still counts); if that gets no answer either,
// it waits for the next 15-minute request.
//
// It is the example of the library Skyframe ESP32 (firmware-notes/skyframe-esp32/), which brings
// show_frame(); it needs the Skyframe library (the decoder) and PubSubClient as well. Install them
// as docs/devices/libraries.md says. The example lives in a library of its own, declared for the
// esp32 architecture only, so that an Uno's Examples menu does not list it.
// Change the Wi-Fi name and password, DEVICE, PLACE and GATEWAY below.
#include <WiFi.h>
#include <PubSubClient.h>
#include <esp_random.h>
#include <time.h>
#include <skyframe_frame.h>  // the library compiles the decoder: no SKYFRAME_FRAME_IMPLEMENTATION here
#include <show_frame.h>      // the Skyframe ESP32 library

#define DEVICE "kitchen"               // <= 32 characters
#define PLACE "Berlin,DE"              // or coordinates: "52.52,13.41"
#define GATEWAY "gateway.local"        // the broker the gateway uses
const unsigned long ASK_EVERY_MS = 15UL * 60UL * 1000UL;
// No answer after ANSWER_TIMEOUT_MS plus 0..ANSWER_JITTER_MS at random: send the request once more.
const unsigned long ANSWER_TIMEOUT_MS = 10000UL;
const unsigned long ANSWER_JITTER_MS = 5000UL;  // so a fleet does not retry in step

WiFiClient net;
PubSubClient mqtt(net);
unsigned requestId = 0;      // the last request's id, echoed in the frame's request_id
unsigned sends = 0;          // requestId sent once, or twice (retried); 0: answered or given up
unsigned long lastAsk = 0;   // when the last new request went out
unsigned long sentAt = 0;    // when requestId last went out
unsigned long waitMs = 0;    // how long to wait for its answer

void sendRequest() {
  char text[64];
  snprintf(text, sizeof text, "#%u %s", requestId, PLACE);
  mqtt.publish("skyframe/v1/req/" DEVICE, text);  // QoS 0: PubSubClient has no other
  sends++;
  sentAt = millis();
  // esp_random() is the ESP32's hardware RNG: true random numbers while Wi-Fi is on, different
  // on every device (on other boards: randomSeed() from something device-specific, random()).
  waitMs = ANSWER_TIMEOUT_MS + esp_random() % (ANSWER_JITTER_MS + 1UL);
}

void ask() {
  requestId = requestId % 65535u + 1u;  // 1..65535
  sends = 0;
  sendRequest();
  lastAsk = millis();
}

void onMessage(char *topic, byte *payload, unsigned int length) {
  (void)topic;
  skyframe_frame f;  // decode first: publishing from inside the callback reuses the payload buffer
  int rc = skyframe_frame_decode(payload, length, &f);
  if (rc != SKYFRAME_OK) {
    Serial.printf("frame dropped: %s\n", skyframe_error_name(rc));
    return;  // keep showing the previous frame
  }
  if (f.request_id == requestId) sends = 0;  // answered (an error frame too): no retry
  show_frame(&f);  // printf goes to UART0: Serial on a classic ESP32
}

void setup() {
  Serial.begin(115200);
  WiFi.begin("ssid", "password");
  while (WiFi.status() != WL_CONNECTED) delay(200);
  configTime(0, 0, "pool.ntp.org");  // UTC; the frame carries the place's offset
  mqtt.setServer(GATEWAY, 1883);
  mqtt.setBufferSize(256);           // the default in 2.8; needed when a build sets 128
  mqtt.setCallback(onMessage);
}

void loop() {
  if (!mqtt.connected()) {
    if (mqtt.connect(DEVICE)) {
      mqtt.subscribe("skyframe/v1/frame/" DEVICE, 1);
      ask();
    } else {
      delay(2000);  // broker unreachable: try again shortly
      return;
    }
  }
  if (millis() - lastAsk >= ASK_EVERY_MS) {
    ask();
  } else if (sends > 0 && millis() - sentAt >= waitMs) {
    if (sends == 1) {
      Serial.printf("no answer to #%u: asking once more\n", requestId);
      sendRequest();  // the same id: a late answer to the first one is recognised too
    } else {
      Serial.printf("no answer to #%u: giving up until the next request\n", requestId);
      sends = 0;
    }
  }
  mqtt.loop();  // frames arrive in onMessage
}
