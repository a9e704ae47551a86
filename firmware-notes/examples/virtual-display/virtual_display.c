/*
 * virtual_display.c - a Skyframe device on Linux: it asks a gateway for a place over MQTT, waits
 * for the answer and draws what the display of the frame's profile would show, into a PNG or
 * PBM file: a 296 x 128 1-bit e-paper weather display (standard), a 7.5-inch 800 x 480 e-paper
 * one (large: 48-hour graph, 8 days, the alerts' own words) or a 128 x 64 OLED (tiny). It
 * decodes with skyframe_frame.h like firmware does, choosing the decoder by the message's kind
 * byte, and is the quickest way to see a gateway's answers without hardware. The drawing is the
 * project's one renderer, Sources/CSkyframeRender/render.c (skyframe_render.h), which the
 * gateway's status page uses too; this file is the device: command line, MQTT, files.
 *
 *   virtual_display --place "Berlin,DE" --out berlin.png       ask the gateway, draw the answer
 *   virtual_display --profile large --place "Berlin,DE"        ask for `large` ("~large ...")
 *   virtual_display --frame-hex frame.hex --out berlin.pbm     draw a message offline (no MQTT)
 *
 * Build (C99, libmosquitto; `make` does it), with the renderer, which also compiles
 * skyframe_frame.h's code (so this file only includes the header):
 *   r=../../../Sources/CSkyframeRender
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -I../.. -I$r/include \
 *      $(pkg-config --cflags libmosquitto) -o virtual_display virtual_display.c $r/render.c \
 *      $(pkg-config --libs libmosquitto)
 *
 * Exit status: 0 a frame was drawn (an error frame too), 1 usage, file or MQTT error, 2 no
 * answer before --timeout, 3 the message did not decode (the error name goes to stderr), 4 the
 * answer was `unchanged` (reported on stdout, nothing drawn).
 * See firmware-notes/README.md, "Virtual display".
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>

#include "skyframe_frame.h" /* its code is compiled by render.c */
#include "skyframe_render.h"

enum { EXIT_DRAWN = 0, EXIT_FAILED = 1, EXIT_TIMEOUT = 2, EXIT_DECODE = 3, EXIT_UNCHANGED = 4 };

/* ---- Image files ------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix), i;
    if (n < m) return 0;
    for (i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

/* Writes the message's drawing (skyframe_render_png or _pbm by the name's ending, each screen
 * pixel as scale x scale pixels) to path: 0, or -1 with a message. */
static int write_image(const char *path, const uint8_t *message, size_t length, uint32_t now,
                       int scale) {
    uint8_t *image = NULL;
    size_t n = ends_with(path, ".png") ? skyframe_render_png(message, length, now, scale, &image)
                                       : skyframe_render_pbm(message, length, now, scale, &image);
    FILE *fp;
    int rc;
    if (n == 0) {
        fprintf(stderr, "virtual_display: drawing the message failed\n");
        return -1;
    }
    if ((fp = fopen(path, "wb")) == NULL) {
        fprintf(stderr, "virtual_display: cannot write %s: %s\n", path, strerror(errno));
        free(image);
        return -1;
    }
    rc = fwrite(image, 1, n, fp) == n ? 0 : -1;
    if (fclose(fp) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "virtual_display: writing %s failed\n", path);
    free(image);
    return rc;
}

/* ---- A frame from a file: hex text, or a golden vector's JSON with a "hex" key ------------ */

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the bytes into buf (at most cap); returns how many, or -1 with a message. A file with
 * more bytes than cap reports cap + 1, so that the decoder says "too_long". */
