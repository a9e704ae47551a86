/* Stand-in for Arduino-ESP32's Arduino.h: only the declarations the ESP32Display example uses,
 * with the real core's signatures, so that the example compiles on a host (the ESP32 core is
 * not packaged in Debian). Nothing here runs. */
#ifndef SKYFRAME_STAND_IN_ARDUINO_H
#define SKYFRAME_STAND_IN_ARDUINO_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint8_t byte;
typedef bool boolean;

unsigned long millis(void);
void delay(uint32_t ms);
/* esp32-hal-time.c */
void configTime(long gmtOffset_sec, int daylightOffset_sec, const char *server1,
                const char *server2 = nullptr, const char *server3 = nullptr);

class HardwareSerial {
public:
    void begin(unsigned long baud);
    size_t printf(const char *format, ...) __attribute__((format(printf, 2, 3)));
    size_t println(const char *text);
};
extern HardwareSerial Serial;
#endif
