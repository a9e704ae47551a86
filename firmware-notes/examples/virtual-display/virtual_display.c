/*
 * virtual_display.c - a Skyframe device on Linux: it asks a gateway for a place over MQTT, waits
 * for the answering frame and draws what a 296 x 128 1-bit e-paper weather display would show,
 * into a PNG or PBM file. It decodes with skyframe_frame.h like firmware does, and is the quickest
 * way to see a gateway's answers without hardware.
 *
 *   virtual_display --place "Berlin,DE" --out berlin.png       ask the gateway, draw the answer
 *   virtual_display --frame-hex frame.hex --out berlin.pbm     draw a frame offline (no MQTT)
 *
 * Build (C99, libmosquitto):
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -I../.. $(pkg-config --cflags libmosquitto) \
 *      -o virtual_display virtual_display.c $(pkg-config --libs libmosquitto)
 *
 * Exit status: 0 a frame was drawn (an error frame too), 1 usage, file or MQTT error, 2 no
 * answer before --timeout, 3 the frame did not decode (the error name goes to stderr).
 * See firmware-notes/README.md, "Virtual display".
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>

#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

enum { EXIT_DRAWN = 0, EXIT_FAILED = 1, EXIT_TIMEOUT = 2, EXIT_DECODE = 3 };

/* ---- The screen: 296 x 128, one byte per pixel while drawing, 1 = ink (black) ------------- */

#define SCREEN_W 296
#define SCREEN_H 128

static unsigned char screen[SCREEN_H][SCREEN_W];

static void set_pixel(int x, int y, int ink) {
    if (x >= 0 && x < SCREEN_W && y >= 0 && y < SCREEN_H) screen[y][x] = (unsigned char)ink;
}

static void fill_rect(int x, int y, int w, int h, int ink) {
    int i, j;
    for (j = y; j < y + h; j++)
        for (i = x; i < x + w; i++) set_pixel(i, j, ink);
}

/* Every other pixel: the separators between the screen's parts. */
static void dotted_hline(int x0, int x1, int y) {
    int x;
    for (x = x0; x <= x1; x += 2) set_pixel(x, y, 1);
}

/* Bresenham, one pixel wide. */
static void line(int x0, int y0, int x1, int y1) {
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        set_pixel(x0, y0, 1);
        if (x0 == x1 && y0 == y1) break;
        if (2 * err >= dy) { err += dy; x0 += sx; }
        if (2 * err <= dx) { err += dx; y0 += sy; }
    }
}

/* ---- Font: 5 x 8 (rows 0-6 the body, row 7 descenders), 6 pixels per character ----------- *
 * One byte per row, bit 4 the leftmost pixel. Entries 0-94 are ASCII 32-126, then the few
 * non-ASCII characters the screen itself uses, then the placeholder drawn for every other
 * character (a name is UTF-8 and this font has no glyphs for it). */
enum { GLYPH_DEGREE = 95, GLYPH_UP, GLYPH_DOWN, GLYPH_PLACEHOLDER, GLYPH_COUNT };
#define GLYPH_ADVANCE 6

static const unsigned char FONT[GLYPH_COUNT][8] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, /*   */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04, 0x00}, /* ! */
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00}, /* " */
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A, 0x00}, /* # */
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04, 0x00}, /* $ */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00}, /* % */
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D, 0x00}, /* & */
    {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00}, /* quote */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00}, /* ( */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00}, /* ) */
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00, 0x00}, /* * */
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00, 0x00}, /* + */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, /* , */
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00}, /* - */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x00}, /* . */
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00, 0x00}, /* / */
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E, 0x00}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F, 0x00}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E, 0x00}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02, 0x00}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E, 0x00}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E, 0x00}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E, 0x00}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C, 0x00}, /* 9 */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00, 0x00}, /* : */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08, 0x00}, /* ; */
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00}, /* < */
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00, 0x00}, /* = */
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00}, /* > */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00}, /* ? */
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E, 0x00}, /* @ */
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00}, /* A */
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E, 0x00}, /* B */
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E, 0x00}, /* C */
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C, 0x00}, /* D */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F, 0x00}, /* E */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10, 0x00}, /* F */
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F, 0x00}, /* G */
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00}, /* H */
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, /* I */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C, 0x00}, /* J */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00}, /* K */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F, 0x00}, /* L */
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00}, /* M */
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00}, /* N */
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00}, /* O */
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10, 0x00}, /* P */
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D, 0x00}, /* Q */
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11, 0x00}, /* R */
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E, 0x00}, /* S */
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}, /* T */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00}, /* U */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00}, /* V */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A, 0x00}, /* W */
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11, 0x00}, /* X */
    {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04, 0x00}, /* Y */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F, 0x00}, /* Z */
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E, 0x00}, /* [ */
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00, 0x00}, /* backslash */
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E, 0x00}, /* ] */
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00}, /* ^ */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x00}, /* _ */
    {0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, /* ` */
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00}, /* a */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E, 0x00}, /* b */
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E, 0x00}, /* c */
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F, 0x00}, /* d */
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00}, /* e */
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08, 0x00}, /* f */
    {0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* g */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00}, /* h */
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E, 0x00}, /* i */
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x12, 0x0C}, /* j */
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00}, /* k */
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, /* l */
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x15, 0x15, 0x00}, /* m */
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00}, /* n */
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00}, /* o */
    {0x00, 0x00, 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10}, /* p */
    {0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x01}, /* q */
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00}, /* r */
    {0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E, 0x00}, /* s */
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06, 0x00}, /* t */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D, 0x00}, /* u */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00}, /* v */
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A, 0x00}, /* w */
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00}, /* x */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* y */
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F, 0x00}, /* z */
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02, 0x00}, /* { */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}, /* | */
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08, 0x00}, /* } */
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00, 0x00}, /* ~ */
    {0x0C, 0x12, 0x12, 0x0C, 0x00, 0x00, 0x00, 0x00}, /* degree U+00B0 */
    {0x04, 0x0E, 0x15, 0x04, 0x04, 0x04, 0x04, 0x00}, /* up arrow U+2191 */
    {0x04, 0x04, 0x04, 0x04, 0x15, 0x0E, 0x04, 0x00}, /* down arrow U+2193 */
    {0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F, 0x00}, /* placeholder: any other character */
};

/* The glyph of the UTF-8 character at *s; moves *s past it. A malformed or cut sequence is one
 * placeholder, and the bytes it did not use are read again as the next characters. */
