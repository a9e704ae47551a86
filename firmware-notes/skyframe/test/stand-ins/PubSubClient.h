/* Stand-in for knolleary/PubSubClient 2.8's PubSubClient.h: the members the ESP32Display example
 * uses, with the library's signatures (its callback type on ESP32 is a std::function). */
#ifndef SKYFRAME_STAND_IN_PUBSUBCLIENT_H
#define SKYFRAME_STAND_IN_PUBSUBCLIENT_H
#include <functional>
#include "Arduino.h"
#include "WiFi.h"

#define MQTT_CALLBACK_SIGNATURE std::function<void(char *, uint8_t *, unsigned int)> callback

class PubSubClient {
public:
    explicit PubSubClient(Client &client);
    PubSubClient &setServer(const char *domain, uint16_t port);
    PubSubClient &setCallback(MQTT_CALLBACK_SIGNATURE);
    boolean setBufferSize(uint16_t size);
    boolean connect(const char *id);
    boolean connected();
    boolean publish(const char *topic, const char *payload);
    boolean subscribe(const char *topic, uint8_t qos);
    boolean loop();
};
#endif
