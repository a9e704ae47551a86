// A CoAP load generator for `make load-coap`: CONCURRENCY exchanges kept in flight over UDP, each
// a confirmable GET of one path (with its query), the next sent as soon as the last is answered;
// for SECONDS. A 4.01 with an Echo option (RFC 9175, the gateway's check of a new source) is
// answered by sending the request again with the value, once; a confirmable (separate) response
// is acknowledged. Prints one line: "requests/s p99-ms answered lost other".
//
//   coap_load HOST PORT PATH?QUERY SECONDS CONCURRENCY [TOTAL]
//
// "{id}" in the target is replaced, request by request, by a random number (a flood from random
// device ids); with TOTAL the run ends once that many requests were sent (or SECONDS passed).
//
// Each exchange has a socket of its own (its own source port, as devices have). A request with no
// answer within 2 s counts as lost and is sent again with a new message id.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint8_t echo_value[40];
static size_t echo_length;

// One option: delta and length with their extended forms (RFC 7252 §3.1).
static size_t put_option(uint8_t *out, unsigned delta, const uint8_t *value, size_t length) {
  size_t at = 1;
  unsigned d = delta < 13 ? delta : delta < 269 ? 13 : 14;
  unsigned l = length < 13 ? (unsigned)length : length < 269 ? 13 : 14;
  out[0] = (uint8_t)(d << 4 | l);
  if (d == 13) out[at++] = (uint8_t)(delta - 13);
  if (d == 14) { out[at++] = (uint8_t)((delta - 269) >> 8); out[at++] = (uint8_t)(delta - 269); }
  if (l == 13) out[at++] = (uint8_t)(length - 13);
  if (l == 14) { out[at++] = (uint8_t)((length - 269) >> 8); out[at++] = (uint8_t)(length - 269); }
  memcpy(out + at, value, length);
  return at + length;
}

// The target with "{id}" replaced by a random number.
static const char *with_id(const char *target) {
  static char text[400];
  const char *mark = strstr(target, "{id}");
  if (!mark) return target;
  snprintf(text, sizeof text, "%.*s%u%s", (int)(mark - target), target,
           (unsigned)random() % 1000000000u, mark + 4);
  return text;
}

// The request: CON GET, a 4-byte token, Uri-Path segments (11), Uri-Query items (15), Echo (252).
static size_t build(uint8_t *out, uint16_t id, uint32_t token, const char *target) {
  target = with_id(target);
  out[0] = 0x40 | 4;  // version 1, CON, token length 4
  out[1] = 0x01;      // GET
  out[2] = (uint8_t)(id >> 8);
  out[3] = (uint8_t)id;
  memcpy(out + 4, &token, 4);
  size_t at = 8;
  unsigned last = 0;
  const char *query = strchr(target, '?');
  const char *end = query ? query : target + strlen(target);
  for (const char *p = target; p < end;) {
    while (p < end && *p == '/') p++;
    const char *q = p;
    while (q < end && *q != '/') q++;
    if (q > p) {
      at += put_option(out + at, 11 - last, (const uint8_t *)p, (size_t)(q - p));
      last = 11;
    }
    p = q;
  }
  if (query) {
    for (const char *p = query + 1; *p;) {
      const char *q = strchr(p, '&');
      if (!q) q = p + strlen(p);
      at += put_option(out + at, 15 - last, (const uint8_t *)p, (size_t)(q - p));
      last = 15;
      p = *q ? q + 1 : q;
    }
  }
  if (echo_length) at += put_option(out + at, 252 - last, echo_value, echo_length);
  return at;
}

