/*
 * Request floods and their observers for the Skyframe abuse test (Benchmarks/load/abuse.sh) and
 * the watches test (Benchmarks/load/watches.sh).
 * Three roles, each one thread driving libmosquitto's external loop (poll on every socket,
 * mosquitto_loop_read / _write / _misc) as loadgen.c does:
 *
 *   abuse flood -p PORT -n COUNT -d DEVICE [-i IDS] [-c CELLS] [-o LAT,LON] [-s SEED] [-k CONNECTIONS]
 *               [-q QOS[,QOS...]] [-w WINDOW] [-t PREFIX] [-a SUFFIX] [-r]
 *     Publishes COUNT text requests as fast as the broker takes them. Request j comes from device
 *     DEVICE<j mod IDS> (DEVICE itself when IDS is 1) and asks for cell k = j mod CELLS of a grid
 *     100 cells wide: LAT + 0.01 (k / 100) + 0.003, LON + 0.01 (k mod 100) + 0.003, inside its
 *     0.01° cell whether the gateway floors or rounds. With -s, the CELLS cells are instead drawn
 *     at random (seeded, so a run can be repeated) from every 0.01° cell between 60° S and 70° N,
 *     all distinct, each asked at the same offset inside it. The device id is only in the topic, so
 *     a few connections publish for any number of devices; connection c uses the c-th QoS of the
 *     list (cycled). Each connection keeps at most WINDOW publishes not yet written (QoS 0) or
 *     acknowledged (QoS 1): memory stays bounded and the broker sets the pace.
 *     The topic is PREFIX (default skyframe/v1/req/) then the device id; SUFFIX is appended to
 *     every text; -r publishes retained. Watches, for example (Benchmarks/load/watches.sh):
 *       abuse flood -p PORT -n 2000 -d watch- -i 2000 -c 2000 -s 1 -t skyframe/v1/watch/ -a ' @60' -r
 *     publishes `LAT,LON @60` retained to skyframe/v1/watch/watch-<i> for 2,000 random cells.
 *     Prints: published=N failed=F seconds=S rate=R
 *
 *   abuse well -p PORT -m TEXT [-n DEVICES] [-R RATE] [-q QOS] [-T TIMEOUT_S]
 *     DEVICES well-behaved devices well-<i>, on one connection, asking RATE times a second in all:
 *     each asks every DEVICES / RATE seconds and never before its previous answer (a paced closed
 *     loop); an answer later than TIMEOUT_S is a timeout. Runs until SIGTERM or SIGINT, then waits
 *     up to TIMEOUT_S for the answers still out.
 *     Prints: requests=N ok=K not_ok=X timeouts=T unanswered=U p50_us= p99_us= max_us= [STATUS=N...]
 *     (latencies of `ok` frames only).
 *
 *   abuse watch -p PORT [-P PID] [-d DEVICE -i IDS]
 *     Counts every frame on skyframe/v1/frame/# by device group (well-*, flood-b*, other flood-*,
 *     anything else) and status byte, and samples VmRSS of PID every 100 ms. Prints
 *     `frames=N flood_frames=F last_flood_ns=T rss_kb=R rss_max_kb=M` every 100 ms (T: when the
 *     last flood frame came, CLOCK_REALTIME in ns, 0 before any), and on SIGTERM or SIGINT one
 *     line per group that saw frames and the RSS maximum. With -d and -i, frames for devices
 *     DEVICE0 … DEVICE<IDS-1> (also on their slot topics) are their own group, named DEVICE, and
 *     are counted per device: every line adds `devices=K devices_ok=J` (how many of them had a
 *     frame, and an `ok` frame); the last adds the fewest and most frames a device had
 *     (`per_device_min= per_device_max=`).
 *
 * Exit status: 2 on usage errors, 1 when the broker could not be reached or nothing came back.
 */
#define _POSIX_C_SOURCE 200809L

