// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-mem GOFILE: fill every kind of memory with known patterns, load
 * vector and general registers and MXCSR with known values, print "ready",
 * then spin in one asm block, holding those registers, until GOFILE
 * exists. Then check every byte and register, and that the process still
 * works (heap growth, fork, exec, protections). Prints "all ok".
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include "ckpt.h"

#define PAGE		4096UL
#define SPARSE_PAGES	8192		/* 32 MiB, every 37th page touched */
#define FILE_PAGES	16

static unsigned char bss_area[64 * PAGE];
static unsigned char data_area[4 * PAGE] = { 1 };
static __thread unsigned long tls_var = 0x1234;

static unsigned char vin[16][32] __attribute__((aligned(32)));
static unsigned char vout[16][32] __attribute__((aligned(32)));
static uint64_t gin[4] = { 0x1122334455667788ULL, 0x99aabbccddeeff00ULL,
			   0x0123456789abcdefULL, 0xfedcba9876543210ULL };
static uint64_t gout[4];
static unsigned int mxcsr_in = 0xffc0, mxcsr_out;

static unsigned char *heap, *sparse, *ro, *guard, *fmap;
static size_t heap_len = 256 * 1024;
static char *mstr;

static unsigned char pat(uintptr_t a, int salt)
{
	return (unsigned char)((a >> 12) * 31 + (a & 0xfff) * 7 + salt * 101);
}

static void fill(unsigned char *p, size_t len, int salt)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat((uintptr_t)p + i, salt);
}

static void verify(const unsigned char *p, size_t len, int salt, const char *what)
{
	for (size_t i = 0; i < len; i++)
		CHECK(p[i] == pat((uintptr_t)p + i, salt),
		      "%s: byte %zu is %#x, expected %#x", what, i, p[i],
		      pat((uintptr_t)p + i, salt));
}

