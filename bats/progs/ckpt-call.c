// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-call checkpoint PID FD FLAGS | restart CRID FD FLAGS [MS]: make the
 * raw system call with exactly these arguments. Prints the return value;
 * exits 0 on success, with the errno on failure. With MS, a SIGALRM whose
 * handler has SA_RESTART comes after MS milliseconds.
 */
#include <signal.h>
#include <sys/time.h>
#include "ckpt.h"

static void on_alarm(int sig)
{
}

static void alarm_in(long ms)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { .it_value = { ms / 1000, ms % 1000 * 1000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	long a, b, ret;
	unsigned long flags;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: ckpt-call checkpoint|restart ID FD FLAGS [MS]\n");
		return 255;
	}
	if (argc == 6)
		alarm_in(atol(argv[5]));
	a = strtol(argv[2], NULL, 0);
	b = strtol(argv[3], NULL, 0);
	flags = strtoul(argv[4], NULL, 0);
	if (!strcmp(argv[1], "checkpoint"))
		ret = sys_checkpoint(a, b, flags);
	else
		ret = sys_restart(a, b, flags);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return errno;
	}
	printf("%ld\n", ret);
	return 0;
}
