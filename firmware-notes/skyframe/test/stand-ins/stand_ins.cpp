/* Definitions of the stand-ins, so that the ESP32 examples link on a host with the library's one
 * compiled decoder (src/skyframe_frame.c) and show_frame.c: a second SKYFRAME_FRAME_IMPLEMENTATION
 * in an example would be "multiple definition", none at all "undefined reference".
 *
 * ESP32Display is linked, never run. ESP32HTTPDisplay is run by test/run.sh against a gateway:
 * HTTPClient speaks HTTP/1.1 over a TCP socket to 127.0.0.1:$SKYFRAME_STAND_IN_HTTP_PORT (no port:
 * every request is refused), Serial prints to stdout, and main() runs setup() once per wake,
 * $SKYFRAME_STAND_IN_WAKES times (default 1): esp_deep_sleep_start() ends a wake by throwing, so
 * the next setup() starts with the RTC_DATA_ATTR variables (ordinary globals here) as they were. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "Arduino.h"
#include "HTTPClient.h"
#include "PubSubClient.h"
#include "WiFi.h"
#include "esp_random.h"
#include "esp_sleep.h"

HardwareSerial Serial;
WiFiClass WiFi;

unsigned long millis(void) {
    struct timeval now;
    gettimeofday(&now, nullptr);
    return (unsigned long)now.tv_sec * 1000UL + (unsigned long)now.tv_usec / 1000UL;
}
void delay(uint32_t ms) { usleep(ms * 1000U); }
void configTime(long, int, const char *, const char *, const char *) {}
void HardwareSerial::begin(unsigned long) {}
size_t HardwareSerial::printf(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int n = vprintf(format, arguments);
    va_end(arguments);
    return n < 0 ? 0 : (size_t)n;
}
size_t HardwareSerial::println(const char *text) { return (size_t)::printf("%s\n", text); }
void HardwareSerial::flush() { fflush(stdout); }

void Stream::setTimeout(unsigned long) {}
size_t Stream::readBytes(uint8_t *buffer, size_t length) {
    size_t n = 0;
    for (int c; n < length && (c = read()) >= 0;) buffer[n++] = (uint8_t)c;
    return n;
}
int WiFiClient::read() {
    uint8_t b;
    return fd >= 0 && recv(fd, &b, 1, 0) == 1 ? b : -1;
}

wl_status_t WiFiClass::begin(const char *, const char *) { return WL_CONNECTED; }
wl_status_t WiFiClass::status() { return WL_CONNECTED; }
bool WiFiClass::disconnect(bool, bool) { return true; }

/* HTTPClient over a socket: enough HTTP/1.1 for one GET with Connection: close. */
HTTPClient::~HTTPClient() { end(); }
bool HTTPClient::begin(String url) {
    url_ = url.c_str();
    return url_.rfind("http://", 0) == 0;
}
void HTTPClient::end() {
    if (client_.fd >= 0) close(client_.fd);
    client_.fd = -1;
}
void HTTPClient::setTimeout(uint16_t) {}
void HTTPClient::addHeader(const String &name, const String &value, bool, bool) {
    requestHeaders_ += std::string(name.c_str()) + ": " + value.c_str() + "\r\n";
}
void HTTPClient::collectHeaders(const char *headerKeys[], const size_t headerKeysCount) {
    collected_.clear();
    for (size_t i = 0; i < headerKeysCount; i++) collected_.emplace_back(headerKeys[i], "");
}
static bool readLine(int fd, std::string &line) {
    line.clear();
    for (char c; recv(fd, &c, 1, 0) == 1;) {
        if (c == '\n') return true;
        if (c != '\r') line += c;
    }
    return false;
}
int HTTPClient::GET() {
    const char *port = getenv("SKYFRAME_STAND_IN_HTTP_PORT");
    size_t slash = url_.find('/', 7);
    std::string host = url_.substr(7, slash == std::string::npos ? std::string::npos : slash - 7);
    std::string path = slash == std::string::npos ? "/" : url_.substr(slash);
    struct sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)(port != nullptr ? atoi(port) : 0));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    client_.fd = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval timeout = {5, 0};
    setsockopt(client_.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (port == nullptr || connect(client_.fd, (struct sockaddr *)&address, sizeof address) != 0) {
        end();
        return HTTPC_ERROR_CONNECTION_REFUSED;
    }
    std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + host +
                          "\r\nConnection: close\r\n" + requestHeaders_ + "\r\n";
    if (send(client_.fd, request.data(), request.size(), 0) != (ssize_t)request.size()) {
        return HTTPC_ERROR_SEND_HEADER_FAILED;
    }
    std::string line;
    if (!readLine(client_.fd, line) || line.rfind("HTTP/1.", 0) != 0 || line.size() < 12) {
        return HTTPC_ERROR_READ_TIMEOUT;
    }
    int code = atoi(line.c_str() + 9);
    while (readLine(client_.fd, line) && !line.empty()) {
        size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        std::string value = line.substr(line.find_first_not_of(" \t", colon + 1) == std::string::npos
                                            ? line.size() : line.find_first_not_of(" \t", colon + 1));
        if (strcasecmp(name.c_str(), "Content-Length") == 0) size_ = atoi(value.c_str());
        for (auto &kept : collected_) {
            if (strcasecmp(kept.first.c_str(), name.c_str()) == 0) kept.second = value;
        }
    }
    return code;
}
String HTTPClient::header(const char *name) {
    for (const auto &kept : collected_) {
        if (strcasecmp(kept.first.c_str(), name) == 0) return String(kept.second.c_str());
    }
    return String();
}
int HTTPClient::getSize() { return size_; }
WiFiClient &HTTPClient::getStream() { return client_; }
String HTTPClient::errorToString(int error) {
    return String(error == HTTPC_ERROR_CONNECTION_REFUSED ? "connection refused"
                  : error == HTTPC_ERROR_SEND_HEADER_FAILED ? "send header failed"
                                                           : "read Timeout");
}

PubSubClient::PubSubClient(Client &) {}
PubSubClient &PubSubClient::setServer(const char *, uint16_t) { return *this; }
PubSubClient &PubSubClient::setCallback(MQTT_CALLBACK_SIGNATURE) { (void)callback; return *this; }
boolean PubSubClient::setBufferSize(uint16_t) { return true; }
boolean PubSubClient::connect(const char *) { return true; }
boolean PubSubClient::connected() { return true; }
boolean PubSubClient::publish(const char *, const char *) { return true; }
boolean PubSubClient::subscribe(const char *, uint8_t) { return true; }
boolean PubSubClient::loop() { return true; }
extern "C" uint32_t esp_random(void) { return 4; }

struct DeepSleep {};
static uint64_t sleepUs = 0;
extern "C" esp_err_t esp_sleep_enable_timer_wakeup(uint64_t time_in_us) {
    sleepUs = time_in_us;
    return 0;
}
extern "C" void esp_deep_sleep_start(void) {
    ::printf("stand-in: deep sleep, timer %llu us\n", (unsigned long long)sleepUs);
    throw DeepSleep();
}

void setup();
void loop();
int main() {  /* the Arduino core's main(), in short, with a wake-up after each deep sleep */
    const char *wakes = getenv("SKYFRAME_STAND_IN_WAKES");
    for (int wake = 0, count = wakes != nullptr ? atoi(wakes) : 1; wake < count; wake++) {
        try {
            setup();
            loop();
        } catch (const DeepSleep &) {
        }
    }
    return 0;
}
