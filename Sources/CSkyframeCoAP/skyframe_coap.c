// The CoAP listener's C side: libcoap's context, its callbacks copying what a request carries
// into a plain struct for the Swift side and writing what it answers into the response.
#include "skyframe_coap.h"

#include <coap3/coap.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <arpa/inet.h>
#include <unistd.h>

/// A deferred request: its session (referenced) and token, to find its async entry again; and,
/// for a first observation answered at once, the answer kept for when libcoap runs the request
/// again (`stashed`).
typedef struct deferred_entry {
  uint64_t id;
  coap_session_t *session;
  uint8_t token[8];
  size_t token_length;
  int has_stash;
  skyframe_coap_response stash;
  struct deferred_entry *next;
} deferred_entry;

/// The resources made for paths under v1/frame/, oldest first.
typedef struct path_entry {
  coap_resource_t *resource;
  struct path_entry *next;
} path_entry;

struct skyframe_coap_server {
  coap_context_t *context;
  int wake_fd;
  /// Set by `skyframe_coap_wake`: the wake fd has something to read (read only then: a read of
  /// an empty eventfd each round is a system call a datagram for nothing).
  atomic_int woken;
  void *app;
  skyframe_coap_handler handler;
  size_t max_resources;
  size_t resources;
  coap_resource_t *unknown;
  path_entry *paths;
  deferred_entry *deferred;
  /// Ids of stashed answers: the top bit set, apart from the Swift side's.
  uint64_t next_stash;
  /// DTLS: the pre-shared key's hint and key, which libcoap reads from here.
  char *psk_hint;
  uint8_t *psk_key;
};

static const char frame_prefix[] = "v1/frame/";

static void release_copy(coap_session_t *session, void *data) {
  (void)session;
  free(data);
}

static void handle(coap_resource_t *resource, coap_session_t *session, const coap_pdu_t *request,
                   const coap_string_t *query, coap_pdu_t *response);

/// A resource of its own for `path` (under v1/frame/): observable, with the same handlers. The
/// oldest goes when there are `max_resources`.
static void make_resource(skyframe_coap_server *server, const uint8_t *path, size_t length) {
  if (server->max_resources == 0) return;
  if (server->resources >= server->max_resources && server->paths) {
    path_entry *oldest = server->paths;
    server->paths = oldest->next;
    coap_delete_resource(server->context, oldest->resource);
    free(oldest);
    server->resources--;
  }
  coap_str_const_t *uri = coap_new_str_const(path, length);
  if (!uri) return;
  coap_resource_t *made = coap_resource_init(uri, COAP_RESOURCE_FLAGS_RELEASE_URI);
  if (!made) return;
  coap_register_request_handler(made, COAP_REQUEST_GET, handle);
  coap_register_request_handler(made, COAP_REQUEST_POST, handle);
  coap_resource_set_get_observable(made, 1);
  coap_add_resource(server->context, made);
  path_entry *entry = calloc(1, sizeof *entry);
  if (!entry) return;
  entry->resource = made;
  path_entry **end = &server->paths;
  while (*end) end = &(*end)->next;
  *end = entry;
  server->resources++;
}

static void forget_deferred(skyframe_coap_server *server, uint64_t id) {
  for (deferred_entry **at = &server->deferred; *at; at = &(*at)->next) {
    if ((*at)->id == id) {
      deferred_entry *gone = *at;
      *at = gone->next;
      coap_session_release(gone->session);
      if (gone->has_stash) free((void *)gone->stash.payload);
      free(gone);
      return;
    }
  }
}

