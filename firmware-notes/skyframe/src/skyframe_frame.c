/* The decoder's implementation, compiled once as part of the library (Arduino, PlatformIO,
 * ESP-IDF). A program that uses the library includes skyframe_frame.h WITHOUT defining
 * SKYFRAME_FRAME_IMPLEMENTATION: this file already does, and a second definition would give
 * "multiple definition" errors at link time. */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"
