/*
 * lorawan_device.c - a LoRaWAN display played behind ChirpStack v4's MQTT integration or The
 * Things Stack's MQTT server (--server things-stack), for test.sh (schemas/lorawan-uplink-v1.md).
 *
 * It writes the uplink request with skyframe_uplink_coordinates() / _place() / _refresh(),
 * publishes it base64-encoded in ChirpStack v4's uplink event JSON (the shape of
 * Tests/SkyframeTestSupport/LoRaWANFixtures.swift) on application/{app}/device/{devEui}/event/up,
 * waits for the gateway's downlink on application/{app}/device/{devEui}/command/down, takes the
 * base64 "data" out of its JSON and decodes it with skyframe_message_kind() and
 * skyframe_tiny_decode() / skyframe_unchanged_decode().
 *
 * With --server things-stack it publishes The Things Stack's v3.ApplicationUp JSON (snake_case,
 * EUIs in upper case, settings.data_rate.lora with the spreading factor of --dr, frequency as a
 * string; the shape of LoRaWANFixtures.thingsStackUplink) on
 * v3/{app}@{tenant}/devices/{device id}/up and reads the downlink from
 * v3/{app}@{tenant}/devices/{device id}/down/push ({"downlinks":[{"f_port":N,"frm_payload":...}]}),
 * decoded as for ChirpStack. One line per answer on stdout:
 *
 *   tiny #1 status ok 21.5C slot 1 of 1 check 0c1f22aa
 *   unchanged #5 profile tiny slot 1 of 1
 *
 * Usage: lorawan_device [--server chirpstack|things-stack] [--host H] [--port P]
 *                       [--application ID] [--tenant T] [--device-id ID] [--dev-eui HEX]
 *                       [--f-port N] [--dr N] [--id N] [--check HEX] [--timeout S]
 *                       (--coordinates LAT,LON | --place INDEX | --refresh)
 * Exit status: 0 an answer decoded; 1 usage; 2 no answer within --timeout (or no broker);
 * 3 an answer that does not decode. --application defaults to 17c82e96-... for chirpstack and
 * weather-displays for things-stack; --tenant (things-stack only, "" for none) to ttn;
 * --device-id (things-stack only) to hall-display. An answer whose request id is another (a late
 * answer to an earlier ask, delivered after this uplink as in class A) is reported on stderr and
 * skipped.
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -I../.. lorawan_device.c \
 *        $(pkg-config --cflags --libs libmosquitto)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mosquitto.h>

#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

#define EXIT_USAGE 1
#define EXIT_NO_ANSWER 2
#define EXIT_UNDECODABLE 3

typedef struct device {
    unsigned request_id;
    char up_topic[256];
    char down_topic[256];
    char uplink_json[2048];
    int f_port;
    int things_stack;
    int answered; /* 0 waiting, else the exit status */
} device;

/* ---- base64 (RFC 4648, with padding) --------------------------------------------------------- */
static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64_encode(const uint8_t *in, size_t n, char *out) {
    size_t i, o = 0;
    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = b64_alphabet[v >> 6 & 63];
        out[o++] = b64_alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = b64_alphabet[v >> 6 & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
}

static int base64_value(char c) {
    const char *p = c != '\0' ? strchr(b64_alphabet, c) : NULL;
    return p != NULL ? (int)(p - b64_alphabet) : -1;
}

/* Decodes n characters of in; returns the byte count, or -1 when it is not base64 or longer
 * than cap bytes. */
static long base64_decode(const char *in, size_t n, uint8_t *out, size_t cap) {
    size_t i, o = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (i = 0; i < n; i++) {
        int v;
        if (in[i] == '=') {
            pad++;
            continue;
        }
        if (pad != 0) return -1; /* data after padding */
        v = base64_value(in[i]);
        if (v < 0) return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap) return -1;
            out[o++] = (uint8_t)(acc >> bits & 0xFF);
        }
    }
    if ((n % 4) != 0 || pad > 2) return -1;
    return (long)o;
}

/* ---- The downlink JSON: ChirpStack {"devEui":"...","confirmed":false,"fPort":10,"data":"..."},
 * The Things Stack {"downlinks":[{"f_port":10,"frm_payload":"...","priority":"NORMAL"}]} ------- */
