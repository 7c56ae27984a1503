// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-stopcont sigcont|ptrace ROUNDS DIR: checkpoints of a target that
 * another process keeps stopping and continuing.
 *
 * The target spins on an invariant between its register r12 and a word
 * of memory: at the top of its loop they are equal. In "ptrace" mode a
 * tracer (PTRACE_SEIZE) loops: PTRACE_INTERRUPT, wait, add 1000 to r12
 * (PTRACE_SETREGS), add 1000 to the word (PTRACE_POKEDATA), PTRACE_CONT.
 * The target accepts the state between the two requests (the word 1000
 * short), and nothing else. In "sigcont" mode a process loops SIGSTOP,
 * SIGCONT. Meanwhile ROUNDS checkpoints of the target are written to
 * DIR/N.img, each must succeed; then each image is restarted in a child,
 * continued if it comes back stopped (an image taken in a job-control
 * stop), which must still be spinning 20 ms later (a torn image, with registers
 * of before a request and memory of after, makes it exit 3). Prints
 * "ok ROUNDS".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "ckpt.h"

static volatile unsigned long word;

static void __attribute__((noreturn)) spin(void)
{
	asm volatile("	movq %[w], %%r12\n"
		     "1:	movq %[w], %%rax\n"
		     "	cmpq %%r12, %%rax\n"
		     "	je 3f\n"
		     "	addq $1000, %%rax\n"
		     "	cmpq %%r12, %%rax\n"
		     "	jne 2f\n"
		     "	movq %%r12, %[w]\n"	/* between the tracer's requests */
		     "3:	incq %%r12\n"
		     "	movq %%r12, %[w]\n"
		     "	jmp 1b\n"
		     "2:	movl $60, %%eax\n"	/* exit(3): torn */
		     "	movl $3, %%edi\n"
		     "	syscall\n"
		     : [w] "+m" (word) : : "rax", "rdi", "r12", "memory");
	__builtin_unreachable();
}

static void __attribute__((noreturn)) tracer(pid_t t)
{
	struct user_regs_struct regs;
	long w;
	int st;

	CHECK(!ptrace(PTRACE_SEIZE, t, 0, 0), "PTRACE_SEIZE: %m");
	for (;;) {
		CHECK(!ptrace(PTRACE_INTERRUPT, t, 0, 0), "PTRACE_INTERRUPT: %m");
		CHECK(waitpid(t, &st, __WALL) == t && WIFSTOPPED(st), "wait");
		CHECK(!ptrace(PTRACE_GETREGS, t, 0, &regs), "GETREGS: %m");
		regs.r12 += 1000;
		CHECK(!ptrace(PTRACE_SETREGS, t, 0, &regs), "SETREGS: %m");
		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, t, &word, 0);
		CHECK(!errno, "PEEKDATA: %m");
		CHECK(!ptrace(PTRACE_POKEDATA, t, &word, w + 1000), "POKEDATA: %m");
		CHECK(!ptrace(PTRACE_CONT, t, 0, 0), "PTRACE_CONT: %m");
		usleep(100);
	}
}

static void __attribute__((noreturn)) stopper(pid_t t)
{
	for (;;) {
		kill(t, SIGSTOP);
		usleep(200);
		kill(t, SIGCONT);
		usleep(200);
	}
}

static void restore_one(const char *img, int i)
{
	int fd, st, ms;
	pid_t p = fork();

	CHECK(p >= 0, "fork: %m");
	if (!p) {
		fd = open(img, O_RDONLY);
		CHECK(fd >= 0, "%s: %m", img);
		sys_restart(0, fd, 0);
		FAIL("restart %s: %m", img);
	}
	/* one taken in a job-control stop comes back stopped: continue it */
	for (ms = 0; ms < 20; ms++) {
		if (waitpid(p, &st, WUNTRACED | WNOHANG) == p) {
			CHECK(WIFSTOPPED(st), "image %d: the restored target ended with status %#x",
			      i, st);
			kill(p, SIGCONT);
			ms = 0;
		}
		usleep(1000);
	}
	kill(p, SIGKILL);
	CHECK(waitpid(p, &st, 0) == p, "waitpid: %m");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "image %d: the restored target ended with status %#x", i, st);
}

int main(int argc, char **argv)
{
	char img[4096];
	pid_t t, c;
	int i, n, fd, ptr;

	if (argc != 4 || (strcmp(argv[1], "sigcont") && strcmp(argv[1], "ptrace"))) {
		fprintf(stderr, "usage: ckpt-stopcont sigcont|ptrace ROUNDS DIR\n");
		return 2;
	}
	ptr = !strcmp(argv[1], "ptrace");
	n = atoi(argv[2]);
	t = fork();
	CHECK(t >= 0, "fork: %m");
	if (!t)
		spin();
	c = fork();
	CHECK(c >= 0, "fork: %m");
	if (!c) {
		if (ptr)
			tracer(t);
		stopper(t);
	}
	for (i = 0; i < n; i++) {
		snprintf(img, sizeof(img), "%s/%d.img", argv[3], i);
		fd = open(img, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0, "%s: %m", img);
		CHECK(sys_checkpoint(t, fd, 0) > 0, "checkpoint %d: %m", i);
		close(fd);
	}
	kill(c, SIGKILL);
	kill(t, SIGKILL);
	waitpid(c, NULL, 0);
	waitpid(t, NULL, 0);
	for (i = 0; i < n; i++) {
		snprintf(img, sizeof(img), "%s/%d.img", argv[3], i);
		restore_one(img, i);
	}
	printf("ok %d\n", n);
	return 0;
}