static void handle(coap_resource_t *resource, coap_session_t *session, const coap_pdu_t *request,
                   const coap_string_t *query, coap_pdu_t *response) {
  skyframe_coap_server *server = coap_get_app_data(coap_session_get_context(session));
  coap_bin_const_t token = coap_pdu_get_token(request);
  coap_async_t *async = coap_find_async(session, token);

  skyframe_coap_request in;
  memset(&in, 0, sizeof in);
  coap_string_t *path = coap_get_uri_path(request);
  in.path = path ? (const char *)path->s : "";
  in.path_length = path ? path->length : 0;
  in.query = query ? (const char *)query->s : "";
  in.query_length = query ? query->length : 0;
  size_t body_length = 0;
  const uint8_t *body = NULL;
  if (coap_get_data(request, &body_length, &body)) {
    in.body = body;
    in.body_length = body_length;
  }
  coap_opt_iterator_t iterator;
  coap_opt_t *option = coap_check_option(request, COAP_OPTION_ETAG, &iterator);
  if (option) {
    in.etag = coap_opt_value(option);
    in.etag_length = coap_opt_length(option);
  }
  option = coap_check_option(request, COAP_OPTION_ECHO, &iterator);
  if (option) {
    in.echo = coap_opt_value(option);
    in.echo_length = coap_opt_length(option);
  }
  option = coap_check_option(request, COAP_OPTION_OBSERVE, &iterator);
  in.observe = option ? (int)coap_decode_var_bytes(coap_opt_value(option), coap_opt_length(option))
                      : -1;
  option = coap_check_option(request, COAP_OPTION_ACCEPT, &iterator);
  in.accepts_json =
      option && coap_decode_var_bytes(coap_opt_value(option), coap_opt_length(option)) ==
                    COAP_MEDIATYPE_APPLICATION_JSON;
  unsigned char source[64];
  size_t printed = coap_print_addr(coap_session_get_addr_remote(session), source, sizeof source - 1);
  source[printed] = 0;
  in.source = (const char *)source;
  // A lower bound of the datagram's size: header, token, the options' values, the payload.
  in.request_size = 4 + token.length + in.path_length + in.query_length + in.body_length +
                    in.etag_length + in.echo_length;
  in.method = (int)coap_pdu_get_code(request);
  in.observable = resource != NULL && resource != server->unknown;
  in.deferred = async ? (uint64_t)(uintptr_t)coap_async_get_app_data(async) : 0;

  skyframe_coap_response out;
  memset(&out, 0, sizeof out);
  out.max_age = -1;
  deferred_entry *stashed = NULL;
  int stash_now = 0;
  if (async) {
    for (deferred_entry *entry = server->deferred; entry; entry = entry->next) {
      if (entry->id == in.deferred && entry->has_stash) stashed = entry;
    }
  }
  if (stashed) {
    // The first observation's answer, made when it came: libcoap registered the observer as
    // it ran the request again, now that the path has its resource.
    out = stashed->stash;
    stashed->has_stash = 0;
  } else {
    server->handler(server->app, &in, &out);
  }

  int frame_path = in.path_length > sizeof frame_prefix - 1 &&
                   memcmp(in.path, frame_prefix, sizeof frame_prefix - 1) == 0;
  if (!in.observable && frame_path && !async) {
    make_resource(server, (const uint8_t *)in.path, in.path_length);
    // A first observation of the path came to the unknown-resource handler, where libcoap
    // registers no observer: its answer waits (an empty ACK now), and libcoap runs the request
    // again at once, on the resource just made, which registers it.
    if (in.observe == 0 && out.defer == 0 && out.code / 100 == 2 &&
        coap_get_resource_from_uri_path(server->context,
                                        &(coap_str_const_t){in.path_length,
                                                            (const uint8_t *)in.path})) {
      out.defer = (1ULL << 63) | ++server->next_stash;
      stash_now = 1;
    }
  }
  if (path) coap_delete_string(path);

  if (out.defer != 0 && !async) {
    deferred_entry *entry = token.length <= 8 ? calloc(1, sizeof *entry) : NULL;
    coap_async_t *made = entry ? coap_register_async(session, request, 0) : NULL;
    if (!made) {
      free(entry);
      if (stash_now) {
        out.defer = 0;  // answered now, unobserved
        goto answer;
      }
      free((void *)out.payload);
      coap_pdu_set_code(response, COAP_RESPONSE_CODE(503));
      return;
    }
    coap_async_set_app_data(made, (void *)(uintptr_t)out.defer);
    entry->id = out.defer;
    entry->session = coap_session_reference(session);
    memcpy(entry->token, token.s, token.length);
    entry->token_length = token.length;
    entry->next = server->deferred;
    server->deferred = entry;
    if (stash_now) {
      entry->has_stash = 1;
      entry->stash = out;
      entry->stash.defer = 0;
      coap_async_trigger(made);
    }
    return;  // An empty ACK now, the answer when triggered.
  }
  if (async) {
    forget_deferred(server, in.deferred);
  }
  if (out.defer != 0) free((void *)out.payload);

answer:
  coap_pdu_set_code(response, (coap_pdu_code_t)COAP_RESPONSE_CODE(out.code));
  uint8_t buffer[8];
  if (out.payload_length == 0) {
    if (out.etag) {
      size_t length = coap_encode_var_safe8(buffer, sizeof buffer, out.etag);
      coap_add_option(response, COAP_OPTION_ETAG, length, buffer);
    }
    if (out.max_age >= 0) {
      size_t length = coap_encode_var_safe(buffer, sizeof buffer, (unsigned)out.max_age);
      coap_add_option(response, COAP_OPTION_MAXAGE, length, buffer);
    }
    if (out.echo_length) coap_add_option(response, COAP_OPTION_ECHO, out.echo_length, out.echo);
  } else {
    if (out.echo_length) coap_add_option(response, COAP_OPTION_ECHO, out.echo_length, out.echo);
    // The handler's malloc'd payload, freed by libcoap when sent (or now, if not taken).
    uint8_t *copy = (uint8_t *)out.payload;
    if (out.etag) {
      // In one PDU libcoap adds no ETag; over several blocks it sets this same value.
      size_t length = coap_encode_var_safe8(buffer, sizeof buffer, out.etag);
      coap_add_option(response, COAP_OPTION_ETAG, length, buffer);
    }
    {
      uint16_t format = out.content_format == 1   ? COAP_MEDIATYPE_APPLICATION_JSON
                        : out.content_format == 2 ? COAP_MEDIATYPE_TEXT_PLAIN
                                                  : COAP_MEDIATYPE_APPLICATION_OCTET_STREAM;
      if (!coap_add_data_large_response(resource, session, request, response, query, format,
                                        out.max_age, out.etag, out.payload_length, copy,
                                        release_copy, copy)) {
        free(copy);
      }
    }
  }
  // A triggered async entry is removed by libcoap when this returns.
}

