#include <coap3/coap.h>