static long read_hex_file(const char *path, unsigned char *buf, size_t cap) {
    static char text[1 << 16];
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t len, n = 0;
    const char *p, *end;
    int high = -1;
    if (fp == NULL) {
        fprintf(stderr, "virtual_display: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    len = fread(text, 1, sizeof text - 1, fp);
    if (fp != stdin) fclose(fp);
    text[len] = '\0';
    p = text;
    end = text + len;
    if ((p = strstr(text, "\"hex\"")) != NULL) { /* JSON: the string after "hex": */
        p = strchr(p + 5, '"');
        end = p != NULL ? strchr(p + 1, '"') : NULL;
        if (p == NULL || end == NULL) {
            fprintf(stderr, "virtual_display: %s: \"hex\" has no string value\n", path);
            return -1;
        }
        p++;
    } else {
        p = text;
    }
    for (; p < end; p++) {
        int v = hex_value((unsigned char)*p);
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') continue;
        if (v < 0) {
            fprintf(stderr, "virtual_display: %s: '%c' is not a hex digit\n", path, *p);
            return -1;
        }
        if (high < 0) {
            high = v;
            continue;
        }
        if (n == cap) return (long)cap + 1;
        buf[n++] = (unsigned char)(high * 16 + v);
        high = -1;
    }
    if (high >= 0) {
        fprintf(stderr, "virtual_display: %s: an odd number of hex digits\n", path);
        return -1;
    }
    return (long)n;
}

/* ---- An answer of any kind ---------------------------------------------------------------- */

struct message {
    int kind; /* SKYFRAME_KIND_*: which member of u holds it */
    union {
        skyframe_frame standard;
        skyframe_large large;
        skyframe_tiny tiny;
        skyframe_unchanged unchanged;
    } u;
    uint8_t bytes[SKYFRAME_LARGE_SIZE]; /* the message as it came, for the renderer */
    size_t length;
};

/* Decodes a message of any kind, chosen by its length and kind byte as firmware would, and
 * keeps its bytes: SKYFRAME_OK, or the SKYFRAME_ERR_* of the first check that failed. */
static int decode_message(const uint8_t *buf, size_t len, struct message *m) {
    int kind = skyframe_message_kind(buf, len), rc;
    if (kind < 0) return kind;
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: rc = skyframe_frame_decode(buf, len, &m->u.standard); break;
    case SKYFRAME_KIND_LARGE: rc = skyframe_large_decode(buf, len, &m->u.large); break;
    case SKYFRAME_KIND_TINY: rc = skyframe_tiny_decode(buf, len, &m->u.tiny); break;
    default: rc = skyframe_unchanged_decode(buf, len, &m->u.unchanged); break;
    }
    if (rc == SKYFRAME_OK && len > sizeof m->bytes) rc = SKYFRAME_ERR_TOO_LONG; /* none is */
    if (rc == SKYFRAME_OK) {
        m->kind = kind;
        memcpy(m->bytes, buf, len);
        m->length = len;
    }
    return rc;
}

static uint16_t message_request_id(const struct message *m) {
    switch (m->kind) {
    case SKYFRAME_KIND_STANDARD: return m->u.standard.request_id;
    case SKYFRAME_KIND_LARGE: return m->u.large.request_id;
    case SKYFRAME_KIND_TINY: return m->u.tiny.request_id;
    default: return m->u.unchanged.request_id;
    }
}

/* ---- MQTT: ask like a device and wait for the answer ------------------------------------- */

struct session {
    char request_topic[64], frame_topic[64], request[600];
    int request_len;    /* bytes of request: text, or the 64 of a binary request */
    uint16_t request_id;
    int done;           /* a message for our request arrived, or one did not decode */
    int decode_error;   /* SKYFRAME_ERR_* of a message that did not decode, else 0 */
    int refused;        /* the broker refused the connection or the subscription */
    struct message answer;
};

static void on_connect(struct mosquitto *m, void *obj, int rc) {
    struct session *s = obj;
    if (rc != 0) {
        fprintf(stderr, "virtual_display: the broker refused the connection: %s\n",
                mosquitto_connack_string(rc));
        s->refused = 1;
        return;
    }
    mosquitto_subscribe(m, NULL, s->frame_topic, 1); /* a clean session: after every connect */
}

/* Subscribed: now the answer cannot pass us by, so ask (again, after a reconnect). */
static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
    struct session *s = obj;
    (void)mid;
    if (count < 1 || granted[0] > 2) {
        fprintf(stderr, "virtual_display: the broker refused the subscription to %s\n",
                s->frame_topic);
        s->refused = 1;
        return;
    }
    mosquitto_publish(m, NULL, s->request_topic, s->request_len, s->request, 1, false);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg) {
    struct session *s = obj;
    struct message answer;
    int rc;
    (void)m;
    if (s->done || strcmp(msg->topic, s->frame_topic) != 0) return;
    rc = decode_message(msg->payload, (size_t)msg->payloadlen, &answer);
    if (rc != SKYFRAME_OK) {
        s->decode_error = rc;
        s->done = 1;
        return;
    }
    if (message_request_id(&answer) != s->request_id) { /* an older request's, or a watch's */
        fprintf(stderr, "virtual_display: ignored a %s message for request #%u\n",
                skyframe_kind_name(answer.kind), (unsigned)message_request_id(&answer));
        return;
    }
    s->answer = answer;
    s->done = 1;
}

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* EXIT_DRAWN with s->answer filled, or another exit status. */
static int ask_gateway(struct session *s, const char *host, int port, double timeout) {
    struct mosquitto *m;
    char client_id[32];
    double deadline = seconds_now() + timeout;
    int rc, connected = 0, warned = 0, status;

    mosquitto_lib_init();
    snprintf(client_id, sizeof client_id, "skyframe-vd-%ld", (long)getpid());
    m = mosquitto_new(client_id, true, s);
    if (m == NULL) {
        fprintf(stderr, "virtual_display: mosquitto_new failed\n");
        mosquitto_lib_cleanup();
        return EXIT_FAILED;
    }
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);

    /* Like a device: keep trying until the deadline when the broker is away or the link drops. */
    while (!s->done && !s->refused && seconds_now() < deadline) {
        if (!connected) {
            rc = mosquitto_connect(m, host, port, 30);
            if (rc != MOSQ_ERR_SUCCESS) {
                if (!warned)
                    fprintf(stderr, "virtual_display: cannot connect to %s:%d: %s; retrying\n",
                            host, port,
                            rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
                warned = 1;
                pause_ms(200);
                continue;
            }
            connected = 1;
        }
        rc = mosquitto_loop(m, 100, 1);
        if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO) {
            pause_ms(200);
            if (mosquitto_reconnect(m) != MOSQ_ERR_SUCCESS) connected = 0;
        }
    }
    if (s->decode_error != 0) {
        fprintf(stderr, "virtual_display: the message did not decode: %s\n",
                skyframe_error_name(s->decode_error));
        status = EXIT_DECODE;
    } else if (s->done) {
        status = EXIT_DRAWN;
    } else if (s->refused) {
        status = EXIT_FAILED;
    } else {
        fprintf(stderr, "virtual_display: no answer to request #%u on %s within %g s\n",
                (unsigned)s->request_id, s->frame_topic, timeout);
        status = EXIT_TIMEOUT;
    }
    if (connected) mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return status;
}

