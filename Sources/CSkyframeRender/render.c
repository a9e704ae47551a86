/*
 * render.c - the drawing of a Skyframe message as the display of its profile shows it: the
 * 296 x 128 1-bit e-paper screen (standard), the 800 x 480 e-paper one (large: 48-hour graph,
 * 8 days, the alerts' own words) or the 128 x 64 OLED (tiny), as a PNG or PBM in memory.
 * See include/skyframe_render.h for the API. Compiled by SwiftPM (target CSkyframeRender) and
 * with the virtual display (firmware-notes/examples/virtual-display: Makefile, test.sh), whose
 * golden pictures berlin.png, berlin-large.png and berlin-tiny.png check it byte for byte.
 *
 * Not reentrant: one screen buffer in static storage (see the header).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skyframe_render.h"

/* This file compiles the decoder's code; programs that link it only include the header. */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"

/* ---- The screen, one byte per pixel while drawing, 1 = ink (black) ------------------------ *
 * Its size goes with the frame's profile: 296 x 128 e-paper (standard), 800 x 480 e-paper
 * (large), 128 x 64 OLED (tiny); the buffer holds the largest. */

#define SCREEN_MAX_W 800
#define SCREEN_MAX_H 480

static unsigned char screen[SCREEN_MAX_H][SCREEN_MAX_W];
static int screen_w = 296, screen_h = 128;

static void set_pixel(int x, int y, int ink) {
    if (x >= 0 && x < screen_w && y >= 0 && y < screen_h) screen[y][x] = (unsigned char)ink;
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

static void dotted_vline(int x, int y0, int y1) {
    int y;
    for (y = y0; y <= y1; y += 2) set_pixel(x, y, 1);
}

/* Bresenham, one pixel wide. Both tests compare the error from before the step: testing the
 * updated one can step past the end point on steep lines and never stop. */
static void line(int x0, int y0, int x1, int y1) {
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy, e2;
    for (;;) {
        set_pixel(x0, y0, 1);
        if (x0 == x1 && y0 == y1) break;
        e2 = 2 * err;
        if (e2 >= dy) { err += dy; x0 += sx; }
        if (e2 <= dx) { err += dx; y0 += sy; }
    }
}

/* ---- Font: 5 x 8 (rows 0-6 the body, row 7 descenders), 6 pixels per character ----------- *
 * One byte per row, bit 4 the leftmost pixel. Entries 0-94 are ASCII 32-126, then the few
 * non-ASCII characters the screen itself uses and a few letters of place names and alert
 * words, then the placeholder drawn for every other character (a name is UTF-8 and this font
 * has no glyphs for most of it). */
enum {
    GLYPH_DEGREE = 95, GLYPH_UP, GLYPH_DOWN, GLYPH_DROP, GLYPH_LATIN, /* then LATIN_EXTRA's */
    GLYPH_PLACEHOLDER = GLYPH_LATIN + 12, GLYPH_COUNT
};
/* The letters with diacritics the font has (German and Nordic place names and alerts), in the
 * order of their glyphs from GLYPH_LATIN on. */
static const unsigned short LATIN_EXTRA[12] = {0xC4, 0xD6, 0xDC, 0xE4, 0xF6, 0xFC,
                                               0xDF, 0xF8, 0xD8, 0xE5, 0xC5, 0xE9};
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
    {0x04, 0x04, 0x0E, 0x1F, 0x1F, 0x1F, 0x0E, 0x00}, /* a drop: chance of precipitation */
    {0x0A, 0x00, 0x0E, 0x11, 0x1F, 0x11, 0x11, 0x00}, /* A diaeresis */
    {0x0A, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00}, /* O diaeresis */
    {0x0A, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00}, /* U diaeresis */
    {0x0A, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00}, /* a diaeresis */
    {0x00, 0x0A, 0x00, 0x0E, 0x11, 0x11, 0x0E, 0x00}, /* o diaeresis */
    {0x00, 0x0A, 0x00, 0x11, 0x11, 0x13, 0x0D, 0x00}, /* u diaeresis */
    {0x0C, 0x12, 0x12, 0x16, 0x11, 0x11, 0x16, 0x10}, /* sharp s */
    {0x00, 0x01, 0x0E, 0x13, 0x15, 0x19, 0x0E, 0x10}, /* o stroke */
    {0x0F, 0x13, 0x15, 0x15, 0x15, 0x19, 0x1E, 0x00}, /* O stroke */
    {0x06, 0x06, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00}, /* a ring */
    {0x04, 0x0A, 0x04, 0x0E, 0x11, 0x1F, 0x11, 0x00}, /* A ring */
    {0x02, 0x04, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00}, /* e acute */
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
    for (i = 0; i < 12; i++)
        if (cp == LATIN_EXTRA[i]) return GLYPH_LATIN + i;
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
    return draw_text_clipped(x, y, s, scale, ink, screen_w);
}

static void draw_text_centered(int cx, int y, const char *s, int scale, int ink) {
    draw_text(cx - text_width(s, scale) / 2, y, s, scale, ink);
}

/* Text in a box of its own: white on black with ink 1 (a tag that stands out on paper), black
 * on white with ink 0 (inside the black header). Returns the x after the box. */
static int draw_tag_scaled(int x, int y, const char *s, int ink, int k) {
    int w = text_width(s, k) + 4 * k;
    fill_rect(x, y, w, 11 * k, ink);
    draw_text(x + 2 * k, y + 2 * k, s, k, !ink);
    return x + w;
}

static int draw_tag(int x, int y, const char *s, int ink) { return draw_tag_scaled(x, y, s, ink, 1); }

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
static int night_now(uint8_t sun, uint8_t is_day, uint32_t observed_at, uint32_t sunrise,
                     uint32_t sunset) {
    if (sun == SKYFRAME_SUN_POLAR_DAY) return 0;
    if (sun == SKYFRAME_SUN_POLAR_NIGHT) return 1;
    if (is_day == 0 || is_day == 1) return is_day == 0;
    if (SKYFRAME_HAS_TIME(observed_at) && SKYFRAME_HAS_TIME(sunrise) && SKYFRAME_HAS_TIME(sunset))
        return observed_at < sunrise || observed_at >= sunset;
    return 0;
}

