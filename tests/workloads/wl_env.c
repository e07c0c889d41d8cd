/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_env OUTFILE [DEPTH]
 *
 * Writes what a process inherits to OUTFILE: its resource limits
 * (/proc/self/limits), its signal mask and dispositions (the Sig* lines of
 * /proc/self/status), where each open descriptor leads, and whether it
 * leads its process group and session. With DEPTH > 0 it first forks a
 * child that execs "wl_env OUTFILE.child DEPTH-1" and waits for it, so
 * that forked and exec'd descendants are described too.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void
copy_file(FILE *out, const char *path, const char *prefix)
{
	char line[512];
	FILE *in;

	if ((in = fopen(path, "r")) == NULL)
		exit(1);
	while (fgets(line, sizeof(line), in) != NULL)
		if (prefix == NULL ||
		    strncmp(line, prefix, strlen(prefix)) == 0)
			fputs(line, out);
	fclose(in);
}

/* Each descriptor and where it leads; the directory's own is left out. */
static void
list_fds(FILE *out)
{
	char path[300], target[512];
	struct dirent *de;
	DIR *dir;
	ssize_t n;

	if ((dir = opendir("/proc/self/fd")) == NULL)
		exit(1);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
			continue;
		target[n] = '\0';
		/* Pipes and sockets differ by inode between runs. */
		if (strncmp(target, "pipe:", 5) == 0)
			strcpy(target, "pipe");
		if (strncmp(target, "socket:", 7) == 0)
			strcpy(target, "socket");
		fprintf(out, "fd %s -> %s\n", de->d_name, target);
	}
	closedir(dir);
}

static void
describe(const char *path)
{
	FILE *out;

	if ((out = fopen(path, "we")) == NULL)
		exit(1);
	copy_file(out, "/proc/self/limits", NULL);
	copy_file(out, "/proc/self/status", "Sig");
	list_fds(out);
	fprintf(out, "group leader %d\n", getpgrp() == getpid());
	fprintf(
	    out, "same session as parent %d\n", getsid(0) == getsid(getppid()));
	fclose(out);
}

int
main(int argc, char **argv)
{
	char child[300], depth[16];
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	describe(argv[1]);
	if (argc < 3 || atoi(argv[2]) <= 0)
		return 0;
	snprintf(child, sizeof(child), "%s.child", argv[1]);
	snprintf(depth, sizeof(depth), "%d", atoi(argv[2]) - 1);
	if ((pid = fork()) == 0) {
		execl(argv[0], argv[0], child, depth, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
