/*
 * memcpy.c - memcpy and memmove for the Cortex-M4 image, which traps unaligned accesses
 * (SCB->CCR.UNALIGN_TRP, boards/arm/startup.c).
 *
 * newlib's prebuilt memcpy for armv7e-m (memcpy-armv7m.S) copies misaligned buffers with
 * unaligned LDR/STR, which is allowed at reset but faults once UNALIGN_TRP is set: the first
 * fgets() on stdin crashed. A firmware that enables the trap needs a memcpy like this one, built
 * with -mno-unaligned-access: word copies only when both pointers are 4-byte aligned. Linked
 * before libc, so newlib's own calls use it too. (Its strcmp, strlen, memcmp and memmove align
 * their word loads already.)
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);

static void copy_forward(unsigned char *d, const unsigned char *s, size_t n) {
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
    }
    while (n-- > 0) *d++ = *s++;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    copy_forward(dst, src, n);
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d <= s || d >= s + n) copy_forward(d, s, n); /* forward is safe */
    else while (n-- > 0) d[n] = s[n];
    return dst;
}
