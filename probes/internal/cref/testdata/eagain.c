/* 1,000 reads of an empty O_NONBLOCK AF_UNIX stream socket, each failing
 * with EAGAIN. Prints the nanoseconds per read (CLOCK_MONOTONIC around the
 * reads). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 1000, WARMUP = 500 };

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void) {
	int sv[2];
	char one;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) != 0) { perror("fcntl"); return 1; }
	for (int i = 0; i < WARMUP; i++) {
		if (read(sv[0], &one, 1) != -1 || errno != EAGAIN) { perror("warm-up"); return 1; }
	}
	long long t0 = now();
	for (int i = 0; i < CALLS; i++) {
		if (read(sv[0], &one, 1) != -1 || errno != EAGAIN) { perror("read"); return 1; }
	}
	long long t1 = now();
	printf("%.3f\n", (double)(t1 - t0) / CALLS);
	return 0;
}
