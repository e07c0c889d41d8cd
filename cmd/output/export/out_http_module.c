/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out_http.h's calls, made by the HTTP module (out_http_module.h), which
 * is loaded at the first out_http_open and kept for the rest of the run.
 *
 * The module is where it is installed relative to the commands
 * (OUT_HTTP_MODULE_PATH), taken from the directory of the executable that
 * runs as the kernel names it: the build tree's commands load the build
 * tree's module, and installed ones the installed one. A command loads
 * only a module that no other user could have written, nor put in its
 * directory; with privileges its caller lacks (file capabilities), only
 * root's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpctools_version.h"
#include "diag.h"
#include "out_http_module.h"

/* Why a load failed: a path and a reason. */
#define WHY_LEN (PATH_MAX + 256)

static const struct out_http_module *module;

bool
out_http_available(void)
{
	return true;
}

/*
 * The module's path: OUT_HTTP_MODULE_PATH from the running executable's
 * directory, whose name the kernel gives with no link or dot in it, so
 * that each leading "../" takes one name off.
 */
static bool
module_path(char *path, size_t len)
{
	const char *rel = OUT_HTTP_MODULE_PATH;
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ups = 0, w;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (; strncmp(rel, "../", 3) == 0; rel += 3)
		ups++;
	/* The executable's own name, then a directory for each "../". */
	for (; ups >= 0; ups--) {
		if ((slash = strrchr(exe, '/')) == NULL)
			return false;
		*slash = '\0';
	}
	w = snprintf(path, len, "%s/%s", exe, rel);
	return w > 0 && (size_t)w < len;
}

/*
 * Whether fd's file can have been written by no user but root, or, where
 * the command runs with no more rights than its caller, the caller.
 */
static bool
written_safely(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return false;
	if (st.st_uid != 0 && (getauxval(AT_SECURE) || st.st_uid != getuid()))
		return false;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/*
 * The module file at path, opened, or -1 with why. Its directory is
 * opened first, so that what is checked is what is loaded.
 */
static int
module_open(char *path, char *why, size_t whylen)
{
	char *slash = strrchr(path, '/');
	int dir, fd = -1;

	*slash = '\0';
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (dir < 0 ||
	    (fd = openat(dir, slash + 1, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) <
		0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	} else if (!written_safely(dir) || !written_safely(fd)) {
		snprintf(why, whylen,
		    "%s: it, or its directory, may have been written by "
		    "another user",
		    path);
		close(fd);
		fd = -1;
	}
	if (dir >= 0)
		close(dir);
	return fd;
}

/* The module's table, or NULL with why. */
static const struct out_http_module *
module_load(char *why, size_t whylen)
{
	const struct out_http_module *m;
	char path[PATH_MAX], by_fd[64];
	void *handle;
	int fd;

	if (!module_path(path, sizeof(path))) {
		snprintf(why, whylen, "the HTTP module cannot be found");
		return NULL;
	}
	if ((fd = module_open(path, why, whylen)) < 0)
		return NULL;
	snprintf(by_fd, sizeof(by_fd), "/proc/self/fd/%d", fd);
	handle = dlopen(by_fd, RTLD_NOW | RTLD_LOCAL);
	close(fd);
	if (handle == NULL) {
		snprintf(why, whylen, "%s: %s", path, dlerror());
		return NULL;
	}
	m = dlsym(handle, OUT_HTTP_MODULE_SYMBOL);
	if (m == NULL || m->abi != OUT_HTTP_MODULE_ABI ||
	    strcmp(m->version, CPCTOOLS_VERSION) != 0) {
		snprintf(why, whylen, "%s: not this build's HTTP module", path);
		dlclose(handle);
		return NULL;
	}
	return m;
}

struct out_http *
out_http_open(const char *arg, const char *web_config, out_render_fn *render,
    void *render_arg)
{
	char why[WHY_LEN];

	if (module == NULL &&
	    (module = module_load(why, sizeof(why))) == NULL) {
		diag(NULL, "cannot listen on '%s': %s\n", arg, why);
		return NULL;
	}
	return module->open(arg, web_config, render, render_arg);
}

int
out_http_start(struct out_http *h)
{
	return module->start(h);
}

int
out_http_wait_final(struct out_http *h, long timeout_ms)
{
	return module->wait_final(h, timeout_ms);
}

void
out_http_close(struct out_http *h)
{
	if (h != NULL)
		module->close(h);
}
