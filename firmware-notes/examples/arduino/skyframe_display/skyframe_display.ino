// Skyframe on Arduino-ESP32 with PubSubClient 2.8+: connects Wi-Fi, sets the clock by SNTP (UTC),
// subscribes to its frame topic, asks for a place and prints every frame on the serial console
// (show_frame.c). Every 15 minutes it asks again with a new request id.
//
// The Arduino IDE compiles only the files of the sketch folder: copy these three next to this
// file first (PlatformIO: add -I paths to build_flags instead):
//   firmware-notes/skyframe_frame.h
//   firmware-notes/examples/show/show_frame.h
//   firmware-notes/examples/show/show_frame.c
// Then change the Wi-Fi name and password, DEVICE, PLACE and GATEWAY below.
#include <WiFi.h>
#include <PubSubClient.h>
#include <time.h>
#define SKYFRAME_FRAME_IMPLEMENTATION  // in exactly one file of the program
#include "skyframe_frame.h"
#include "show_frame.h"

#define DEVICE "kitchen"               // <= 32 characters
#define PLACE "Berlin,DE"              // or coordinates: "52.52,13.41"
#define GATEWAY "gateway.local"        // the broker the gateway uses
const unsigned long ASK_EVERY_MS = 15UL * 60UL * 1000UL;

WiFiClient net;
PubSubClient mqtt(net);
unsigned requestId = 0;
unsigned long lastAsk = 0;

void ask() {
  char text[64];
  requestId = requestId % 65535u + 1u;  // 1..65535, echoed in the frame's request_id
  snprintf(text, sizeof text, "#%u %s", requestId, PLACE);
  mqtt.publish("skyframe/v1/req/" DEVICE, text);
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
  if (millis() - lastAsk >= ASK_EVERY_MS) ask();
  mqtt.loop();  // frames arrive in onMessage
}
