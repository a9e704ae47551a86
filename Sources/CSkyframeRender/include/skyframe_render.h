/*
 * skyframe_render.h - draws a Skyframe message as the display of its profile shows it: a
 * 296 x 128 1-bit e-paper screen (standard frame, 192 bytes), a 7.5-inch 800 x 480 e-paper one
 * (large, 960 bytes) or a 128 x 64 OLED (tiny, 48 bytes), into a PNG or PBM image in memory.
 * The one renderer of the project: the virtual display (firmware-notes/examples/virtual-display)
 * and the gateway's status page both draw with it, so a picture on the status page is the
 * virtual display's picture of the same frame, byte for byte.
 *
 * The message is decoded with firmware-notes/skyframe_frame.h, chosen by its kind byte as
 * firmware does. render.c compiles that header's code (SKYFRAME_FRAME_IMPLEMENTATION): a C
 * program linking render.c includes skyframe_frame.h WITHOUT defining it.
 *
 * NOT REENTRANT: the screen is one buffer in static storage (about 375 KB) and a few helpers
 * keep static text. Call the functions from one thread at a time (the gateway calls them under
 * a lock).
 *
 * C99; compiles with -std=c99 -Wall -Wextra -Werror -pedantic and as a SwiftPM C target
 * (CSkyframeRender).
 */
#ifndef SKYFRAME_RENDER_H
#define SKYFRAME_RENDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each screen pixel becomes scale x scale image pixels; scale is 1..SKYFRAME_RENDER_MAX_SCALE. */
#define SKYFRAME_RENDER_MAX_SCALE 8

/* The screen of a message kind (the kind byte, byte 2 of the message: skyframe_frame.h's
 * SKYFRAME_KIND_STANDARD 0x01, _LARGE 0x11, _TINY 0x21): its width and height in screen pixels
 * (times scale in the image). 0, or -1 for a kind that is not drawn (`unchanged` 0x31 and any
 * other); then *width and *height are left alone. */
int skyframe_render_screen_size(int kind, int *width, int *height);

/* Draws the message frame[0..length) as its display shows it at the Unix time now (the clock for
 * the data's age: "OLD 5h" and the like) and returns the length of a PNG (1-bit greyscale, no
 * compression, no interlace) of the screen at scale, the bytes in a buffer from malloc in *png:
 * the caller frees it (free() or skyframe_render_free()). Error frames are drawn too.
 * Returns 0 with *png = NULL when nothing is drawn: the message does not decode (wrong length,
 * kind, version or CRC), it is `unchanged` (what the display shows is still right), scale is
 * out of range, an argument is NULL, or memory ran out. */
size_t skyframe_render_png(const uint8_t *frame, size_t length, uint32_t now, int scale,
                           uint8_t **png);

/* The same drawing as a binary PBM (P4: "P4\nW H\n", then rows of 8 pixels a byte, 1 = ink). */
size_t skyframe_render_pbm(const uint8_t *frame, size_t length, uint32_t now, int scale,
                           uint8_t **pbm);

/* free(image): for callers that do not see the C library's free. NULL is allowed. */
void skyframe_render_free(uint8_t *image);

#ifdef __cplusplus
}
#endif

#endif /* SKYFRAME_RENDER_H */
