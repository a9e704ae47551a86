/*
 * render_check.c - test.sh's check of the renderer's API (Sources/CSkyframeRender,
 * skyframe_render.h) as the gateway calls it: many drawings in one process.
 *
 *   render_check STANDARD LARGE TINY UNCHANGED EXPECTED.png
 *
 * STANDARD, LARGE, TINY and UNCHANGED are messages in hex; EXPECTED.png is the standard one
 * drawn at scale 2 at the time 1717236600 (berlin.png). Prints "ok ..." or "FAIL ..." lines;
 * exit status 1 when any check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skyframe_render.h"

static int failed;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failed = 1;
}

/* The hex text's bytes in a buffer from malloc, their count in *n. */
static uint8_t *from_hex(const char *hex, size_t *n) {
    size_t i, len = strlen(hex) / 2;
    uint8_t *out = malloc(len + 1);
    if (out == NULL) exit(1);
    for (i = 0; i < len; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) exit(1);
        out[i] = (uint8_t)v;
    }
    *n = len;
    return out;
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    uint8_t *out;
    long len;
    if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0) exit(1);
    rewind(fp);
    out = malloc((size_t)len + 1);
    if (out == NULL || fread(out, 1, (size_t)len, fp) != (size_t)len) exit(1);
    fclose(fp);
    *n = (size_t)len;
    return out;
}

int main(int argc, char **argv) {
    static uint8_t sentinel; /* each refusal sets *png to NULL: it starts as &sentinel */
    size_t sn, ln, tn, un, en, n, n2;
    uint8_t *standard, *large, *tiny, *unchanged, *expected, *png = NULL, *png2 = NULL;
    int w = 0, h = 0, i;
    if (argc != 6) {
        fprintf(stderr, "usage: render_check STANDARD LARGE TINY UNCHANGED EXPECTED.png\n");
        return 2;
    }
    standard = from_hex(argv[1], &sn);
    large = from_hex(argv[2], &ln);
    tiny = from_hex(argv[3], &tn);
    unchanged = from_hex(argv[4], &un);
    expected = read_file(argv[5], &en);

    n = skyframe_render_png(standard, sn, 1717236600u, 2, &png);
    check(png != NULL && n == en && memcmp(png, expected, en) == 0,
          "skyframe_render_png: the standard frame at scale 2 equals berlin.png");
    /* Other sizes in between: the screen is cleared and sized anew for every drawing. */
    for (i = 0; i < 2; i++) {
        uint8_t *other = NULL;
        size_t m = skyframe_render_png(i == 0 ? large : tiny, i == 0 ? ln : tn, 1736936700u, 1,
                                       &other);
        check(m > 0 && other != NULL, i == 0 ? "a large frame drawn" : "a tiny frame drawn");
        skyframe_render_free(other);
    }
    n2 = skyframe_render_png(standard, sn, 1717236600u, 2, &png2);
    check(n2 == n && png2 != NULL && memcmp(png, png2, n) == 0,
          "the standard frame again, after large and tiny: the same bytes");
    free(png);
    free(png2);

    png = NULL;
    n = skyframe_render_pbm(standard, sn, 1717236600u, 1, &png);
    check(n == 11 + 37 * 128 && png != NULL && memcmp(png, "P4\n296 128\n", 11) == 0,
          "skyframe_render_pbm: P4 296x128");
    skyframe_render_free(png);

    png = &sentinel;
    check(skyframe_render_png(unchanged, un, 0, 1, &png) == 0 && png == NULL,
          "an unchanged message: 0, NULL");
    png = &sentinel;
    check(skyframe_render_png(standard, sn - 1, 0, 1, &png) == 0 && png == NULL,
          "a truncated frame: 0, NULL");
    standard[20] ^= 1;
    png = &sentinel;
    check(skyframe_render_png(standard, sn, 0, 1, &png) == 0 && png == NULL,
          "a corrupted frame (CRC): 0, NULL");
    standard[20] ^= 1;
    png = &sentinel;
    check(skyframe_render_png(standard, sn, 0, 0, &png) == 0 && png == NULL &&
              skyframe_render_png(standard, sn, 0, SKYFRAME_RENDER_MAX_SCALE + 1, &png) == 0 &&
              png == NULL,
          "scale 0 and SKYFRAME_RENDER_MAX_SCALE + 1: 0, NULL");
    png = &sentinel;
    check(skyframe_render_png(NULL, sn, 0, 1, &png) == 0 && png == NULL &&
              skyframe_render_png(standard, sn, 0, 1, NULL) == 0,
          "NULL arguments: 0");

    check(skyframe_render_screen_size(0x01, &w, &h) == 0 && w == 296 && h == 128 &&
              skyframe_render_screen_size(0x11, &w, &h) == 0 && w == 800 && h == 480 &&
              skyframe_render_screen_size(0x21, &w, &h) == 0 && w == 128 && h == 64 &&
              skyframe_render_screen_size(0x31, &w, &h) == -1 && w == 128 && h == 64,
          "skyframe_render_screen_size: 296x128, 800x480, 128x64, unchanged -1");
    free(standard);
    free(large);
    free(tiny);
    free(unchanged);
    free(expected);
    return failed;
}
