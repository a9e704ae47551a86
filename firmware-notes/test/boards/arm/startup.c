/*
 * startup.c - vector table and reset code of the Cortex-M test images (qemu -M microbit,
 * -M mps2-an386), linked with the program (decode_vectors.c) and newlib's semihosting library
 * (--specs=rdimon.specs -nostartfiles): stdin, stdout and the exit status go through Arm
 * semihosting to the host (qemu -semihosting-config enable=on,target=native).
 *
 * Reset: enables the FPU (hard-float builds), sets SCB->CCR.UNALIGN_TRP when built with
 * -DBOARD_TRAP_UNALIGNED (the Cortex-M4 image: a word or halfword access at an unaligned address
 * then faults, so a decoder that loads a u32 from an odd address is caught), copies .data, zeroes
 * .bss, paints the stack, reads the command line (qemu -append) into argv and calls main. main's
 * return value is the exit status (SYS_EXIT_EXTENDED: qemu exits with it).
 *
 * Arguments the startup takes itself (before the program's):
 *   --stack             after main, print "stack: N of M bytes used" (the painted stack's high
 *                       water mark; main's own output is unchanged before it)
 *   --unaligned-probe   instead of main, load a word from an odd address: must fault (HardFault
 *                       handler: one "HardFault ..." line, exit status 1). Proves the trap is on.
 * Any fault prints "HardFault ..." (pc, and on v7-M CFSR/HFSR with UNALIGNED spelt out) and
 * exits with status 1.
 *
 * Linker symbols used (boards/arm/sections.ld): __stack_top, __stack_bottom, __data_load,
 * __data_start, __data_end, __bss_start__, __bss_end__, __heap_start, __heap_end.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern uint32_t __stack_top[], __stack_bottom[];
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start__[], __bss_end__[];
extern char __heap_start[], __heap_end[];

int main(int argc, char **argv);
void initialise_monitor_handles(void);
void Reset_Handler(void);
void HardFault_Handler(void);
void board_fault_report(const uint32_t *frame, uint32_t exc_return);
void *_sbrk(ptrdiff_t incr);

#define STACK_PAINT 0xC0FFEE5Au

#define SYS_WRITE0 0x04u
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT 0x18u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u

static uint32_t semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static void board_puts(const char *s) { (void)semihost(SYS_WRITE0, s); }

static void board_exit(int status) {
    uint32_t block[2];
    block[0] = ADP_STOPPED_APPLICATION_EXIT;
    block[1] = (uint32_t)status;
    (void)semihost(SYS_EXIT_EXTENDED, block);
    for (;;) {
    }
}

static void board_die(void) {
    (void)semihost(SYS_EXIT, (const void *)ADP_STOPPED_RUNTIME_ERROR); /* qemu exits 1 */
    for (;;) {
    }
}

/* "0x" and 8 hex digits, without stdio (usable in a fault handler). */
static char *hex32(char *out, uint32_t v) {
    static const char digits[] = "0123456789abcdef";
    int i;
    *out++ = '0';
    *out++ = 'x';
    for (i = 7; i >= 0; i--) *out++ = digits[(v >> (4 * i)) & 0xFu];
    *out = '\0';
    return out;
}
static char *append(char *out, const char *s) {
    while (*s != '\0') *out++ = *s++;
    *out = '\0';
    return out;
}

