#ifndef SKYFRAME_CMOSQUITTO_SHIM_H
#define SKYFRAME_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