#include <mosquitto.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FRAME_SIZE 192
#define STATUS_OFFSET 3 /* frame-v1 §3: the status byte; 0 is `ok` */
#define FRAME_PREFIX "skyframe/v1/frame/"
#define CONNECTIONS_MAX 64
#define QOS_MAX 8

static const char *const status_names[] = {"ok", "stale", "not_found", "bad_request", "upstream_unavailable",
                                           "rate_limited", "too_many_locations", "internal_error"};

static volatile sig_atomic_t stop_requested = 0;
static const char *host = "127.0.0.1";
static int port = 0;

struct conn {
  struct mosquitto *m;
  int qos;
  int connected;
  int dead;
  long outstanding; /* flood: publishes not yet written (QoS 0) or acknowledged (QoS 1) */
};

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void usage(void) {
  fprintf(stderr,
          "usage: abuse flood -p PORT -n COUNT -d DEVICE [-i IDS] [-c CELLS] [-o LAT,LON] [-s SEED]\n"
          "                   [-k CONNECTIONS] [-q QOS[,QOS...]] [-w WINDOW] [-t PREFIX] [-a SUFFIX] [-r]\n"
          "       abuse well -p PORT -m TEXT [-n DEVICES] [-R RATE] [-q QOS] [-T TIMEOUT_S]\n"
          "       abuse watch -p PORT [-P PID] [-d DEVICE -i IDS]\n");
  exit(2);
}

static void status_name(int status, char *out, size_t size) {
  if (status < (int)(sizeof status_names / sizeof *status_names)) {
    snprintf(out, size, "%s", status_names[status]);
  } else {
    snprintf(out, size, "status_%d", status);
  }
}

static void on_connect(struct mosquitto *m, void *obj, int rc) {
  (void)m;
  struct conn *c = obj;
  if (rc != 0) {
    fprintf(stderr, "abuse: connection refused: %s\n", mosquitto_connack_string(rc));
    c->dead = 1;
    return;
  }
  c->connected = 1;
}

/* A client with the callbacks every role needs; 0 when it cannot even start connecting. */
static int open_conn(struct conn *c, const char *id) {
  c->m = mosquitto_new(id, true, c);
  if (!c->m) return 0;
  mosquitto_int_option(c->m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
  mosquitto_int_option(c->m, MOSQ_OPT_TCP_NODELAY, 1);
  mosquitto_connect_callback_set(c->m, on_connect);
  int rc = mosquitto_connect(c->m, host, port, 60);
  if (rc != MOSQ_ERR_SUCCESS) {
    fprintf(stderr, "abuse: connect %s:%d: %s\n", host, port, mosquitto_strerror(rc));
    c->dead = 1;
    return 0;
  }
  return 1;
}

/* One pass of the loop over every connection, waiting at most timeout_ms for a socket. */
static void pump(struct conn *conns, int count, int timeout_ms) {
  static uint64_t last_misc = 0;
  struct pollfd fds[CONNECTIONS_MAX];
  for (int i = 0; i < count; i++) {
    fds[i].fd = conns[i].dead ? -1 : mosquitto_socket(conns[i].m);
    fds[i].events = (short)(POLLIN | (!conns[i].dead && mosquitto_want_write(conns[i].m) ? POLLOUT : 0));
    fds[i].revents = 0;
  }
  int n = poll(fds, (nfds_t)count, timeout_ms);
  for (int i = 0; n > 0 && i < count; i++) {
    if (!fds[i].revents) continue;
    n--;
    struct conn *c = &conns[i];
    int rc = MOSQ_ERR_SUCCESS;
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) rc = mosquitto_loop_read(c->m, 1);
    /* What a callback queued goes out now, not after the next poll. */
    if (rc == MOSQ_ERR_SUCCESS && ((fds[i].revents & POLLOUT) || mosquitto_want_write(c->m)))
      rc = mosquitto_loop_write(c->m, 1);
    if (rc != MOSQ_ERR_SUCCESS) {
      fprintf(stderr, "abuse: connection %d lost: %s\n", i, mosquitto_strerror(rc));
      c->dead = 1;
    }
  }
  uint64_t now = now_ns();
  if (now - last_misc > 1000000000u) {
    last_misc = now;
    for (int i = 0; i < count; i++)
      if (!conns[i].dead) mosquitto_loop_misc(conns[i].m);
  }
}