static void make_file(const char *path)
{
	unsigned char page[PAGE];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	for (unsigned long pg = 0; pg < FILE_PAGES; pg++) {
		for (size_t i = 0; i < PAGE; i++)
			page[i] = pat(pg * PAGE + i, 6);
		CHECK(write(fd, page, PAGE) == PAGE, "write %s", path);
	}
	fmap = mmap(NULL, FILE_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(fmap != MAP_FAILED, "mmap file");
	close(fd);
	fill(fmap + 3 * PAGE, PAGE, 7);
	fill(fmap + 7 * PAGE, PAGE, 7);
}

static void setup(const char *dir)
{
	char path[256];

	fill(bss_area, sizeof(bss_area), 1);
	fill(data_area, sizeof(data_area), 2);
	heap = sbrk(heap_len);
	CHECK(heap != (void *)-1, "sbrk");
	fill(heap, heap_len, 3);
	mstr = malloc(64);
	strcpy(mstr, "a string on the malloc heap");
	sparse = mmap(NULL, SPARSE_PAGES * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(sparse != MAP_FAILED, "mmap sparse");
	for (unsigned long pg = 0; pg < SPARSE_PAGES; pg += 37)
		fill(sparse + pg * PAGE, PAGE, 4);
	ro = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED, "mmap ro");
	fill(ro, 8 * PAGE, 5);
	CHECK(!mprotect(ro, 8 * PAGE, PROT_READ), "mprotect");
	guard = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(guard != MAP_FAILED, "mmap guard");
	snprintf(path, sizeof(path), "%s.dat", dir);
	make_file(path);
	tls_var = 0xfeedface12345678UL;
	for (int r = 0; r < 16; r++)
		for (int i = 0; i < 32; i++)
			vin[r][i] = (unsigned char)(r * 37 + i * 11 + 1);
}

#define LOAD(op, w)							\
	op " 0*" w "(%[in]), %%xmm0\n" op " 1*" w "(%[in]), %%xmm1\n"	\
	op " 2*" w "(%[in]), %%xmm2\n" op " 3*" w "(%[in]), %%xmm3\n"	\
	op " 4*" w "(%[in]), %%xmm4\n" op " 5*" w "(%[in]), %%xmm5\n"	\
	op " 6*" w "(%[in]), %%xmm6\n" op " 7*" w "(%[in]), %%xmm7\n"	\
	op " 8*" w "(%[in]), %%xmm8\n" op " 9*" w "(%[in]), %%xmm9\n"	\
	op " 10*" w "(%[in]), %%xmm10\n" op " 11*" w "(%[in]), %%xmm11\n" \
	op " 12*" w "(%[in]), %%xmm12\n" op " 13*" w "(%[in]), %%xmm13\n" \
	op " 14*" w "(%[in]), %%xmm14\n" op " 15*" w "(%[in]), %%xmm15\n"
#define STORE(op, w)							\
	op " %%xmm0, 0*" w "(%[out])\n" op " %%xmm1, 1*" w "(%[out])\n"	\
	op " %%xmm2, 2*" w "(%[out])\n" op " %%xmm3, 3*" w "(%[out])\n"	\
	op " %%xmm4, 4*" w "(%[out])\n" op " %%xmm5, 5*" w "(%[out])\n"	\
	op " %%xmm6, 6*" w "(%[out])\n" op " %%xmm7, 7*" w "(%[out])\n"	\
	op " %%xmm8, 8*" w "(%[out])\n" op " %%xmm9, 9*" w "(%[out])\n"	\
	op " %%xmm10, 10*" w "(%[out])\n" op " %%xmm11, 11*" w "(%[out])\n" \
	op " %%xmm12, 12*" w "(%[out])\n" op " %%xmm13, 13*" w "(%[out])\n" \
	op " %%xmm14, 14*" w "(%[out])\n" op " %%xmm15, 15*" w "(%[out])\n"
#define SPIN								\
	"ldmxcsr %[mi]\n"						\
	"mov 0(%[g]), %%r12\n mov 8(%[g]), %%r13\n"			\
	"mov 16(%[g]), %%r14\n mov 24(%[g]), %%r15\n"			\
	"1: mov $100000, %%ecx\n"					\
	"2: dec %%ecx\n jnz 2b\n"					\
	"mov $21, %%eax\n mov %[path], %%rdi\n xor %%esi, %%esi\n"	\
	"syscall\n test %%rax, %%rax\n jnz 1b\n"			\
	"stmxcsr %[mo]\n"						\
	"mov %%r12, 0(%[go])\n mov %%r13, 8(%[go])\n"			\
	"mov %%r14, 16(%[go])\n mov %%r15, 24(%[go])\n"
#define CLOBBERS "rax", "rcx", "rsi", "rdi", "r11", "r12", "r13", "r14", "r15", "memory", "cc",			\
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

#define LOADY								\
	"vmovdqa 0(%[in]), %%ymm0\n vmovdqa 32(%[in]), %%ymm1\n"	\
	"vmovdqa 64(%[in]), %%ymm2\n vmovdqa 96(%[in]), %%ymm3\n"	\
	"vmovdqa 128(%[in]), %%ymm4\n vmovdqa 160(%[in]), %%ymm5\n"	\
	"vmovdqa 192(%[in]), %%ymm6\n vmovdqa 224(%[in]), %%ymm7\n"	\
	"vmovdqa 256(%[in]), %%ymm8\n vmovdqa 288(%[in]), %%ymm9\n"	\
	"vmovdqa 320(%[in]), %%ymm10\n vmovdqa 352(%[in]), %%ymm11\n"	\
	"vmovdqa 384(%[in]), %%ymm12\n vmovdqa 416(%[in]), %%ymm13\n"	\
	"vmovdqa 448(%[in]), %%ymm14\n vmovdqa 480(%[in]), %%ymm15\n"
#define STOREY								\
	"vmovdqa %%ymm0, 0(%[out])\n vmovdqa %%ymm1, 32(%[out])\n"	\
	"vmovdqa %%ymm2, 64(%[out])\n vmovdqa %%ymm3, 96(%[out])\n"	\
	"vmovdqa %%ymm4, 128(%[out])\n vmovdqa %%ymm5, 160(%[out])\n"	\
	"vmovdqa %%ymm6, 192(%[out])\n vmovdqa %%ymm7, 224(%[out])\n"	\
	"vmovdqa %%ymm8, 256(%[out])\n vmovdqa %%ymm9, 288(%[out])\n"	\
	"vmovdqa %%ymm10, 320(%[out])\n vmovdqa %%ymm11, 352(%[out])\n"	\
	"vmovdqa %%ymm12, 384(%[out])\n vmovdqa %%ymm13, 416(%[out])\n"	\
	"vmovdqa %%ymm14, 448(%[out])\n vmovdqa %%ymm15, 480(%[out])\n"

static void spin(const char *path, int avx)
{
	if (avx)
		asm volatile(LOADY SPIN STOREY "vzeroupper\n"
			     : [mo] "=m"(mxcsr_out)
			     : [in] "r"(vin), [out] "r"(vout), [g] "r"(gin), [go] "r"(gout),
			       [path] "r"(path), [mi] "m"(mxcsr_in)
			     : CLOBBERS);
	else
		asm volatile(LOAD("movdqa", "32") SPIN STORE("movdqa", "32")
			     : [mo] "=m"(mxcsr_out)
			     : [in] "r"(vin), [out] "r"(vout), [g] "r"(gin), [go] "r"(gout),
			       [path] "r"(path), [mi] "m"(mxcsr_in)
			     : CLOBBERS);
}

static int child_status(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		fn();
		_exit(42);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	return status;
}

static void nothing(void) { }
static void write_ro(void) { ro[PAGE] = 1; }
static void read_guard(void) { (void)*(volatile unsigned char *)guard; }
static void run_exec(void) { execl("/bin/sh", "sh", "-c", "exit 7", NULL); }

/* The kernel state a C library sets up: rseq, vdso, exe, cmdline. */
static void check_registered(const char *argv0, const char *go)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR), start = 0;
	char line[512], exe[256], cmd[512];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n;
	void *tp;
	int fd;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]"))
			start = strtoul(line, NULL, 16);
	CHECK(f && vdso && start == vdso, "vdso at %#lx, auxv says %#lx", start, vdso);
	fclose(f);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0, "readlink exe");
	exe[n] = '\0';
	CHECK(!strcmp(strrchr(exe, '/') + 1, strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0),
	      "exe is %s", exe);
	fd = open("/proc/self/cmdline", O_RDONLY);
	n = read(fd, cmd, sizeof(cmd));
	close(fd);
	CHECK(n > 0 && !strcmp(cmd, argv0) && !strcmp(cmd + strlen(cmd) + 1, go),
	      "cmdline is %s", cmd);
	if (__rseq_size > 0) {
		/* unregistering succeeds only for the registered area and signature */
		asm("mov %%fs:0, %0" : "=r"(tp));
		CHECK(!syscall(__NR_rseq, (char *)tp + __rseq_offset, 32, RSEQ_FLAG_UNREGISTER,
			       0x53053053), "rseq not registered: %s", strerror(errno));
		CHECK(!syscall(__NR_rseq, (char *)tp + __rseq_offset, 32, 0, 0x53053053),
		      "rseq register: %s", strerror(errno));
	}
}

