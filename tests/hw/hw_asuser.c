/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_asuser UID COMMAND [ARG...]: runs COMMAND as UID (its group too, no
 * supplementary groups), as a user who is not root would; the guest's
 * busybox has no way to change the uid.
 */
#include <err.h>
#include <grp.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3)
		errx(2, "usage: hw_asuser UID COMMAND [ARG...]");
	uid = strtol(argv[1], &end, 10);
	if (*end != '\0' || uid <= 0)
		errx(2, "%s: not a user id", argv[1]);
	if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 ||
	    setuid((uid_t)uid) != 0)
		err(1, "cannot become uid %ld", uid);
	execvp(argv[2], argv + 2);
	err(127, "%s", argv[2]);
}