/* Waits up to 10 s for every CONNACK; 0 when one did not come. */
static int wait_connected(struct conn *conns, int count) {
  uint64_t deadline = now_ns() + 10000000000u;
  for (;;) {
    int pending = 0;
    for (int i = 0; i < count; i++) {
      if (conns[i].dead) return 0;
      pending += !conns[i].connected;
    }
    if (!pending) return 1;
    if (now_ns() > deadline || stop_requested) return 0;
    pump(conns, count, 20);
  }
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static double percentile_us(const uint64_t *sorted, size_t n, double p) {
  if (n == 0) return 0;
  size_t rank = (size_t)(p * (double)n + 0.999999999); /* nearest rank, 1-based */
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return (double)sorted[rank - 1] / 1000.0;
}

/* ---- flood ---- */

static void flood_on_publish(struct mosquitto *m, void *obj, int mid) {
  (void)m, (void)mid;
  ((struct conn *)obj)->outstanding--;
}

/* Random cells between 60° S and 70° N, as (lat, lon) in hundredths of a degree. */
#define RANDOM_LAT_MIN (-6000)
#define RANDOM_LAT_CELLS 13000L
#define RANDOM_LON_MIN (-18000)
#define RANDOM_LON_CELLS 36000L

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* `cells` distinct cells drawn from the random area, as cell numbers lat * LON_CELLS + lon (an open
 * addressing set of twice the size keeps them distinct). */
static long *random_cells(long cells, uint64_t seed) {
  long *out = malloc((size_t)cells * sizeof *out);
  size_t slots = 2;
  while (slots < 2 * (size_t)cells) slots *= 2;
  long *set = malloc(slots * sizeof *set);
  if (!out || !set) abort();
  for (size_t i = 0; i < slots; i++) set[i] = -1;
  uint64_t state = seed;
  for (long k = 0; k < cells;) {
    long cell = (long)(splitmix64(&state) % (uint64_t)(RANDOM_LAT_CELLS * RANDOM_LON_CELLS));
    size_t slot = (size_t)cell * 0x9e3779b1u & (slots - 1);
    while (set[slot] != -1 && set[slot] != cell) slot = (slot + 1) & (slots - 1);
    if (set[slot] == cell) continue;
    set[slot] = cell;
    out[k++] = cell;
  }
  free(set);
  return out;
}

static int flood(int argc, char **argv) {
  long count = 0, ids = 1, cells = 10000, window = 1000;
  int connections = 1, qos_list[QOS_MAX] = {1}, qos_count = 1, retain = 0, seeded = 0;
  double origin_lat = 40.0, origin_lon = 10.0;
  uint64_t seed = 0;
  const char *device = NULL, *prefix = "skyframe/v1/req/", *suffix = "";
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-r") == 0) {
      retain = 1;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char *flag = argv[i], *value = argv[++i];
    if (strcmp(flag, "-p") == 0) port = atoi(value);
    else if (strcmp(flag, "-h") == 0) host = value;
    else if (strcmp(flag, "-n") == 0) count = atol(value);
    else if (strcmp(flag, "-d") == 0) device = value;
    else if (strcmp(flag, "-i") == 0) ids = atol(value);
    else if (strcmp(flag, "-c") == 0) cells = atol(value);
    else if (strcmp(flag, "-k") == 0) connections = atoi(value);
    else if (strcmp(flag, "-w") == 0) window = atol(value);
    else if (strcmp(flag, "-t") == 0) prefix = value;
    else if (strcmp(flag, "-a") == 0) suffix = value;
    else if (strcmp(flag, "-s") == 0) {
      seed = strtoull(value, NULL, 10);
      seeded = 1;
    } else if (strcmp(flag, "-o") == 0) {
      if (sscanf(value, "%lf,%lf", &origin_lat, &origin_lon) != 2) usage();
    } else if (strcmp(flag, "-q") == 0) {
      qos_count = 0;
      for (const char *p = value; *p && qos_count < QOS_MAX; p += strcspn(p, ","), p += *p == ',') {
        qos_list[qos_count] = atoi(p);
        if (qos_list[qos_count] < 0 || qos_list[qos_count] > 2) usage();
        qos_count++;
      }
      if (!qos_count) usage();
    } else usage();
  }
  if (port < 1 || port > 65535 || count < 1 || !device || ids < 1 || cells < 1 || connections < 1 ||
      connections > CONNECTIONS_MAX || window < 1 || strlen(prefix) > 64 || strlen(suffix) > 32 ||
      (seeded && cells > RANDOM_LAT_CELLS * RANDOM_LON_CELLS / 4))
    usage();
  long *random = seeded ? random_cells(cells, seed) : NULL;

  struct conn conns[CONNECTIONS_MAX];
  memset(conns, 0, sizeof conns);
  for (int i = 0; i < connections; i++) {
    char id[40];
    snprintf(id, sizeof id, "abuse-flood-%ld-%d", (long)getpid(), i);
    conns[i].qos = qos_list[i % qos_count];
    if (!open_conn(&conns[i], id)) return 1;
    mosquitto_publish_callback_set(conns[i].m, flood_on_publish);
  }
  if (!wait_connected(conns, connections)) {
    fprintf(stderr, "abuse: flood connections did not come up\n");
    return 1;
  }

  uint64_t start = now_ns();
  long next = 0, failed = 0;
  while (!stop_requested) {
    int open = 0;
    long outstanding = 0;
    for (int i = 0; i < connections; i++) {
      struct conn *c = &conns[i];
      if (c->dead) continue;
      open++;
      while (c->outstanding < window && next < count) {
        char topic[128], text[96];
        long k = next % cells;
        if (ids == 1) snprintf(topic, sizeof topic, "%s%.32s", prefix, device);
        else snprintf(topic, sizeof topic, "%s%.32s%ld", prefix, device, next % ids);
        double lat = origin_lat + 0.01 * (double)(k / 100), lon = origin_lon + 0.01 * (double)(k % 100);
        if (random) {
          lat = 0.01 * (double)(RANDOM_LAT_MIN + random[k] / RANDOM_LON_CELLS);
          lon = 0.01 * (double)(RANDOM_LON_MIN + random[k] % RANDOM_LON_CELLS);
        }
        int length = snprintf(text, sizeof text, "%.3f,%.3f%s", lat + 0.003, lon + 0.003, suffix);
        next++;
        if (mosquitto_publish(c->m, NULL, topic, length, text, c->qos, retain) != MOSQ_ERR_SUCCESS) {
          failed++;
          break;
        }
        c->outstanding++;
      }
      outstanding += c->outstanding;
    }
    if (!open || (next >= count && outstanding == 0)) break;
    pump(conns, connections, 10);
  }
  double elapsed = (double)(now_ns() - start) / 1e9;
  /* What a lost connection still held, and what was never sent, did not reach the broker. */
  for (int i = 0; i < connections; i++) {
    if (conns[i].dead) failed += conns[i].outstanding;
    if (!conns[i].dead) {
      mosquitto_disconnect(conns[i].m);
      mosquitto_loop_write(conns[i].m, 1);
    }
    mosquitto_destroy(conns[i].m);
  }
  free(random);
  failed += count - next;
  long published = count - failed;
  printf("published=%ld failed=%ld seconds=%.2f rate=%.0f\n", published, failed, elapsed,
         elapsed > 0 ? (double)published / elapsed : 0.0);
  return published > 0 ? 0 : 1;
}