/* newlib's malloc (stdio buffers): between .bss and the stack, never into it. */
void *_sbrk(ptrdiff_t incr) {
    static char *brk = __heap_start;
    char *old = brk;
    if (incr < 0 || incr > __heap_end - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return old;
}

/* Stack high water mark: the painted words below the lowest one main's calls overwrote. */
static uint32_t stack_used(void) {
    const uint32_t *p = __stack_bottom;
    while (p < __stack_top && *p == STACK_PAINT) p++;
    return (uint32_t)((const char *)__stack_top - (const char *)p);
}

static void unaligned_probe(void) {
    static const uint32_t words[2] = {0x11223344u, 0x55667788u};
    const uint8_t *odd = (const uint8_t *)words + 1;
    uint32_t value;
    char line[96], *p;
    /* an LDR the compiler cannot split into byte loads */
    __asm__ volatile("ldr %0, [%1]" : "=r"(value) : "r"(odd) : "memory");
    p = append(line, "unaligned-probe: LDR from ");
    p = hex32(p, (uint32_t)(uintptr_t)odd);
    p = append(p, " did NOT fault, read ");
    p = hex32(p, value);
    (void)append(p, "\n");
    board_puts(line);
    board_exit(0); /* run.sh wants a fault: exit 0 is the failure it reports */
}

#define MAX_ARGS 8
static char cmdline[256];
static char *args[MAX_ARGS + 1];

static int read_args(void) {
    struct {
        char *buf;
        uint32_t len;
    } block;
    int argc = 0;
    char *p = cmdline;
    block.buf = cmdline;
    block.len = sizeof cmdline - 1;
    if (semihost(SYS_GET_CMDLINE, &block) != 0) {
        args[0] = (char *)"image";
        args[1] = NULL;
        return 1;
    }
    cmdline[block.len < sizeof cmdline ? block.len : sizeof cmdline - 1] = '\0';
    while (*p != '\0' && argc < MAX_ARGS) {
        while (*p == ' ') *p++ = '\0';
        if (*p == '\0') break;
        args[argc++] = p;
        while (*p != '\0' && *p != ' ') p++;
    }
    args[argc] = NULL;
    return argc;
}

/* Runs on the initial stack (__stack_top, from the vector table). */
void Reset_Handler(void) {
    uint32_t *dst;
    const uint32_t *src;
    uint32_t sp;
    int argc, stack = 0, rc;
    char **argv;

#if defined(__ARM_FP) && __ARM_FP != 0
    /* CPACR: full access to CP10 and CP11 (the FPU) before any floating-point instruction */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
#ifdef BOARD_TRAP_UNALIGNED
    /* SCB->CCR bit 3 UNALIGN_TRP: unaligned LDR/STR(H) fault (UsageFault -> HardFault) */
    *(volatile uint32_t *)0xE000ED14u |= 1u << 3;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif

    for (src = __data_load, dst = __data_start; dst < __data_end;) *dst++ = *src++;
    for (dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;

    /* paint the stack up to 64 bytes below this function's frame */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (dst = __stack_bottom; (uintptr_t)dst < sp - 64u;) *dst++ = STACK_PAINT;

    initialise_monitor_handles();
    argc = read_args();
    argv = args;
    while (argc > 1 && (strcmp(argv[1], "--stack") == 0 ||
                        strcmp(argv[1], "--unaligned-probe") == 0)) {
        if (strcmp(argv[1], "--unaligned-probe") == 0) unaligned_probe();
        stack = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    rc = main(argc, argv);
    fflush(stdout);
    if (stack) {
        printf("stack: %lu of %lu bytes used\n", (unsigned long)stack_used(),
               (unsigned long)((const char *)__stack_top - (const char *)__stack_bottom));
        fflush(stdout);
    }
    board_exit(rc);
}

/* Entered with the exception frame on the main stack (the only one used here). */
__attribute__((naked)) void HardFault_Handler(void) {
    __asm__ volatile("mrs r0, msp\n\t"
                     "mov r1, lr\n\t"
                     "bl board_fault_report\n\t");
}

void board_fault_report(const uint32_t *frame, uint32_t exc_return) {
    char line[160], *p;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    p = append(line, ipsr == 3u ? "HardFault" : "exception ");
    if (ipsr != 3u) p = hex32(p, ipsr);
    p = append(p, ": pc=");
    p = hex32(p, frame[6]);
    p = append(p, " lr=");
    p = hex32(p, frame[5]);
    (void)exc_return;
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
    {
        uint32_t cfsr = *(volatile uint32_t *)0xE000ED28u;
        uint32_t hfsr = *(volatile uint32_t *)0xE000ED2Cu;
        p = append(p, " CFSR=");
        p = hex32(p, cfsr);
        p = append(p, " HFSR=");
        p = hex32(p, hfsr);
        if (cfsr & (1u << 24)) p = append(p, " UNALIGNED (unaligned access trapped)");
        if (cfsr & (1u << 25)) p = append(p, " DIVBYZERO");
        if (cfsr & (1u << 19)) p = append(p, " NOCP (FPU off)");
    }
#else
    p = append(p, " (ARMv6-M: every unaligned word access faults)");
#endif
    (void)append(p, "\n");
    board_puts(line);
    board_die();
}

/* Cortex-M vector table: initial stack pointer, reset, then every exception to the fault report
 * (it names the exception by IPSR). MemManage/BusFault/UsageFault are disabled at reset on v7-M:
 * they escalate to HardFault. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)__stack_top,
    Reset_Handler,
    HardFault_Handler, /* NMI */
    HardFault_Handler,
    HardFault_Handler, /* MemManage */
    HardFault_Handler, /* BusFault */
    HardFault_Handler, /* UsageFault */
    0, 0, 0, 0,
    HardFault_Handler, /* SVCall */
    HardFault_Handler, /* DebugMonitor */
    0,
    HardFault_Handler, /* PendSV */
    HardFault_Handler, /* SysTick */
};
