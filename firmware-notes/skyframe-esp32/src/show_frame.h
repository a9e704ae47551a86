/*
 * show_frame.h - prints a decoded Skyframe frame as text (stdout / the serial console).
 * Used by the ESP-IDF and Arduino examples; see show_frame.c.
 */
#ifndef SHOW_FRAME_H
#define SHOW_FRAME_H

#include "skyframe_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the place, the age of the data, temperature, wind, pressure, sunrise, the v1.1
 * precipitation and alert fields and the 7 days; for an error frame, its status name. */
void show_frame(const skyframe_frame *f);

#ifdef __cplusplus
}
#endif

#endif /* SHOW_FRAME_H */
