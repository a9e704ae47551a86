/* Stand-in for Arduino-ESP32's HTTPClient.h: the members ESP32HTTPDisplay uses, with the real
 * library's signatures. On the host (stand_ins.cpp) it speaks HTTP/1.1 over a TCP socket to
 * 127.0.0.1:$SKYFRAME_STAND_IN_HTTP_PORT, whatever host the URL names, so that the example's
 * requests reach a real gateway in a test. */
#ifndef SKYFRAME_STAND_IN_HTTPCLIENT_H
#define SKYFRAME_STAND_IN_HTTPCLIENT_H
#include <string>
#include <utility>
#include <vector>
#include "Arduino.h"
#include "WiFi.h"

#define HTTPC_ERROR_CONNECTION_REFUSED (-1)
#define HTTPC_ERROR_SEND_HEADER_FAILED (-2)
#define HTTPC_ERROR_READ_TIMEOUT (-11)

class HTTPClient {
public:
    ~HTTPClient();
    bool begin(String url);
    void end();
    void setTimeout(uint16_t timeout);
    void addHeader(const String &name, const String &value, bool first = false, bool replace = true);
    void collectHeaders(const char *headerKeys[], const size_t headerKeysCount);
    int GET();
    String header(const char *name);
    int getSize();
    WiFiClient &getStream();
    static String errorToString(int error);

private:
    std::string url_;
    std::string requestHeaders_;
    std::vector<std::pair<std::string, std::string>> collected_;  /* name, value ("" if absent) */
    int size_ = -1;
    WiFiClient client_;
};
#endif
