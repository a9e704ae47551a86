/* OpenSSL's libcrypto (Debian: libssl-dev), which libmosquitto already links for TLS: the
 * cluster's HMAC-SHA256, without a second copy of a crypto library in the build. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