/* ---- Command line ------------------------------------------------------------------------- */

static void usage(FILE *fp) {
    fputs("usage: virtual_display --place PLACE [--host H] [--port P] [--device ID]\n"
          "                       [--profile standard|large|tiny] [--binary]\n"
          "                       [--out FILE.png|FILE.pbm] [--timeout S] [--request-id N]\n"
          "                       [--now UNIX] [--scale N]\n"
          "       virtual_display --frame-hex FILE [--profile P] [--out FILE] [--now UNIX]\n"
          "                       [--scale N]\n"
          "\n"
          "Asks a Skyframe gateway for PLACE (\"Berlin,DE\" or \"52.52,13.41\") like a device:\n"
          "subscribes to skyframe/v1/frame/ID (QoS 1), publishes \"#N PLACE\" (with --profile:\n"
          "\"#N ~large PLACE\"; with --binary: the 64-byte binary request, profile in byte 6) to\n"
          "skyframe/v1/req/ID, waits for the answer with request_id N and draws it as the\n"
          "display of its kind: standard 296x128 e-paper, large 800x480 e-paper, tiny 128x64\n"
          "OLED. --frame-hex draws a message from a file instead: hex digits (whitespace\n"
          "ignored; - is stdin) or a golden vector's JSON with \"hex\".\n"
          "\n"
          "  --host H         broker (127.0.0.1)          --port P     1883\n"
          "  --device ID      device id, 1-32 characters (virtual-display)\n"
          "  --profile P      the profile to ask for; a message of another kind is drawn as\n"
          "                   what it is, with a warning (standard, without asking)\n"
          "  --binary         ask with the binary request instead of text\n"
          "  --out FILE       .png or .pbm (virtual-display.png)\n"
          "  --timeout S      seconds to wait for the answer (10)\n"
          "  --request-id N   1-65535 (from the process id and the time)\n"
          "  --now UNIX       the clock for the data's age (the system clock)\n"
          "  --scale N        each screen pixel as N x N pixels in the file, 1-8 (1)\n"
          "\n"
          "Prints one line: drew NAME COUNTRY TEMP status STATUS -> FILE (large: \"drew large\n"
          "frame NAME ...\", tiny: \"drew tiny frame TEMP ...\"), or for an `unchanged` answer\n"
          "\"unchanged PROFILE frame for request #N ...\" and draws nothing.\n"
          "Exit status: 0 drawn (error frames too), 1 usage, file or MQTT error, 2 no answer in\n"
          "time, 3 the message did not decode, 4 the answer was `unchanged` (nothing drawn).\n",
          fp);
}

