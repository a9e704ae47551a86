/* Definitions for the stand-in Ethernet.h: enough to link, nothing talks to a shield. Each reads
 * `line`, a volatile the compiler cannot know, so that link-time optimisation keeps the sketch's
 * code after connect() and read(): the sizes arduino-builder prints are the sketch's and the
 * decoder's (the real library's own code, DHCP, DNS and the chip's driver, comes on top). */
#include "Ethernet.h"

static volatile uint8_t line;

EthernetClass Ethernet;
int EthernetClass::begin(uint8_t *, unsigned long, unsigned long) { return line; }
void EthernetClass::begin(uint8_t *, IPAddress) {}
int EthernetClass::maintain() { return line; }
void EthernetClass::init(uint8_t) {}
IPAddress EthernetClass::localIP() { return IPAddress(line, line, line, line); }

int EthernetClient::connect(IPAddress, uint16_t) { return line; }
int EthernetClient::connect(const char *, uint16_t) { return line; }
size_t EthernetClient::write(uint8_t b) { line = b; return 1; }
size_t EthernetClient::write(const uint8_t *buf, size_t size) {
    for (size_t i = 0; i < size; i++) line = buf[i];
    return size;
}
int EthernetClient::available() { return line; }
int EthernetClient::read() { return line == 0 ? -1 : line; }
int EthernetClient::read(uint8_t *buf, size_t size) {
    for (size_t i = 0; i < size; i++) buf[i] = line;
    return (int)size;
}
int EthernetClient::peek() { return line; }
void EthernetClient::flush() {}
void EthernetClient::stop() { line = 0; }
uint8_t EthernetClient::connected() { return line; }
EthernetClient::operator bool() { return line != 0; }
void EthernetClient::setConnectionTimeout(uint16_t) {}