skyframe_coap_server *skyframe_coap_new(const char *host, uint16_t port, size_t max_resources,
                                        size_t max_sessions, void *app,
                                        skyframe_coap_handler handler, char *error,
                                        size_t error_length) {
  coap_startup();
  coap_set_log_level(LOG_EMERG);
  coap_address_t address;
  coap_address_init(&address);
  address.addr.sin.sin_family = AF_INET;
  address.addr.sin.sin_port = htons(port);
  address.size = sizeof(struct sockaddr_in);
  if (inet_pton(AF_INET, host, &address.addr.sin.sin_addr) != 1) {
    snprintf(error, error_length, "coap.host %s is no IPv4 address", host);
    return NULL;
  }
  skyframe_coap_server *server = calloc(1, sizeof *server);
  if (!server) return NULL;
  server->context = coap_new_context(NULL);
  if (!server->context) {
    snprintf(error, error_length, "libcoap could not make a context");
    free(server);
    return NULL;
  }
  coap_context_set_block_mode(server->context, COAP_BLOCK_USE_LIBCOAP | COAP_BLOCK_SINGLE_BODY);
  coap_context_set_max_idle_sessions(server->context, (unsigned)max_sessions);
  coap_set_app_data(server->context, server);
  if (!coap_new_endpoint(server->context, &address, COAP_PROTO_UDP)) {
    snprintf(error, error_length, "cannot listen on udp %s:%u (in use?)", host, port);
    coap_free_context(server->context);
    free(server);
    return NULL;
  }
  server->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  // Built with epoll (Debian's is), libcoap waits on its own epoll set and ignores the extra
  // fds of coap_io_process_with_fds: the wake fd goes into that set, with the NULL pointer
  // libcoap skips (it marks its own timer so).
  int epoll = coap_context_get_coap_fd(server->context);
  if (epoll >= 0) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.ptr = NULL;
    epoll_ctl(epoll, EPOLL_CTL_ADD, server->wake_fd, &event);
  }
  server->app = app;
  server->handler = handler;
  server->max_resources = max_resources;
  coap_resource_t *unknown = coap_resource_unknown_init2(NULL, 0);
  coap_register_request_handler(unknown, COAP_REQUEST_GET, handle);
  coap_register_request_handler(unknown, COAP_REQUEST_POST, handle);
  coap_add_resource(server->context, unknown);
  server->unknown = unknown;
  return server;
}

