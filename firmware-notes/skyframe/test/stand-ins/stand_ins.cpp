/* Empty definitions of the stand-ins, so that the ESP32Display example links on a host with the
 * library's one compiled decoder (src/skyframe_frame.c) and show_frame.c: a second
 * SKYFRAME_FRAME_IMPLEMENTATION in the example would be "multiple definition", none at all
 * "undefined reference". It is linked, never run. */
#include "Arduino.h"
#include "PubSubClient.h"
#include "WiFi.h"
#include "esp_random.h"

HardwareSerial Serial;
WiFiClass WiFi;
unsigned long millis(void) { return 0; }
void delay(uint32_t) {}
void configTime(long, int, const char *, const char *, const char *) {}
void HardwareSerial::begin(unsigned long) {}
size_t HardwareSerial::printf(const char *, ...) { return 0; }
size_t HardwareSerial::println(const char *) { return 0; }
wl_status_t WiFiClass::begin(const char *, const char *) { return WL_CONNECTED; }
wl_status_t WiFiClass::status() { return WL_CONNECTED; }
PubSubClient::PubSubClient(Client &) {}
PubSubClient &PubSubClient::setServer(const char *, uint16_t) { return *this; }
PubSubClient &PubSubClient::setCallback(MQTT_CALLBACK_SIGNATURE) { (void)callback; return *this; }
boolean PubSubClient::setBufferSize(uint16_t) { return true; }
boolean PubSubClient::connect(const char *) { return true; }
boolean PubSubClient::connected() { return true; }
boolean PubSubClient::publish(const char *, const char *) { return true; }
boolean PubSubClient::subscribe(const char *, uint8_t) { return true; }
boolean PubSubClient::loop() { return true; }
extern "C" uint32_t esp_random(void) { return 4; }

void setup();
void loop();
int main() {  /* the Arduino core's main(), in short */
    setup();
    loop();
    return 0;
}