/* ---- well ---- */

struct well_device {
  int waiting;
  uint64_t sent_ns, due_ns;
};

static struct {
  struct well_device *devices;
  int count;
  int subscribed;
  uint64_t *latencies;
  size_t latency_count, latency_capacity;
  /* The slowest answers: latency and when the request was sent (CLOCK_REALTIME ns). */
  uint64_t slowest[5][2];
  unsigned long long requests, ok, not_ok, wrong_size, unexpected, timeouts;
  unsigned long long by_status[256];
} well;

static void well_on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
  (void)m, (void)obj, (void)mid;
  if (count < 1 || granted[0] > 2) {
    fprintf(stderr, "abuse: well subscription refused\n");
    return;
  }
  well.subscribed++;
}

static void well_on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *message) {
  (void)m, (void)obj;
  uint64_t now = now_ns();
  const char *prefix = FRAME_PREFIX "well-";
  size_t length = strlen(prefix);
  if (strncmp(message->topic, prefix, length) != 0) return;
  int index = atoi(message->topic + length);
  if (index < 0 || index >= well.count || !well.devices[index].waiting) {
    well.unexpected++;
    return;
  }
  struct well_device *d = &well.devices[index];
  d->waiting = 0;
  if (message->payloadlen != FRAME_SIZE) {
    well.wrong_size++;
    return;
  }
  int status = ((const unsigned char *)message->payload)[STATUS_OFFSET];
  if (status != 0) {
    well.not_ok++;
    well.by_status[status]++;
    return;
  }
  well.ok++;
  if (well.latency_count == well.latency_capacity) {
    well.latency_capacity = well.latency_capacity ? 2 * well.latency_capacity : 4096;
    well.latencies = realloc(well.latencies, well.latency_capacity * sizeof *well.latencies);
    if (!well.latencies) abort();
  }
  well.latencies[well.latency_count++] = now - d->sent_ns;
  /* Keep the five slowest, with the wall-clock time of their request (to place them against
     the floods' start, which the script takes with `date +%s%N`). */
  uint64_t latency = now - d->sent_ns;
  int low = 0;
  for (int k = 1; k < 5; k++)
    if (well.slowest[k][0] < well.slowest[low][0]) low = k;
  if (latency > well.slowest[low][0]) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t wall = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    well.slowest[low][0] = latency;
    well.slowest[low][1] = wall - latency;
  }
}

