// SPDX-License-Identifier: GPL-2.0
/*
 * rstr-threads N main|thread: start N threads that wait for ever, print
 * "caller PID" and "tid TID" for each, then restart() the process whose
 * image is on stdin from the main thread or from one more thread. The
 * kernel ends the other threads first, as execve() does. Exits with the
 * errno when restart() fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include "ckpt.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int started;

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	printf("tid %d\n", gettid());
	started++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

static void *call_restart(void *arg)
{
	long ret = sys_restart(0, STDIN_FILENO, 0);

	(void)arg;
	return (void *)(ret < 0 ? (long)errno : 255L);
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *err;
	int n, i;

	if (argc != 3 || (strcmp(argv[2], "main") && strcmp(argv[2], "thread"))) {
		fprintf(stderr, "usage: rstr-threads N main|thread\n");
		return 2;
	}
	n = atoi(argv[1]);
	printf("caller %d\n", getpid());
	for (i = 0; i < n; i++)
		CHECK(!pthread_create(&th, NULL, idle, NULL), "pthread_create");
	pthread_mutex_lock(&lock);
	while (started < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	fflush(stdout);
	if (!strcmp(argv[2], "main")) {
		err = call_restart(NULL);
	} else {
		CHECK(!pthread_create(&th, NULL, call_restart, NULL), "pthread_create");
		CHECK(!pthread_join(th, &err), "pthread_join");
	}
	fprintf(stderr, "restart: %s\n", strerror((int)(long)err));
	return (int)(long)err;
}
