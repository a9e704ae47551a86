/*
 * The ideal responder for the Skyframe load benchmark: the least a gateway can do.
 *
 * One libmosquitto client subscribes skyframe/v1/req/+ at QoS 1 and answers every request with a
 * fixed 192-byte `ok` frame on skyframe/v1/frame/<device> at the request's QoS as delivered (not
 * retained), as the gateway does with topics.answer-qos: request; published from the message
 * callback. No parsing, no cache, no per-message allocation beyond libmosquitto's own
 * packet. Driven by mosquitto_loop on the main thread, like the gateway's own network thread.
 *
 *   responder -p PORT [-h HOST] [-V 5|311] [-r RECEIVE_MAXIMUM] [-N 0|1]
 *
 * -N 1 sets TCP_NODELAY on the socket (MOSQ_OPT_TCP_NODELAY); the default, 0, is libmosquitto's
 * default (Nagle on), which is what the gateway gets when it does not set the option.
 *
 * Runs until SIGINT or SIGTERM; prints the number of answers to standard error on exit.
 */
#define _POSIX_C_SOURCE 200809L

#include <mosquitto.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REQ_FILTER "skyframe/v1/req/+"
#define REQ_PREFIX "skyframe/v1/req/"
#define FRAME_PREFIX "skyframe/v1/frame/"
#define FRAME_SIZE 192
#define DEVICE_MAX 32

static volatile sig_atomic_t stop_requested = 0;
static unsigned char frame[FRAME_SIZE] = {'S', 'F', 1, 0};
static unsigned long long answered = 0;
static unsigned long long dropped = 0;

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static int valid_device(const char *device, size_t length) {
  if (length < 1 || length > DEVICE_MAX) return 0;
  for (size_t i = 0; i < length; i++) {
    char c = device[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

static void on_connect(struct mosquitto *m, void *obj, int rc) {
  (void)obj;
  if (rc != 0) {
    fprintf(stderr, "responder: connection refused: %s\n", mosquitto_connack_string(rc));
    return;
  }
  int err = mosquitto_subscribe(m, NULL, REQ_FILTER, 1);
  if (err != MOSQ_ERR_SUCCESS) fprintf(stderr, "responder: subscribe: %s\n", mosquitto_strerror(err));
}

static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
  (void)m, (void)obj, (void)mid;
  if (count < 1 || granted[0] > 2) {
    fprintf(stderr, "responder: subscription refused\n");
    return;
  }
  fprintf(stderr, "responder: subscribed %s\n", REQ_FILTER);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *message) {
  (void)obj;
  const size_t prefix = sizeof(REQ_PREFIX) - 1;
  const char *topic = message->topic;
  if (strncmp(topic, REQ_PREFIX, prefix) != 0) {
    dropped++;
    return;
  }
  const char *device = topic + prefix;
  size_t length = strlen(device);
  if (!valid_device(device, length)) {
    dropped++;
    return;
  }
  char reply[sizeof(FRAME_PREFIX) + DEVICE_MAX];
  memcpy(reply, FRAME_PREFIX, sizeof(FRAME_PREFIX) - 1);
  memcpy(reply + sizeof(FRAME_PREFIX) - 1, device, length + 1);
  int rc = mosquitto_publish(m, NULL, reply, FRAME_SIZE, frame, message->qos, false);
  if (rc == MOSQ_ERR_SUCCESS) {
    answered++;
  } else {
    dropped++;
  }
}

static void usage(void) {
  fprintf(stderr, "usage: responder -p PORT [-h HOST] [-V 5|311] [-r RECEIVE_MAXIMUM] [-N 0|1]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1";
  int port = 0;
  int version = MQTT_PROTOCOL_V5;
  int receive_maximum = -1; /* libmosquitto's default (20), as the gateway uses */
  int nodelay = 0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage();
    if (strcmp(argv[i], "-p") == 0) {
      port = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-h") == 0) {
      host = argv[++i];
    } else if (strcmp(argv[i], "-V") == 0) {
      const char *v = argv[++i];
      if (strcmp(v, "5") == 0) version = MQTT_PROTOCOL_V5;
      else if (strcmp(v, "311") == 0 || strcmp(v, "3.1.1") == 0) version = MQTT_PROTOCOL_V311;
      else usage();
    } else if (strcmp(argv[i], "-N") == 0) {
      nodelay = atoi(argv[++i]) != 0;
    } else if (strcmp(argv[i], "-r") == 0) {
      receive_maximum = atoi(argv[++i]);
    } else {
      usage();
    }
  }
  if (port < 1 || port > 65535) usage();

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);

  mosquitto_lib_init();
  struct mosquitto *m = mosquitto_new("skyframe-ideal", true, NULL);
  if (!m) {
    fprintf(stderr, "responder: mosquitto_new failed\n");
    return 1;
  }
  mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, version);
  if (nodelay) mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
  if (receive_maximum >= 0) mosquitto_int_option(m, MOSQ_OPT_RECEIVE_MAXIMUM, receive_maximum);
  mosquitto_connect_callback_set(m, on_connect);
  mosquitto_subscribe_callback_set(m, on_subscribe);
  mosquitto_message_callback_set(m, on_message);

  int rc = mosquitto_connect(m, host, port, 30);
  if (rc != MOSQ_ERR_SUCCESS) {
    fprintf(stderr, "responder: connect %s:%d: %s\n", host, port, mosquitto_strerror(rc));
    return 1;
  }
  while (!stop_requested) {
    rc = mosquitto_loop(m, 100, 1);
    if (rc != MOSQ_ERR_SUCCESS && !stop_requested) {
      fprintf(stderr, "responder: %s; reconnecting\n", mosquitto_strerror(rc));
      struct timespec pause = {0, 200 * 1000 * 1000};
      nanosleep(&pause, NULL);
      mosquitto_reconnect(m);
    }
  }
  mosquitto_disconnect(m);
  mosquitto_loop(m, 50, 1);
  mosquitto_destroy(m);
  mosquitto_lib_cleanup();
  fprintf(stderr, "responder: answered=%llu dropped=%llu\n", answered, dropped);
  return 0;
}
