/* Stand-in for ESP-IDF's esp_sleep.h (the two calls ESP32HTTPDisplay makes). On the host,
 * esp_deep_sleep_start() ends the wake: stand_ins.cpp's main() runs setup() again, RTC_DATA_ATTR
 * variables kept, as a timer wake-up would. */
#ifndef SKYFRAME_STAND_IN_ESP_SLEEP_H
#define SKYFRAME_STAND_IN_ESP_SLEEP_H
#include <stdint.h>
typedef int esp_err_t;
#ifdef __cplusplus
extern "C" {
#endif
esp_err_t esp_sleep_enable_timer_wakeup(uint64_t time_in_us);
void esp_deep_sleep_start(void) __attribute__((noreturn));
#ifdef __cplusplus
}
#endif
#endif
