/*
 * Load generator for the Skyframe load benchmark.
 *
 * N devices, one libmosquitto client each (client id and device id load-<run>-<i>), driven by a
 * few threads; each thread owns a fixed subset of the clients and runs libmosquitto's external
 * loop over them (poll on every socket, mosquitto_loop_read / _write / _misc), so all callbacks of
 * a device run on its owner thread and no locks are needed.
 *
 * Every device subscribes skyframe/v1/frame/<id> and waits for the SUBACK; when all are ready,
 * each runs a closed loop: publish the request on skyframe/v1/req/<id>, wait for its frame,
 * record the latency (CLOCK_MONOTONIC), publish the next. Answers arriving during the warm-up are
 * not counted; answers arriving in [warm-up end, warm-up end + duration) are counted and their
 * latencies kept in a preallocated array, sorted at the end. After the measured period no new
 * request is sent and outstanding ones get a short drain.
 *
 * Output, one line on standard output:
 *   devices=N requests=R seconds=S rps=X p50_us=A p99_us=B max_us=M errors=E [NAME_... per -P]
 * Details on standard error. Exit status 1 when no ok answer arrived, 3 when devices could not
 * connect and subscribe, 2 on usage errors. requests, rps and the latencies count only `ok` frames.
 *
 * errors = timeouts (no answer within -T s; the request is sent again) + answers of the wrong
 * size + frames whose status is not `ok` (frame-v1 §5.1: a `rate_limited` frame is an answer, not
 * the weather asked for) + answers nobody waited for + lost connections + failed publishes +
 * requests still unanswered after the drain.
 *
 * -P NAME:PID (repeatable) watches another process over exactly the measured period: CPU
 * (utime + stime of /proc/PID/stat) and context switches (voluntary + nonvoluntary, summed over
 * every thread in /proc/PID/task) per ok answer, and its CPU in % of one core:
 *   NAME_cpu_us_req=C NAME_ctx_req=X NAME_cpu_pct=P
 * The load generator itself is always reported as "loadgen".
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <mosquitto.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define FRAME_SIZE 192
#define STATUS_OFFSET 3 /* frame-v1 §3: the status byte; 0 is `ok` */
#define TEXT_MAX 256
#define WATCH_MAX 4

enum phase { PHASE_CONNECT, PHASE_RUN, PHASE_DRAIN, PHASE_STOP };
enum state { DEV_CONNECTING, DEV_IDLE, DEV_WAITING, DEV_DONE, DEV_DEAD };

struct worker;

struct device {
  struct mosquitto *m;
  struct worker *worker;
  int index;
  enum state state;
  uint64_t sent_ns;
  int text_length;
  char id[48];
  char request_topic[80];
  char frame_topic[80];
  char text[TEXT_MAX];
};

struct worker {
  struct device *devices;
  int count;
  uint64_t *latencies; /* nanoseconds */
  size_t latency_count;
  size_t latency_capacity;
  uint64_t overflow;
  uint64_t answers_total;
  uint64_t timeouts, wrong_size, unexpected, lost, publish_failed, unanswered;
  uint64_t not_ok[256]; /* frames by status byte, `ok` excluded */
  pthread_t thread;
};

static struct {
  const char *host;
  int port;
  int devices;
  int threads;
  double warmup;
  double duration;
  double timeout;
  int qos;
  int version;
  int nodelay;
  const char *text;
  char run[24];
} config = {"127.0.0.1", 0, 16, 2, 2.0, 10.0, 5.0, 1, MQTT_PROTOCOL_V5, 1, "52.52,13.41", ""};

static atomic_int phase = PHASE_CONNECT;
static atomic_int ready = 0;
static atomic_int failed = 0;
static atomic_int finished = 0;
/* Written before phase becomes PHASE_RUN (release), read after (acquire). */
static uint64_t measure_start_ns, measure_end_ns;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ns(uint64_t ns) {
  struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  nanosleep(&t, NULL);
}

