/* Smallest test program: proves static and dynamic binaries run in the guest. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	printf("hello from %s (%d args)\n", name ? name + 1 : argv[0], argc - 1);
	return 0;
}
