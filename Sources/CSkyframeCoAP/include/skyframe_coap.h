// The gateway's CoAP listener over libcoap (Debian libcoap3-dev): one context on one thread (the
// Swift service's), every request copied into a plain struct and handed to one callback, which
// answers at once or defers the answer (libcoap's async); deferred answers are triggered on the
// same thread after `skyframe_coap_wake`. Paths under v1/frame/ get a resource of their own on
// their first request, so that later requests can observe it (RFC 7641).
#ifndef SKYFRAME_COAP_H
#define SKYFRAME_COAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct skyframe_coap_server skyframe_coap_server;

typedef struct {
  /// The URI path without the leading slash, e.g. "v1/frame/kitchen".
  const char *path;
  size_t path_length;
  /// The URI query without '?', items joined by '&'.
  const char *query;
  size_t query_length;
  /// The request's payload (a POST's binary request).
  const uint8_t *body;
  size_t body_length;
  /// The first ETag option, if any.
  const uint8_t *etag;
  size_t etag_length;
  /// The Echo option (RFC 9175), if any.
  const uint8_t *echo;
  size_t echo_length;
  /// The peer as "address:port" (or "[v6]:port").
  const char *source;
  /// The size of the request datagram (what the amplification bound counts from).
  size_t request_size;
  /// 1 GET, 2 POST, ...
  int method;
  /// -1 no Observe option, 0 register, 1 deregister.
  int observe;
  /// 1 when the request came to the device's own (observable) resource.
  int observable;
  /// Non-zero when this call answers a deferred request: the value `defer` returned.
  uint64_t deferred;
  /// 1 when the Accept option asks for JSON (50).
  int accepts_json;
} skyframe_coap_request;

typedef struct {
  /// CoAP code as class * 100 + detail: 205, 203, 400, 401, 404, 413, 429, 500, 503.
  int code;
  /// malloc'd by the handler; the C side frees it (when libcoap has sent it).
  const uint8_t *payload;
  size_t payload_length;
  /// The ETag option (8 bytes big endian, leading zeros dropped); 0: none.
  uint64_t etag;
  /// Max-Age in seconds; -1: none.
  int max_age;
  /// The Echo option to send (4.01 to an unverified source); length 0: none.
  uint8_t echo[8];
  size_t echo_length;
  /// 0 octet-stream (42), 1 JSON (50), 2 text (0).
  int content_format;
  /// Set by the callback: answer later; the request will come again with `deferred` set to
  /// this value (non-zero).
  uint64_t defer;
} skyframe_coap_response;

typedef void (*skyframe_coap_handler)(void *context, const skyframe_coap_request *request,
                                      skyframe_coap_response *response);

/// A listener on host:port (UDP); NULL and a reason in `error` when it cannot be made.
skyframe_coap_server *skyframe_coap_new(const char *host, uint16_t port, size_t max_resources,
                                        size_t max_sessions, void *context,
                                        skyframe_coap_handler handler, char *error,
                                        size_t error_length);
/// Also listens for DTLS with one pre-shared key (identity, key) on host:port; 0 on failure.
int skyframe_coap_add_dtls(skyframe_coap_server *server, const char *host, uint16_t port,
                           const char *identity, const uint8_t *key, size_t key_length);
/// Runs libcoap for at most `timeout_ms`, or until woken.
void skyframe_coap_run_once(skyframe_coap_server *server, uint32_t timeout_ms);
/// Wakes `run_once` (from any thread).
void skyframe_coap_wake(skyframe_coap_server *server);
/// Answers the deferred request `deferred` now (on the server's thread): the handler is called
/// again with it.
int skyframe_coap_trigger(skyframe_coap_server *server, uint64_t deferred);
/// Notifies the observers of `path` (on the server's thread); 0 when it has none or no resource.
int skyframe_coap_notify(skyframe_coap_server *server, const char *path);
void skyframe_coap_free(skyframe_coap_server *server);

#endif