static void send_request(struct device *d) {
  d->sent_ns = now_ns();
  d->state = DEV_WAITING;
  int rc = mosquitto_publish(d->m, NULL, d->request_topic, d->text_length, d->text, config.qos, false);
  if (rc != MOSQ_ERR_SUCCESS) d->worker->publish_failed++; /* the timeout sends it again */
}

static void on_connect(struct mosquitto *m, void *obj, int rc) {
  struct device *d = obj;
  if (rc != 0) {
    fprintf(stderr, "loadgen: %s refused: %s\n", d->id, mosquitto_connack_string(rc));
    d->state = DEV_DEAD;
    atomic_fetch_add(&failed, 1);
    return;
  }
  rc = mosquitto_subscribe(m, NULL, d->frame_topic, config.qos);
  if (rc != MOSQ_ERR_SUCCESS) {
    fprintf(stderr, "loadgen: %s subscribe: %s\n", d->id, mosquitto_strerror(rc));
    d->state = DEV_DEAD;
    atomic_fetch_add(&failed, 1);
  }
}

static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
  (void)m, (void)mid;
  struct device *d = obj;
  if (d->state != DEV_CONNECTING) return;
  if (count < 1 || granted[0] > 2) {
    fprintf(stderr, "loadgen: %s subscription refused\n", d->id);
    d->state = DEV_DEAD;
    atomic_fetch_add(&failed, 1);
    return;
  }
  d->state = DEV_IDLE;
  atomic_fetch_add(&ready, 1);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *message) {
  (void)m;
  uint64_t now = now_ns();
  struct device *d = obj;
  struct worker *w = d->worker;
  if (d->state != DEV_WAITING) {
    w->unexpected++;
    return;
  }
  if (message->payloadlen != FRAME_SIZE) {
    w->wrong_size++;
  } else if (((const unsigned char *)message->payload)[STATUS_OFFSET] != 0) {
    w->not_ok[((const unsigned char *)message->payload)[STATUS_OFFSET]]++;
  } else {
    w->answers_total++;
    if (now >= measure_start_ns && now < measure_end_ns) {
      if (w->latency_count < w->latency_capacity) {
        w->latencies[w->latency_count++] = now - d->sent_ns;
      } else {
        w->overflow++;
      }
    }
  }
  if (now < measure_end_ns) {
    send_request(d); /* queued: the loop writes it right after this callback returns */
  } else {
    d->state = DEV_DONE;
  }
}

static void device_lost(struct device *d, int rc) {
  if (d->state == DEV_DEAD) return;
  fprintf(stderr, "loadgen: %s: %s\n", d->id, mosquitto_strerror(rc));
  if (d->state == DEV_CONNECTING) atomic_fetch_add(&failed, 1);
  d->state = DEV_DEAD;
  d->worker->lost++;
}

