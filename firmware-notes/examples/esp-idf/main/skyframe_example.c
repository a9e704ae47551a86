/*
 * Skyframe on ESP-IDF 5.x with esp-mqtt: connects Wi-Fi, starts SNTP (UTC), subscribes to its
 * frame topic, asks for a place and prints every frame it gets (show_frame.c). Every 15 minutes
 * it asks again with a new request id.
 *
 * Change DEVICE, PLACE and GATEWAY_URI below. The frame topic is
 * skyframe/v1/frame/{DEVICE}: DEVICE must be at most 32 characters (firmware-notes/README.md,
 * section 2).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "esp_event.h"
#include "esp_log.h"
#include "esp_netif.h"
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

static const char *TAG = "sky";
static esp_mqtt_client_handle_t client;
static atomic_uint requests; /* ask() runs in the MQTT task and in app_main */

/* Publishes "#<id> <PLACE>" at QoS 1; the gateway echoes the id in request_id. */
static void ask(void) {
    char text[64];
    unsigned id = atomic_fetch_add(&requests, 1u) % 65535u + 1u; /* 1..65535 */
    snprintf(text, sizeof text, "#%u %s", id, PLACE);
    esp_mqtt_client_publish(client, REQUEST_TOPIC, text, 0, 1, 0);
}

static void on_mqtt(void *arg, esp_event_base_t base, int32_t id, void *data) {
    esp_mqtt_event_handle_t e = data;
    (void)arg;
    (void)base;
    if (id == MQTT_EVENT_CONNECTED) {
        esp_mqtt_client_subscribe(e->client, FRAME_TOPIC, 1);
        ask(); /* the broker handles the SUBSCRIBE before this PUBLISH: same connection */
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

    for (;;) {
        vTaskDelay(pdMS_TO_TICKS(15 * 60 * 1000));
        ask(); /* a reconnect asks on its own (MQTT_EVENT_CONNECTED) */
    }
}
