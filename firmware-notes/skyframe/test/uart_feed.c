/*
 * uart_feed - runs an ATmega328P image in simavr (libsimavr) and talks to it over its serial port
 * (USART0), as a serial bridge would:
 *
 *   uart_feed FIRMWARE.elf MESSAGES.hex [MAX_SECONDS]
 *
 * Waits until the board has printed its first complete line (the sketch's request), then for
 * each line of MESSAGES.hex (hex bytes; an empty line sends nothing) sends the bytes into the
 * board's receive pin, honouring simavr's receive FIFO (XON/XOFF), and waits until the board
 * has printed one more line "--" (the end of its answer to that message). Everything the board
 * prints goes to stdout as it comes. Exits 0 when every message got its "--", 1 when the board
 * crashed, stopped, or did not answer within MAX_SECONDS (default 60) of simulated time.
 *
 * Built by test/run.sh: cc uart_feed.c -lsimavr -lelf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>

static uint8_t pending[4096];  /* bytes still to send to the board */
static size_t pending_len = 0, pending_pos = 0;
static int xon = 0;             /* simavr's receive FIFO has room */
static char line[512];          /* the line the board is printing */
static size_t line_len = 0;
static unsigned lines = 0;      /* complete lines printed */
static unsigned ends = 0;       /* lines "--" printed */

static void on_output(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    putchar((int)(value & 0xFF));
    if ((value & 0xFF) == '\n') {
        fflush(stdout);
        while (line_len > 0 && line[line_len - 1] == '\r') line_len--;
        if (line_len == 2 && line[0] == '-' && line[1] == '-') ends++;
        lines++;
        line_len = 0;
    } else if (line_len < sizeof line) {
        line[line_len++] = (char)value;
    }
}

static void on_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    (void)param;
    xon = 1;
}

static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    (void)param;
    xon = 0;
}

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* One hex line into pending[]; 0 on success. */
static int load_line(const char *text) {
    size_t n = 0;
    while (text[0] != '\0' && text[0] != '\n' && text[0] != '\r') {
        int hi = hex_value(text[0]), lo = hex_value(text[1]);
        if (hi < 0 || lo < 0 || n >= sizeof pending) return -1;
        pending[n++] = (uint8_t)(hi << 4 | lo);
        text += 2;
    }
    pending_len = n;
    pending_pos = 0;
    return 0;
}

int main(int argc, char **argv) {
    elf_firmware_t firmware;
    avr_t *avr;
    FILE *messages;
    char text[8192];
    uint32_t flags = 0;
    avr_cycle_count_t limit;
    unsigned sent = 0, want_ends = 0;
    int waiting_for_first_line = 1;

    if (argc < 3) {
        fprintf(stderr, "usage: uart_feed FIRMWARE.elf MESSAGES.hex [MAX_SECONDS]\n");
        return 2;
    }
    memset(&firmware, 0, sizeof firmware);
    /* simavr's loader reports what it loaded on stdout: send that to stderr, stdout is the board's */
    fflush(stdout);
    int saved_stdout = dup(1);
    dup2(2, 1);
    if (elf_read_firmware(argv[1], &firmware) != 0) {
        fprintf(stderr, "uart_feed: cannot read %s\n", argv[1]);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (avr == NULL) {
        fprintf(stderr, "uart_feed: simavr has no atmega328p\n");
        return 2;
    }
    avr_init(avr);
    avr->frequency = 16000000UL; /* an Uno */
    avr->log = LOG_ERROR;
    avr_load_firmware(avr, &firmware);
    fflush(stdout);
    dup2(saved_stdout, 1);
    close(saved_stdout);
    limit = (avr_cycle_count_t)avr->frequency * (argc > 3 ? (unsigned)atoi(argv[3]) : 60u);

    /* simavr prints USART0 on the console by itself: not here, stdout gets the bytes as such */
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_output, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_xoff, NULL);
    avr_irq_t *input = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

    messages = fopen(argv[2], "r");
    if (messages == NULL) {
        fprintf(stderr, "uart_feed: cannot open %s\n", argv[2]);
        return 2;
    }
    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "uart_feed: the board stopped (state %d) after %u of its answers\n",
                    state, ends);
            return 1;
        }
        if (avr->cycle > limit) {
            fprintf(stderr, "uart_feed: no answer within the time limit (%u messages sent, %u "
                            "answers)\n", sent, ends);
            return 1;
        }
        while (xon && pending_pos < pending_len) avr_raise_irq(input, pending[pending_pos++]);
        if (waiting_for_first_line) {
            if (lines == 0) continue;
            waiting_for_first_line = 0;
        }
        if (pending_pos < pending_len || ends < want_ends) continue;
        if (fgets(text, sizeof text, messages) == NULL) break; /* every message answered */
        if (load_line(text) != 0) {
            fprintf(stderr, "uart_feed: line %u is not hex (or too long)\n", sent + 1);
            return 2;
        }
        sent++;
        want_ends = ends + 1;
    }
    fclose(messages);
    fflush(stdout);
    return 0;
}
