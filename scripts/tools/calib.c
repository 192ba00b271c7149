/*
 * calib: the calibration workload of the CI performance check
 * (scripts/ci/ci-perf.sh). Each blob read and write path's time per blob is
 * divided by this program's time per operation, measured in the same
 * round, so a change that slows the database and the files paths alike
 * still moves a ratio. It shares no code with kvtest on purpose: it is the
 * fixed yardstick, and a change to kvtest must not move it.
 *
 * Both halves, because the paths mix the two kinds of work (copies out of
 * the page cache, and system calls that look up, open and close): a pread
 * loop alone slowed 25% more than the paths when other jobs loaded the
 * machine. Timed in-process with CLOCK_MONOTONIC, not from the shell, so
 * fork and exec are not in the figure.
 *
 * Build:  make build/calib   (make, make test and ci-perf.sh build it)
 * Usage:  build/calib DBFILE DIR KEYS COUNT
 *
 * COUNT preads of 10,000 bytes at pseudo-random offsets of DBFILE, then
 * COUNT open/read/close of pseudo-random files DIR/000001..DIR/KEYS (a
 * fixed sequence: xorshift64 from a fixed seed); prints one JSON line with
 * the time per operation of each loop and of both together. Exit status
 * 0, 1 on an I/O failure, 2 on misuse.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The xorshift64 state (a fixed seed: the same offsets and files every
 * run) and a checksum of one byte per read, printed so that the compiler
 * cannot drop the reads. */
static uint64_t x = 88172645463325252ULL, sum;

static uint64_t next(void) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x; }

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    enum { SIZE = 10000, CAP = 1 << 20 };
    if (argc != 5) { fprintf(stderr, "usage: calib DBFILE DIR KEYS COUNT\n"); return 2; }
    long keys = atol(argv[3]), count = atol(argv[4]);
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    char *buf = malloc(CAP), path[4096];
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= SIZE || keys < 1 || count < 1 || !buf) {
        perror(argv[1]);
        return 1;
    }
    double t0 = now_us();
    for (long i = 0; i < count; i++) {
        off_t off = (off_t)(next() % (uint64_t)(st.st_size - SIZE));
        if (pread(fd, buf, SIZE, off) != SIZE) { perror("pread"); return 1; }
        sum += (unsigned char)buf[i % SIZE];
    }
    double t1 = now_us();
    for (long i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%06ld", argv[2], (long)(next() % (uint64_t)keys) + 1);
        int f = open(path, O_RDONLY);
        ssize_t got, total = 0;
        if (f < 0) { perror(path); return 1; }
        while ((got = read(f, buf + total, (size_t)(CAP - total))) > 0)
            total += got;
        close(f);
        if (got < 0 || total == 0) { perror(path); return 1; }
        sum += (unsigned char)buf[i % total];
    }
    double t2 = now_us();
    printf("{\"tool\":\"calib\",\"count\":%ld,\"pread_us\":%.4f,\"files_us\":%.4f,"
           "\"us_per_read\":%.4f,\"checksum\":%llu}\n", count, (t1 - t0) / (double)count,
           (t2 - t1) / (double)count, (t2 - t0) / (2.0 * (double)count),
           (unsigned long long)(sum & 0xffff));
    free(buf);
    close(fd);
    return 0;
}
