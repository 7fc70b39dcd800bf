/* 1,000 reads of an empty O_NONBLOCK AF_UNIX stream socket, each failing
 * with EAGAIN. Prints the nanoseconds per read (CLOCK_MONOTONIC around the
 * reads). The words raw, threads and unshare on the command line change
 * what ready.c's do. */
#include "variants.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

enum { CALLS = 1000, WARMUP = 500 };

int main(int argc, char **argv) {
	if (start_variant(argc, argv) != 0) return 1;
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