/* A whole number in [lo, hi], or -1 with a message. */
static long number_option(const char *name, const char *text, long lo, long hi) {
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "virtual_display: %s must be a whole number %ld-%ld, not '%s'\n", name,
                lo, hi, text);
        return -1;
    }
    return v;
}

/* The binary request (request-v1.md 3) for PLACE: coordinates "52.52,13.41", else a name with
 * an optional ",CC" country. profile < 0 leaves byte 6 at 0 (standard). SKYFRAME_OK or an
 * error code (the place does not fit the binary form). */
static int binary_request(uint8_t out[SKYFRAME_REQUEST_SIZE], uint16_t id, const char *place,
                          int profile) {
    char name[SKYFRAME_REQUEST_NAME_BYTES + 1], country[3] = "";
    const char *comma = strrchr(place, ',');
    char *end;
    double lat, lon;
    int rc;
    errno = 0;
    lat = strtod(place, &end);
    if (errno == 0 && end != place && *end == ',' && comma == end) {
        lon = strtod(end + 1, &end);
        if (errno == 0 && *end == '\0' && lat >= -90.0 && lat <= 90.0 && lon >= -180.0 &&
            lon <= 180.0) {
            rc = skyframe_request_coordinates(out, id, (int32_t)(lat * 1e5 + (lat < 0 ? -0.5 : 0.5)),
                                              (int32_t)(lon * 1e5 + (lon < 0 ? -0.5 : 0.5)));
            goto profile;
        }
    }
    if (comma != NULL && strlen(comma + 1) == 2) {
        memcpy(country, comma + 1, 3);
    } else {
        comma = place + strlen(place);
    }
    if ((size_t)(comma - place) > SKYFRAME_REQUEST_NAME_BYTES) return SKYFRAME_ERR_RANGE;
    memcpy(name, place, (size_t)(comma - place));
    name[comma - place] = '\0';
    rc = skyframe_request_place(out, id, name, country);
profile:
    if (rc == SKYFRAME_OK && profile >= 0) rc = skyframe_request_set_profile(out, (uint8_t)profile);
    return rc;
}

/* The kind of frame that answers a request for profile SKYFRAME_PROFILE_* (the index). */
static const int PROFILE_KIND[3] = {SKYFRAME_KIND_STANDARD, SKYFRAME_KIND_LARGE, SKYFRAME_KIND_TINY};

