#ifndef SKYFRAME_CMOSQUITTO_SHIM_H
#define SKYFRAME_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
/* The OpenSSL libmosquitto is built with (Debian: libssl-dev): the verify result of a failed
   handshake (mosquitto_ssl_get), the PEM files checked before connecting, the TLS probe. */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#endif