static int run_well(int argc, char **argv) {
  int qos = 1;
  double rate = 20.0, timeout = 5.0;
  const char *text = NULL;
  well.count = 50;
  for (int i = 0; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *flag = argv[i], *value = argv[++i];
    if (strcmp(flag, "-p") == 0) port = atoi(value);
    else if (strcmp(flag, "-h") == 0) host = value;
    else if (strcmp(flag, "-n") == 0) well.count = atoi(value);
    else if (strcmp(flag, "-R") == 0) rate = atof(value);
    else if (strcmp(flag, "-m") == 0) text = value;
    else if (strcmp(flag, "-q") == 0) qos = atoi(value);
    else if (strcmp(flag, "-T") == 0) timeout = atof(value);
    else usage();
  }
  if (port < 1 || port > 65535 || !text || well.count < 1 || well.count > 100000 || rate <= 0 || qos < 0 ||
      qos > 2 || timeout <= 0)
    usage();
  well.devices = calloc((size_t)well.count, sizeof *well.devices);
  if (!well.devices) abort();

  struct conn conn;
  memset(&conn, 0, sizeof conn);
  char id[40];
  snprintf(id, sizeof id, "abuse-well-%ld", (long)getpid());
  if (!open_conn(&conn, id)) return 1;
  mosquitto_subscribe_callback_set(conn.m, well_on_subscribe);
  mosquitto_message_callback_set(conn.m, well_on_message);
  if (!wait_connected(&conn, 1)) {
    fprintf(stderr, "abuse: well connection did not come up\n");
    return 1;
  }
  /* One subscription per device: a filter like frame/+ would bring every flood answer here too. */
  for (int i = 0; i < well.count; i++) {
    char topic[64];
    snprintf(topic, sizeof topic, FRAME_PREFIX "well-%d", i);
    mosquitto_subscribe(conn.m, NULL, topic, qos);
  }
  uint64_t deadline = now_ns() + 10000000000u;
  while (well.subscribed < well.count && !conn.dead && now_ns() < deadline) pump(&conn, 1, 20);
  if (well.subscribed < well.count) {
    fprintf(stderr, "abuse: only %d of %d well-behaved subscriptions acknowledged\n", well.subscribed, well.count);
    return 1;
  }
  fprintf(stderr, "abuse: well subscribed\n");

  const uint64_t period = (uint64_t)((double)well.count / rate * 1e9);
  const uint64_t timeout_ns = (uint64_t)(timeout * 1e9);
  uint64_t start = now_ns();
  /* Spread over one period, so the devices do not ask in step. */
  for (int i = 0; i < well.count; i++) well.devices[i].due_ns = start + period / (uint64_t)well.count * (uint64_t)i;
  while (!stop_requested && !conn.dead) {
    uint64_t now = now_ns();
    for (int i = 0; i < well.count; i++) {
      struct well_device *d = &well.devices[i];
      if (d->waiting && now - d->sent_ns > timeout_ns) {
        well.timeouts++;
        d->waiting = 0;
      }
      if (d->waiting || now < d->due_ns) continue;
      char topic[64];
      snprintf(topic, sizeof topic, "skyframe/v1/req/well-%d", i);
      d->sent_ns = now;
      d->waiting = 1;
      /* A late answer delays the next request; it does not make the device catch up in a burst. */
      d->due_ns = d->due_ns + period > now ? d->due_ns + period : now;
      well.requests++;
      mosquitto_publish(conn.m, NULL, topic, (int)strlen(text), text, qos, false);
    }
    pump(&conn, 1, 5);
  }
  deadline = now_ns() + timeout_ns;
  unsigned long long unanswered;
  for (;;) {
    unanswered = 0;
    for (int i = 0; i < well.count; i++) unanswered += well.devices[i].waiting;
    if (!unanswered || conn.dead || now_ns() > deadline) break;
    pump(&conn, 1, 10);
  }
  if (!conn.dead) {
    mosquitto_disconnect(conn.m);
    mosquitto_loop_write(conn.m, 1);
  }
  mosquitto_destroy(conn.m);

  qsort(well.latencies, well.latency_count, sizeof *well.latencies, compare_u64);
  printf("requests=%llu ok=%llu not_ok=%llu timeouts=%llu unanswered=%llu p50_us=%.0f p99_us=%.0f max_us=%.0f",
         well.requests, well.ok, well.not_ok, well.timeouts, unanswered,
         percentile_us(well.latencies, well.latency_count, 0.50),
         percentile_us(well.latencies, well.latency_count, 0.99),
         well.latency_count ? (double)well.latencies[well.latency_count - 1] / 1000.0 : 0.0);
  for (int k = 1; k < 256; k++) {
    if (!well.by_status[k]) continue;
    char name[32];
    status_name(k, name, sizeof name);
    printf(" %s=%llu", name, well.by_status[k]);
  }
  if (well.wrong_size) printf(" wrong_size=%llu", well.wrong_size);
  if (well.unexpected) printf(" unexpected=%llu", well.unexpected);
  printf(" slowest=");
  for (int k = 0; k < 5; k++)
    printf("%s%llu@%llu", k ? "," : "", (unsigned long long)(well.slowest[k][0] / 1000),
           (unsigned long long)well.slowest[k][1]);
  printf("\n");
  return well.ok > 0 ? 0 : 1;
}

