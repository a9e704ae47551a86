/* The three 32-bit atomics a Cortex-M0 image needs for the Swift `large` reads, which the
 * Armv6-M toolchain does not have (the core has no LDREX/STREX, and arm-none-eabi GCC ships no
 * libatomic). The Swift compiler initializes LargeLayout.latitude and .longitude (their
 * sentinel is written `Int64(Int32.min)`) lazily, on first use, behind a one-time token it reads
 * and sets with these calls; every other field of the tables is a constant in flash. A firmware
 * for a single-core Cortex-M0 supplies them the same way: with interrupts masked (PRIMASK).
 *
 * build.sh links this file into the armv6m images of ReadEveryProfileField.swift; --gc-sections
 * keeps the functions only in the image that calls them (large), so they count in the flash of
 * the decoder that needs them. */
#include <stdbool.h>
#include <stdint.h>

static inline uint32_t mask_interrupts(void) {
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}

static inline void restore_interrupts(uint32_t primask) {
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint32_t skyframe_atomic_load_4(const volatile void *mem, int model) __asm__("__atomic_load_4");
uint32_t skyframe_atomic_load_4(const volatile void *mem, int model) {
    (void)model;
    uint32_t primask = mask_interrupts();
    uint32_t value = *(const volatile uint32_t *)mem;
    restore_interrupts(primask);
    return value;
}

void skyframe_atomic_store_4(volatile void *mem, uint32_t value, int model)
    __asm__("__atomic_store_4");
void skyframe_atomic_store_4(volatile void *mem, uint32_t value, int model) {
    (void)model;
    uint32_t primask = mask_interrupts();
    *(volatile uint32_t *)mem = value;
    restore_interrupts(primask);
}

bool skyframe_atomic_compare_exchange_4(volatile void *mem, void *expected, uint32_t desired,
                                        int success, int failure)
    __asm__("__atomic_compare_exchange_4");
bool skyframe_atomic_compare_exchange_4(volatile void *mem, void *expected, uint32_t desired,
                                        int success, int failure) {
    (void)success;
    (void)failure;
    uint32_t primask = mask_interrupts();
    uint32_t current = *(volatile uint32_t *)mem;
    bool equal = current == *(uint32_t *)expected;
    if (equal)
        *(volatile uint32_t *)mem = desired;
    else
        *(uint32_t *)expected = current;
    restore_interrupts(primask);
    return equal;
}
