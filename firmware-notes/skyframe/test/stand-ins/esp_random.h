/* Stand-in for ESP-IDF's esp_random.h (Arduino-ESP32 2.x and later). */
#ifndef SKYFRAME_STAND_IN_ESP_RANDOM_H
#define SKYFRAME_STAND_IN_ESP_RANDOM_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
uint32_t esp_random(void);
#ifdef __cplusplus
}
#endif
#endif