int skyframe_coap_add_dtls(skyframe_coap_server *server, const char *host, uint16_t port,
                           const char *identity, const uint8_t *key, size_t key_length) {
  if (!coap_dtls_is_supported()) return 0;
  // libcoap keeps the pointers of the setup, not copies: the server owns copies of both.
  free(server->psk_hint);
  free(server->psk_key);
  size_t hint_length = strlen(identity);
  server->psk_hint = malloc(hint_length + 1);
  server->psk_key = malloc(key_length ? key_length : 1);
  if (!server->psk_hint || !server->psk_key) return 0;
  memcpy(server->psk_hint, identity, hint_length + 1);
  memcpy(server->psk_key, key, key_length);
  coap_dtls_spsk_t setup;
  memset(&setup, 0, sizeof setup);
  setup.version = COAP_DTLS_SPSK_SETUP_VERSION;
  setup.psk_info.hint.s = (const uint8_t *)server->psk_hint;
  setup.psk_info.hint.length = hint_length;
  setup.psk_info.key.s = server->psk_key;
  setup.psk_info.key.length = key_length;
  if (!coap_context_set_psk2(server->context, &setup)) return 0;
  coap_address_t address;
  coap_address_init(&address);
  address.addr.sin.sin_family = AF_INET;
  address.addr.sin.sin_port = htons(port);
  address.size = sizeof(struct sockaddr_in);
  if (inet_pton(AF_INET, host, &address.addr.sin.sin_addr) != 1) return 0;
  return coap_new_endpoint(server->context, &address, COAP_PROTO_DTLS) != NULL;
}

void skyframe_coap_run_once(skyframe_coap_server *server, uint32_t timeout_ms) {
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(server->wake_fd, &readable);
  coap_io_process_with_fds(server->context, timeout_ms, server->wake_fd + 1, &readable, NULL,
                           NULL);
  if (atomic_exchange(&server->woken, 0)) {
    uint64_t count;
    ssize_t taken = read(server->wake_fd, &count, sizeof count);  // non-blocking
    (void)taken;
  }
}

void skyframe_coap_wake(skyframe_coap_server *server) {
  atomic_store(&server->woken, 1);
  uint64_t one = 1;
  ssize_t written = write(server->wake_fd, &one, sizeof one);
  (void)written;
}

int skyframe_coap_trigger(skyframe_coap_server *server, uint64_t id) {
  for (deferred_entry *entry = server->deferred; entry; entry = entry->next) {
    if (entry->id != id) continue;
    coap_bin_const_t token = {entry->token_length, entry->token};
    coap_async_t *async = coap_find_async(entry->session, token);
    if (!async) {
      forget_deferred(server, id);
      return 0;
    }
    coap_async_trigger(async);
    return 1;
  }
  return 0;
}

int skyframe_coap_notify(skyframe_coap_server *server, const char *path) {
  coap_str_const_t uri = {strlen(path), (const uint8_t *)path};
  coap_resource_t *resource = coap_get_resource_from_uri_path(server->context, &uri);
  if (!resource) return 0;
  return coap_resource_notify_observers(resource, NULL);
}

void skyframe_coap_free(skyframe_coap_server *server) {
  if (!server) return;
  while (server->deferred) forget_deferred(server, server->deferred->id);
  while (server->paths) {
    path_entry *next = server->paths->next;
    free(server->paths);
    server->paths = next;
  }
  coap_free_context(server->context);
  close(server->wake_fd);
  free(server->psk_hint);
  free(server->psk_key);
  free(server);
}