/* ---- watch ---- */

enum { GROUP_WELL, GROUP_FLOOD_B, GROUP_FLOOD, GROUP_OTHER, GROUP_DEVICES, GROUPS };
static const char *group_names[GROUPS] = {"well", "flood_b", "flood_a", "other", "devices"};

static struct {
  int subscribed;
  unsigned long long frames, flood_frames;
  /* When the last flood frame came (CLOCK_REALTIME, ns: the clock of `date +%s%N`). */
  unsigned long long last_flood_ns;
  unsigned long long counts[GROUPS][257]; /* by status byte; [256]: not 192 bytes */
  /* -d DEVICE -i IDS: frames and `ok` frames per device DEVICE<i>, and how many had any. */
  const char *device;
  size_t device_length;
  long ids, seen, seen_ok;
  unsigned *per_device, *per_device_ok;
} watch;

/* The index i of a topic's device DEVICE<i> (slot topics DEVICE<i>/<slot> too), or -1. */
static long watched_index(const char *device) {
  if (!watch.device || strncmp(device, watch.device, watch.device_length) != 0) return -1;
  const char *digits = device + watch.device_length;
  char *end;
  if (*digits < '0' || *digits > '9') return -1;
  long index = strtol(digits, &end, 10);
  if ((*end != '\0' && *end != '/') || index >= watch.ids) return -1;
  return index;
}