/* Finds "key": in json and returns a pointer to the value after it (spaces skipped), or NULL. */
static const char *json_value(const char *json, size_t len, const char *key) {
    char needle[64];
    size_t k;
    const char *p = json, *end = json + len;
    snprintf(needle, sizeof needle, "\"%s\"", key);
    k = strlen(needle);
    while (p + k <= end) {
        const char *q;
        if (memcmp(p, needle, k) != 0) {
            p++;
            continue;
        }
        q = p + k;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
        if (q < end && *q == ':') {
            q++;
            while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
            return q < end ? q : NULL;
        }
        p++;
    }
    return NULL;
}

static void print_answer(device *d, const uint8_t *bytes, size_t n) {
    int kind = skyframe_message_kind(bytes, n);
    if (kind == SKYFRAME_KIND_TINY) {
        skyframe_tiny t;
        uint32_t check = 0;
        char temperature[16];
        int rc = skyframe_tiny_decode(bytes, n, &t);
        if (rc != SKYFRAME_OK || skyframe_content_check(bytes, n, &check) != SKYFRAME_OK) {
            fprintf(stderr, "lorawan_device: tiny answer of %zu bytes: %s\n", n,
                    skyframe_error_name(rc));
            d->answered = EXIT_UNDECODABLE;
            return;
        }
        if (t.request_id != d->request_id && t.request_id != 0) {
            fprintf(stderr, "lorawan_device: skipped an answer to request #%u\n",
                    (unsigned)t.request_id);
            return;
        }
        if (SKYFRAME_HAS_I16(t.temperature)) {
            skyframe_format_fixed(temperature, sizeof temperature, t.temperature, 1);
            strcat(temperature, "C");
        } else {
            strcpy(temperature, "no-temperature");
        }
        printf("tiny #%u status %s %s slot %u of %u check %08lx\n", (unsigned)t.request_id,
               skyframe_status_name(t.status), temperature, (unsigned)t.slot_index + 1,
               (unsigned)t.slot_count, (unsigned long)check);
    } else if (kind == SKYFRAME_KIND_UNCHANGED) {
        skyframe_unchanged u;
        int rc = skyframe_unchanged_decode(bytes, n, &u);
        if (rc != SKYFRAME_OK) {
            fprintf(stderr, "lorawan_device: unchanged answer of %zu bytes: %s\n", n,
                    skyframe_error_name(rc));
            d->answered = EXIT_UNDECODABLE;
            return;
        }
        if (u.request_id != d->request_id) {
            fprintf(stderr, "lorawan_device: skipped an answer to request #%u\n",
                    (unsigned)u.request_id);
            return;
        }
        printf("unchanged #%u profile %s slot %u of %u\n", (unsigned)u.request_id,
               skyframe_profile_name(u.profile), (unsigned)u.slot_index + 1,
               (unsigned)u.slot_count);
    } else {
        fprintf(stderr, "lorawan_device: an answer of %zu bytes that is no tiny or unchanged "
                        "message (%s)\n", n, kind < 0 ? skyframe_error_name(kind)
                                                      : skyframe_kind_name(kind));
        d->answered = EXIT_UNDECODABLE;
        return;
    }
    fflush(stdout);
    d->answered = -1; /* decoded: exit 0 (set by main) */
}

/* ---- MQTT ------------------------------------------------------------------------------------ */
static void on_connect(struct mosquitto *m, void *obj, int rc) {
    device *d = obj;
    if (rc != 0) {
        fprintf(stderr, "lorawan_device: connection refused: %s\n", mosquitto_connack_string(rc));
        return;
    }
    mosquitto_subscribe(m, NULL, d->down_topic, 1);
}

