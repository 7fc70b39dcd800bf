/* A blocking read(2) of 1 byte when the byte is already waiting: a
 * 2,000-byte prefilled AF_UNIX stream socketpair read 1 byte at a time.
 * Prints the nanoseconds per read (CLOCK_MONOTONIC around the reads). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { READS = 2000, WARMUP = 500 };

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
	int sv[2];
	char buf[READS], one;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
	for (int i = 0; i < WARMUP; i++) {
		if (write(sv[1], "x", 1) != 1 || read(sv[0], &one, 1) != 1) { perror("warm-up"); return 1; }
	}
	for (int i = 0; i < READS; i++) buf[i] = 'x';
	if (write(sv[1], buf, READS) != READS) { perror("prefill"); return 1; }
	long long t0 = now();
	for (int i = 0; i < READS; i++) {
		if (read(sv[0], &one, 1) != 1) { perror("read"); return 1; }
	}
	long long t1 = now();
	printf("%.3f\n", (double)(t1 - t0) / READS);
	return 0;
}
