/* Stand-in for Arduino-ESP32's Arduino.h: only the declarations the ESP32 examples use, with the
 * real core's signatures, so that they compile on a host (the ESP32 core is not packaged in
 * Debian). stand_ins.cpp defines them: ESP32Display is linked, never run; ESP32HTTPDisplay is
 * also run, its HTTP going to a real gateway on 127.0.0.1 (stand_ins.cpp says how). */
#ifndef SKYFRAME_STAND_IN_ARDUINO_H
#define SKYFRAME_STAND_IN_ARDUINO_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>

typedef uint8_t byte;
typedef bool boolean;

/* esp_attr.h: a variable in RTC slow memory, kept through deep sleep. On the host an ordinary
 * global, which stand_ins.cpp's wakes keep too (they run setup() again in the same process). */
#define RTC_DATA_ATTR

unsigned long millis(void);
void delay(uint32_t ms);
/* esp32-hal-time.c */
void configTime(long gmtOffset_sec, int daylightOffset_sec, const char *server1,
                const char *server2 = nullptr, const char *server3 = nullptr);

/* WString.h: the members the examples use. */
class String {
public:
    String(const char *text = "") : text_(text != nullptr ? text : "") {}
    const char *c_str() const { return text_.c_str(); }
    unsigned int length() const { return (unsigned int)text_.size(); }
private:
    std::string text_;
};

class Stream {
public:
    virtual ~Stream() {}
    virtual int read() = 0;
    void setTimeout(unsigned long timeout);
    size_t readBytes(uint8_t *buffer, size_t length);  /* stops early on a timeout */
};

class HardwareSerial {
public:
    void begin(unsigned long baud);
    size_t printf(const char *format, ...) __attribute__((format(printf, 2, 3)));
    size_t println(const char *text);
    void flush();
};
extern HardwareSerial Serial;
#endif