static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *qos) {
    device *d = obj;
    (void)mid;
    (void)count;
    (void)qos;
    if (d->answered == 0)
        mosquitto_publish(m, NULL, d->up_topic, (int)strlen(d->uplink_json), d->uplink_json, 1,
                          false);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg) {
    device *d = obj;
    const char *json = msg->payload, *data, *port, *end;
    uint8_t bytes[64];
    long n;
    (void)m;
    if (d->answered != 0 || strcmp(msg->topic, d->down_topic) != 0 || msg->payloadlen <= 0)
        return;
    data = json_value(json, (size_t)msg->payloadlen, d->things_stack ? "frm_payload" : "data");
    port = json_value(json, (size_t)msg->payloadlen, d->things_stack ? "f_port" : "fPort");
    if (data == NULL || *data != '"' || port == NULL || atoi(port) != d->f_port) {
        fprintf(stderr, "lorawan_device: a downlink without its data or on another port: %.*s\n",
                msg->payloadlen, json);
        d->answered = EXIT_UNDECODABLE;
        return;
    }
    data++;
    end = memchr(data, '"', (size_t)(json + msg->payloadlen - data));
    n = end != NULL ? base64_decode(data, (size_t)(end - data), bytes, sizeof bytes) : -1;
    if (n < 0) {
        fprintf(stderr, "lorawan_device: the downlink's data is not base64\n");
        d->answered = EXIT_UNDECODABLE;
        return;
    }
    print_answer(d, bytes, (size_t)n);
}

/* ---- Arguments ------------------------------------------------------------------------------- */
static int parse_e5(const char *s, int32_t *out) { /* "52.52" -> 5252000, "-0.1276" -> -12760 */
    int negative = 0;
    long whole = 0, fraction = 0, scale = 100000;
    if (*s == '-' || *s == '+') negative = *s++ == '-';
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9') {
        whole = whole * 10 + (*s++ - '0');
        if (whole > 1000) return 0;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (scale > 1) {
                scale /= 10;
                fraction += (*s - '0') * scale;
            }
            s++;
        }
    }
    if (*s != '\0' && *s != ',') return 0;
    *out = (int32_t)((whole * 100000 + fraction) * (negative ? -1 : 1));
    return 1;
}

static int usage(void) {
    fprintf(stderr,
            "usage: lorawan_device [--server chirpstack|things-stack] [--host H] [--port P]\n"
            "                      [--application ID] [--tenant T] [--device-id ID]\n"
            "                      [--dev-eui HEX] [--f-port N] [--dr N] [--id N] [--check HEX]\n"
            "                      [--timeout S]\n"
            "                      (--coordinates LAT,LON | --place INDEX | --refresh)\n");
    return EXIT_USAGE;
}