/* " 18.4C" from 0.1 degC, for the line printed after drawing; " --C" when missing. */
static void temperature_text(char out[24], int16_t v) {
    char t[13];
    if (SKYFRAME_HAS_I16(v)) skyframe_format_fixed(t, sizeof t, v, 1);
    else strcpy(t, "--");
    snprintf(out, 24, " %sC", t);
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *device = "virtual-display", *place = NULL;
    const char *out = "virtual-display.png", *hex_file = NULL;
    long port = 1883, request_id = 0, timeout = 10, scale = 1;
    long now_value = -1;
    int profile = -1, binary = 0;
    static struct session s;
    char temperature[24], status_number[8], who[80];
    const char *status_text;
    uint8_t status_byte;
    uint32_t now;
    int i, status, has_weather;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = NULL;
        char *eq;
        static char name[32];
        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return EXIT_DRAWN;
        }
        if (strcmp(opt, "--binary") == 0) { /* the one option without a value */
            binary = 1;
            continue;
        }
        if (strncmp(opt, "--", 2) != 0 || strlen(opt) >= sizeof name) {
            fprintf(stderr, "virtual_display: unexpected argument '%s'\n", opt);
            usage(stderr);
            return EXIT_FAILED;
        }
        strcpy(name, opt);
        if ((eq = strchr(name, '=')) != NULL) { /* --port=1884 */
            *eq = '\0';
            val = opt + (eq - name) + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            fprintf(stderr, "virtual_display: %s needs a value\n", opt);
            return EXIT_FAILED;
        }
        if (strcmp(name, "--host") == 0) {
            host = val;
        } else if (strcmp(name, "--device") == 0) {
            device = val;
        } else if (strcmp(name, "--place") == 0) {
            place = val;
        } else if (strcmp(name, "--out") == 0) {
            out = val;
        } else if (strcmp(name, "--frame-hex") == 0) {
            hex_file = val;
        } else if (strcmp(name, "--profile") == 0) {
            for (profile = SKYFRAME_PROFILE_TINY; profile >= 0; profile--)
                if (strcmp(val, skyframe_profile_name((uint8_t)profile)) == 0) break;
            if (profile < 0) {
                fprintf(stderr, "virtual_display: --profile is standard, large or tiny, not '%s'\n",
                        val);
                return EXIT_FAILED;
            }
        } else if (strcmp(name, "--port") == 0) {
            if ((port = number_option(name, val, 1, 65535)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--timeout") == 0) {
            if ((timeout = number_option(name, val, 1, 3600)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--request-id") == 0) {
            if ((request_id = number_option(name, val, 1, 65535)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--scale") == 0) {
            scale = number_option(name, val, 1, SKYFRAME_RENDER_MAX_SCALE);
            if (scale < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--now") == 0) {
            if ((now_value = number_option(name, val, 0, 0x7FFFFFFFL)) < 0) return EXIT_FAILED;
        } else {
            fprintf(stderr, "virtual_display: unknown option %s\n", name);
            usage(stderr);
            return EXIT_FAILED;
        }
    }
    if (!ends_with(out, ".png") && !ends_with(out, ".pbm")) {
        fprintf(stderr, "virtual_display: --out must end in .png or .pbm: %s\n", out);
        return EXIT_FAILED;
    }

    memset(&s, 0, sizeof s);
    if (hex_file != NULL) {
        unsigned char buf[SKYFRAME_LARGE_SIZE];
        long n = read_hex_file(hex_file, buf, sizeof buf);
        int rc;
        if (n < 0) return EXIT_FAILED;
        rc = decode_message(buf, (size_t)n, &s.answer);
        if (rc != SKYFRAME_OK) {
            fprintf(stderr, "virtual_display: the message did not decode: %s\n",
                    skyframe_error_name(rc));
            return EXIT_DECODE;
        }
    } else {
        size_t dl = strlen(device);
        if (place == NULL || place[0] == '\0') {
            fprintf(stderr, "virtual_display: --place or --frame-hex is required\n");
            usage(stderr);
            return EXIT_FAILED;
        }
        if (dl == 0 || dl > 32 || strpbrk(device, "/+#") != NULL) {
            fprintf(stderr, "virtual_display: --device must be 1-32 characters without / + #\n");
            return EXIT_FAILED;
        }
        if (request_id == 0) { /* differs between runs, so an old answer is not taken for ours */
            unsigned long mix = (unsigned long)getpid() * 2654435761UL ^ (unsigned long)time(NULL);
            request_id = (long)(mix % 65535UL) + 1;
        }
        s.request_id = (uint16_t)request_id;
        snprintf(s.request_topic, sizeof s.request_topic, "skyframe/v1/req/%s", device);
        snprintf(s.frame_topic, sizeof s.frame_topic, "skyframe/v1/frame/%s", device);
        if (binary) {
            uint8_t request[SKYFRAME_REQUEST_SIZE];
            if (binary_request(request, s.request_id, place, profile) != SKYFRAME_OK) {
                fprintf(stderr, "virtual_display: '%s' does not fit a binary request\n", place);
                return EXIT_FAILED;
            }
            memcpy(s.request, request, sizeof request);
            s.request_len = (int)sizeof request;
        } else {
            if ((size_t)snprintf(s.request, sizeof s.request, "#%ld %s%s%s", request_id,
                                 profile >= 0 ? "~" : "",
                                 profile >= 0 ? skyframe_profile_name((uint8_t)profile) : "",
                                 profile >= 0 ? " " : "") +
                    strlen(place) >= 513) {
                fprintf(stderr, "virtual_display: the request is longer than 512 bytes\n");
                return EXIT_FAILED;
            }
            strcat(s.request, place);
            s.request_len = (int)strlen(s.request);
        }
        status = ask_gateway(&s, host, (int)port, (double)timeout);
        if (status != EXIT_DRAWN) return status;
    }

    if (s.answer.kind == SKYFRAME_KIND_UNCHANGED) { /* what the device shows is still right */
        const skyframe_unchanged *u = &s.answer.u.unchanged;
        char hint[32] = "no next update hint";
        if (u->next_update != 0)
            snprintf(hint, sizeof hint, "next update in %u s", (unsigned)u->next_update);
        printf("unchanged %s frame for request #%u, place %u of %u, %s: nothing drawn\n",
               skyframe_profile_name(u->profile), (unsigned)u->request_id,
               (unsigned)u->slot_index + 1u, (unsigned)u->slot_count, hint);
        return EXIT_UNCHANGED;
    }
    if (profile >= 0 && s.answer.kind != PROFILE_KIND[profile])
        fprintf(stderr, "virtual_display: asked for %s, got a %s frame\n",
                skyframe_profile_name((uint8_t)profile), skyframe_kind_name(s.answer.kind));

    now = now_value >= 0 ? (uint32_t)now_value : (uint32_t)time(NULL);
    temperature[0] = '\0';
    if (s.answer.kind == SKYFRAME_KIND_LARGE) {
        const skyframe_large *f = &s.answer.u.large;
        status_byte = f->status;
        has_weather = status_byte == SKYFRAME_STATUS_OK || status_byte == SKYFRAME_STATUS_STALE;
        snprintf(who, sizeof who, "large frame %s%s%s", f->name[0] ? f->name : "(no name)",
                 f->country[0] ? " " : "", f->country);
        if (has_weather) temperature_text(temperature, f->current.temperature);
    } else if (s.answer.kind == SKYFRAME_KIND_TINY) {
        const skyframe_tiny *f = &s.answer.u.tiny;
        status_byte = f->status;
        has_weather = status_byte == SKYFRAME_STATUS_OK || status_byte == SKYFRAME_STATUS_STALE;
        strcpy(who, "tiny frame");
        if (has_weather) temperature_text(temperature, f->temperature);
    } else {
        const skyframe_frame *f = &s.answer.u.standard;
        status_byte = f->status;
        snprintf(who, sizeof who, "%s%s%s", f->name[0] ? f->name : "(no name)",
                 f->country[0] ? " " : "", f->country);
        if (skyframe_frame_has_weather(f)) temperature_text(temperature, f->current.temperature);
    }
    /* Drawn by the renderer from the message's bytes: error frames too. */
    if (write_image(out, s.answer.bytes, s.answer.length, now, (int)scale) != 0)
        return EXIT_FAILED;

    status_text = skyframe_status_name(status_byte);
    if (strcmp(status_text, "unknown") == 0) { /* a newer gateway's status: say its number */
        snprintf(status_number, sizeof status_number, "%u", (unsigned)status_byte);
        status_text = status_number;
    }
    printf("drew %s%s status %s -> %s\n", who, temperature, status_text, out);
    return EXIT_DRAWN;
}
