/* A minimal bare-metal image for measuring a frame decoder: a vector table (Arm) or an entry
 * point (RISC-V), a reset handler that paints the stack, calls the decoder once on a frame kept
 * in flash, measures how deep the stack went, and reports over semihosting:
 *
 *     result R stack S
 *
 * R is what the decoder returned, S the bytes of stack it used (from the lowest byte that no
 * longer holds the paint). Built with -DSKYFRAME_NO_DECODER, the same image makes no call: the
 * difference in size between the two images is what the decoder costs in flash. Built with
 * -DDECODER=skyframe_empty_decoder -DSKYFRAME_EMPTY_DECODER, it makes the call to a decoder that
 * reads nothing: the same image with the message in flash and the call, but no decoder.
 *
 * The decoder is `int32_t DECODER(const void *bytes, int count)`, DECODER given with -D. */
#include <stddef.h>
#include <stdint.h>

/* static const uint8_t skyframe_frame_bytes[N], generated: the golden vector, N its size */
#include "frame_bytes.h"

extern uint32_t __stack_top[], __stack_bottom[];
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];

#define PAINT 0xA5A5A5A5u

#if defined(__arm__)
static long semihost(long op, const void *arg) {
    register long r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}
#define STACK_POINTER() ({ uintptr_t sp_; __asm__ volatile("mov %0, sp" : "=r"(sp_)); sp_; })
#elif defined(__riscv)
static long semihost(long op, const void *arg) {
    register long a0 __asm__("a0") = op;
    register const void *a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n.option norvc\n"
                     "slli zero, zero, 0x1f\nebreak\nsrai zero, zero, 7\n.option pop"
                     : "+r"(a0) : "r"(a1) : "memory");
    return a0;
}
#define STACK_POINTER() ({ uintptr_t sp_; __asm__ volatile("mv %0, sp" : "=r"(sp_)); sp_; })
#endif

static void write0(const char *text) { semihost(0x04, text); } /* SYS_WRITE0 */

__attribute__((noreturn)) static void exit_image(int ok) {
#if defined(__arm__) || (__riscv_xlen == 32)
    /* SYS_EXIT with ADP_Stopped_ApplicationExit (0x20026) or RunTimeErrorUnknown (0x20023). */
    semihost(0x18, (const void *)(uintptr_t)(ok ? 0x20026 : 0x20023));
#endif
    for (;;) {
    }
}

static char *put_number(char *out, long value) {
    char digits[12];
    int n = 0;
    unsigned long v = value < 0 ? (unsigned long)-value : (unsigned long)value;
    if (value < 0) *out++ = '-';
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) *out++ = digits[--n];
    return out;
}

#ifdef SKYFRAME_EMPTY_DECODER
int32_t skyframe_empty_decoder(const void *bytes, int count) {
    (void)bytes;
    (void)count;
    return 0;
}
#endif

#ifndef SKYFRAME_NO_DECODER
int32_t DECODER(const void *bytes, int count);
/* Called through a volatile pointer so that the decoder is not inlined into the reset handler. */
static int32_t (*volatile decoder)(const void *, int) = DECODER;
#endif

__attribute__((noreturn, used)) void reset_handler(void) {
    uint32_t *from = __data_load, *to = __data_start;
    while (to < __data_end) *to++ = *from++;
    for (to = __bss_start; to < __bss_end; ++to) *to = 0;

    /* Paint everything below the stack pointer: no ABI here has a red zone, so nothing below it
     * is in use, and the loop keeps its variables in registers or above it. */
    uintptr_t sp = STACK_POINTER();
    volatile uint32_t *word = __stack_bottom;
    while ((uintptr_t)word < sp) *word++ = PAINT;

    long result = 0;
#ifndef SKYFRAME_NO_DECODER
    result = decoder(skyframe_frame_bytes, (int)sizeof skyframe_frame_bytes);
#endif
    word = __stack_bottom;
    while ((uintptr_t)word < sp && *word == PAINT) ++word;
    long used = (long)(sp - (uintptr_t)word);

    char line[64], *p = line;
    const char *text = "result ";
    while (*text) *p++ = *text++;
    p = put_number(p, result);
    text = " stack ";
    while (*text) *p++ = *text++;
    p = put_number(p, used);
    *p++ = '\n';
    *p = 0;
    write0(line);
    exit_image(1);
}

#if defined(__arm__)
__attribute__((noreturn)) static void fault_handler(void) {
    write0("fault\n");
    exit_image(0);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top, reset_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, fault_handler, 0, 0, 0, 0, fault_handler, fault_handler, 0,
    fault_handler, fault_handler,
};
#elif defined(__riscv)
__attribute__((naked, section(".vectors"), used)) void _start(void) {
    __asm__ volatile("la sp, __stack_top\n j reset_handler");
}
#endif