static int is_night(const skyframe_frame *f) {
    return night_now(f->sun, f->is_day, f->observed_at, f->sunrise, f->sunset);
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

/* "WSW": where the wind comes from (degrees 0-359) on a 16-point compass, "" when missing. */
static const char *compass_point(char out[4], uint16_t degrees) {
    static const char compass[] = "N  NNENE ENEE  ESESE SSES  SSWSW WSWW  WNWNW NNW";
    size_t k, i;
    out[0] = '\0';
    if (!SKYFRAME_HAS_U16(degrees)) return out;
    k = 3u * ((((size_t)degrees * 100u + 1125u) / 2250u) % 16u);
    for (i = 0; i < 3 && compass[k + i] != ' '; i++) out[i] = compass[k + i];
    out[i] = '\0';
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

/* "Wed 15 Jan 11:20": the place's date (of daily[0]) and the local time of the fetch; what is
 * missing is left out. */
static void date_and_time(char *out, size_t size, uint16_t daily_start, uint32_t fetched_at,
                          int16_t utc_offset_min) {
    char t[8];
    out[0] = '\0';
    if (SKYFRAME_HAS_U16(daily_start)) {
        int32_t year;
        uint8_t month, day;
        skyframe_date_from_days(daily_start, &year, &month, &day);
        snprintf(out, size, "%s %u %s", WEEKDAY[skyframe_weekday(daily_start)], (unsigned)day,
                 MONTH[(month + 11u) % 12u]);
    }
    local_clock(t, fetched_at, utc_offset_min);
    if (t[0]) {
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s%s", n ? " " : "", t);
    }
}

/* The header's tag: "STALE 3h" for cached data, "OLD 5h" for data older than 2 h
 * (firmware-notes/README.md §6), else none (NULL). age: skyframe_frame_age_seconds(). */
static const char *age_tag(char tag[24], uint8_t status, int32_t age) {
    if (status == SKYFRAME_STATUS_STALE) {
        strcpy(tag, "STALE");
        if (age >= 0) {
            strcat(tag, " ");
            age_text(tag + strlen(tag), 24 - strlen(tag), age);
        }
        return tag;
    }
    if (age > 2L * 3600L) {
        strcpy(tag, "OLD ");
        age_text(tag + 4, 24 - 4, age);
        return tag;
    }
    return NULL;
}

/* The top bar, 12 k pixels tall: black, left and right text in white (at scale k). The left
 * text gives way to the right. */
static void draw_header_scaled(const char *left, const char *right, const char *tag, int k) {
    int right_x = screen_w - 3 * k - text_width(right, k), limit = right_x - 6 * k;
    fill_rect(0, 0, screen_w, 12 * k, 1);
    draw_text(right_x, 2 * k, right, k, 0);
    if (tag != NULL) {
        int w = text_width(tag, k) + 4 * k;
        limit -= w + 4 * k;
        draw_tag_scaled(limit + 6 * k, 0, tag, 0, k);
    }
    if (k > 1 && 3 * k + text_width(left, k) > limit) /* a long name: smaller, not cut */
        draw_text_clipped(3 * k, (12 * k - 7) / 2, left, 1, 0, limit);
    else
        draw_text_clipped(3 * k, 2 * k, left, k, 0, limit);
}

static void draw_header(const char *left, const char *right, const char *tag) {
    draw_header_scaled(left, right, tag, 1);
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
    int x, y, i;

    /* Header: place, the place's date and the local time the data was fetched. */
    snprintf(left, sizeof left, "%s%s%s", f->name[0] ? f->name : "(no name)",
             f->country[0] ? ", " : "", f->country);
    date_and_time(right, sizeof right, f->daily_start, f->fetched_at, f->utc_offset_min);
    draw_header(left, right, age_tag(tag, f->status, age));

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
        char dir[4];
        unsigned kmh = (skyframe_ms10_to_kmh10(c->wind_speed) + 5u) / 10u;
        compass_point(dir, c->wind_direction);
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
        int room = screen_w - 2 - RIGHT_X - (skyframe_has_moon(f) ? 6 + 12 + 23 : 0);
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
    dotted_hline(0, screen_w - 1, 60);
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
    dotted_hline(0, screen_w - 1, 91);
    for (i = 0; i < SKYFRAME_DAILY_COUNT && SKYFRAME_HAS_U16(f->daily_start); i++) {
        const skyframe_daily *d = &f->daily[i];
        int cx = screen_w * i / SKYFRAME_DAILY_COUNT + screen_w / (2 * SKYFRAME_DAILY_COUNT);
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

/* One line on what an error status means. */
static const char *error_hint(uint8_t status) {
    switch (status) {
    case SKYFRAME_STATUS_NOT_FOUND: return "No place has this name.";
    case SKYFRAME_STATUS_BAD_REQUEST: return "The gateway did not understand.";
    case SKYFRAME_STATUS_UPSTREAM_UNAVAILABLE: return "Weather service down, no cache.";
    case SKYFRAME_STATUS_RATE_LIMITED: return "Asking too often: wait minutes.";
    case SKYFRAME_STATUS_TOO_MANY_LOCATIONS: return "Too many places in one request.";
    case SKYFRAME_STATUS_INTERNAL_ERROR: return "The gateway failed.";
    default: return "A newer gateway's status.";
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

/* What an error frame (status 2..7 or one this renderer does not know) has to say, big: the
 * status, a hint, the name field (what was asked for, or the gateway's reason) and when to
 * ask again. The standard screen's layout with every length times k, moved down by oy. */
static void draw_error_scaled(uint8_t status, uint16_t request_id, const char *name,
                              int32_t next, int k, int oy) {
    char right[32], text[80];
    const char *status_name = skyframe_status_name(status), *hint;
    int y;
    if (request_id != 0) snprintf(right, sizeof right, "request #%u", (unsigned)request_id);
    else right[0] = '\0';
    draw_header_scaled("Skyframe", right, NULL, k);
    draw_warning(8 * k, oy + 24 * k, 36 * k);
    if (strcmp(status_name, "unknown") == 0) {
        snprintf(text, sizeof text, "status %u", (unsigned)status);
        draw_text(56 * k, oy + 24 * k, text, 2 * k, 1);
    } else {
        draw_text(56 * k, oy + 24 * k, status_name, 2 * k, 1);
    }
    hint = error_hint(status);
    draw_text(56 * k, oy + 44 * k, hint, k, 1);
    y = oy + 56 * k;
    if (name != NULL && name[0]) { /* what was asked for (not_found), or the gateway's reason */
        snprintf(text, sizeof text, "\"%s\"", name);
        draw_text_clipped(56 * k, y, text, k, 1, screen_w - 4 * k);
        y += 12 * k;
    }
    if (next > 0) {
        snprintf(text, sizeof text, "Ask again in %ld min", (long)((next + 59) / 60));
        draw_text(56 * k, y, text, k, 1);
    }
    dotted_hline(0, screen_w - 1, oy + 90 * k);
    snprintf(text, sizeof text, "status %u  %s", (unsigned)status, status_name);
    draw_text(4 * k, oy + 100 * k, text, k, 1);
    draw_text(4 * k, oy + 112 * k, "No weather in this frame.", k, 1);
}

static void draw_error(const skyframe_frame *f) {
    draw_error_scaled(f->status, f->request_id, f->name, skyframe_next_update_seconds(f), 1, 0);
}

/* ---- The large profile: an 800 x 480 e-paper screen ---------------------------------------- */

/* The v1.1 fields of a large or tiny frame in a standard frame's struct, so that the header's
 * helpers (skyframe_alert_count(), skyframe_moon_phase_icon(), ...) read them. */
static void v11_view(skyframe_frame *v, uint16_t air_quality, uint8_t alerts, uint8_t moon,
                     uint8_t precip_next_hour, uint32_t fetched_at) {
    memset(v, 0, sizeof *v);
    v->status = SKYFRAME_STATUS_OK;
    v->air_quality = air_quality;
    v->alerts = alerts;
    v->moon = moon;
    v->precip_next_hour = precip_next_hour;
    v->fetched_at = fetched_at;
}

/* km/h from the profiles' 0.5 m/s steps (x 1.8), rounded. */
static unsigned half_ms_to_kmh(uint8_t v) { return ((unsigned)v * 18u + 5u) / 10u; }

/* "Rain in 25 min" and the like for the next hour (frame-v1.md 5.8), "" when absent. */
static const char *next_hour_text(char *out, size_t size, const skyframe_frame *v, int snow) {
    const char *what = snow ? "snow" : "rain";
    int change = skyframe_precip_change_in_min(v);
    out[0] = '\0';
    if (!skyframe_has_precip_next_hour(v)) return out;
    if (skyframe_precip_now(v) == 1 && change >= 0)
        snprintf(out, size, "%s ends %dm", what, change);
    else if (skyframe_precip_now(v) == 1)
        snprintf(out, size, "%s 60+ min", what);
    else if (change >= 0)
        snprintf(out, size, "%s in %d min", what, change);
    else
        snprintf(out, size, "dry");
    return out;
}

/* "Thu 18:00" at the place when t is within 6 days of `from`, else "7 Feb 2106"; "--" when the
 * offset is missing. */
static const char *when_text(char *out, size_t size, uint32_t t, uint32_t from, int16_t off) {
    int32_t day = skyframe_local_day(t, off);
    char clock[8];
    if (day < 0) return strcpy(out, "--");
    if (SKYFRAME_HAS_TIME(from) && (t > from ? t - from : from - t) < 6UL * 86400UL) {
        snprintf(out, size, "%s %s", WEEKDAY[skyframe_weekday(day)],
                 local_clock(clock, t, off));
    } else {
        int32_t year;
        uint8_t month, mday;
        skyframe_date_from_days(day, &year, &month, &mday);
        snprintf(out, size, "%u %s %ld", (unsigned)mday, MONTH[(month + 11u) % 12u], (long)year);
    }
    return out;
}

/* Text in at most `lines` lines of scale 1 from (x, y), 9 pixels apart, broken after the last
 * space that fits in `width` pixels (or mid-word when a word alone is wider). */
static void draw_wrapped(int x, int y, const char *s, int width, int lines) {
    char line_buf[SKYFRAME_ALERT_EVENT_BYTES + 1];
    int fit = width / GLYPH_ADVANCE, line_no;
    for (line_no = 0; line_no < lines && *s; line_no++) {
        const char *p = s, *brk = NULL;
        int n = 0;
        size_t len;
        while (*p && n < fit) { /* whole characters */
            next_glyph(&p);
            n++;
            if (*p == ' ') brk = p;
        }
        if (*p == '\0' || line_no == lines - 1 || brk == NULL) brk = p;
        len = (size_t)(brk - s) < sizeof line_buf - 1 ? (size_t)(brk - s) : sizeof line_buf - 1;
        memcpy(line_buf, s, len);
        line_buf[len] = '\0';
        draw_text_clipped(x, y + 9 * line_no, line_buf, 1, 1, x + width);
        s = brk;
        while (*s == ' ') s++;
    }
}

/* One detail of the left column: a small label over its value (scale 2), "--" when missing. */
#define LARGE_LEFT_W 300 /* the left column: now, details, alerts */
static void large_detail(int col, int row, const char *label, const char *value) {
    int x = 8 + col * 146, y = 136 + row * 34;
    draw_text(x, y, label, 1, 1);
    draw_text_clipped(x, y + 10, value[0] ? value : "--", 2, 1, x + 142);
}

/* "0" .. "10.0": a precipitation axis label, 0.1 mm in, whole mm from 10 mm on. */
static const char *mm_label(char out[13], int tenths_mm) {
    if (tenths_mm >= 100) snprintf(out, 13, "%d", tenths_mm / 10);
    else skyframe_format_fixed(out, 13, tenths_mm, 1);
    return out;
}

/* Floor division for the temperature axis (tenths may be negative). */
static int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

#define GRAPH_X0 340  /* the 48-step graph: 9 pixels a step */
#define GRAPH_STEP 9
#define GRAPH_TOP 226
#define GRAPH_BOTTOM 420
#define CHANCE_TOP 426 /* the chance-of-precipitation strip under it */
#define CHANCE_H 18

/* The 48 steps: temperature as a line (left axis), precipitation amount as dotted bars (right
 * axis), the chance of precipitation as a strip of bars, local hours and weekdays under it. */
static void draw_large_graph(const skyframe_large *f) {
    static const int temp_steps[] = {10, 20, 50, 100, 200, 500};
    static const int mm_steps[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 65535};
    const int x1 = GRAPH_X0 + GRAPH_STEP * SKYFRAME_LARGE_HOURLY_COUNT;
    char text[64], a[13];
    int i, lo = 32767, hi = -32768, have_temp = 0, mm_max = 0, have_mm = 0, prev = 0;
    int step = 0, lo_t = 0, hi_t = 1, axis_mm = 0, prev_x = 0, prev_y = 0, prev_day = -1, x;
    int day_label_end = 0;

    for (i = 0; i < SKYFRAME_LARGE_HOURLY_COUNT; i++) {
        const skyframe_large_hourly *h = &f->hourly[i];
        if (SKYFRAME_HAS_I16(h->temperature)) {
            if (h->temperature < lo) lo = h->temperature;
            if (h->temperature > hi) hi = h->temperature;
            have_temp = 1;
        }
        if (SKYFRAME_HAS_U16(h->precip_amount)) {
            if (h->precip_amount > mm_max) mm_max = h->precip_amount;
            have_mm = 1;
        }
    }
    if (f->hourly_step_h == 0 || (!have_temp && !have_mm)) {
        draw_text(GRAPH_X0, (GRAPH_TOP + GRAPH_BOTTOM) / 2, "No hourly data in this frame.", 2, 1);
        return;
    }
    snprintf(text, sizeof text, "Next %d h", SKYFRAME_LARGE_HOURLY_COUNT * f->hourly_step_h);
    draw_text(308, 211, text, 1, 1);
    fill_rect(376, 213, 14, 2, 1); /* the legend */
    draw_text(394, 211, "temperature " DEG "C", 1, 1);
    for (i = 0; i < 8 * 7; i++)
        if ((i % 8 + i / 8) % 2 == 0) set_pixel(496 + i % 8, 211 + i / 8, 1);
    draw_text(508, 211, "precipitation mm", 1, 1);
    fill_rect(622, 211, 3, 7, 1);
    draw_text(630, 211, "chance of precipitation %", 1, 1);
    line(GRAPH_X0 - 1, GRAPH_BOTTOM, x1, GRAPH_BOTTOM);
    line(GRAPH_X0 - 1, GRAPH_TOP, GRAPH_X0 - 1, GRAPH_BOTTOM);
    line(x1, GRAPH_TOP, x1, GRAPH_BOTTOM);

    /* Temperature axis: whole steps of 1, 2, 5, 10, 20 or 50 degC, at most 6 of them. */
    if (have_temp) {
        for (i = 0; i < 6; i++) {
            step = temp_steps[i];
            if ((hi - lo) / step <= 5) break;
        }
        lo_t = floor_div(lo, step) * step;
        hi_t = -floor_div(-hi, step) * step;
        if (hi_t == lo_t) hi_t += step;
        for (i = lo_t; i <= hi_t; i += step) {
            int y = GRAPH_BOTTOM - (i - lo_t) * (GRAPH_BOTTOM - GRAPH_TOP) / (hi_t - lo_t);
            if (i != lo_t) dotted_hline(GRAPH_X0, x1 - 1, y);
            snprintf(text, sizeof text, "%s" DEG, whole(a, (int16_t)i));
            draw_text(GRAPH_X0 - 4 - text_width(text, 1), y - 3, text, 1, 1);
        }
    }
    /* Precipitation axis: 1, 2, 5, 10 ... mm at the top. */
    if (have_mm) {
        for (i = 0; mm_steps[i] < mm_max; i++) continue;
        axis_mm = mm_steps[i];
        draw_text(x1 + 4, GRAPH_TOP - 3, mm_label(a, axis_mm), 1, 1);
        draw_text(x1 + 4, (GRAPH_TOP + GRAPH_BOTTOM) / 2 - 3, mm_label(a, axis_mm / 2), 1, 1);
        draw_text(x1 + 4, GRAPH_BOTTOM - 3, "0", 1, 1);
        draw_text(x1 + 4, GRAPH_TOP + 7, "mm", 1, 1);
    }

    for (i = 0; i < SKYFRAME_LARGE_HOURLY_COUNT; i++) {
        const skyframe_large_hourly *h = &f->hourly[i];
        int left = GRAPH_X0 + GRAPH_STEP * i, cx = left + GRAPH_STEP / 2;
        uint32_t at = f->hourly_start + (uint32_t)i * f->hourly_step_h * 3600u;
        int16_t minute = SKYFRAME_HAS_TIME(f->hourly_start)
                             ? skyframe_local_minute_of_day(at, f->utc_offset_min) : -1;
        int32_t day = minute >= 0 ? skyframe_local_day(at, f->utc_offset_min) : -1;
        if (have_mm && SKYFRAME_HAS_U16(h->precip_amount) && h->precip_amount > 0) {
            int bar = (int)h->precip_amount * (GRAPH_BOTTOM - GRAPH_TOP) / axis_mm, y;
            if (bar < 1) bar = 1;
            for (y = GRAPH_BOTTOM - bar; y < GRAPH_BOTTOM; y++)
                for (x = left + 1; x < left + GRAPH_STEP - 1; x++)
                    if ((x + y) % 2 == 0 || y == GRAPH_BOTTOM - bar) set_pixel(x, y, 1);
        }
        if (SKYFRAME_HAS_U8(h->precip_probability)) {
            int bar = (h->precip_probability > 100 ? 100 : h->precip_probability) * CHANCE_H / 100;
            fill_rect(left + 2, CHANCE_TOP + CHANCE_H - bar, GRAPH_STEP - 4, bar, 1);
        }
        if (day >= 0 && day != prev_day) { /* a new day: its name, and a line at midnight */
            if (prev_day >= 0) dotted_vline(left, GRAPH_TOP, GRAPH_BOTTOM);
            if (left >= day_label_end) /* with 24-hour steps, not every day has room */
                day_label_end = draw_text(left + 1, 458, WEEKDAY[skyframe_weekday(day)], 1, 1) + 6;
            prev_day = day;
        }
        if (minute >= 0 && minute % 60 == 0 && (minute / 60) % (f->hourly_step_h == 1 ? 6 : 12) == 0) {
            snprintf(text, sizeof text, "%02d", minute / 60);
            draw_text_centered(left, 448, text, 1, 1);
        }
        if (!have_temp || !SKYFRAME_HAS_I16(h->temperature)) {
            prev = 0;
            continue;
        }
        {
            int y = GRAPH_BOTTOM - (h->temperature - lo_t) * (GRAPH_BOTTOM - GRAPH_TOP) / (hi_t - lo_t);
            if (prev) {
                line(prev_x, prev_y, cx, y);
                line(prev_x, prev_y - 1, cx, y - 1);
            } else {
                fill_rect(cx - 1, y - 1, 2, 2, 1);
            }
            prev = 1;
            prev_x = cx;
            prev_y = y;
        }
    }
    line(GRAPH_X0 - 1, CHANCE_TOP + CHANCE_H, x1, CHANCE_TOP + CHANCE_H);
    draw_text(GRAPH_X0 - 10, CHANCE_TOP + 6, "%", 1, 1);
    draw_text(x1 + 4, CHANCE_TOP - 1, "100", 1, 1);
}

/* The alerts' own words, worst first: severity, when, the event name. */
static void draw_large_alerts(const skyframe_large *f, const skyframe_frame *v, int y) {
    char text[96], when1[24], when2[24];
    int i, count = skyframe_alert_count(v), shown = 0;
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) shown += f->alert[i].severity != 0;
    if (count < 0 && shown == 0) {
        draw_text(8, y, "Alerts: none from this service", 1, 1);
        return;
    }
    if (count < 0)
        strcpy(text, "Alerts");
    else if (count == 0)
        strcpy(text, shown ? "Alerts: none in force now" : "No weather alerts");
    else
        snprintf(text, sizeof text, "Alerts: %d%s in force, worst %s", count,
                 count == SKYFRAME_ALERT_COUNT_MAX ? "+" : "",
                 skyframe_alert_severity_name(skyframe_alert_severity(v)));
    draw_text(8, y, text, 1, 1);
    y += 12;
    for (i = 0; i < SKYFRAME_LARGE_ALERT_COUNT; i++) {
        const skyframe_large_alert *a = &f->alert[i];
        const char *name = skyframe_alert_severity_name(a->severity);
        int x, j;
        if (a->severity == 0) continue;
        for (j = 0; name[j] && j < 15; j++) /* the tag in capitals */
            text[j] = (char)(name[j] >= 'a' && name[j] <= 'z' ? name[j] - 'a' + 'A' : name[j]);
        text[j] = '\0';
        if (strcmp(text, "ABSENT") == 0) snprintf(text, sizeof text, "SEVERITY %u", a->severity);
        x = draw_tag(8, y, text, 1) + 6;
        if (SKYFRAME_HAS_TIME(a->onset) && SKYFRAME_HAS_TIME(f->fetched_at) &&
            a->onset > f->fetched_at)
            snprintf(text, sizeof text, "from %s %s %s",
                     when_text(when1, sizeof when1, a->onset, f->fetched_at, f->utc_offset_min),
                     SKYFRAME_HAS_TIME(a->end) ? "to" : "until",
                     SKYFRAME_HAS_TIME(a->end)
                         ? when_text(when2, sizeof when2, a->end, f->fetched_at, f->utc_offset_min)
                         : "further notice");
        else if (SKYFRAME_HAS_TIME(a->end))
            snprintf(text, sizeof text, "until %s",
                     when_text(when2, sizeof when2, a->end, f->fetched_at, f->utc_offset_min));
        else
            strcpy(text, "until further notice");
        draw_text_clipped(x, y + 2, text, 1, 1, LARGE_LEFT_W - 6);
        draw_wrapped(8, y + 14, a->event[0] ? a->event : "(no event name)", LARGE_LEFT_W - 14, 2);
        y += 41;
    }
}

static void draw_large(const skyframe_large *f, uint32_t now) {
    const skyframe_current *c = &f->current;
    skyframe_frame v; /* the v1.1 fields, for the header's helpers */
    char left[80], right[40], tag[24], text[64], a[13], b[13], t1[8], t2[8];
    const char *word;
    int i;

    v11_view(&v, f->air_quality, f->alerts, f->moon, f->precip_next_hour, f->fetched_at);
    snprintf(left, sizeof left, "%s%s%s", f->name[0] ? f->name : "(no name)",
             f->country[0] ? ", " : "", f->country);
    date_and_time(right, sizeof right, f->daily_start, f->fetched_at, f->utc_offset_min);
    draw_header_scaled(left, right, age_tag(tag, f->status, skyframe_frame_age_seconds(&v, now)),
                       2);
    dotted_vline(LARGE_LEFT_W + 2, 26, screen_h - 1);

    /* Now: icon, big temperature, condition, feels like. */
    draw_icon(6, 30, 96,
              icon_for(c->weather_code,
                       night_now(f->sun, f->is_day, f->observed_at, f->sunrise, f->sunset)));
    snprintf(text, sizeof text, "%s" DEG "C", tenths(a, c->temperature));
    draw_text(110, 34, text, 4, 1);
    word = condition_word(c->weather_code);
    draw_text_clipped(110, 76, word, text_width(word, 2) <= LARGE_LEFT_W - 114 ? 2 : 1, 1,
                      LARGE_LEFT_W - 2);
    if (SKYFRAME_HAS_I16(c->feels_like)) {
        snprintf(text, sizeof text, "Feels %s" DEG "C", tenths(a, c->feels_like));
        draw_text(110, 100, text, 2, 1);
    }
    dotted_hline(0, LARGE_LEFT_W, 130);

    /* Details: two columns of six. */
    if (f->sun == SKYFRAME_SUN_POLAR_DAY || f->sun == SKYFRAME_SUN_POLAR_NIGHT) {
        large_detail(0, 0, "Sun", f->sun == SKYFRAME_SUN_POLAR_DAY ? "Midnight sun" : "Polar night");
    } else {
        large_detail(0, 0, "Sunrise", local_clock(t1, f->sunrise, f->utc_offset_min));
        large_detail(1, 0, "Sunset", local_clock(t2, f->sunset, f->utc_offset_min));
    }
    text[0] = '\0';
    if (SKYFRAME_HAS_U16(c->wind_speed)) {
        compass_point(t1, c->wind_direction);
        snprintf(text, sizeof text, "%s%s%u km/h", t1, t1[0] ? " " : "",
                 (skyframe_ms10_to_kmh10(c->wind_speed) + 5u) / 10u);
    }
    large_detail(0, 1, "Wind", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_U16(c->wind_gust))
        snprintf(text, sizeof text, "%u km/h", (skyframe_ms10_to_kmh10(c->wind_gust) + 5u) / 10u);
    large_detail(1, 1, "Gusts", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_U8(c->humidity)) snprintf(text, sizeof text, "%u%%", (unsigned)c->humidity);
    large_detail(0, 2, "Humidity", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_I16(f->dew_point))
        snprintf(text, sizeof text, "%s" DEG "C", tenths(a, f->dew_point));
    large_detail(1, 2, "Dew point", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_U16(c->pressure))
        snprintf(text, sizeof text, "%u hPa", (unsigned)((c->pressure + 5u) / 10u));
    large_detail(0, 3, "Pressure", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_U16(c->visibility)) {
        if (c->visibility >= 1000u)
            snprintf(text, sizeof text, "%u km", (unsigned)((c->visibility + 50u) / 100u));
        else
            snprintf(text, sizeof text, "%s km", tenths(a, (int16_t)((c->visibility + 5u) / 10u)));
    }
    large_detail(1, 3, "Visibility", text);
    text[0] = '\0';
    if (SKYFRAME_HAS_U8(c->uv_index)) tenths(text, (int16_t)c->uv_index);
    large_detail(0, 4, "UV index", text);
    text[0] = '\0';
    if (skyframe_has_air_quality(&v)) {
        int scale = skyframe_air_quality_scale(&v), index = skyframe_air_quality_index(&v);
        snprintf(text, sizeof text, "%d %s", index, aqi_word(scale, index));
        if (text_width(text, 2) > 142) snprintf(text, sizeof text, "%d", index);
        large_detail(1, 4, scale == SKYFRAME_AQI_US ? "US AQI" : "European AQI", text);
    } else {
        large_detail(1, 4, "Air quality", "");
    }
    if (skyframe_has_moon(&v)) {
        draw_text(8, 136 + 5 * 34, "Moon", 1, 1);
        draw_moon_phase(8, 136 + 5 * 34 + 9, 18, skyframe_moon_phase_icon(&v));
        snprintf(text, sizeof text, "%d%%", skyframe_moon_illumination_pct(&v));
        draw_text(32, 136 + 5 * 34 + 10, text, 2, 1);
    } else {
        large_detail(0, 5, "Moon", "");
    }
    large_detail(1, 5, "Next hour", next_hour_text(text, sizeof text, &v, is_snow(c->weather_code)));
    dotted_hline(0, LARGE_LEFT_W, 340);
    draw_large_alerts(f, &v, 346);

    /* Eight days: weekday, date, icon, max, min, precipitation, sun, UV, wind. */
    for (i = 0; i < SKYFRAME_LARGE_DAILY_COUNT; i++) {
        const skyframe_large_daily *d = &f->daily[i];
        int cx = 306 + 61 * i + 30, y;
        if (i > 0) dotted_vline(306 + 61 * i, 30, 200);
        if (SKYFRAME_HAS_U16(f->daily_start)) {
            int32_t year, day = (int32_t)f->daily_start + i;
            uint8_t month, mday;
            skyframe_date_from_days(day, &year, &month, &mday);
            draw_text_centered(cx, 30, WEEKDAY[skyframe_weekday(day)], 2, 1);
            snprintf(text, sizeof text, "%u %s", (unsigned)mday, MONTH[(month + 11u) % 12u]);
            draw_text_centered(cx, 48, text, 1, 1);
        } else {
            draw_text_centered(cx, 30, "--", 2, 1);
        }
        draw_icon(cx - 20, 58, 40, icon_for(d->weather_code, d->sun == SKYFRAME_SUN_POLAR_NIGHT));
        snprintf(text, sizeof text, "%s" DEG, whole(a, d->temperature_max));
        draw_text_centered(cx, 102, text, 2, 1);
        snprintf(text, sizeof text, "%s" DEG, whole(b, d->temperature_min));
        draw_text_centered(cx, 120, text, 2, 1);
        y = 140;
        if (SKYFRAME_HAS_U16(d->precip_sum)) {
            skyframe_format_fixed(a, sizeof a, d->precip_sum, 1);
            snprintf(text, sizeof text, "%s mm", a);
        } else {
            strcpy(text, "-- mm");
        }
        draw_text_centered(cx, y, text, 1, 1);
        if (SKYFRAME_HAS_U8(d->precip_probability))
            snprintf(text, sizeof text, "%u%%", (unsigned)d->precip_probability);
        else
            strcpy(text, "--%");
        draw_text_centered(cx, y + 10, text, 1, 1);
        if (d->sun == SKYFRAME_SUN_POLAR_DAY || d->sun == SKYFRAME_SUN_POLAR_NIGHT) {
            draw_text_centered(cx, y + 22, "polar", 1, 1);
            draw_text_centered(cx, y + 32, d->sun == SKYFRAME_SUN_POLAR_DAY ? "day" : "night", 1, 1);
        } else {
            local_clock(t1, d->sunrise, f->utc_offset_min);
            local_clock(t2, d->sunset, f->utc_offset_min);
            snprintf(text, sizeof text, "\xE2\x86\x91%s", t1[0] ? t1 : "--:--");
            draw_text_centered(cx, y + 22, text, 1, 1);
            snprintf(text, sizeof text, "\xE2\x86\x93%s", t2[0] ? t2 : "--:--");
            draw_text_centered(cx, y + 32, text, 1, 1);
        }
        snprintf(text, sizeof text, "UV %s",
                 SKYFRAME_HAS_U8(d->uv_max) ? tenths(a, (int16_t)d->uv_max) : "--");
        draw_text_centered(cx, y + 44, text, 1, 1);
        if (SKYFRAME_HAS_U8(d->wind_max))
            snprintf(text, sizeof text, "%ukm/h", half_ms_to_kmh(d->wind_max));
        else
            strcpy(text, "--km/h");
        draw_text_centered(cx, y + 54, text, 1, 1);
    }
    dotted_hline(LARGE_LEFT_W + 4, screen_w - 1, 205);
    draw_large_graph(f);
}

/* ---- The tiny profile: a 128 x 64 OLED ------------------------------------------------------ */

static void draw_tiny(const skyframe_tiny *f, uint32_t now) {
    skyframe_frame v;
    char text[40], a[13], b[13], dir[4], clock[8];
    int16_t off = skyframe_tiny_utc_offset_min(f);
    int32_t today = skyframe_local_day(f->fetched_at, off);
    const skyframe_tiny_daily *d0 = &f->daily[0];
    int i, x, count;

    v11_view(&v, f->air_quality, f->alerts, 0, f->precip_next_hour, f->fetched_at);
    draw_icon(0, 0, 24, icon_for(f->weather_code, f->is_day == 0));
    snprintf(text, sizeof text, "%s" DEG, tenths(a, f->temperature));
    if (text_width(text, 2) > 84) snprintf(text, sizeof text, "%s" DEG, whole(a, f->temperature));
    draw_text(27, 0, text, 2, 1);
    count = skyframe_alert_count(&v);
    if (count > 0) { /* the alert mark, with how many */
        snprintf(text, sizeof text, "!%d", count);
        draw_tag(128 - text_width(text, 1) - 4, 0, text, 1);
    }
    /* Today: max/min and the chance of precipitation. */
    if (SKYFRAME_HAS_I8(d0->temperature_max)) snprintf(a, sizeof a, "%d", d0->temperature_max);
    else strcpy(a, "--");
    if (SKYFRAME_HAS_I8(d0->temperature_min)) snprintf(b, sizeof b, "%d", d0->temperature_min);
    else strcpy(b, "--");
    snprintf(text, sizeof text, "%s/%s" DEG, a, b);
    x = draw_text(27, 17, text, 1, 1);
    if (SKYFRAME_HAS_U8(d0->precip_probability)) {
        draw_glyph(x + 5, 17, GLYPH_DROP, 1, 1);
        snprintf(text, sizeof text, "%u%%", (unsigned)d0->precip_probability);
        draw_text(x + 12, 17, text, 1, 1);
    }
    /* Wind, and the local time of the data (or how stale it is). */
    text[0] = '\0';
    if (SKYFRAME_HAS_U8(f->wind_speed)) {
        compass_point(dir, SKYFRAME_HAS_U8(f->wind_direction) ? (uint16_t)(f->wind_direction * 2u)
                                                              : SKYFRAME_MISSING_U16);
        snprintf(text, sizeof text, "%s%s%u", dir, dir[0] ? " " : "", half_ms_to_kmh(f->wind_speed));
        if (SKYFRAME_HAS_U8(f->wind_gust)) {
            size_t n = strlen(text);
            snprintf(text + n, sizeof text - n, "-%u", half_ms_to_kmh(f->wind_gust));
        }
        strcat(text, "km/h");
    } else {
        strcpy(text, "wind --");
    }
    x = 128;
    if (f->status == SKYFRAME_STATUS_STALE || skyframe_frame_age_seconds(&v, now) > 2L * 3600L) {
        x = 128 - text_width(f->status == SKYFRAME_STATUS_STALE ? "STALE" : "OLD", 1) - 4;
        draw_tag(x, 26, f->status == SKYFRAME_STATUS_STALE ? "STALE" : "OLD", 1);
    } else if (local_clock(clock, f->fetched_at, off)[0]) {
        x = 128 - text_width(clock, 1);
        draw_text(x, 28, clock, 1, 1);
    }
    draw_text_clipped(0, 28, text, 1, 1, x - 3);

    /* The next three days. */
    dotted_hline(0, 127, 37);
    for (i = 1; i < SKYFRAME_TINY_DAILY_COUNT; i++) {
        const skyframe_tiny_daily *d = &f->daily[i];
        int cx = 43 * (i - 1);
        if (i > 1) dotted_vline(cx - 2, 39, 63);
        if (today >= 0) strcpy(text, WEEKDAY[skyframe_weekday(today + i)]);
        else snprintf(text, sizeof text, "+%dd", i);
        draw_text_centered(cx + 20, 39, text, 1, 1);
        draw_icon(cx, 48, 16, icon_for(d->weather_code, 0));
        if (SKYFRAME_HAS_I8(d->temperature_max)) snprintf(a, sizeof a, "%d" DEG, d->temperature_max);
        else strcpy(a, "--");
        if (SKYFRAME_HAS_I8(d->temperature_min)) snprintf(b, sizeof b, "%d" DEG, d->temperature_min);
        else strcpy(b, "--");
        draw_text_clipped(cx + 17, 48, a, 1, 1, cx + 42);
        draw_text_clipped(cx + 17, 57, b, 1, 1, cx + 42);
    }
}

/* A tiny error frame: no name field (the reason is in the gateway's log), so the status, what
 * it means and when to ask again. */
static void draw_tiny_error(const skyframe_tiny *f) {
    char text[40];
    const char *name = skyframe_status_name(f->status);
    draw_warning(0, 0, 16);
    snprintf(text, sizeof text, "status %u", (unsigned)f->status);
    draw_text(20, 1, text, 1, 1);
    if (f->request_id != 0) {
        snprintf(text, sizeof text, "#%u", (unsigned)f->request_id);
        draw_text(128 - text_width(text, 1), 1, text, 1, 1);
    }
    draw_text_clipped(0, 18, name, 1, 1, 128);
    draw_wrapped(0, 28, error_hint(f->status), 128, 2);
    if (f->next_update > 0) {
        snprintf(text, sizeof text, "Ask again in %ld min", ((long)f->next_update + 59) / 60);
        draw_text(0, 52, text, 1, 1);
    }
}

/* ---- Images in memory --------------------------------------------------------------------- */

/* The image holds the screen with each pixel as scale x scale pixels. */
static int image_scale = 1;

static size_t row_bytes(void) { return ((size_t)screen_w * (size_t)image_scale + 7u) / 8u; }

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Image row y packed 8 pixels a byte, leftmost in the high bit; `one` is the bit value of ink. */
static void pack_row(unsigned char *out, int y, int one) {
    int x, w = screen_w * image_scale;
    const unsigned char *src = screen[y / image_scale];
    memset(out, one ? 0x00 : 0xFF, row_bytes());
    for (x = 0; x < w; x++)
        if (src[x / image_scale]) {
            if (one) out[x / 8] |= (unsigned char)(0x80u >> (x % 8));
            else out[x / 8] &= (unsigned char)~(0x80u >> (x % 8));
        }
}

/* PBM P4: 1 is black. Its length, the bytes in *out (malloc); 0 when memory ran out. */
static size_t write_pbm(uint8_t **out) {
    char head[32];
    int n = snprintf(head, sizeof head, "P4\n%d %d\n", screen_w * image_scale,
                     screen_h * image_scale);
    size_t stride = row_bytes(), len;
    unsigned char *pbm;
    int y;
    if (n < 0 || (size_t)n >= sizeof head) return 0;
    len = (size_t)n + stride * (size_t)(screen_h * image_scale);
    if ((pbm = malloc(len)) == NULL) return 0;
    memcpy(pbm, head, (size_t)n);
    for (y = 0; y < screen_h * image_scale; y++) pack_row(pbm + n + (size_t)y * stride, y, 1);
    *out = pbm;
    return len;
}

/* Completes the PNG chunk at p whose n data bytes are already at p + 8: length, type and the
 * CRC-32 of type and data (the frame's CRC: same polynomial, same reflection and inversion as
 * zlib's, so skyframe_crc32 serves). Returns the end of the chunk. */
static unsigned char *finish_chunk(unsigned char *p, const char type[4], size_t n) {
    put_be32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    put_be32(p + 8 + n, skyframe_crc32(p + 4, n + 4));
    return p + 12 + n;
}

/* PNG: 1-bit greyscale (0 black, 1 white), no interlace. The image data is a zlib stream of
 * stored (uncompressed) deflate blocks of at most 65535 bytes each, then the Adler-32 of the
 * data; every row starts with filter type 0 (None). Its length, the bytes in *out (malloc); 0
 * when memory ran out. */
static size_t write_png(uint8_t **out) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    size_t stride = 1 + row_bytes(), raw_len = stride * (size_t)(screen_h * image_scale);
    size_t blocks = (raw_len + 65534) / 65535, zlen = 2 + 5 * blocks + raw_len + 4, done = 0, i;
    size_t len = 8 + (12 + 13) + (12 + zlen) + 12;
    unsigned char *png = malloc(len), *raw = malloc(raw_len), *ihdr, *p;
    uint32_t a = 1, b = 0;
    int y;

    if (png == NULL || raw == NULL) {
        free(png);
        free(raw);
        return 0;
    }
    for (y = 0; y < screen_h * image_scale; y++) {
        raw[(size_t)y * stride] = 0;
        pack_row(raw + (size_t)y * stride + 1, y, 0);
    }
    memcpy(png, signature, 8);
    ihdr = png + 8 + 8;
    put_be32(ihdr, (uint32_t)(screen_w * image_scale));
    put_be32(ihdr + 4, (uint32_t)(screen_h * image_scale));
    ihdr[8] = 1;  /* bit depth */
    ihdr[9] = 0;  /* colour type: greyscale */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* no interlace */
    p = finish_chunk(png + 8, "IHDR", 13);

    ihdr = p; /* the IDAT chunk; its data from p + 8 */
    p += 8;
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
    p = finish_chunk(ihdr, "IDAT", zlen);
    finish_chunk(p, "IEND", 0);
    free(raw);
    *out = png;
    return len;
}

/* ---- The API (skyframe_render.h) ---------------------------------------------------------- */

int skyframe_render_screen_size(int kind, int *width, int *height) {
    int w, h;
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: w = 296; h = 128; break;
    case SKYFRAME_KIND_LARGE: w = 800; h = 480; break;
    case SKYFRAME_KIND_TINY: w = 128; h = 64; break;
    default: return -1;
    }
    if (width != NULL) *width = w;
    if (height != NULL) *height = h;
    return 0;
}

/* Decodes the message, chosen by its kind byte, and draws it on a cleared screen of its size:
 * 0, or -1 when it does not decode or is not drawn (`unchanged`). */
static int draw_message(const uint8_t *frame, size_t length, uint32_t now) {
    union {
        skyframe_frame standard;
        skyframe_large large;
        skyframe_tiny tiny;
    } m;
    int kind = skyframe_message_kind(frame, length), rc;
    switch (kind) {
    case SKYFRAME_KIND_STANDARD: rc = skyframe_frame_decode(frame, length, &m.standard); break;
    case SKYFRAME_KIND_LARGE: rc = skyframe_large_decode(frame, length, &m.large); break;
    case SKYFRAME_KIND_TINY: rc = skyframe_tiny_decode(frame, length, &m.tiny); break;
    default: return -1; /* not a message, or `unchanged` */
    }
    if (rc != SKYFRAME_OK || skyframe_render_screen_size(kind, &screen_w, &screen_h) != 0)
        return -1;
    memset(screen, 0, sizeof screen);
    if (kind == SKYFRAME_KIND_LARGE) {
        const skyframe_large *f = &m.large;
        if (f->status == SKYFRAME_STATUS_OK || f->status == SKYFRAME_STATUS_STALE)
            draw_large(f, now);
        else
            draw_error_scaled(f->status, f->request_id, f->name,
                              f->next_update ? (int32_t)f->next_update : -1, 2, 96);
    } else if (kind == SKYFRAME_KIND_TINY) {
        const skyframe_tiny *f = &m.tiny;
        if (f->status == SKYFRAME_STATUS_OK || f->status == SKYFRAME_STATUS_STALE)
            draw_tiny(f, now);
        else
            draw_tiny_error(f);
    } else {
        const skyframe_frame *f = &m.standard;
        if (skyframe_frame_has_weather(f))
            draw_weather(f, now);
        else
            draw_error(f);
    }
    return 0;
}

static size_t render(const uint8_t *frame, size_t length, uint32_t now, int scale, uint8_t **out,
                     int png) {
    if (out == NULL) return 0;
    *out = NULL;
    if (frame == NULL || scale < 1 || scale > SKYFRAME_RENDER_MAX_SCALE ||
        draw_message(frame, length, now) != 0)
        return 0;
    image_scale = scale;
    return png ? write_png(out) : write_pbm(out);
}

size_t skyframe_render_png(const uint8_t *frame, size_t length, uint32_t now, int scale,
                           uint8_t **png) {
    return render(frame, length, now, scale, png, 1);
}

size_t skyframe_render_pbm(const uint8_t *frame, size_t length, uint32_t now, int scale,
                           uint8_t **pbm) {
    return render(frame, length, now, scale, pbm, 0);
}

void skyframe_render_free(uint8_t *image) { free(image); }
