/* Stand-in for Arduino-ESP32's WiFi.h (declarations the ESP32 examples use). */
#ifndef SKYFRAME_STAND_IN_WIFI_H
#define SKYFRAME_STAND_IN_WIFI_H
#include "Arduino.h"

typedef enum { WL_IDLE_STATUS = 0, WL_CONNECTED = 3, WL_DISCONNECTED = 6 } wl_status_t;

class Client : public Stream {};

/* On the host: a TCP socket (stand_ins.cpp), what HTTPClient's getStream() reads the body from. */
class WiFiClient : public Client {
public:
    int read() override;
    int fd = -1;
};

class WiFiClass {
public:
    wl_status_t begin(const char *ssid, const char *passphrase = nullptr);
    wl_status_t status();
    bool disconnect(bool wifioff = false, bool eraseap = false);
};
extern WiFiClass WiFi;
#endif