static void *run_worker(void *argument) {
  struct worker *w = argument;
  for (int i = 0; i < w->count; i++) {
    struct device *d = &w->devices[i];
    d->m = mosquitto_new(d->id, true, d);
    if (!d->m) {
      fprintf(stderr, "loadgen: mosquitto_new failed\n");
      d->state = DEV_DEAD;
      atomic_fetch_add(&failed, 1);
      continue;
    }
    mosquitto_int_option(d->m, MOSQ_OPT_PROTOCOL_VERSION, config.version);
    if (config.nodelay) mosquitto_int_option(d->m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(d->m, on_connect);
    mosquitto_subscribe_callback_set(d->m, on_subscribe);
    mosquitto_message_callback_set(d->m, on_message);
    int rc = mosquitto_connect(d->m, config.host, config.port, 60);
    if (rc != MOSQ_ERR_SUCCESS) {
      fprintf(stderr, "loadgen: %s connect: %s\n", d->id, mosquitto_strerror(rc));
      d->state = DEV_DEAD;
      atomic_fetch_add(&failed, 1);
    }
  }

  struct pollfd *fds = calloc((size_t)w->count, sizeof *fds);
  if (!fds) abort();
  int started = 0;
  uint64_t last_misc = now_ns(), last_scan = last_misc;
  const uint64_t timeout_ns = (uint64_t)(config.timeout * 1e9);
  for (;;) {
    int current = atomic_load_explicit(&phase, memory_order_acquire);
    if (current == PHASE_STOP) break;
    if (current >= PHASE_RUN && !started) {
      started = 1;
      for (int i = 0; i < w->count; i++)
        if (w->devices[i].state == DEV_IDLE) send_request(&w->devices[i]);
    }
    if (current == PHASE_DRAIN) {
      int waiting = 0;
      for (int i = 0; i < w->count; i++) waiting += w->devices[i].state == DEV_WAITING;
      if (!waiting) break;
    }

    for (int i = 0; i < w->count; i++) {
      struct device *d = &w->devices[i];
      fds[i].fd = d->state == DEV_DEAD ? -1 : mosquitto_socket(d->m);
      fds[i].events = (short)(POLLIN | (mosquitto_want_write(d->m) ? POLLOUT : 0));
      fds[i].revents = 0;
    }
    int n = poll(fds, (nfds_t)w->count, 20);
    for (int i = 0; n > 0 && i < w->count; i++) {
      if (!fds[i].revents) continue;
      n--;
      struct device *d = &w->devices[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        int rc = mosquitto_loop_read(d->m, 1);
        if (rc != MOSQ_ERR_SUCCESS) {
          device_lost(d, rc);
          continue;
        }
      }
      /* A publish from the message callback is only queued: write it now, not after the next poll. */
      if ((fds[i].revents & POLLOUT) || mosquitto_want_write(d->m)) {
        int rc = mosquitto_loop_write(d->m, 1);
        if (rc != MOSQ_ERR_SUCCESS) device_lost(d, rc);
      }
    }

    uint64_t now = now_ns();
    if (now - last_misc > 1000000000u) {
      last_misc = now;
      for (int i = 0; i < w->count; i++)
        if (w->devices[i].state != DEV_DEAD) mosquitto_loop_misc(w->devices[i].m);
    }
    if (started && now - last_scan > 100000000u) {
      last_scan = now;
      for (int i = 0; i < w->count; i++) {
        struct device *d = &w->devices[i];
        if (d->state == DEV_WAITING && now - d->sent_ns > timeout_ns) {
          w->timeouts++;
          if (now < measure_end_ns) {
            send_request(d);
          } else {
            d->state = DEV_DONE;
          }
        }
      }
    }
  }

  for (int i = 0; i < w->count; i++) {
    struct device *d = &w->devices[i];
    if (d->state == DEV_WAITING) w->unanswered++;
    if (!d->m) continue;
    if (d->state != DEV_DEAD) {
      mosquitto_disconnect(d->m);
      mosquitto_loop_write(d->m, 1);
    }
    mosquitto_destroy(d->m);
  }
  free(fds);
  atomic_fetch_add(&finished, 1);
  return NULL;
}

static double seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

static const char *const status_names[] = {"ok", "stale", "not_found", "bad_request", "upstream_unavailable",
                                           "rate_limited", "too_many_locations", "internal_error"};

/* A process watched over the measured period (-P NAME:PID). */
static struct watch {
  char name[24];
  long pid;
  uint64_t ticks[2], switches[2];
  int readable[2];
} watches[WATCH_MAX + 1];
static int watch_count = 0;

/* utime + stime of every thread, live or ended, in clock ticks: fields 14 and 15 of /proc/PID/stat. */
static int process_ticks(long pid, uint64_t *ticks) {
  char path[64], buffer[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buffer, 1, sizeof buffer - 1, f);
  fclose(f);
  buffer[n] = 0;
  /* The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'. */
  const char *p = strrchr(buffer, ')');
  unsigned long long utime, stime;
  if (!p || sscanf(p + 1, " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &utime, &stime) != 2)
    return 0;
  *ticks = utime + stime;
  return 1;
}

/* Context switches summed over the live threads: /proc/PID/status alone counts only the main one. */
static int process_switches(long pid, uint64_t *switches) {
  char path[320], line[256];
  snprintf(path, sizeof path, "/proc/%ld/task", pid);
  DIR *dir = opendir(path);
  if (!dir) return 0;
  uint64_t total = 0;
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    if (entry->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/%ld/task/%.255s/status", pid, entry->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* the thread ended meanwhile */
    unsigned long long value;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "voluntary_ctxt_switches: %llu", &value) == 1 ||
          sscanf(line, "nonvoluntary_ctxt_switches: %llu", &value) == 1)
        total += value;
    fclose(f);
  }
  closedir(dir);
  *switches = total;
  return 1;
}

static void sample_watches(int at) {
  for (int i = 0; i < watch_count; i++) {
    struct watch *v = &watches[i];
    v->readable[at] = process_ticks(v->pid, &v->ticks[at]) && process_switches(v->pid, &v->switches[at]);
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

static void usage(void) {
  fprintf(stderr,
          "usage: loadgen -p PORT [-h HOST] [-n DEVICES] [-t THREADS] [-w WARMUP_S] [-d DURATION_S]\n"
          "               [-q QOS] [-V 5|311] [-m TEXT] [-r RUN_ID] [-T TIMEOUT_S] [-N 0|1] [-P NAME:PID]...\n"
          "  -N: TCP_NODELAY on the device sockets (default 1: the generator adds no Nagle stalls)\n"
          "  -P NAME:PID: report that process's CPU and context switches per answer over the measured period\n"
          "  -m TEXT: the request every device sends; \"{i}\" in it is replaced by the device index\n");
  exit(2);
}

/* TEXT with the first "{i}" replaced by index; 0 when it does not fit. */
static int expand_text(const char *template, int index, char *out, size_t size) {
  const char *mark = strstr(template, "{i}");
  int length;
  if (mark) {
    length = snprintf(out, size, "%.*s%d%s", (int)(mark - template), template, index, mark + 3);
  } else {
    length = snprintf(out, size, "%s", template);
  }
  return length > 0 && (size_t)length < size ? length : 0;
}

int main(int argc, char **argv) {
  snprintf(config.run, sizeof config.run, "%ld", (long)getpid());
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *flag = argv[i], *value = argv[++i];
    if (strcmp(flag, "-p") == 0) config.port = atoi(value);
    else if (strcmp(flag, "-h") == 0) config.host = value;
    else if (strcmp(flag, "-n") == 0) config.devices = atoi(value);
    else if (strcmp(flag, "-t") == 0) config.threads = atoi(value);
    else if (strcmp(flag, "-w") == 0) config.warmup = atof(value);
    else if (strcmp(flag, "-d") == 0) config.duration = atof(value);
    else if (strcmp(flag, "-T") == 0) config.timeout = atof(value);
    else if (strcmp(flag, "-q") == 0) config.qos = atoi(value);
    else if (strcmp(flag, "-m") == 0) config.text = value;
    else if (strcmp(flag, "-N") == 0) config.nodelay = atoi(value) != 0;
    else if (strcmp(flag, "-r") == 0) snprintf(config.run, sizeof config.run, "%s", value);
    else if (strcmp(flag, "-P") == 0) {
      const char *colon = strchr(value, ':');
      if (!colon || colon == value || colon - value >= (long)sizeof watches[0].name || watch_count == WATCH_MAX ||
          atol(colon + 1) < 1)
        usage();
      snprintf(watches[watch_count].name, sizeof watches[0].name, "%.*s", (int)(colon - value), value);
      watches[watch_count++].pid = atol(colon + 1);
    }
    else if (strcmp(flag, "-V") == 0) {
      if (strcmp(value, "5") == 0) config.version = MQTT_PROTOCOL_V5;
      else if (strcmp(value, "311") == 0 || strcmp(value, "3.1.1") == 0) config.version = MQTT_PROTOCOL_V311;
      else usage();
    } else usage();
  }
  if (config.port < 1 || config.port > 65535 || config.devices < 1 || config.devices > 10000 ||
      config.threads < 1 || config.qos < 0 || config.qos > 2 || config.warmup < 0 ||
      config.duration <= 0 || config.timeout <= 0)
    usage();
  if (config.threads > config.devices) config.threads = config.devices;

  struct device *devices = calloc((size_t)config.devices, sizeof *devices);
  struct worker *workers = calloc((size_t)config.threads, sizeof *workers);
  if (!devices || !workers) abort();
  for (int i = 0; i < config.devices; i++) {
    struct device *d = &devices[i];
    d->index = i;
    snprintf(d->id, sizeof d->id, "load-%s-%d", config.run, i);
    size_t id_length = strlen(d->id);
    if (id_length > 32 || strspn(d->id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != id_length) {
      fprintf(stderr, "loadgen: device id %s is not 1-32 characters of [A-Za-z0-9._-]\n", d->id);
      return 2;
    }
    snprintf(d->request_topic, sizeof d->request_topic, "skyframe/v1/req/%s", d->id);
    snprintf(d->frame_topic, sizeof d->frame_topic, "skyframe/v1/frame/%s", d->id);
    d->text_length = expand_text(config.text, i, d->text, sizeof d->text);
    if (!d->text_length) {
      fprintf(stderr, "loadgen: request text empty or longer than %d bytes\n", TEXT_MAX - 1);
      return 2;
    }
  }
  /* Devices dealt out in contiguous blocks; latency arrays sized for 400k answers/s in total. */
  size_t capacity = (size_t)(config.duration * 400000.0 / config.threads) + 1024;
  for (int t = 0, first = 0; t < config.threads; t++) {
    struct worker *w = &workers[t];
    w->count = config.devices / config.threads + (t < config.devices % config.threads);
    w->devices = &devices[first];
    for (int i = 0; i < w->count; i++) w->devices[i].worker = w;
    first += w->count;
    w->latency_capacity = capacity;
    w->latencies = malloc(capacity * sizeof *w->latencies);
    if (!w->latencies) abort();
  }

  snprintf(watches[watch_count].name, sizeof watches[0].name, "loadgen");
  watches[watch_count++].pid = (long)getpid();

  mosquitto_lib_init();
  measure_start_ns = measure_end_ns = UINT64_MAX;
  for (int t = 0; t < config.threads; t++) {
    if (pthread_create(&workers[t].thread, NULL, run_worker, &workers[t]) != 0) abort();
  }

  /* All devices connected and subscribed, or give up after 20 s. */
  uint64_t deadline = now_ns() + 20000000000u;
  while (atomic_load(&ready) + atomic_load(&failed) < config.devices && now_ns() < deadline)
    sleep_ns(10000000u);
  int status = 0;
  if (atomic_load(&ready) < config.devices) {
    fprintf(stderr, "loadgen: only %d of %d devices connected and subscribed\n", atomic_load(&ready),
            config.devices);
    atomic_store(&phase, PHASE_STOP);
    status = 3;
  } else {
    uint64_t start = now_ns();
    measure_start_ns = start + (uint64_t)(config.warmup * 1e9);
    measure_end_ns = measure_start_ns + (uint64_t)(config.duration * 1e9);
    atomic_store_explicit(&phase, PHASE_RUN, memory_order_release);
    uint64_t now;
    while ((now = now_ns()) < measure_start_ns) sleep_ns(measure_start_ns - now < 50000000u ? measure_start_ns - now : 50000000u);
    sample_watches(0);
    while ((now = now_ns()) < measure_end_ns) sleep_ns(measure_end_ns - now < 50000000u ? measure_end_ns - now : 50000000u);
    sample_watches(1);
    atomic_store(&phase, PHASE_DRAIN);
    uint64_t drain_end = measure_end_ns + (uint64_t)(config.timeout * 1e9);
    while (atomic_load(&finished) < config.threads && now_ns() < drain_end) sleep_ns(10000000u);
    atomic_store(&phase, PHASE_STOP);
  }
  for (int t = 0; t < config.threads; t++) pthread_join(workers[t].thread, NULL);
  mosquitto_lib_cleanup();
  if (status) return status;

  size_t total = 0;
  uint64_t answers = 0, timeouts = 0, wrong = 0, unexpected = 0, lost = 0, publish_failed = 0,
           unanswered = 0, overflow = 0, not_ok = 0, by_status[256] = {0};
  for (int t = 0; t < config.threads; t++) {
    struct worker *w = &workers[t];
    total += w->latency_count;
    answers += w->answers_total;
    timeouts += w->timeouts;
    wrong += w->wrong_size;
    unexpected += w->unexpected;
    lost += w->lost;
    publish_failed += w->publish_failed;
    unanswered += w->unanswered;
    overflow += w->overflow;
    for (int k = 0; k < 256; k++) {
      by_status[k] += w->not_ok[k];
      not_ok += w->not_ok[k];
    }
  }
  uint64_t *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) abort();
  for (int t = 0, at = 0; t < config.threads; t++) {
    memcpy(all + at, workers[t].latencies, workers[t].latency_count * sizeof *all);
    at += (int)workers[t].latency_count;
  }
  qsort(all, total, sizeof *all, compare_u64);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  uint64_t requests = total + overflow;
  uint64_t errors = timeouts + wrong + not_ok + unexpected + lost + publish_failed + unanswered;
  printf("devices=%d requests=%llu seconds=%.1f rps=%.0f p50_us=%.0f p99_us=%.0f max_us=%.0f errors=%llu",
         config.devices, (unsigned long long)requests, config.duration, (double)requests / config.duration,
         percentile_us(all, total, 0.50), percentile_us(all, total, 0.99),
         total ? (double)all[total - 1] / 1000.0 : 0.0, (unsigned long long)errors);
  const double hz = (double)sysconf(_SC_CLK_TCK);
  for (int i = 0; i < watch_count; i++) {
    const struct watch *v = &watches[i];
    if (!v->readable[0] || !v->readable[1] || requests == 0) {
      printf(" %s_cpu_us_req=n/a %s_ctx_req=n/a %s_cpu_pct=n/a", v->name, v->name, v->name);
      continue;
    }
    double cpu_us = (double)(v->ticks[1] - v->ticks[0]) * 1e6 / hz;
    /* Threads that ended within the period take their switches with them: never below zero. */
    double switches = v->switches[1] > v->switches[0] ? (double)(v->switches[1] - v->switches[0]) : 0.0;
    printf(" %s_cpu_us_req=%.2f %s_ctx_req=%.3f %s_cpu_pct=%.0f", v->name, cpu_us / (double)requests, v->name,
           switches / (double)requests, v->name, cpu_us / (config.duration * 1e4));
  }
  printf("\n");
  fprintf(stderr,
          "loadgen: threads=%d qos=%d answers_total=%llu timeouts=%llu wrong_size=%llu not_ok=%llu unexpected=%llu "
          "lost=%llu publish_failed=%llu unanswered=%llu latency_overflow=%llu max_us=%.0f "
          "cpu_user_s=%.2f cpu_sys_s=%.2f\n",
          config.threads, config.qos, (unsigned long long)answers, (unsigned long long)timeouts,
          (unsigned long long)wrong, (unsigned long long)not_ok, (unsigned long long)unexpected,
          (unsigned long long)lost, (unsigned long long)publish_failed, (unsigned long long)unanswered,
          (unsigned long long)overflow, total ? (double)all[total - 1] / 1000.0 : 0.0, seconds(usage.ru_utime),
          seconds(usage.ru_stime));
  if (not_ok) {
    fprintf(stderr, "loadgen: not ok by status:");
    for (int k = 1; k < 256; k++) {
      if (!by_status[k]) continue;
      if (k < (int)(sizeof status_names / sizeof *status_names)) {
        fprintf(stderr, " %s=%llu", status_names[k], (unsigned long long)by_status[k]);
      } else {
        fprintf(stderr, " status_%d=%llu", k, (unsigned long long)by_status[k]);
      }
    }
    fprintf(stderr, "\n");
  }
  return requests == 0 ? 1 : 0;
}