static void check_all(int avx)
{
	unsigned char *more;
	int st;

	CHECK(mxcsr_out == mxcsr_in, "mxcsr %#x, expected %#x", mxcsr_out, mxcsr_in);
	CHECK(!memcmp(gin, gout, sizeof(gin)), "r12-r15 changed");
	for (int r = 0; r < 16; r++)
		CHECK(!memcmp(vin[r], vout[r], avx ? 32 : 16), "%cmm%d changed",
		      avx ? 'y' : 'x', r);
	verify(bss_area, sizeof(bss_area), 1, "bss");
	verify(data_area, sizeof(data_area), 2, "data");
	verify(heap, heap_len, 3, "heap");
	CHECK(!strcmp(mstr, "a string on the malloc heap"), "malloc string");
	for (unsigned long pg = 0; pg < SPARSE_PAGES; pg++) {
		if (pg % 37 == 0)
			verify(sparse + pg * PAGE, PAGE, 4, "sparse");
		else
			for (size_t i = 0; i < PAGE; i++)
				CHECK(!sparse[pg * PAGE + i], "sparse page %lu not zero", pg);
	}
	verify(ro, 8 * PAGE, 5, "read-only");
	for (unsigned long pg = 0; pg < FILE_PAGES; pg++) {
		if (pg == 3 || pg == 7) {
			verify(fmap + pg * PAGE, PAGE, 7, "file dirty page");
			continue;
		}
		for (size_t i = 0; i < PAGE; i++)
			CHECK(fmap[pg * PAGE + i] == pat(pg * PAGE + i, 6),
			      "file page %lu byte %zu", pg, i);
	}
	CHECK(tls_var == 0xfeedface12345678UL, "__thread variable %#lx", tls_var);
	more = sbrk(1 << 20);
	CHECK(more != (void *)-1, "heap growth: %s", strerror(errno));
	memset(more, 0x5a, 1 << 20);
	more = malloc(8 << 20);
	CHECK(more, "malloc 8 MiB");
	memset(more, 0xa5, 8 << 20);
	st = child_status(nothing);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "fork: status %#x", st);
	st = child_status(run_exec);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "exec: status %#x", st);
	st = child_status(write_ro);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "write to read-only: %#x", st);
	st = child_status(read_guard);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "read PROT_NONE: %#x", st);
}

int main(int argc, char **argv)
{
	int avx = __builtin_cpu_supports("avx");

	if (argc != 2) {
		fprintf(stderr, "usage: ckpt-mem GOFILE\n");
		return 255;
	}
	setup(argv[1]);
	printf("ready %d avx=%d\n", getpid(), !!avx);
	fflush(stdout);
	spin(argv[1], avx);
	check_all(avx);
	check_registered(argv[0], argv[1]);
	printf("all ok pid=%d\n", getpid());
	return 0;
}
