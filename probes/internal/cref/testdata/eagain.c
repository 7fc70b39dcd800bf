/* 1,000 reads of an empty O_NONBLOCK AF_UNIX stream socket, each failing
 * with EAGAIN. Prints the nanoseconds per read (CLOCK_MONOTONIC around the
 * reads). The words raw, threads and unshare on the command line change
 * what ready.c's do. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 1000, WARMUP = 500 };

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

static int has(int argc, char **argv, const char *word) {
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], word) == 0) return 1;
	return 0;
}

int main(int argc, char **argv) {
	pthread_t t;
	if (has(argc, argv, "threads") && pthread_create(&t, NULL, sleeper, NULL) != 0) { perror("pthread_create"); return 1; }
	if (has(argc, argv, "unshare") && unshare(CLONE_FILES) != 0) { perror("unshare"); return 1; }
	int sv[2];
	char one;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) != 0) { perror("fcntl"); return 1; }
	for (int i = 0; i < WARMUP; i++) {
		if (read(sv[0], &one, 1) != -1 || errno != EAGAIN) { perror("warm-up"); return 1; }
	}
	long long t0 = now();
	if (has(argc, argv, "raw")) {
		for (int i = 0; i < CALLS; i++) {
			if (syscall(SYS_read, sv[0], &one, 1) != -1 || errno != EAGAIN) { perror("read"); return 1; }
		}
	} else {
		for (int i = 0; i < CALLS; i++) {
			if (read(sv[0], &one, 1) != -1 || errno != EAGAIN) { perror("read"); return 1; }
		}
	}
	long long t1 = now();
	printf("%.3f\n", (double)(t1 - t0) / CALLS);
	return 0;
}
