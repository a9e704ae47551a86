/*
 * decode_flash.c - the golden-vector driver for an ATmega328P (Arduino Uno: 16-bit int, 2 KB
 * RAM, 32 KB flash), run under simavr by boards/avr/simavr_decoder.py.
 *
 * decode_vectors.c does not fit (its line buffers alone are 3 KB of RAM) and the AVR has no
 * stdin, so the frames come from flash: simavr_decoder.py writes them into a generated frames.c
 * (frame_bytes[], frame_length[], frame_count; PROGMEM). Each frame is copied into a RAM buffer
 * (SKYFRAME_TEST_BUFFER_OFFSET bytes into it, default 1: an odd address), decoded with
 * skyframe_frame_decode (or SKYFRAME_TEST_DECODE) and printed over USART0 as the same JSON line
 * as decode_vectors.c (boards/frame_json.h, its key names kept in flash with PSTR). A length of
 * 0xFFFF marks an input line that was not hex. Built with -DSKYFRAME_TEST_PROFILES (simavr_decoder.py
 * --profiles) it decodes each frame with the decoder frames.c names for it (frame_decoder[]: 'a'
 * skyframe_message_kind, 's', 't', 'u'; large is not compiled on AVR) and prints it as
 * decode_vectors --profiles does (boards/profile_json.h). Then:
 *   "#stack N"  bytes of stack used (the free RAM is painted at reset), and
 *   "#end N"    N frames done,
 * and the CPU sleeps with interrupts off, which ends simavr.
 */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "../../../skyframe_frame.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <string.h>

#define TEST_V1_1 1

static void uart_putc(char c) {
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}
static void uart_puts_P(const char *p) {
    char c;
    while ((c = (char)pgm_read_byte(p++)) != '\0') uart_putc(c);
}

#define SFJ_PUTC(c) uart_putc(c)
#define SFJ_LIT(s) PSTR(s)
#define SFJ_LIT_PUTS(p) uart_puts_P(p)
#ifdef SKYFRAME_TEST_PROFILES
#define SFJ_NO_FRAME_PRINTER
#endif
#include "../frame_json.h"
#ifdef SKYFRAME_TEST_PROFILES
#include "../profile_json.h"
#endif

#ifndef SKYFRAME_TEST_DECODE
#define SKYFRAME_TEST_DECODE skyframe_frame_decode
#else
int SKYFRAME_TEST_DECODE(const uint8_t *buf, size_t len, skyframe_frame *out);
#endif
#ifndef SKYFRAME_TEST_BUFFER_OFFSET
#define SKYFRAME_TEST_BUFFER_OFFSET 1
#endif

#define BAD_HEX 0xFFFFu
#define MAX_FRAME 200u /* compare.py sends 191..193 bytes */

/* frames.c, generated */
extern const uint8_t frame_bytes[] PROGMEM;
extern const uint16_t frame_length[] PROGMEM;
extern const uint16_t frame_count;
#ifdef SKYFRAME_TEST_PROFILES
extern const uint8_t frame_decoder[] PROGMEM; /* 'a', 's', 'l', 't', 'u' per frame */
#endif

/* Stack: paint from the end of .bss to the stack pointer at reset, measure at the end. */
extern uint8_t __bss_end;
#define PAINT 0xA5u
__attribute__((naked, used, section(".init3"))) void paint_ram(void);
void paint_ram(void) {
    uint8_t *p = &__bss_end;
    while (p < (uint8_t *)SP - 4) *p++ = PAINT;
}
static unsigned stack_used(void) {
    const uint8_t *p = &__bss_end;
    while (p <= (const uint8_t *)RAMEND && *p == PAINT) p++;
    return (unsigned)((const uint8_t *)RAMEND + 1 - p);
}

static void put_unsigned(const char *label_P, unsigned v) {
    uart_puts_P(label_P);
    sfj_ulong(v);
    uart_putc('\n');
}

int main(void) {
    static union {
        uint16_t align;
        uint8_t bytes[MAX_FRAME + 2];
    } ram;
    uint8_t *buf = ram.bytes + SKYFRAME_TEST_BUFFER_OFFSET;
    const uint8_t *src = frame_bytes;
    uint16_t i;

    UBRR0H = 0; /* 2 Mbit/s at 16 MHz: simavr only prints it */
    UBRR0L = 0;
    UCSR0A = 1 << U2X0;
    UCSR0B = 1 << TXEN0;
    UCSR0C = 3 << UCSZ00; /* 8N1 */

    for (i = 0; i < frame_count; i++) {
        uint16_t len = pgm_read_word(&frame_length[i]);
#ifndef SKYFRAME_TEST_PROFILES
        skyframe_frame f;
        int rc;
#endif
        if (len == BAD_HEX) {
            sfj_print_input_error(SFJ_LIT("bad_hex"));
            continue;
        }
        if (len > MAX_FRAME) {
            sfj_print_input_error(SFJ_LIT("input_too_long_for_the_avr_buffer"));
            src += len;
            continue;
        }
        memcpy_P(buf, src, len);
        src += len;
#ifdef SKYFRAME_TEST_PROFILES
        sfj_profile_line((char)pgm_read_byte(&frame_decoder[i]), buf, len);
#else
        rc = SKYFRAME_TEST_DECODE(buf, len, &f);
        if (rc != SKYFRAME_OK)
            sfj_print_error(rc, len);
        else
            sfj_print_frame(&f);
#endif
    }
    put_unsigned(PSTR("#stack "), stack_used());
    put_unsigned(PSTR("#end "), frame_count);
    while (!(UCSR0A & (1 << TXC0))) {
    }
    cli();
    sleep_mode();
    return 0;
}