static void watch_on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
  (void)m, (void)obj, (void)mid;
  if (count >= 1 && granted[0] <= 2) watch.subscribed = 1;
}

static void watch_on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *message) {
  (void)m, (void)obj;
  const char *device = message->topic + (sizeof FRAME_PREFIX - 1);
  long index = watched_index(device);
  int group = index >= 0                           ? GROUP_DEVICES
              : strncmp(device, "well-", 5) == 0    ? GROUP_WELL
              : strncmp(device, "flood-b", 7) == 0 ? GROUP_FLOOD_B
              : strncmp(device, "flood-", 6) == 0  ? GROUP_FLOOD
                                                    : GROUP_OTHER;
  int status = message->payloadlen == FRAME_SIZE ? ((const unsigned char *)message->payload)[STATUS_OFFSET] : 256;
  if (index >= 0) {
    watch.seen += watch.per_device[index]++ == 0;
    if (status == 0) watch.seen_ok += watch.per_device_ok[index]++ == 0;
  }
  watch.counts[group][status]++;
  watch.frames++;
  if (group == GROUP_FLOOD || group == GROUP_FLOOD_B) {
    watch.flood_frames++;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    watch.last_flood_ns = (unsigned long long)t.tv_sec * 1000000000u + (unsigned long long)t.tv_nsec;
  }
}

/* VmRSS of a process in kB; -1 once it is gone. */
static long rss_kb(long pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long value = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &value) == 1) break;
  fclose(f);
  return value;
}

