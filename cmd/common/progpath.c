/* SPDX-License-Identifier: BSD-2-Clause */
/* The program a command name stands for, found as execvp(3) finds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progpath.h"

bool
program_path(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *end;
	struct stat st;
	int n;

	if (strchr(name, '/') != NULL)
		return (size_t)snprintf(path, len, "%s", name) < len;
	if (dirs == NULL)
		dirs = "/bin:/usr/bin";
	for (; *dirs != '\0'; dirs = *end == ':' ? end + 1 : end) {
		end = strchrnul(dirs, ':');
		n = snprintf(path, len, "%.*s/%s",
		    end == dirs ? 1 : (int)(end - dirs),
		    end == dirs ? "." : dirs, name);
		if (n > 0 && (size_t)n < len && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return true;
	}
	return false;
}
