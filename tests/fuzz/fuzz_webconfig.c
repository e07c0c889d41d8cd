/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: --web-config's file (web_config_load), the whole path
 * from the file's bytes through libyaml to the configuration it gives.
 * The input is the file, written to a directory of the target's own
 * beside a server.crt, a server.key and a token, so that the paths a
 * file names can be found. A file is refused with a reason or loaded; a
 * crash, a sanitizer's report, a leak or a load with no reason is a
 * finding.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "webconfig.h"

static char dir[] = "/tmp/fuzz_webconfig.XXXXXX";
static char file[sizeof(dir) + 16];

static void
put(const char *name, const void *data, size_t size)
{
	const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	char path[sizeof(dir) + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, flags, 0600)) < 0 ||
	    (size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    close(fd) != 0) {
		fprintf(
		    stderr, "fuzz_webconfig: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void
clean(void)
{
	static const char *const names[] = { "web.yml", "server.crt",
		"server.key", "token" };
	char path[sizeof(dir) + 16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		(void)unlink(path);
	}
	(void)rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL) {
		fprintf(
		    stderr, "fuzz_webconfig: mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	atexit(clean);
	put("server.crt", "CERT\n", 5);
	put("server.key", "KEY\n", 4);
	put("token", "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2Fs=\n", 50);
	snprintf(file, sizeof(file), "%s/web.yml", dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config *wc;
	char why[1024];

	put("web.yml", data, size);
	why[0] = '\0';
	wc = web_config_load(file, why, sizeof(why));
	if (wc == NULL && why[0] == '\0')
		abort();
	/* A name's lookup walks what the load kept. */
	if (wc != NULL)
		(void)web_config_hash(wc, "prometheus");
	web_config_free(wc);
	return 0;
}
