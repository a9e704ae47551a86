/*
 * Skyframe on ESP-IDF 5.x with esp-mqtt: connects Wi-Fi, starts SNTP (UTC), subscribes to its
 * frame topic, asks for a place and prints every frame it gets (show_frame.c). Every 15 minutes
 * it asks again with a new request id.
 *
 * When no frame with the request's id comes within 10 s plus 0-5 s at random (esp_random(), so a
 * fleet does not retry in step), it sends the same request once more: the same id, so a late
 * answer to the first one still counts. If that gets no answer either, it waits for the next
 * 15-minute request. The request goes out at QoS 1, which the broker keeps for a restarting
 * gateway (its persistent session); the retry covers what that does not (a broker restarted
 * without persistence), and is what a QoS 0 device needs (firmware-notes/README.md, section 5).
 *
 * Change DEVICE, PLACE and GATEWAY_URI below. The frame topic is
 * skyframe/v1/frame/{DEVICE}: DEVICE must be at most 32 characters (firmware-notes/README.md,
 * section 2).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "esp_event.h"
#include "esp_log.h"
#include "esp_netif.h"
#include "esp_random.h"
#include "esp_sntp.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "mqtt_client.h"
#include "nvs_flash.h"
#include "protocol_examples_common.h" /* example_connect(): Wi-Fi from menuconfig */

#define SKYFRAME_FRAME_IMPLEMENTATION /* in exactly one file of the program */
#include "skyframe_frame.h"
#include "show_frame.h"

#define DEVICE "kitchen"                 /* <= 32 characters */
#define PLACE "Berlin,DE"                /* or coordinates: "52.52,13.41" */
#define GATEWAY_URI "mqtt://gateway.local" /* the broker the gateway uses */
#define REQUEST_TOPIC "skyframe/v1/req/" DEVICE
#define FRAME_TOPIC "skyframe/v1/frame/" DEVICE
#define ASK_EVERY_MS (15u * 60u * 1000u) /* a new request, with a new id */
#define ANSWER_TIMEOUT_MS 10000u         /* no answer by then: send the request once more */
#define ANSWER_JITTER_MS 5000u           /* plus 0-5 s at random */

static const char *TAG = "sky";
static esp_mqtt_client_handle_t client;
/* The MQTT task reports, app_main (the only one that publishes) reads. */
static atomic_bool connected;  /* set on MQTT_EVENT_CONNECTED: ask now */
static atomic_uint answered;   /* request_id of the last frame that arrived */

/* Publishes "#<id> <PLACE>" at QoS 1; the gateway echoes the id in request_id. Returns how long
 * to wait for the answer: ANSWER_TIMEOUT_MS plus 0..ANSWER_JITTER_MS from the hardware RNG (true
 * random numbers while Wi-Fi is on, different on every device). */
static TickType_t send_request(unsigned id) {
    char text[64];
    snprintf(text, sizeof text, "#%u %s", id, PLACE);
    esp_mqtt_client_publish(client, REQUEST_TOPIC, text, 0, 1, 0);
    return pdMS_TO_TICKS(ANSWER_TIMEOUT_MS + esp_random() % (ANSWER_JITTER_MS + 1u));
}

static void on_mqtt(void *arg, esp_event_base_t base, int32_t id, void *data) {
    esp_mqtt_event_handle_t e = data;
    (void)arg;
    (void)base;
    if (id == MQTT_EVENT_CONNECTED) {
        esp_mqtt_client_subscribe(e->client, FRAME_TOPIC, 1);
        atomic_store(&connected, true); /* app_main asks: after the SUBSCRIBE, same connection */
    } else if (id == MQTT_EVENT_DATA) {
        /* A message bigger than the client's buffer comes in several chunks; with the default
         * 1024-byte buffer a 192-byte frame always arrives whole. */
        if (e->current_data_offset != 0 || e->data_len != e->total_data_len) return;
        skyframe_frame f;
        int rc = skyframe_frame_decode((const uint8_t *)e->data, (size_t)e->data_len, &f);
        if (rc != SKYFRAME_OK) {
            ESP_LOGW(TAG, "frame dropped: %s", skyframe_error_name(rc));
            return; /* keep showing the previous frame */
        }
        atomic_store(&answered, f.request_id); /* an error frame answers too */
        show_frame(&f); /* e->topic is NOT NUL-terminated: use e->topic_len */
    }
}

void app_main(void) {
    ESP_ERROR_CHECK(nvs_flash_init());
    ESP_ERROR_CHECK(esp_netif_init());
    ESP_ERROR_CHECK(esp_event_loop_create_default());
    ESP_ERROR_CHECK(example_connect());

    /* The frame's times are UTC; the age of the data needs a set clock. Keep TZ unset (UTC). */
    esp_sntp_setoperatingmode(ESP_SNTP_OPMODE_POLL);
    esp_sntp_setservername(0, "pool.ntp.org");
    esp_sntp_init();

    esp_mqtt_client_config_t cfg = {.broker.address.uri = GATEWAY_URI}; /* IDF 4.x: .uri */
    client = esp_mqtt_client_init(&cfg);
    esp_mqtt_client_register_event(client, ESP_EVENT_ANY_ID, on_mqtt, NULL);
    esp_mqtt_client_start(client);

    unsigned id = 0;   /* the last request's id, 1..65535 */
    int sends = 0;     /* how often it went out (1, 2 after the retry); 0: answered or given up */
    TickType_t asked_at = 0, sent_at = 0, wait = 0;
    for (;;) {
        vTaskDelay(pdMS_TO_TICKS(100));
        TickType_t now = xTaskGetTickCount();
        if (atomic_exchange(&connected, false) ||
            (id != 0 && now - asked_at >= pdMS_TO_TICKS(ASK_EVERY_MS))) {
            id = id % 65535u + 1u; /* a new request: (re)connected, or 15 minutes are up */
            wait = send_request(id);
            sends = 1;
            asked_at = sent_at = now;
        } else if (sends > 0 && atomic_load(&answered) == id) {
            sends = 0; /* answered; on_mqtt has shown it */
        } else if (sends > 0 && now - sent_at >= wait) {
            if (sends == 1) {
                ESP_LOGW(TAG, "no answer to #%u: asking once more", id);
                wait = send_request(id); /* the same id: a late answer to the first counts */
                sends = 2;
                sent_at = now;
            } else {
                ESP_LOGW(TAG, "no answer to #%u: giving up until the next request", id);
                sends = 0;
            }
        }
    }
}
