/* A blocking read(2) of 1 byte when the byte is already waiting: a
 * 2,000-byte prefilled AF_UNIX stream socketpair read 1 byte at a time.
 * Prints the nanoseconds per read (CLOCK_MONOTONIC around the reads).
 * With any argument a second thread is started first and left asleep, so
 * that the process shares its file table as a Go process always does
 * (the kernel's fdget then takes a reference on the file at every call). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { READS = 2000, WARMUP = 500 };

static void *sleeper(void *arg) {
	(void)arg;
	for (;;) pause();
	return NULL;
}

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
	(void)argv;
	pthread_t t;
	if (argc > 1 && pthread_create(&t, NULL, sleeper, NULL) != 0) { perror("pthread_create"); return 1; }
	/* With a second argument the reading thread then takes a file table of
	 * its own again (unshare(2)): what is left of the difference is not the
	 * shared table's. */
	if (argc > 2 && unshare(CLONE_FILES) != 0) { perror("unshare"); return 1; }
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