static int run_watch(int argc, char **argv) {
  long pid = 0;
  for (int i = 0; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *flag = argv[i], *value = argv[++i];
    if (strcmp(flag, "-p") == 0) port = atoi(value);
    else if (strcmp(flag, "-h") == 0) host = value;
    else if (strcmp(flag, "-P") == 0) pid = atol(value);
    else if (strcmp(flag, "-d") == 0) watch.device = value;
    else if (strcmp(flag, "-i") == 0) watch.ids = atol(value);
    else usage();
  }
  if (port < 1 || port > 65535 || pid < 0 || (watch.device != NULL) != (watch.ids > 0) || watch.ids < 0 ||
      watch.ids > 10000000)
    usage();
  if (watch.device) {
    watch.device_length = strlen(watch.device);
    group_names[GROUP_DEVICES] = watch.device;
    watch.per_device = calloc((size_t)watch.ids, sizeof *watch.per_device);
    watch.per_device_ok = calloc((size_t)watch.ids, sizeof *watch.per_device_ok);
    if (!watch.per_device || !watch.per_device_ok) abort();
  }

  struct conn conn;
  memset(&conn, 0, sizeof conn);
  char id[40];
  snprintf(id, sizeof id, "abuse-watch-%ld", (long)getpid());
  if (!open_conn(&conn, id)) return 1;
  mosquitto_subscribe_callback_set(conn.m, watch_on_subscribe);
  mosquitto_message_callback_set(conn.m, watch_on_message);
  if (!wait_connected(&conn, 1)) {
    fprintf(stderr, "abuse: watch connection did not come up\n");
    return 1;
  }
  /* QoS 0: counting must not add acknowledgements to the broker's work. */
  mosquitto_subscribe(conn.m, NULL, FRAME_PREFIX "#", 0);
  uint64_t deadline = now_ns() + 10000000000u;
  while (!watch.subscribed && !conn.dead && now_ns() < deadline) pump(&conn, 1, 20);
  if (!watch.subscribed) {
    fprintf(stderr, "abuse: watch subscription not acknowledged\n");
    return 1;
  }
  fprintf(stderr, "abuse: watch subscribed\n");

  long rss = pid ? rss_kb(pid) : -1, rss_max = rss;
  uint64_t last_sample = now_ns(), last_print = 0;
  while (!stop_requested && !conn.dead) {
    pump(&conn, 1, 20);
    uint64_t now = now_ns();
    if (pid && now - last_sample >= 100000000u) {
      last_sample = now;
      rss = rss_kb(pid);
      if (rss > rss_max) rss_max = rss;
    }
    if (now - last_print >= 100000000u) {
      last_print = now;
      printf("frames=%llu flood_frames=%llu last_flood_ns=%llu rss_kb=%ld rss_max_kb=%ld", watch.frames,
             watch.flood_frames, watch.last_flood_ns, rss, rss_max);
      if (watch.device) printf(" devices=%ld devices_ok=%ld", watch.seen, watch.seen_ok);
      printf("\n");
      fflush(stdout);
    }
  }
  if (!conn.dead) mosquitto_disconnect(conn.m);
  mosquitto_destroy(conn.m);

  for (int g = 0; g < GROUPS; g++) {
    unsigned long long total = 0;
    for (int s = 0; s < 257; s++) total += watch.counts[g][s];
    if (!total) continue;
    printf("%s: frames=%llu", group_names[g], total);
    for (int s = 0; s < 257; s++) {
      if (!watch.counts[g][s]) continue;
      char name[32];
      if (s == 256) snprintf(name, sizeof name, "wrong_size");
      else status_name(s, name, sizeof name);
      printf(" %s=%llu", name, watch.counts[g][s]);
    }
    printf("\n");
  }
  printf("frames=%llu flood_frames=%llu last_flood_ns=%llu rss_kb=%ld rss_max_kb=%ld", watch.frames,
         watch.flood_frames, watch.last_flood_ns, rss, rss_max);
  if (watch.device) {
    unsigned low = watch.ids ? watch.per_device[0] : 0, high = low;
    for (long i = 1; i < watch.ids; i++) {
      if (watch.per_device[i] < low) low = watch.per_device[i];
      if (watch.per_device[i] > high) high = watch.per_device[i];
    }
    printf(" devices=%ld devices_ok=%ld per_device_min=%u per_device_max=%u", watch.seen, watch.seen_ok, low, high);
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) usage();
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal; /* no SA_RESTART: poll returns at once */
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  setvbuf(stdout, NULL, _IOLBF, 0);

  mosquitto_lib_init();
  int status;
  if (strcmp(argv[1], "flood") == 0) status = flood(argc - 2, argv + 2);
  else if (strcmp(argv[1], "well") == 0) status = run_well(argc - 2, argv + 2);
  else if (strcmp(argv[1], "watch") == 0) status = run_watch(argc - 2, argv + 2);
  else usage();
  mosquitto_lib_cleanup();
  return status;
}
