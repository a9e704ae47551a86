/* Stand-in for Arduino-ESP32's WiFi.h (declarations the ESP32Display example uses). */
#ifndef SKYFRAME_STAND_IN_WIFI_H
#define SKYFRAME_STAND_IN_WIFI_H
#include "Arduino.h"

typedef enum { WL_IDLE_STATUS = 0, WL_CONNECTED = 3, WL_DISCONNECTED = 6 } wl_status_t;

class Client {
public:
    virtual ~Client() {}
};

class WiFiClient : public Client {};

class WiFiClass {
public:
    wl_status_t begin(const char *ssid, const char *passphrase = nullptr);
    wl_status_t status();
};
extern WiFiClass WiFi;
#endif