// The Echo option of a response, if any.
static void read_echo(const uint8_t *pdu, size_t length) {
  size_t at = 4 + (pdu[0] & 0x0F);
  unsigned number = 0;
  while (at < length && pdu[at] != 0xFF) {
    unsigned d = pdu[at] >> 4, l = pdu[at] & 0x0F;
    at++;
    if (d == 13) d = 13 + pdu[at++];
    else if (d == 14) { d = 269 + (pdu[at] << 8 | pdu[at + 1]); at += 2; }
    if (l == 13) l = 13 + pdu[at++];
    else if (l == 14) { l = 269 + (pdu[at] << 8 | pdu[at + 1]); at += 2; }
    number += d;
    if (number == 252 && l <= sizeof echo_value) {
      memcpy(echo_value, pdu + at, l);
      echo_length = l;
    }
    at += l;
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 6 && argc != 7) {
    fprintf(stderr, "usage: coap_load HOST PORT PATH?QUERY SECONDS CONCURRENCY [TOTAL]\n");
    return 2;
  }
  long total = argc == 7 ? atol(argv[6]) : -1, sent = 0;
  srandom((unsigned)getpid());
  const char *target = argv[3];
  double seconds = atof(argv[4]);
  int count = atoi(argv[5]);
  struct sockaddr_in server = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
  inet_pton(AF_INET, argv[1], &server.sin_addr);

  struct pollfd *fds = calloc((size_t)count, sizeof *fds);
  double *sent_at = calloc((size_t)count, sizeof *sent_at);
  uint16_t *ids = calloc((size_t)count, sizeof *ids);
  size_t capacity = 1 << 22, answered = 0;
  double *latency = malloc(capacity * sizeof *latency);
  long lost = 0, other = 0;
  uint16_t next_id = (uint16_t)getpid();
  uint8_t request[512], response[2048];

  for (int i = 0; i < count; i++) {
    fds[i].fd = socket(AF_INET, SOCK_DGRAM, 0);
    fds[i].events = POLLIN;
    connect(fds[i].fd, (struct sockaddr *)&server, sizeof server);
  }
  double start = now(), stop = start + seconds;
  for (int i = 0; i < count; i++) {
    ids[i] = next_id++;
    size_t length = build(request, ids[i], (uint32_t)i, target);
    send(fds[i].fd, request, length, 0);
    sent_at[i] = now();
    sent++;
  }
  while (now() < stop && (total < 0 || sent < total)) {
    int ready = poll(fds, (nfds_t)count, 100);
    double t = now();
    for (int i = 0; i < count; i++) {
      int resend = 0;
      if (ready > 0 && (fds[i].revents & POLLIN)) {
        ssize_t got = recv(fds[i].fd, response, sizeof response, 0);
        if (got < 4) continue;
        unsigned type = (response[0] >> 4) & 3, code = response[1];
        uint16_t id = (uint16_t)(response[2] << 8 | response[3]);
        if (type == 0) {  // a separate CON response: acknowledge it
          uint8_t ack[4] = {0x60, 0, response[2], response[3]};
          send(fds[i].fd, ack, 4, 0);
        } else if (id != ids[i]) {
          continue;  // an answer to an earlier try
        }
        if (code == 0) continue;  // an empty ACK: the answer comes separately
        if (code == 0x81) {       // 4.01: Echo
          read_echo(response, (size_t)got);
          resend = 1;
        } else {
          if ((code >> 5) == 2) {
            if (answered < capacity) latency[answered] = t - sent_at[i];
            answered++;
          } else {
            other++;
          }
          resend = 1;
        }
      } else if (t - sent_at[i] > 2.0) {
        lost++;
        resend = 1;
      }
      if (resend && total >= 0 && sent >= total) resend = 0;
      if (resend) {
        sent++;
        ids[i] = next_id++;
        size_t length = build(request, ids[i], (uint32_t)i, target);
        send(fds[i].fd, request, length, 0);
        sent_at[i] = now();
      }
    }
  }
  double elapsed = now() - start;
  size_t kept = answered < capacity ? answered : capacity;
  qsort(latency, kept, sizeof *latency, by_value);
  double p99 = kept ? latency[(size_t)((double)kept * 0.99)] * 1000.0 : 0;
  printf("%.0f %.3f %zu %ld %ld\n", (double)answered / elapsed, p99, answered, lost, other);
  return 0;
}
