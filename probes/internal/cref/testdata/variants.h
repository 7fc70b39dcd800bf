/* What ready.c and eagain.c share: the clock, and the words on the command
 * line that move a program one step at a time towards a Go process (see
 * ready.c). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* start_variant starts the second thread (threads) and gives this one its
 * own file table again (unshare); it returns 0, or 1 after saying why not. */
static int start_variant(int argc, char **argv) {
	pthread_t t;
	if (has(argc, argv, "threads") && pthread_create(&t, NULL, sleeper, NULL) != 0) { perror("pthread_create"); return 1; }
	if (has(argc, argv, "unshare") && unshare(CLONE_FILES) != 0) { perror("unshare"); return 1; }
	return 0;
}