static int next_glyph(const char **s) {
    const unsigned char *p = (const unsigned char *)*s;
    unsigned long cp;
    int extra, i;
    if (p[0] < 0x80) {
        *s += 1;
        return (p[0] >= 32 && p[0] < 127) ? p[0] - 32 : GLYPH_PLACEHOLDER;
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        extra = 1;
        cp = p[0] & 0x1Fu;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        extra = 2;
        cp = p[0] & 0x0Fu;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        extra = 3;
        cp = p[0] & 0x07u;
    } else {
        *s += 1; /* a continuation byte without its lead, or a byte UTF-8 never uses */
        return GLYPH_PLACEHOLDER;
    }
    for (i = 1; i <= extra; i++) { /* stops at the terminating NUL too */
        if ((p[i] & 0xC0u) != 0x80u) {
            *s += i;
            return GLYPH_PLACEHOLDER;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    *s += extra + 1;
    if (cp == 0xB0UL) return GLYPH_DEGREE;
    if (cp == 0x2191UL) return GLYPH_UP;
    if (cp == 0x2193UL) return GLYPH_DOWN;
    return GLYPH_PLACEHOLDER;
}

static void draw_glyph(int x, int y, int glyph, int scale, int ink) {
    int row, col;
    for (row = 0; row < 8; row++)
        for (col = 0; col < 5; col++)
            if (FONT[glyph][row] & (0x10u >> col))
                fill_rect(x + col * scale, y + row * scale, scale, scale, ink);
}

static int text_width(const char *s, int scale) {
    int n = 0;
    while (*s) {
        next_glyph(&s);
        n++;
    }
    return n == 0 ? 0 : (n * GLYPH_ADVANCE - 1) * scale;
}

/* Draws s with its top left corner at (x, y), at most up to x_limit (exclusive): characters that
 * would cross it are left out. Returns the x after the last character drawn. */
static int draw_text_clipped(int x, int y, const char *s, int scale, int ink, int x_limit) {
    while (*s) {
        int glyph = next_glyph(&s);
        if (x + 5 * scale > x_limit) break;
        draw_glyph(x, y, glyph, scale, ink);
        x += GLYPH_ADVANCE * scale;
    }
    return x;
}

static int draw_text(int x, int y, const char *s, int scale, int ink) {
    return draw_text_clipped(x, y, s, scale, ink, SCREEN_W);
}

static void draw_text_centered(int cx, int y, const char *s, int scale, int ink) {
    draw_text(cx - text_width(s, scale) / 2, y, s, scale, ink);
}

/* Text in a box of its own: white on black with ink 1 (a tag that stands out on paper), black
 * on white with ink 0 (inside the black header). Returns the x after the box. */
static int draw_tag(int x, int y, const char *s, int ink) {
    int w = text_width(s, 1) + 4;
    fill_rect(x, y, w, 11, ink);
    draw_text(x + 2, y + 2, s, 1, !ink);
    return x + w;
}

/* ---- Weather icons ------------------------------------------------------------------------ *
 * Drawn from shapes in a unit square (x right, y down), sampled at each pixel's centre, so the
 * same icon comes out at 32 pixels (current weather) and 16 (the days). Line widths are given
 * in pixels so that thin lines stay one pixel wide at 16 and two at 32. */
enum icon {
    ICON_NONE, ICON_SUN, ICON_MOON, ICON_PARTLY_DAY, ICON_PARTLY_NIGHT, ICON_CLOUD, ICON_FOG,
    ICON_DRIZZLE, ICON_RAIN, ICON_SLEET, ICON_SNOW, ICON_SHOWERS, ICON_THUNDER, ICON_UNKNOWN
};

static int in_disc(double x, double y, double cx, double cy, double r) {
    return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
}

/* Whether (x, y) is within w of the segment a-b. */
static int near_segment(double x, double y, double ax, double ay, double bx, double by, double w) {
    double vx = bx - ax, vy = by - ay, t = 0.0, len2 = vx * vx + vy * vy, dx, dy;
    if (len2 > 0.0) {
        t = ((x - ax) * vx + (y - ay) * vy) / len2;
        if (t < 0.0) t = 0.0;
        if (t > 1.0) t = 1.0;
    }
    dx = x - (ax + t * vx);
    dy = y - (ay + t * vy);
    return dx * dx + dy * dy <= w * w;
}

/* The cloud, scaled by k about the origin and moved by (ox, oy): 2 on its outline (thickness t),
 * 1 inside or in a margin of width t around it (paper, so that what is behind stays clear of
 * the outline), 0 elsewhere. Three discs over a flat-bottomed box. */
static int cloud(double x, double y, double ox, double oy, double k, double t) {
    static const double disc[3][3] = {{0.30, 0.60, 0.15}, {0.52, 0.44, 0.22}, {0.74, 0.60, 0.15}};
    int i, margin = 0, inside = 0, core = 0;
    x = (x - ox) / k;
    y = (y - oy) / k;
    t /= k;
    for (i = 0; i < 3; i++) {
        margin |= in_disc(x, y, disc[i][0], disc[i][1], disc[i][2] + t);
        inside |= in_disc(x, y, disc[i][0], disc[i][1], disc[i][2]);
        core |= in_disc(x, y, disc[i][0], disc[i][1], disc[i][2] - t);
    }
    margin |= x >= 0.30 && x <= 0.74 && y >= 0.52 && y <= 0.75 + t;
    inside |= x >= 0.30 && x <= 0.74 && y >= 0.52 && y <= 0.75;
    core |= x >= 0.30 && x <= 0.74 && y >= 0.52 && y <= 0.75 - t;
    return inside ? (core ? 1 : 2) : margin;
}

/* A sun of radius r at (cx, cy) with 8 rays reaching out to 2.2 r: 1 on it, else 0. */
static int sun(double x, double y, double cx, double cy, double r, double w) {
    static const double dir[8][2] = {{1, 0}, {0.7071, 0.7071}, {0, 1}, {-0.7071, 0.7071},
                                     {-1, 0}, {-0.7071, -0.7071}, {0, -1}, {0.7071, -0.7071}};
    int i;
    if (in_disc(x, y, cx, cy, r)) return 1;
    for (i = 0; i < 8; i++)
        if (near_segment(x, y, cx + dir[i][0] * 1.5 * r, cy + dir[i][1] * 1.5 * r,
                         cx + dir[i][0] * 2.2 * r, cy + dir[i][1] * 2.2 * r, w))
            return 1;
    return 0;
}

/* A crescent: a disc of radius r with a smaller disc cut out to its upper right. */
static int moon(double x, double y, double cx, double cy, double r) {
    return in_disc(x, y, cx, cy, r) && !in_disc(x, y, cx + 0.45 * r, cy - 0.40 * r, 0.85 * r);
}

/* Ink (1), paper (0) or background (-1) of the icon at (x, y); px is one pixel's size. */
static int icon_pixel(enum icon icon, double x, double y, double px, int big) {
    double thin = (big ? 1.0 : 0.55) * px;   /* half widths */
    double bold = (big ? 1.4 : 0.7) * px;
    double outline = (big ? 2.0 : 1.0) * px + 0.001;
    double up = -0.16;                          /* the cloud above precipitation */
    int c, i;
    switch (icon) {
    case ICON_NONE:
    case ICON_UNKNOWN:
        return -1;
    case ICON_SUN:
        return sun(x, y, 0.5, 0.5, 0.2, bold) ? 1 : -1;
    case ICON_MOON:
        return moon(x, y, 0.5, 0.5, 0.32) ? 1 : -1;
    case ICON_PARTLY_DAY:
    case ICON_PARTLY_NIGHT:
        c = cloud(x, y, 0.20, 0.16, 0.82, outline);
        if (c) return c == 2;
        if (icon == ICON_PARTLY_DAY) return sun(x, y, 0.34, 0.34, 0.13, thin) ? 1 : -1;
        return moon(x, y, 0.34, 0.34, 0.2) ? 1 : -1;
    case ICON_CLOUD:
        c = cloud(x, y, 0.0, -0.04, 1.0, outline);
        return c ? c == 2 : -1;
    case ICON_FOG: {
        static const double bar[4][3] = {
            {0.30, 0.14, 0.84}, {0.45, 0.24, 0.92}, {0.60, 0.08, 0.78}, {0.75, 0.22, 0.86}};
        for (i = 0; i < 4; i++)
            if (near_segment(x, y, bar[i][1], bar[i][0], bar[i][2], bar[i][0], thin)) return 1;
        return -1;
    }
    case ICON_SHOWERS:
        c = cloud(x, y, 0.20, 0.02, 0.82, outline);
        if (c) return c == 2;
        if (sun(x, y, 0.32, 0.24, 0.11, thin)) return 1;
        for (i = 0; i < 3; i++)
            if (near_segment(x, y, 0.46 + 0.16 * i, 0.72, 0.41 + 0.16 * i, 0.92, thin)) return 1;
        return -1;
    default:
        break;
    }
    /* A cloud with something falling from it. */
    c = cloud(x, y, 0.0, up, 1.0, outline);
    if (c) return c == 2;
    switch (icon) {
    case ICON_DRIZZLE:
        for (i = 0; i < 5; i++)
            if (in_disc(x, y, 0.28 + 0.11 * i, i % 2 ? 0.86 : 0.74, bold)) return 1;
        return -1;
    case ICON_RAIN:
        for (i = 0; i < 3; i++)
            if (near_segment(x, y, 0.36 + 0.18 * i, 0.66, 0.29 + 0.18 * i, 0.92, thin)) return 1;
        return -1;
    case ICON_SLEET:
        for (i = 0; i < 3; i++) {
            if (i != 1 && near_segment(x, y, 0.36 + 0.18 * i, 0.66, 0.29 + 0.18 * i, 0.92, thin))
                return 1;
            if (i == 1 && in_disc(x, y, 0.51, 0.80, 1.9 * bold)) return 1;
        }
        return -1;
    case ICON_SNOW:
        for (i = 0; i < 5; i++)
            if (in_disc(x, y, 0.26 + 0.12 * i, i % 2 ? 0.88 : 0.72, 1.6 * bold)) return 1;
        return -1;
    case ICON_THUNDER:
        if (near_segment(x, y, 0.58, 0.60, 0.44, 0.79, bold) ||
            near_segment(x, y, 0.44, 0.79, 0.60, 0.79, bold) ||
            near_segment(x, y, 0.60, 0.79, 0.47, 0.97, bold))
            return 1;
        return -1;
    default:
        return -1;
    }
}

/* The icon in a size x size box at (x0, y0); an unknown code is a question mark. */
static void draw_icon(int x0, int y0, int size, enum icon icon) {
    int i, j;
    if (icon == ICON_UNKNOWN) {
        int scale = size >= 24 ? 3 : 2;
        draw_glyph(x0 + (size - 5 * scale) / 2, y0 + (size - 7 * scale) / 2, '?' - 32, scale, 1);
        return;
    }
    for (j = 0; j < size; j++)
        for (i = 0; i < size; i++) {
            int v = icon_pixel(icon, (i + 0.5) / size, (j + 0.5) / size, 1.0 / size, size >= 24);
            if (v >= 0) set_pixel(x0 + i, y0 + j, v);
        }
}

/* The icon for a WMO 4677 code (schemas/wmo-codes.md; other codes fall back by decade). */
static enum icon icon_for(uint8_t code, int night) {
    if (code == SKYFRAME_MISSING_U8) return ICON_NONE;
    if (code > 99) return ICON_UNKNOWN;
    switch (code) {
    case 0: case 1: return night ? ICON_MOON : ICON_SUN;
    case 2: return night ? ICON_PARTLY_NIGHT : ICON_PARTLY_DAY;
    case 3: return ICON_CLOUD;
    case 38: return ICON_SNOW;
    case 56: case 57: case 66: case 67: case 68: case 69: case 79: case 83: case 84:
        return ICON_SLEET;
    case 59: return ICON_RAIN;
    case 85: case 86: return ICON_SNOW;
    default: break;
    }
    switch (code / 10) {
    case 2: return ICON_CLOUD;
    case 5: return ICON_DRIZZLE;
    case 6: return ICON_RAIN;
    case 7: return ICON_SNOW;
    case 8: return ICON_SHOWERS;
    case 9: return ICON_THUNDER;
    default: return ICON_FOG; /* 4-19, 30-49: haze, mist, dust, fog */
    }
}

/* A phase icon (SKYFRAME_MOON_*) as a small disc: the lit part paper, the dark part ink. */
static void draw_moon_phase(int x0, int y0, int d, int phase) {
    /* cos(2 pi phase / 8): the terminator's position across the disc, -1 .. 1 */
    static const double k[8] = {1.0, 0.7071, 0.0, -0.7071, -1.0, -0.7071, 0.0, 0.7071};
    double r = d / 2.0;
    int i, j;
    for (j = 0; j < d; j++)
        for (i = 0; i < d; i++) {
            double dx = i + 0.5 - r, dy = j + 0.5 - r, w2 = r * r - dy * dy, kk = k[phase & 7];
            int lit;
            if (dx * dx + dy * dy > r * r) continue;
            if (phase > SKYFRAME_MOON_FULL) dx = -dx; /* waning: lit on the left */
            /* lit where dx > kk * sqrt(w2), compared without the square root */
            if (kk >= 0.0) lit = dx > 0.0 && dx * dx > kk * kk * w2;
            else lit = dx >= 0.0 || dx * dx < kk * kk * w2;
            if ((dx * dx + dy * dy) > (r - 1.0) * (r - 1.0)) lit = 0; /* the rim */
            set_pixel(x0 + i, y0 + j, !lit);
        }
}

/* ---- What the screen says ------------------------------------------------------------------ */

static const char *const WEEKDAY[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const MONTH[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
#define DEG "\xC2\xB0" /* U+00B0 in UTF-8: the font's degree sign */

/* A short description of a WMO 4677 code, "" when missing. */
static const char *condition_word(uint8_t code) {
    static char other[16];
    switch (code) {
    case 0: return "Clear sky";
    case 1: return "Mainly clear";
    case 2: return "Partly cloudy";
    case 3: return "Overcast";
    case 4: return "Smoke";
    case 5: return "Haze";
    case 6: case 7: return "Dust";
    case 8: return "Dust whirls";
    case 10: return "Mist";
    case 18: return "Squalls";
    case 19: return "Funnel cloud";
    case 38: return "Blowing snow";
    case 45: return "Fog";
    case 48: return "Rime fog";
    case 51: return "Light drizzle";
    case 53: return "Drizzle";
    case 55: return "Dense drizzle";
    case 56: case 57: return "Freezing drizzle";
    case 58: case 59: return "Drizzle and rain";
    case 61: return "Light rain";
    case 63: return "Rain";
    case 65: return "Heavy rain";
    case 66: case 67: return "Freezing rain";
    case 68: case 69: return "Rain and snow";
    case 71: return "Light snow";
    case 73: return "Snow";
    case 75: return "Heavy snow";
    case 77: return "Snow grains";
    case 79: return "Ice pellets";
    case 80: return "Light showers";
    case 81: return "Showers";
    case 82: return "Violent showers";
    case 83: case 84: return "Sleet showers";
    case 85: case 86: return "Snow showers";
    case 95: return "Thunderstorm";
    case 96: case 99: return "Storm with hail";
    case 97: return "Heavy storm";
    case SKYFRAME_MISSING_U8: return "";
    default: break;
    }
    switch (code / 10) {
    case 0: case 1: return "Haze or mist";
    case 2: return "Recent showers";
    case 3: return "Dust or snow storm";
    case 4: return "Fog";
    case 5: return "Drizzle";
    case 6: return "Rain";
    case 7: return "Snow";
    case 8: return "Showers";
    case 9: return "Thunderstorm";
    default:
        snprintf(other, sizeof other, "Code %u", (unsigned)code);
        return other;
    }
}

static int is_snow(uint8_t code) {
    return code == 38 || (code >= 70 && code <= 79) || code == 85 || code == 86;
}

/* Night for the current weather (schemas/wmo-codes.md section 3). */
static int is_night(const skyframe_frame *f) {
    if (f->sun == SKYFRAME_SUN_POLAR_DAY) return 0;
    if (f->sun == SKYFRAME_SUN_POLAR_NIGHT) return 1;
    if (f->is_day == 0 || f->is_day == 1) return f->is_day == 0;
    if (SKYFRAME_HAS_TIME(f->observed_at) && SKYFRAME_HAS_TIME(f->sunrise) &&
        SKYFRAME_HAS_TIME(f->sunset))
        return f->observed_at < f->sunrise || f->observed_at >= f->sunset;
    return 0;
}

/* "18.4" from 0.1 degC, "--" when missing. */
static const char *tenths(char out[13], int16_t v) {
    if (!SKYFRAME_HAS_I16(v)) return strcpy(out, "--");
    skyframe_format_fixed(out, 13, v, 1);
    return out;
}

/* Whole degrees, rounded half away from zero: "-3", or "--" when missing. */
static const char *whole(char out[13], int16_t v) {
    long r;
    if (!SKYFRAME_HAS_I16(v)) return strcpy(out, "--");
    r = v >= 0 ? (v + 5L) / 10L : -((-(long)v + 5L) / 10L);
    snprintf(out, 13, "%ld", r);
    return out;
}

/* "05:50" at the place, or "" when the time or the offset is missing. */
static const char *local_clock(char out[8], uint32_t t, int16_t utc_offset_min) {
    int16_t m = skyframe_local_minute_of_day(t, utc_offset_min);
    if (m < 0) out[0] = '\0';
    else snprintf(out, 8, "%02d:%02d", m / 60, m % 60);
    return out;
}

/* "3h", "2d": an age for a tag. */
static void age_text(char *out, size_t size, int32_t age) {
    if (age < 3600) snprintf(out, size, "%ldm", (long)(age / 60));
    else if (age < 2L * 86400L) snprintf(out, size, "%ldh", (long)(age / 3600));
    else snprintf(out, size, "%ldd", (long)(age / 86400L));
}

static const char *aqi_word(int scale, int index) {
    if (scale == SKYFRAME_AQI_US) {
        if (index <= 50) return "good";
        if (index <= 100) return "moderate";
        if (index <= 150) return "unhealthy (sens.)";
        if (index <= 200) return "unhealthy";
        if (index <= 300) return "very unhealthy";
        return "hazardous";
    }
    if (index <= 20) return "good";
    if (index <= 40) return "fair";
    if (index <= 60) return "moderate";
    if (index <= 80) return "poor";
    if (index <= 100) return "very poor";
    return "extremely poor";
}

/* The top bar: black, left and right text in white. The left text gives way to the right. */
static void draw_header(const char *left, const char *right, const char *tag) {
    int right_x = SCREEN_W - 3 - text_width(right, 1), limit = right_x - 6;
    fill_rect(0, 0, SCREEN_W, 12, 1);
    draw_text(right_x, 2, right, 1, 0);
    if (tag != NULL) {
        int w = text_width(tag, 1) + 4;
        limit -= w + 4;
        draw_tag(limit + 6, 0, tag, 0);
    }
    draw_text_clipped(3, 2, left, 1, 0, limit);
}

/* A whole number at y 120 with a 3-pixel minus; returns the x after it (its width when x is 0
 * and nothing is drawn). */
static int draw_narrow(int x, const char *number, int draw) {
    if (*number == '-') {
        if (draw) fill_rect(x, 123, 3, 1, 1);
        x += 4;
        number++;
    }
    if (draw) return draw_text(x, 120, number, 1, 1) - 1;
    return x + text_width(number, 1);
}

#define RIGHT_X 152 /* the column of details */

static void draw_weather(const skyframe_frame *f, uint32_t now) {
    const skyframe_current *c = &f->current;
    char left[64], right[40], tag[24], line_text[64], a[13], b[13], t1[8], t2[8];
    int32_t age = skyframe_frame_age_seconds(f, now);
    int x, y, i, have_tag = 0;

    /* Header: place, the place's date and the local time the data was fetched. */
    snprintf(left, sizeof left, "%s%s%s", f->name[0] ? f->name : "(no name)",
             f->country[0] ? ", " : "", f->country);
    right[0] = '\0';
    if (SKYFRAME_HAS_U16(f->daily_start)) {
        int32_t year;
        uint8_t month, day;
        skyframe_date_from_days(f->daily_start, &year, &month, &day);
        snprintf(right, sizeof right, "%s %u %s", WEEKDAY[skyframe_weekday(f->daily_start)],
                 (unsigned)day, MONTH[(month + 11u) % 12u]);
    }
    local_clock(t1, f->fetched_at, f->utc_offset_min);
    if (t1[0]) {
        size_t n = strlen(right);
        snprintf(right + n, sizeof right - n, "%s%s", n ? " " : "", t1);
    }
    if (f->status == SKYFRAME_STATUS_STALE) {
        strcpy(tag, "STALE");
        if (age >= 0) {
            strcat(tag, " ");
            age_text(tag + strlen(tag), sizeof tag - strlen(tag), age);
        }
        have_tag = 1;
    } else if (age > 2L * 3600L) { /* README section 6: mark data older than 2 h */
        strcpy(tag, "OLD ");
        age_text(tag + 4, sizeof tag - 4, age);
        have_tag = 1;
    }
    draw_header(left, right, have_tag ? tag : NULL);

    /* Now: icon, big temperature, condition, feels like. */
    draw_icon(4, 14, 32, icon_for(c->weather_code, is_night(f)));
    snprintf(line_text, sizeof line_text, "%s" DEG "C", tenths(a, c->temperature));
    draw_text(44, 14, line_text, 2, 1);
    draw_text(44, 31, condition_word(c->weather_code), 1, 1);
    if (SKYFRAME_HAS_I16(c->feels_like)) {
        snprintf(line_text, sizeof line_text, "Feels like %s" DEG, tenths(a, c->feels_like));
        draw_text(44, 40, line_text, 1, 1);
    }

    /* Details on the right, one line each. */
    y = 14;
    if (SKYFRAME_HAS_U16(c->wind_speed)) {
        static const char compass[] = "N  NNENE ENEE  ESESE SSES  SSWSW WSWW  WNWNW NNW";
        char dir[4] = "";
        unsigned kmh = (skyframe_ms10_to_kmh10(c->wind_speed) + 5u) / 10u;
        if (SKYFRAME_HAS_U16(c->wind_direction)) {
            size_t k = 3u * ((((size_t)c->wind_direction * 100u + 1125u) / 2250u) % 16u);
            for (i = 0; i < 3 && compass[k + (size_t)i] != ' '; i++)
                dir[i] = compass[k + (size_t)i];
            dir[i] = '\0';
        }
        if (SKYFRAME_HAS_U16(c->wind_gust))
            snprintf(line_text, sizeof line_text, "Wind %s%s%u-%u km/h", dir, dir[0] ? " " : "",
                     kmh, (skyframe_ms10_to_kmh10(c->wind_gust) + 5u) / 10u);
        else
            snprintf(line_text, sizeof line_text, "Wind %s%s%u km/h", dir, dir[0] ? " " : "", kmh);
        draw_text(RIGHT_X, y, line_text, 1, 1);
        y += 9;
    }
    line_text[0] = '\0';
    if (SKYFRAME_HAS_U8(c->humidity))
        snprintf(line_text, sizeof line_text, "Humidity %u%%", (unsigned)c->humidity);
    if (SKYFRAME_HAS_U16(c->pressure)) {
        size_t n = strlen(line_text);
        snprintf(line_text + n, sizeof line_text - n, "%s%u hPa", n ? "  " : "",
                 (unsigned)((c->pressure + 5u) / 10u));
    }
    if (line_text[0]) {
        draw_text(RIGHT_X, y, line_text, 1, 1);
        y += 9;
    }
    line_text[0] = '\0';
    if (f->sun == SKYFRAME_SUN_POLAR_DAY) {
        strcpy(line_text, "Midnight sun");
    } else if (f->sun == SKYFRAME_SUN_POLAR_NIGHT) {
        strcpy(line_text, "Polar night");
    } else {
        local_clock(t1, f->sunrise, f->utc_offset_min);
        local_clock(t2, f->sunset, f->utc_offset_min);
        if (t1[0] || t2[0])
            snprintf(line_text, sizeof line_text, "Sun \xE2\x86\x91%s \xE2\x86\x93%s",
                     t1[0] ? t1 : "--:--", t2[0] ? t2 : "--:--");
    }
    if (line_text[0]) {
        draw_text(RIGHT_X, y, line_text, 1, 1);
        y += 9;
    }
    /* v1.1: precipitation in the next hour, else UV and visibility. */
    line_text[0] = '\0';
    if (skyframe_has_precip_next_hour(f)) {
        const char *what = is_snow(c->weather_code) ? "Snow" : "Rain";
        int change = skyframe_precip_change_in_min(f);
        if (skyframe_precip_now(f) == 1 && change >= 0)
            snprintf(line_text, sizeof line_text, "%s stops in %d min", what, change);
        else if (skyframe_precip_now(f) == 1)
            snprintf(line_text, sizeof line_text, "%s all next hour", what);
        else if (change >= 0)
            snprintf(line_text, sizeof line_text, "%s in %d min", what, change);
        else
            strcpy(line_text, "Dry next hour");
    } else {
        if (SKYFRAME_HAS_U8(c->uv_index))
            snprintf(line_text, sizeof line_text, "UV %s", tenths(a, (int16_t)c->uv_index));
        if (SKYFRAME_HAS_U16(c->visibility)) {
            size_t n = strlen(line_text);
            snprintf(line_text + n, sizeof line_text - n, "%sVisib. %u km", n ? "  " : "",
                     (unsigned)((c->visibility + 50u) / 100u));
        }
    }
    if (line_text[0]) {
        draw_text(RIGHT_X, y, line_text, 1, 1);
        y += 9;
    }
    /* v1.1: air quality and the moon on one line. */
    x = RIGHT_X;
    if (skyframe_has_air_quality(f)) {
        int scale = skyframe_air_quality_scale(f), index = skyframe_air_quality_index(f);
        int room = SCREEN_W - 2 - RIGHT_X - (skyframe_has_moon(f) ? 6 + 12 + 23 : 0);
        const char *label = scale == SKYFRAME_AQI_US ? "US AQI" : "AQI";
        snprintf(line_text, sizeof line_text, "%s %d %s", label, index, aqi_word(scale, index));
        if (text_width(line_text, 1) > room) /* no room for the word next to the moon */
            snprintf(line_text, sizeof line_text, "%s %d", label, index);
        x = draw_text(x, y, line_text, 1, 1) + 6;
    }
    if (skyframe_has_moon(f)) {
        draw_moon_phase(x, y - 1, 9, skyframe_moon_phase_icon(f));
        snprintf(line_text, sizeof line_text, "%d%%", skyframe_moon_illumination_pct(f));
        draw_text(x + 12, y, line_text, 1, 1);
    }
    /* v1.1: alerts, as a tag under the temperature. */
    if (skyframe_alert_count(f) > 0) {
        int count = skyframe_alert_count(f);
        snprintf(line_text, sizeof line_text, "! %d%s alert%s: %s", count,
                 count == SKYFRAME_ALERT_COUNT_MAX ? "+" : "", count == 1 ? "" : "s",
                 skyframe_alert_severity_name(skyframe_alert_severity(f)));
        draw_tag(4, 48, line_text, 1);
    }

    /* Hourly temperatures: a line over 12 slots, labels on every other slot. */
    dotted_hline(0, SCREEN_W - 1, 60);
    if (f->hourly_step_h > 0 && SKYFRAME_HAS_TIME(f->hourly_start)) {
        int lo = 32767, hi = -32768, have = 0, prev_x = 0, prev_y = 0, prev = 0;
        for (i = 0; i < SKYFRAME_HOURLY_COUNT; i++) {
            int16_t t = f->hourly[i].temperature;
            if (!SKYFRAME_HAS_I16(t)) continue;
            if (t < lo) lo = t;
            if (t > hi) hi = t;
            have = 1;
        }
        if (hi - lo < 20) { /* at least 2 degC tall, so that small steps stay small */
            int mid = (hi + lo) / 2;
            lo = mid - 10;
            hi = mid + 10;
        }
        for (i = 0; have && i < SKYFRAME_HOURLY_COUNT; i++) {
            int16_t t = f->hourly[i].temperature;
            int cx = 4 + 24 * i + 12, py;
            uint32_t at = f->hourly_start + (uint32_t)i * f->hourly_step_h * 3600u;
            if (i % 2 == 0) {
                local_clock(t1, at, f->utc_offset_min);
                t1[2] = '\0'; /* the hour */
                if (t1[0]) draw_text_centered(cx, 82, t1, 1, 1);
            }
            if (!SKYFRAME_HAS_I16(t)) {
                prev = 0;
                continue;
            }
            py = 79 - (t - lo) * 8 / (hi - lo);
            if (prev) line(prev_x, prev_y, cx, py);
            fill_rect(cx - 1, py - 1, 3, 3, 1);
            if (i % 2 == 0) {
                snprintf(line_text, sizeof line_text, "%s" DEG, whole(a, t));
                draw_text_centered(cx, 62, line_text, 1, 1);
            }
            prev = 1;
            prev_x = cx;
            prev_y = py;
        }
    }

    /* Seven days: weekday, icon, max/min. */
    dotted_hline(0, SCREEN_W - 1, 91);
    for (i = 0; i < SKYFRAME_DAILY_COUNT && SKYFRAME_HAS_U16(f->daily_start); i++) {
        const skyframe_daily *d = &f->daily[i];
        int cx = SCREEN_W * i / SKYFRAME_DAILY_COUNT + SCREEN_W / (2 * SKYFRAME_DAILY_COUNT);
        draw_text_centered(cx, 93, WEEKDAY[skyframe_weekday((int32_t)f->daily_start + i)], 1, 1);
        /* days get the day icon, but for polar night (wmo-codes.md section 3) */
        draw_icon(cx - 8, 103, 16,
                  icon_for(d->weather_code, f->sun == SKYFRAME_SUN_POLAR_NIGHT));
        /* max/min with a 3-pixel slash and minus, so that "-82/-89" fits the 42-pixel column */
        whole(a, d->temperature_max);
        whole(b, d->temperature_min);
        x = cx - (draw_narrow(0, a, 0) + 5 + draw_narrow(0, b, 0)) / 2;
        x = draw_narrow(x, a, 1);
        line(x + 1, 126, x + 3, 120);
        draw_narrow(x + 5, b, 1);
    }
}

/* A warning sign: a triangle with an exclamation mark, size x size. */
static void draw_warning(int x0, int y0, int size) {
    int i, j;
    double px = 1.0 / size, w = 1.4 * px;
    for (j = 0; j < size; j++)
        for (i = 0; i < size; i++) {
            double x = (i + 0.5) / size, y = (j + 0.5) / size;
            if (near_segment(x, y, 0.5, 0.08, 0.06, 0.9, w) ||
                near_segment(x, y, 0.5, 0.08, 0.94, 0.9, w) ||
                near_segment(x, y, 0.06, 0.9, 0.94, 0.9, w) ||
                near_segment(x, y, 0.5, 0.36, 0.5, 0.62, 1.6 * px) ||
                in_disc(x, y, 0.5, 0.76, 2.2 * px))
                set_pixel(x0 + i, y0 + j, 1);
        }
}

/* An error frame (status 2..7 or one this program does not know): what went wrong, big. */
static void draw_error(const skyframe_frame *f) {
    char right[32], text[64];
    const char *name = skyframe_status_name(f->status), *hint;
    int32_t next = skyframe_next_update_seconds(f);
    int y;
    if (f->request_id != 0) snprintf(right, sizeof right, "request #%u", (unsigned)f->request_id);
    else right[0] = '\0';
    draw_header("Skyframe", right, NULL);
    draw_warning(8, 24, 36);
    if (strcmp(name, "unknown") == 0) {
        snprintf(text, sizeof text, "status %u", (unsigned)f->status);
        draw_text(56, 24, text, 2, 1);
    } else {
        draw_text(56, 24, name, 2, 1);
    }
    switch (f->status) {
    case SKYFRAME_STATUS_NOT_FOUND: hint = "No place has this name."; break;
    case SKYFRAME_STATUS_BAD_REQUEST: hint = "The gateway did not understand."; break;
    case SKYFRAME_STATUS_UPSTREAM_UNAVAILABLE: hint = "Weather service down, no cache."; break;
    case SKYFRAME_STATUS_RATE_LIMITED: hint = "Asking too often: wait minutes."; break;
    case SKYFRAME_STATUS_TOO_MANY_LOCATIONS: hint = "Too many places in one request."; break;
    case SKYFRAME_STATUS_INTERNAL_ERROR: hint = "The gateway failed."; break;
    default: hint = "A newer gateway's status."; break;
    }
    draw_text(56, 44, hint, 1, 1);
    y = 56;
    if (f->name[0]) { /* what was asked for (not_found), or the gateway's reason */
        snprintf(text, sizeof text, "\"%s\"", f->name);
        draw_text_clipped(56, y, text, 1, 1, SCREEN_W - 4);
        y += 12;
    }
    if (next > 0) {
        snprintf(text, sizeof text, "Ask again in %ld min", (long)((next + 59) / 60));
        draw_text(56, y, text, 1, 1);
    }
    dotted_hline(0, SCREEN_W - 1, 90);
    snprintf(text, sizeof text, "status %u  %s", (unsigned)f->status, name);
    draw_text(4, 100, text, 1, 1);
    draw_text(4, 112, "No weather in this frame.", 1, 1);
}

/* ---- Image files ------------------------------------------------------------------------- */

/* The file holds the screen with each pixel as scale x scale pixels (--scale, 1 by default). */
static int image_scale = 1;

static size_t row_bytes(void) { return ((size_t)SCREEN_W * (size_t)image_scale + 7u) / 8u; }

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* File row y packed 8 pixels a byte, leftmost in the high bit; `one` is the bit value of ink. */
static void pack_row(unsigned char *out, int y, int one) {
    int x, w = SCREEN_W * image_scale;
    const unsigned char *src = screen[y / image_scale];
    memset(out, one ? 0x00 : 0xFF, row_bytes());
    for (x = 0; x < w; x++)
        if (src[x / image_scale]) {
            if (one) out[x / 8] |= (unsigned char)(0x80u >> (x % 8));
            else out[x / 8] &= (unsigned char)~(0x80u >> (x % 8));
        }
}

/* PBM P4: 1 is black. */
static int write_pbm(FILE *fp) {
    unsigned char row[(SCREEN_W * 8 + 7) / 8];
    int y;
    if (fprintf(fp, "P4\n%d %d\n", SCREEN_W * image_scale, SCREEN_H * image_scale) < 0) return -1;
    for (y = 0; y < SCREEN_H * image_scale; y++) {
        pack_row(row, y, 1);
        if (fwrite(row, 1, row_bytes(), fp) != row_bytes()) return -1;
    }
    return 0;
}

/* A PNG chunk: length, type, data, CRC-32 of type and data (the frame's CRC: same polynomial,
 * same reflection and inversion as zlib's, so skyframe_crc32 serves). */
static int write_chunk(FILE *fp, const char type[4], const unsigned char *data, size_t n) {
    unsigned char head[4], crc[4], *body = malloc(n + 4);
    int ok;
    if (body == NULL) return -1;
    memcpy(body, type, 4);
    if (n > 0) memcpy(body + 4, data, n);
    put_be32(head, (uint32_t)n);
    put_be32(crc, skyframe_crc32(body, n + 4));
    ok = fwrite(head, 1, 4, fp) == 4 && fwrite(body, 1, n + 4, fp) == n + 4 &&
         fwrite(crc, 1, 4, fp) == 4;
    free(body);
    return ok ? 0 : -1;
}

/* PNG: 1-bit greyscale (0 black, 1 white), no interlace. The image data is a zlib stream of
 * stored (uncompressed) deflate blocks of at most 65535 bytes each, then the Adler-32 of the
 * data; every row starts with filter type 0 (None). */
static int write_png(FILE *fp) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    size_t stride = 1 + row_bytes(), raw_len = stride * (size_t)(SCREEN_H * image_scale);
    size_t blocks = (raw_len + 65534) / 65535, zlen = 2 + 5 * blocks + raw_len + 4, done = 0, i;
    unsigned char ihdr[13], *raw = malloc(raw_len), *z = malloc(zlen), *p = z;
    uint32_t a = 1, b = 0;
    int y, rc = -1;

    if (raw == NULL || z == NULL) goto out;
    for (y = 0; y < SCREEN_H * image_scale; y++) {
        raw[(size_t)y * stride] = 0;
        pack_row(raw + (size_t)y * stride + 1, y, 0);
    }
    put_be32(ihdr, (uint32_t)(SCREEN_W * image_scale));
    put_be32(ihdr + 4, (uint32_t)(SCREEN_H * image_scale));
    ihdr[8] = 1;  /* bit depth */
    ihdr[9] = 0;  /* colour type: greyscale */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* no interlace */

    *p++ = 0x78; /* deflate with a 32 KiB window; */
    *p++ = 0x01; /* no dictionary, level "fastest": (0x78 * 256 + 0x01) % 31 == 0 */
    while (done < raw_len) {
        size_t n = raw_len - done > 65535 ? 65535 : raw_len - done;
        *p++ = done + n == raw_len ? 1 : 0; /* BFINAL on the last block; BTYPE 00: stored */
        *p++ = (unsigned char)(n & 0xFFu);
        *p++ = (unsigned char)(n >> 8);
        *p++ = (unsigned char)(~n & 0xFFu); /* NLEN: one's complement of LEN */
        *p++ = (unsigned char)((~n >> 8) & 0xFFu);
        memcpy(p, raw + done, n);
        p += n;
        done += n;
    }
    for (i = 0; i < raw_len; i++) {
        a = (a + raw[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    put_be32(p, (b << 16) | a);

    if (fwrite(signature, 1, 8, fp) == 8 && write_chunk(fp, "IHDR", ihdr, sizeof ihdr) == 0 &&
        write_chunk(fp, "IDAT", z, zlen) == 0 && write_chunk(fp, "IEND", NULL, 0) == 0)
        rc = 0;
out:
    free(raw);
    free(z);
    return rc;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix), i;
    if (n < m) return 0;
    for (i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

static int write_image(const char *path) {
    FILE *fp = fopen(path, "wb");
    int rc;
    if (fp == NULL) {
        fprintf(stderr, "virtual_display: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    rc = ends_with(path, ".png") ? write_png(fp) : write_pbm(fp);
    if (fclose(fp) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "virtual_display: writing %s failed\n", path);
    return rc;
}

/* ---- A frame from a file: hex text, or a golden vector's JSON with a "hex" key ------------ */

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the bytes into buf (at most cap); returns how many, or -1 with a message. A file with
 * more bytes than cap reports cap + 1, so that the decoder says "too_long". */
static long read_hex_file(const char *path, unsigned char *buf, size_t cap) {
    static char text[1 << 16];
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t len, n = 0;
    const char *p, *end;
    int high = -1;
    if (fp == NULL) {
        fprintf(stderr, "virtual_display: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    len = fread(text, 1, sizeof text - 1, fp);
    if (fp != stdin) fclose(fp);
    text[len] = '\0';
    p = text;
    end = text + len;
    if ((p = strstr(text, "\"hex\"")) != NULL) { /* JSON: the string after "hex": */
        p = strchr(p + 5, '"');
        end = p != NULL ? strchr(p + 1, '"') : NULL;
        if (p == NULL || end == NULL) {
            fprintf(stderr, "virtual_display: %s: \"hex\" has no string value\n", path);
            return -1;
        }
        p++;
    } else {
        p = text;
    }
    for (; p < end; p++) {
        int v = hex_value((unsigned char)*p);
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') continue;
        if (v < 0) {
            fprintf(stderr, "virtual_display: %s: '%c' is not a hex digit\n", path, *p);
            return -1;
        }
        if (high < 0) {
            high = v;
            continue;
        }
        if (n == cap) return (long)cap + 1;
        buf[n++] = (unsigned char)(high * 16 + v);
        high = -1;
    }
    if (high >= 0) {
        fprintf(stderr, "virtual_display: %s: an odd number of hex digits\n", path);
        return -1;
    }
    return (long)n;
}

/* ---- MQTT: ask like a device and wait for the answer ------------------------------------- */

struct session {
    char request_topic[64], frame_topic[64], request[600];
    uint16_t request_id;
    int done;           /* a frame for our request arrived, or one did not decode */
    int decode_error;   /* SKYFRAME_ERR_* of a frame that did not decode, else 0 */
    int refused;        /* the broker refused the connection or the subscription */
    skyframe_frame frame;
};

static void on_connect(struct mosquitto *m, void *obj, int rc) {
    struct session *s = obj;
    if (rc != 0) {
        fprintf(stderr, "virtual_display: the broker refused the connection: %s\n",
                mosquitto_connack_string(rc));
        s->refused = 1;
        return;
    }
    mosquitto_subscribe(m, NULL, s->frame_topic, 1); /* a clean session: after every connect */
}

/* Subscribed: now the answer cannot pass us by, so ask (again, after a reconnect). */
static void on_subscribe(struct mosquitto *m, void *obj, int mid, int count, const int *granted) {
    struct session *s = obj;
    (void)mid;
    if (count < 1 || granted[0] > 2) {
        fprintf(stderr, "virtual_display: the broker refused the subscription to %s\n",
                s->frame_topic);
        s->refused = 1;
        return;
    }
    mosquitto_publish(m, NULL, s->request_topic, (int)strlen(s->request), s->request, 1, false);
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg) {
    struct session *s = obj;
    skyframe_frame f;
    int rc;
    (void)m;
    if (s->done || strcmp(msg->topic, s->frame_topic) != 0) return;
    rc = skyframe_frame_decode(msg->payload, (size_t)msg->payloadlen, &f);
    if (rc != SKYFRAME_OK) {
        s->decode_error = rc;
        s->done = 1;
        return;
    }
    if (f.request_id != s->request_id) { /* an older request's answer, or a watch's */
        fprintf(stderr, "virtual_display: ignored a frame for request #%u\n",
                (unsigned)f.request_id);
        return;
    }
    s->frame = f;
    s->done = 1;
}

static double seconds_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* EXIT_DRAWN with s->frame filled, or another exit status. */
static int ask_gateway(struct session *s, const char *host, int port, double timeout) {
    struct mosquitto *m;
    char client_id[32];
    double deadline = seconds_now() + timeout;
    int rc, connected = 0, warned = 0, status;

    mosquitto_lib_init();
    snprintf(client_id, sizeof client_id, "skyframe-vd-%ld", (long)getpid());
    m = mosquitto_new(client_id, true, s);
    if (m == NULL) {
        fprintf(stderr, "virtual_display: mosquitto_new failed\n");
        mosquitto_lib_cleanup();
        return EXIT_FAILED;
    }
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);

    /* Like a device: keep trying until the deadline when the broker is away or the link drops. */
    while (!s->done && !s->refused && seconds_now() < deadline) {
        if (!connected) {
            rc = mosquitto_connect(m, host, port, 30);
            if (rc != MOSQ_ERR_SUCCESS) {
                if (!warned)
                    fprintf(stderr, "virtual_display: cannot connect to %s:%d: %s; retrying\n",
                            host, port,
                            rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
                warned = 1;
                pause_ms(200);
                continue;
            }
            connected = 1;
        }
        rc = mosquitto_loop(m, 100, 1);
        if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO) {
            pause_ms(200);
            if (mosquitto_reconnect(m) != MOSQ_ERR_SUCCESS) connected = 0;
        }
    }
    if (s->decode_error != 0) {
        fprintf(stderr, "virtual_display: the frame did not decode: %s\n",
                skyframe_error_name(s->decode_error));
        status = EXIT_DECODE;
    } else if (s->done) {
        status = EXIT_DRAWN;
    } else if (s->refused) {
        status = EXIT_FAILED;
    } else {
        fprintf(stderr, "virtual_display: no answer to request #%u on %s within %g s\n",
                (unsigned)s->request_id, s->frame_topic, timeout);
        status = EXIT_TIMEOUT;
    }
    if (connected) mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return status;
}

/* ---- Command line ------------------------------------------------------------------------- */

static void usage(FILE *fp) {
    fputs("usage: virtual_display --place PLACE [--host H] [--port P] [--device ID]\n"
          "                       [--out FILE.png|FILE.pbm] [--timeout S] [--request-id N]\n"
          "                       [--now UNIX] [--scale N]\n"
          "       virtual_display --frame-hex FILE [--out FILE] [--now UNIX] [--scale N]\n"
          "\n"
          "Asks a Skyframe gateway for PLACE (\"Berlin,DE\" or \"52.52,13.41\") like a device:\n"
          "subscribes to skyframe/v1/frame/ID (QoS 1), publishes \"#N PLACE\" to\n"
          "skyframe/v1/req/ID, waits for the frame with request_id N and draws it as a\n"
          "296x128 1-bit e-paper screen. --frame-hex draws a frame from a file instead: hex\n"
          "digits (whitespace ignored; - is stdin) or a golden vector's JSON with \"hex\".\n"
          "\n"
          "  --host H         broker (127.0.0.1)          --port P     1883\n"
          "  --device ID      device id, 1-32 characters (virtual-display)\n"
          "  --out FILE       .png or .pbm (virtual-display.png)\n"
          "  --timeout S      seconds to wait for the answer (10)\n"
          "  --request-id N   1-65535 (from the process id and the time)\n"
          "  --now UNIX       the clock for the data's age (the system clock)\n"
          "  --scale N        each screen pixel as N x N pixels in the file, 1-8 (1)\n"
          "\n"
          "Prints one line: drew NAME COUNTRY TEMP status STATUS -> FILE.\n"
          "Exit status: 0 drawn (error frames too), 1 usage, file or MQTT error, 2 no answer in\n"
          "time, 3 the frame did not decode.\n",
          fp);
}

/* A whole number in [lo, hi], or -1 with a message. */
static long number_option(const char *name, const char *text, long lo, long hi) {
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "virtual_display: %s must be a whole number %ld-%ld, not '%s'\n", name,
                lo, hi, text);
        return -1;
    }
    return v;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *device = "virtual-display", *place = NULL;
    const char *out = "virtual-display.png", *hex_file = NULL;
    long port = 1883, request_id = 0, timeout = 10, scale = 1;
    long now_value = -1;
    struct session s;
    char temperature[24], status_number[8];
    const char *status_text;
    int i, status;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = NULL;
        char *eq;
        static char name[32];
        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return EXIT_DRAWN;
        }
        if (strncmp(opt, "--", 2) != 0 || strlen(opt) >= sizeof name) {
            fprintf(stderr, "virtual_display: unexpected argument '%s'\n", opt);
            usage(stderr);
            return EXIT_FAILED;
        }
        strcpy(name, opt);
        if ((eq = strchr(name, '=')) != NULL) { /* --port=1884 */
            *eq = '\0';
            val = opt + (eq - name) + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            fprintf(stderr, "virtual_display: %s needs a value\n", opt);
            return EXIT_FAILED;
        }
        if (strcmp(name, "--host") == 0) {
            host = val;
        } else if (strcmp(name, "--device") == 0) {
            device = val;
        } else if (strcmp(name, "--place") == 0) {
            place = val;
        } else if (strcmp(name, "--out") == 0) {
            out = val;
        } else if (strcmp(name, "--frame-hex") == 0) {
            hex_file = val;
        } else if (strcmp(name, "--port") == 0) {
            if ((port = number_option(name, val, 1, 65535)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--timeout") == 0) {
            if ((timeout = number_option(name, val, 1, 3600)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--request-id") == 0) {
            if ((request_id = number_option(name, val, 1, 65535)) < 0) return EXIT_FAILED;
        } else if (strcmp(name, "--scale") == 0) {
            if ((scale = number_option(name, val, 1, 8)) < 0) return EXIT_FAILED;
            image_scale = (int)scale;
        } else if (strcmp(name, "--now") == 0) {
            if ((now_value = number_option(name, val, 0, 0x7FFFFFFFL)) < 0) return EXIT_FAILED;
        } else {
            fprintf(stderr, "virtual_display: unknown option %s\n", name);
            usage(stderr);
            return EXIT_FAILED;
        }
    }
    if (!ends_with(out, ".png") && !ends_with(out, ".pbm")) {
        fprintf(stderr, "virtual_display: --out must end in .png or .pbm: %s\n", out);
        return EXIT_FAILED;
    }

    memset(&s, 0, sizeof s);
    if (hex_file != NULL) {
        unsigned char buf[SKYFRAME_FRAME_SIZE];
        long n = read_hex_file(hex_file, buf, sizeof buf);
        int rc;
        if (n < 0) return EXIT_FAILED;
        rc = skyframe_frame_decode(buf, (size_t)n, &s.frame);
        if (rc != SKYFRAME_OK) {
            fprintf(stderr, "virtual_display: the frame did not decode: %s\n",
                    skyframe_error_name(rc));
            return EXIT_DECODE;
        }
    } else {
        size_t dl = strlen(device);
        if (place == NULL || place[0] == '\0') {
            fprintf(stderr, "virtual_display: --place or --frame-hex is required\n");
            usage(stderr);
            return EXIT_FAILED;
        }
        if (dl == 0 || dl > 32 || strpbrk(device, "/+#") != NULL) {
            fprintf(stderr, "virtual_display: --device must be 1-32 characters without / + #\n");
            return EXIT_FAILED;
        }
        if (request_id == 0) { /* differs between runs, so an old answer is not taken for ours */
            unsigned long mix = (unsigned long)getpid() * 2654435761UL ^ (unsigned long)time(NULL);
            request_id = (long)(mix % 65535UL) + 1;
        }
        s.request_id = (uint16_t)request_id;
        snprintf(s.request_topic, sizeof s.request_topic, "skyframe/v1/req/%s", device);
        snprintf(s.frame_topic, sizeof s.frame_topic, "skyframe/v1/frame/%s", device);
        if ((size_t)snprintf(s.request, sizeof s.request, "#%ld %s", request_id, place) >= 513) {
            fprintf(stderr, "virtual_display: the request is longer than 512 bytes\n");
            return EXIT_FAILED;
        }
        status = ask_gateway(&s, host, (int)port, (double)timeout);
        if (status != EXIT_DRAWN) return status;
    }

    if (skyframe_frame_has_weather(&s.frame))
        draw_weather(&s.frame, now_value >= 0 ? (uint32_t)now_value : (uint32_t)time(NULL));
    else
        draw_error(&s.frame);
    if (write_image(out) != 0) return EXIT_FAILED;

    temperature[0] = '\0';
    if (skyframe_frame_has_weather(&s.frame)) {
        char t[13];
        snprintf(temperature, sizeof temperature, " %sC", tenths(t, s.frame.current.temperature));
    }
    status_text = skyframe_status_name(s.frame.status);
    if (strcmp(status_text, "unknown") == 0) { /* a newer gateway's status: say its number */
        snprintf(status_number, sizeof status_number, "%u", (unsigned)s.frame.status);
        status_text = status_number;
    }
    printf("drew %s%s%s%s status %s -> %s\n", s.frame.name[0] ? s.frame.name : "(no name)",
           s.frame.country[0] ? " " : "", s.frame.country, temperature, status_text, out);
    return EXIT_DRAWN;
}
