/* A blocking read(2) of 1 byte when the byte is already waiting: a
 * 2,000-byte prefilled AF_UNIX stream socketpair read 1 byte at a time.
 * Prints the nanoseconds per read (CLOCK_MONOTONIC around the reads).
 *
 * Words on the command line change one thing each, to find what a Go
 * probe's read pays that this program does not:
 *   raw      syscall(SYS_read) instead of libc's read(), which in a
 *            process with threads also marks itself a cancellation point;
 *   threads  a second thread asleep beside the reads, as a Go process
 *            always has: the process's file table is shared, and the
 *            kernel takes a reference on the file at every call (fs/file.c's
 *            fdget);
 *   unshare  then the reading thread takes a file table of its own again
 *            (unshare(CLONE_FILES)), to tell the table's share from the
 *            thread's. */
#include "variants.h"

#include <sys/socket.h>
#include <sys/syscall.h>

enum { READS = 2000, WARMUP = 500 };

int main(int argc, char **argv) {
	if (start_variant(argc, argv) != 0) return 1;
	int sv[2];
	char buf[READS], one;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
	for (int i = 0; i < WARMUP; i++) {
		if (write(sv[1], "x", 1) != 1 || read(sv[0], &one, 1) != 1) { perror("warm-up"); return 1; }
	}
	for (int i = 0; i < READS; i++) buf[i] = 'x';
	if (write(sv[1], buf, READS) != READS) { perror("prefill"); return 1; }
	long long t0 = now();
	if (has(argc, argv, "raw")) {
		for (int i = 0; i < READS; i++) {
			if (syscall(SYS_read, sv[0], &one, 1) != 1) { perror("read"); return 1; }
		}
	} else {
		for (int i = 0; i < READS; i++) {
			if (read(sv[0], &one, 1) != 1) { perror("read"); return 1; }
		}
	}
	long long t1 = now();
	printf("%.3f\n", (double)(t1 - t0) / READS);
	return 0;
}
