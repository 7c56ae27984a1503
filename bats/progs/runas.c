/* runas UID GID COMMAND [ARGS...]: drop all privileges and exec COMMAND. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: runas UID GID COMMAND [ARGS...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "runas: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "runas: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
