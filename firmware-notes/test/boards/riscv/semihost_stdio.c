/*
 * semihost_stdio.c - stdin, stdout and stderr of the RISC-V test image (qemu-system-riscv32
 * -M virt, picolibc) over semihosting SYS_READ/SYS_WRITE on ":tt".
 *
 * picolibc's own semihosting streams (--oslib=semihost, iob.c) read stdin with SYS_READC, which
 * QEMU 7.2 only serves from a semihosting console chardev: with stdin a pipe it blocks forever.
 * SYS_READ on a ":tt" handle reads the host's stdin and sees its end, like newlib's rdimon on
 * the Arm boards. Defining stdin/stdout/stderr here keeps picolibc's iob.c out of the link; the
 * rest of libsemihost (exit with status, command line for argv: --crt0=semihost) is used as is.
 *
 * picolibc's crt0-semihost passes argv = {"program-name", <the whole semihosting command line>},
 * and QEMU's command line starts with the image's file name: decode_vectors.c's main is compiled
 * as decode_vectors_main (-Dmain=decode_vectors_main) and the main below drops that extra
 * argument, so argv[1] is the first word of qemu -append, as on the host.
 */
#include <semihost.h>
#include <stdio.h>

static int in_fd = -1, out_fd = -1;
static unsigned char in_buf[256];
static unsigned in_len, in_pos;
static char out_buf[256];
static unsigned out_len;

static int tt_open(int *fd, int mode) {
    if (*fd < 0) *fd = sys_semihost_open(":tt", mode); /* 0 "r", 4 "w" */
    return *fd;
}

static int semi_flush(FILE *file) {
    (void)file;
    if (out_len > 0 && tt_open(&out_fd, 4) >= 0) (void)sys_semihost_write(out_fd, out_buf, out_len);
    out_len = 0;
    return 0;
}

static int semi_putc(char c, FILE *file) {
    out_buf[out_len++] = c;
    if (c == '\n' || out_len == sizeof out_buf) semi_flush(file);
    return (unsigned char)c;
}

static int semi_getc(FILE *file) {
    (void)file;
    if (in_pos == in_len) {
        uintptr_t left;
        semi_flush(NULL);
        if (tt_open(&in_fd, 0) < 0) return EOF;
        left = sys_semihost_read(in_fd, in_buf, sizeof in_buf); /* returns bytes NOT read */
        if (left >= sizeof in_buf) return EOF;
        in_len = (unsigned)(sizeof in_buf - left);
        in_pos = 0;
    }
    return in_buf[in_pos++];
}

static FILE semi_stdio = FDEV_SETUP_STREAM(semi_putc, semi_getc, semi_flush, _FDEV_SETUP_RW);

FILE *const stdin = &semi_stdio;
FILE *const stdout = &semi_stdio;
FILE *const stderr = &semi_stdio;

int decode_vectors_main(int argc, char **argv);
int main(int argc, char **argv);

int main(int argc, char **argv) {
    int rc;
    if (argc >= 2) { /* "program-name" IMAGE ARGS... -> IMAGE ARGS... */
        argc--;
        argv++;
    }
    rc = decode_vectors_main(argc, argv);
    semi_flush(NULL);
    return rc;
}
