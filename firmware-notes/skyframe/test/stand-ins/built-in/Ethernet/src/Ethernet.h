/* Stand-in for the Ethernet library (2.0) that the Arduino IDE brings as a built-in library:
 * Debian packages neither it nor the IDE's other bundled libraries, so the Skyframe examples that
 * use it are built for the Uno against this header and Debian's arduino-core-avr (its real
 * Client, Stream, Print and IPAddress). Only what the examples use is declared, with the real
 * library's signatures; every definition (Ethernet.cpp) is empty: the image links, nothing
 * talks to a shield. */
#ifndef SKYFRAME_STAND_IN_ETHERNET_H
#define SKYFRAME_STAND_IN_ETHERNET_H
#include <Arduino.h>
#include <Client.h>
#include <IPAddress.h>

class EthernetClass {
public:
    static int begin(uint8_t *mac, unsigned long timeout = 60000, unsigned long responseTimeout = 4000);
    static void begin(uint8_t *mac, IPAddress ip);
    static int maintain();
    static void init(uint8_t sspin = 10);
    static IPAddress localIP();
};
extern EthernetClass Ethernet;

class EthernetClient : public Client {
public:
    virtual int connect(IPAddress ip, uint16_t port);
    virtual int connect(const char *host, uint16_t port);
    virtual size_t write(uint8_t);
    virtual size_t write(const uint8_t *buf, size_t size);
    virtual int available();
    virtual int read();
    virtual int read(uint8_t *buf, size_t size);
    virtual int peek();
    virtual void flush();
    virtual void stop();
    virtual uint8_t connected();
    virtual operator bool();
    virtual void setConnectionTimeout(uint16_t timeout);
    using Print::write;
};
#endif