int main(int argc, char **argv) {
    static device d;
    const char *host = "127.0.0.1", *application = NULL, *tenant = "ttn";
    const char *device_id = "hall-display";
    const char *dev_eui = "70b3d57ed0012345", *coordinates = NULL;
    char dev_eui_upper[32], user[160];
    int port = 1883, dr = 5, timeout = 10, place = -1, refresh = 0, rc, status, i;
    unsigned long id = 1;
    uint32_t check = 0;
    int has_check = 0;
    uint8_t payload[SKYFRAME_UPLINK_MAX_SIZE];
    char data[32], client_id[64];
    struct mosquitto *m;
    time_t deadline;
    int connected = 0;

    d.f_port = 10;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(arg, "--refresh") == 0) {
            refresh = 1;
            continue;
        }
        if (value == NULL) return usage();
        i++;
        errno = 0;
        if (strcmp(arg, "--host") == 0) host = value;
        else if (strcmp(arg, "--port") == 0) port = (int)strtol(value, &end, 10);
        else if (strcmp(arg, "--application") == 0) application = value;
        else if (strcmp(arg, "--server") == 0) {
            if (strcmp(value, "things-stack") == 0) d.things_stack = 1;
            else if (strcmp(value, "chirpstack") == 0) d.things_stack = 0;
            else return usage();
        } else if (strcmp(arg, "--tenant") == 0) tenant = value;
        else if (strcmp(arg, "--device-id") == 0) device_id = value;
        else if (strcmp(arg, "--dev-eui") == 0) dev_eui = value;
        else if (strcmp(arg, "--f-port") == 0) d.f_port = (int)strtol(value, &end, 10);
        else if (strcmp(arg, "--dr") == 0) dr = (int)strtol(value, &end, 10);
        else if (strcmp(arg, "--timeout") == 0) timeout = (int)strtol(value, &end, 10);
        else if (strcmp(arg, "--id") == 0) {
            id = strtoul(value, &end, 10);
            if (id > 255) return usage();
        } else if (strcmp(arg, "--check") == 0) {
            check = (uint32_t)strtoul(value, &end, 16);
            has_check = 1;
        } else if (strcmp(arg, "--place") == 0) {
            place = (int)strtol(value, &end, 10);
            if (place < 0 || place > 255) return usage();
        } else if (strcmp(arg, "--coordinates") == 0) coordinates = value;
        else return usage();
        if ((end != NULL && *end != '\0') || errno != 0) return usage();
    }
    if ((coordinates != NULL) + (place >= 0) + refresh != 1) return usage();
    if (application == NULL)
        application = d.things_stack ? "weather-displays" : "17c82e96-be03-4f38-aef3-f83d48582d97";
    if (strlen(dev_eui) >= sizeof dev_eui_upper) return usage();
    for (i = 0; dev_eui[i] != '\0'; i++)
        dev_eui_upper[i] = (char)(dev_eui[i] >= 'a' && dev_eui[i] <= 'z' ? dev_eui[i] - 32
                                                                          : dev_eui[i]);
    dev_eui_upper[i] = '\0';
    if (*tenant != '\0') snprintf(user, sizeof user, "%s@%s", application, tenant);
    else snprintf(user, sizeof user, "%s", application);

    if (coordinates != NULL) {
        int32_t lat = 0, lon = 0;
        const char *comma = strchr(coordinates, ',');
        if (comma == NULL || !parse_e5(coordinates, &lat) || !parse_e5(comma + 1, &lon))
            return usage();
        rc = skyframe_uplink_coordinates(payload, (uint8_t)id, lat, lon,
                                         has_check ? &check : NULL);
    } else if (place >= 0) {
        rc = skyframe_uplink_place(payload, (uint8_t)id, (uint8_t)place, has_check ? &check : NULL);
    } else {
        rc = skyframe_uplink_refresh(payload, (uint8_t)id, has_check ? &check : NULL);
    }
    if (rc < 0) {
        fprintf(stderr, "lorawan_device: the uplink cannot carry this: %s\n",
                skyframe_error_name(rc));
        return EXIT_USAGE;
    }
    base64_encode(payload, (size_t)rc, data);
    d.request_id = (unsigned)id;

    if (d.things_stack) {
        char count[32] = ""; /* f_cnt is left out when 0, as The Things Stack does */
        if (id != 0) snprintf(count, sizeof count, "\"f_cnt\":%lu,", id);
        snprintf(d.up_topic, sizeof d.up_topic, "v3/%s/devices/%s/up", user, device_id);
        snprintf(d.down_topic, sizeof d.down_topic, "v3/%s/devices/%s/down/push", user,
                 device_id);
        /* The Things Stack's v3.ApplicationUp in its JSON (LoRaWANFixtures.thingsStackUplink):
         * snake_case, zero values omitted, EUIs in upper case, frequency as a string. */
        snprintf(d.uplink_json, sizeof d.uplink_json,
                 "{\"end_device_ids\":{\"device_id\":\"%s\","
                 "\"application_ids\":{\"application_id\":\"%s\"},"
                 "\"dev_eui\":\"%s\",\"join_eui\":\"70B3D57ED0000000\","
                 "\"dev_addr\":\"260B1234\"},"
                 "\"correlation_ids\":[\"gs:uplink:01JNAX9G5V2M3Q8W7E6R5T4Y3U\"],"
                 "\"received_at\":\"2025-03-02T09:21:53.312Z\","
                 "\"uplink_message\":{\"session_key_id\":\"AZVAZ9dwk2Xb0ZQ1Qb3E6A==\","
                 "\"f_port\":%d,%s\"frm_payload\":\"%s\","
                 "\"rx_metadata\":[{\"gateway_ids\":{\"gateway_id\":\"home-gw\","
                 "\"eui\":\"B827EBFFFE123456\"},\"time\":\"2025-03-02T09:21:53.100Z\","
                 "\"timestamp\":2887281107,\"rssi\":-42,\"channel_rssi\":-42,\"snr\":9.5,"
                 "\"location\":{\"latitude\":52.5163,\"longitude\":13.3777,\"altitude\":40,"
                 "\"source\":\"SOURCE_REGISTRY\"},\"uplink_token\":\"ChIKEAoOaG9tZS1ndxII\","
                 "\"received_at\":\"2025-03-02T09:21:53.150Z\"}],"
                 "\"settings\":{\"data_rate\":{\"lora\":{\"bandwidth\":125000,"
                 "\"spreading_factor\":%d,\"coding_rate\":\"4/5\"}},"
                 "\"frequency\":\"868100000\",\"timestamp\":2887281107},"
                 "\"received_at\":\"2025-03-02T09:21:53.160Z\","
                 "\"consumed_airtime\":\"0.056576s\","
                 "\"network_ids\":{\"net_id\":\"000013\",\"ns_id\":\"EC656E0000000181\","
                 "\"tenant_id\":\"%s\",\"cluster_id\":\"eu1\","
                 "\"cluster_address\":\"eu1.cloud.thethings.network\"}}}",
                 device_id, application, dev_eui_upper, d.f_port, count, data,
                 dr >= 0 && dr <= 5 ? 12 - dr : 7, *tenant != '\0' ? tenant : "default");
    } else {
        snprintf(d.up_topic, sizeof d.up_topic, "application/%s/device/%s/event/up", application,
                 dev_eui);
        snprintf(d.down_topic, sizeof d.down_topic, "application/%s/device/%s/command/down",
                 application, dev_eui);
        /* ChirpStack v4's integration.UplinkEvent in its JSON mapping (LoRaWANFixtures.swift). */
        snprintf(d.uplink_json, sizeof d.uplink_json,
                 "{\"deduplicationId\":\"3ac7e3c4-4401-4b8d-9386-a5c902f9202d\","
                 "\"time\":\"2025-03-02T09:21:53.107+00:00\","
                 "\"deviceInfo\":{\"tenantId\":\"52f14cd4-c6f1-4fbd-8f87-4025e1d49242\","
                 "\"tenantName\":\"ChirpStack\",\"applicationId\":\"%s\","
                 "\"applicationName\":\"Weather displays\","
                 "\"deviceProfileId\":\"14855bf7-d10d-4aee-b618-ebfcb64dc7ad\","
                 "\"deviceProfileName\":\"EU868 class A\",\"deviceName\":\"hall-display\","
                 "\"devEui\":\"%s\",\"deviceClassEnabled\":\"CLASS_A\",\"tags\":{}},"
                 "\"devAddr\":\"00e1cb2e\",\"adr\":false,\"dr\":%d,\"fCnt\":%lu,\"fPort\":%d,"
                 "\"confirmed\":false,\"data\":\"%s\","
                 "\"rxInfo\":[{\"gatewayId\":\"0016c001ff10a235\",\"uplinkId\":4217106255,"
                 "\"gwTime\":\"2025-03-02T09:21:53.107+00:00\","
                 "\"nsTime\":\"2025-03-02T09:21:53.118+00:00\",\"rssi\":-36,\"snr\":10.5,"
                 "\"channel\":2,\"location\":{\"latitude\":52.5163,\"longitude\":13.3777,"
                 "\"altitude\":40},\"context\":\"EFwMtA==\",\"crcStatus\":\"CRC_OK\"}],"
                 "\"txInfo\":{\"frequency\":868500000,"
                 "\"modulation\":{\"lora\":{\"bandwidth\":125000,"
                 "\"spreadingFactor\":%d,\"codeRate\":\"CR_4_5\"}}},\"regionConfigId\":\"eu868\"}",
                 application, dev_eui, dr, id, d.f_port, data, dr <= 5 ? 12 - dr : 7);
    }

    mosquitto_lib_init();
    snprintf(client_id, sizeof client_id, "lorawan-device-%s-%lu", dev_eui, id);
    m = mosquitto_new(client_id, true, &d);
    if (m == NULL) {
        fprintf(stderr, "lorawan_device: mosquitto_new failed\n");
        mosquitto_lib_cleanup();
        return EXIT_NO_ANSWER;
    }
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);
    deadline = time(NULL) + timeout;
    while (d.answered == 0 && time(NULL) < deadline) {
        if (!connected) {
            rc = mosquitto_connect(m, host, port, 30);
            if (rc == MOSQ_ERR_SUCCESS) {
                connected = 1;
            } else {
                struct timespec pause = {0, 100000000L};
                nanosleep(&pause, NULL);
                continue;
            }
        }
        rc = mosquitto_loop(m, 100, 1);
        if (rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_NO_CONN) connected = 0;
    }
    if (connected) mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();

    if (d.answered == 0) {
        fprintf(stderr, "lorawan_device: no answer within %d s on %s\n", timeout, d.down_topic);
        status = EXIT_NO_ANSWER;
    } else {
        status = d.answered < 0 ? 0 : d.answered;
    }
    return status;
}
