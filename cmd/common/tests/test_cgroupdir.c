/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cgroupdir.c: the cgroup2 mount found in mountinfo texts of the layouts
 * systems have, and the writable cgroup mounts among them, and --cgroup's
 * spellings resolved on this machine's own hierarchy, in a cgroup the test
 * makes; and, from a cgroup namespace whose root is that cgroup (a container's,
 * given the host's hierarchy), the same names as outside it; the same ids under
 * a seccomp filter that refuses name_to_handle_at(2), as containerd's default
 * profile does, and those ids the kernel's file handles give. The walk of a
 * tree, on a plain directory tree the test makes: parents first, its depth
 * kept, links not followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroupdir.h"
#include "check.h"

static int
mount_of(const char *text, char *mnt, char *root)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (f == NULL)
		return -2;
	ret = cgroup2_mount(f, mnt, PATH_MAX, root, PATH_MAX);
	fclose(f);
	return ret;
}

static void
test_mountinfo(void)
{
	char mnt[PATH_MAX], root[PATH_MAX];

	/* systemd's unified layout. */
	CHECK(mount_of("22 1 0:20 / /sys rw shared:7 - sysfs sysfs rw\n"
		       "26 22 0:23 / /sys/fs/cgroup rw,nosuid shared:9 - "
		       "cgroup2 cgroup2 rw,nsdelegate\n",
		  mnt, root) == 0);
	CHECK(strcmp(mnt, "/sys/fs/cgroup") == 0 && strcmp(root, "/") == 0);
	/* The hybrid layout: v1 controllers, v2 beside them. */
	CHECK(mount_of("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
		       "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup "
		       "rw,cpu\n"
		       "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 "
		       "cgroup2 rw\n",
		  mnt, root) == 0);
	CHECK(strcmp(mnt, "/sys/fs/cgroup/unified") == 0);
	/* No optional fields; an escaped space; a container's root. */
	CHECK(mount_of("50 40 0:40 /kube\\040pods /mnt/my\\040cg rw - "
		       "cgroup2 none rw\n",
		  mnt, root) == 0);
	CHECK(
	    strcmp(mnt, "/mnt/my cg") == 0 && strcmp(root, "/kube pods") == 0);
	/* Only v1, and a v1 hierarchy named like it: none. */
	CHECK(mount_of("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup "
		       "rw,cpu\n"
		       "33 31 0:30 / /cgroup2 rw - cgroup cgroup2 rw\n",
		  mnt, root) == -1);
	CHECK(mount_of("", mnt, root) == -1);
}

static int
writable_of(const char *text, char *which, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (f == NULL)
		return -2;
	ret = cgroup_writable_mount(f, which, len);
	fclose(f);
	return ret;
}

/*
 * A hybrid node's hierarchies given to a container read-only at the top
 * alone: each submount is still writable, and named; read-only through,
 * none is; mounts elsewhere do not count.
 */
static void
test_writable(void)
{
	char which[128];

	CHECK(writable_of("20 1 0:5 / / rw - ext4 sda rw\n"
			  "31 20 0:28 / /sys/fs/cgroup ro,relatime - tmpfs "
			  "tmpfs rw\n"
			  "32 31 0:29 / /sys/fs/cgroup/cpu ro - cgroup cgroup "
			  "rw,cpu\n"
			  "33 31 0:30 / /sys/fs/cgroup/memory rw,nosuid - "
			  "cgroup cgroup rw,memory\n"
			  "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 "
			  "cgroup2 rw\n",
		  which, sizeof(which)) == 1);
	CHECK(strcmp(which, "/sys/fs/cgroup/memory (cgroup)") == 0);
	CHECK(writable_of("31 20 0:28 / /sys/fs/cgroup ro - tmpfs tmpfs rw\n"
			  "32 31 0:29 / /sys/fs/cgroup/cpu ro - cgroup cgroup "
			  "rw,cpu\n"
			  "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 "
			  "cgroup2 rw\n",
		  which, sizeof(which)) == 1);
	CHECK(strcmp(which, "/sys/fs/cgroup/unified (cgroup2)") == 0);
	/* The tmpfs that holds v1's mount points holds no cgroup file. */
	CHECK(writable_of("31 20 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n",
		  which, sizeof(which)) == 0);
	/* A v2 hierarchy mounted elsewhere, read-write. */
	CHECK(writable_of("50 40 0:40 /../.. /host/cg rw - cgroup2 none rw\n",
		  which, sizeof(which)) == 1);
	CHECK(writable_of("20 1 0:5 / / rw - ext4 sda rw\n"
			  "22 20 0:20 / /sys ro - sysfs sysfs rw\n"
			  "26 22 0:23 /../.. /sys/fs/cgroup ro,nosuid - "
			  "cgroup2 cgroup2 rw,nsdelegate\n"
			  "27 20 0:24 / /sys/fs/cgroupx rw - tmpfs tmpfs rw\n",
		  which, sizeof(which)) == 0);
	CHECK(writable_of("", which, sizeof(which)) == 0);
}

static void
check_same(const char *arg, const struct cgroup_dir *want)
{
	struct cgroup_dir got;
	char why[512];

	check_count++;
	if (cgroup_dir_resolve(arg, &got, why, sizeof(why)) != 0 ||
	    strcmp(got.path, want->path) != 0 ||
	    strcmp(got.name, want->name) != 0 || got.id != want->id ||
	    got.level != want->level) {
		check_failures++;
		fprintf(stderr, "'%s': not resolved as '%s' (%s)\n", arg,
		    want->path, why);
	}
}

static void
check_refused(const char *arg, const char *reason)
{
	struct cgroup_dir got;
	char why[512] = "";

	check_count++;
	if (cgroup_dir_resolve(arg, &got, why, sizeof(why)) == 0 ||
	    strstr(why, arg) == NULL || strstr(why, reason) == NULL) {
		check_failures++;
		fprintf(stderr, "'%s': '%s', expected it refused: %s\n", arg,
		    why, reason);
	}
}

/* Every spelling of one cgroup is the same cgroup; its id is its inode's. */
static void
test_resolve(void)
{
	char mnt[PATH_MAX], root[PATH_MAX], dir[PATH_MAX + 64], name[128];
	char sub[PATH_MAX + 128], spelled[PATH_MAX + 128];
	struct cgroup_dir top, cg;
	struct stat st;
	char why[512];
	FILE *f;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		SKIP("cannot read /proc/self/mountinfo");
	if (cgroup2_mount(f, mnt, sizeof(mnt), root, sizeof(root)) != 0)
		SKIP("no cgroup v2 hierarchy is mounted here");
	fclose(f);
	snprintf(name, sizeof(name), "cpctools-test-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", mnt, name);
	if (mkdir(dir, 0755) != 0)
		SKIP("cannot make a cgroup in %s (%s): making one needs root",
		    mnt, strerror(errno));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CHECK(mkdir(sub, 0755) == 0);
	CHECK(cgroup_dir_resolve(sub, &cg, why, sizeof(why)) == 0);
	CHECK(stat(sub, &st) == 0 && (uint64_t)st.st_ino == cg.id);
	snprintf(spelled, sizeof(spelled), "/%s/sub", name);
	if (strcmp(root, "/") == 0)
		CHECK(strcmp(cg.name, spelled) == 0 && cg.level == 2);
	check_same(spelled, &cg);
	check_same(spelled + 1, &cg);
	snprintf(spelled, sizeof(spelled), "%s/../%s/sub/", dir, name);
	check_same(spelled, &cg);
	CHECK(cgroup_dir_resolve("/", &top, why, sizeof(why)) == 0 &&
	    top.level == 0 && strcmp(top.path, mnt) == 0);
	check_refused("no-such-cgroup-here", "no such cgroup");
	check_refused("", "no such cgroup");
	snprintf(spelled, sizeof(spelled), "%s/cgroup.procs", name);
	check_refused(spelled, "not a cgroup v2 directory");
	check_refused("/proc/self/..", "no such cgroup");
	CHECK(rmdir(sub) == 0 && rmdir(dir) == 0);
}

/*
 * In a child: into the cgroup dir (PATH), a cgroup namespace of its own
 * rooted there, then "/" and the cgroup's own name as outside. Its exit
 * status: 0 as outside, 1 not, 77 where it could not be set up.
 */
static int
namespaced(const char *dir, const char *name)
{
	char procs[PATH_MAX + 32], why[512], own[PATH_MAX + 2];
	char mnt[PATH_MAX], root[PATH_MAX];
	struct cgroup_dir top, cg;
	FILE *f;
	int fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if ((fd = open(procs, O_WRONLY)) < 0 || write(fd, "0", 1) != 1 ||
	    close(fd) != 0 || unshare(CLONE_NEWCGROUP) != 0)
		return 77;
	/* The mount's root now lies above the namespace's. */
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL ||
	    cgroup2_mount(f, mnt, sizeof(mnt), root, sizeof(root)) != 0 ||
	    strncmp(root, "/..", 3) != 0)
		return 77;
	fclose(f);
	snprintf(own, sizeof(own), "/%s", name);
	if (cgroup_dir_resolve("/", &top, why, sizeof(why)) != 0 ||
	    strcmp(top.name, "/") != 0 || top.level != 0 ||
	    cgroup_dir_resolve(own, &cg, why, sizeof(why)) != 0 ||
	    strcmp(cg.name, own) != 0 || cg.level != 1) {
		fprintf(stderr, "in a cgroup namespace: '%s', '%s' (%s)\n",
		    top.name, cg.name, why);
		return 1;
	}
	return 0;
}

static void
test_namespace(void)
{
	char mnt[PATH_MAX], root[PATH_MAX], dir[PATH_MAX + 64], name[128];
	int status = 0;
	pid_t pid;
	FILE *f;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		SKIP("cannot read /proc/self/mountinfo");
	if (cgroup2_mount(f, mnt, sizeof(mnt), root, sizeof(root)) != 0)
		SKIP("no cgroup v2 hierarchy is mounted here");
	fclose(f);
	if (strcmp(root, "/") != 0) {
		printf("# the hierarchy is mounted from %s: the namespace "
		       "case needs its root\n",
		    root);
		return;
	}
	snprintf(name, sizeof(name), "cpctools-test-ns-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", mnt, name);
	if (mkdir(dir, 0755) != 0)
		SKIP("cannot make a cgroup in %s (%s): making one needs root",
		    mnt, strerror(errno));
	if ((pid = fork()) == 0)
		_exit(namespaced(dir, name));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		printf("# no cgroup namespace could be made here\n");
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(rmdir(dir) == 0);
}

/* The cgroup id of path as its file handle gives it: 0 where none. */
static uint64_t
handle_id(const char *path)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	uint64_t id = 0;
	int mount_id;

	h.fh.handle_bytes = sizeof(uint64_t);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(id))
		memcpy(&id, h.fh.f_handle, sizeof(id));
	return id;
}

/*
 * In a child: name_to_handle_at refused with ENOSYS, as containerd's
 * default seccomp profile refuses it; dir is still resolved, its id want.
 * Exit status 0 resolved, 1 not, 77 where no filter could be set.
 */
static int
without_handles(const char *dir, uint64_t want)
{
	struct sock_filter refuse[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, SYS_name_to_handle_at, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(refuse) / sizeof(refuse[0]), refuse };
	struct cgroup_dir cg;
	char why[512] = "";

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 77;
	if (handle_id(dir) != 0) {
		fprintf(stderr, "name_to_handle_at was not refused\n");
		return 1;
	}
	if (cgroup_dir_resolve(dir, &cg, why, sizeof(why)) != 0 ||
	    cg.id != want) {
		fprintf(stderr, "without file handles: '%s' (%s)\n", dir, why);
		return 1;
	}
	return 0;
}

/* The id is the file handle's, and stat(2) alone finds it. */
static void
test_no_handles(void)
{
	char mnt[PATH_MAX], root[PATH_MAX];
	struct cgroup_dir top;
	char why[512];
	int status = 0;
	uint64_t want;
	pid_t pid;
	FILE *f;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		SKIP("cannot read /proc/self/mountinfo");
	if (cgroup2_mount(f, mnt, sizeof(mnt), root, sizeof(root)) != 0)
		SKIP("no cgroup v2 hierarchy is mounted here");
	fclose(f);
	want = handle_id(mnt);
	CHECK(want != 0);
	CHECK(cgroup_dir_resolve(mnt, &top, why, sizeof(why)) == 0 &&
	    top.id == want);
	if ((pid = fork()) == 0)
		_exit(without_handles(mnt, want));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		printf("# no seccomp filter could be set here\n");
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

struct seen {
	char text[512];
	int fds_ok;
};

static void
note_dir(void *arg, int fd, const char *rel, unsigned level)
{
	struct seen *seen = arg;
	struct stat st;
	size_t len = strlen(seen->text);

	snprintf(
	    seen->text + len, sizeof(seen->text) - len, "%s:%u ", rel, level);
	seen->fds_ok += fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether the walk saw rel at level, and saw parent before it. */
static bool
seen_after(const struct seen *seen, const char *parent, const char *rel)
{
	const char *p = strstr(seen->text, parent);
	const char *r = strstr(seen->text, rel);

	return p != NULL && r != NULL && p < r;
}

static void
test_walk(void)
{
	char top[] = "/tmp/cpctools-walk-XXXXXX", path[PATH_MAX];
	const char *dirs[] = { "a", "a/b", "a/b/c", "a/b/c/d", "e" };
	struct seen seen = { "", 0 };
	size_t i;
	int fd;

	CHECK(mkdtemp(top) != NULL);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", top, dirs[i]);
		CHECK(mkdir(path, 0700) == 0);
	}
	snprintf(path, sizeof(path), "%s/a/link", top);
	CHECK(symlink("/", path) == 0);
	snprintf(path, sizeof(path), "%s/a/file", top);
	CHECK((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0);
	close(fd);
	CHECK((fd = open(top, O_RDONLY | O_DIRECTORY)) >= 0);
	cgroup_dir_walk(fd, 3, note_dir, &seen);
	printf("# walked: %s\n", seen.text);
	/* Three levels: a/b/c, not d; no link, no file; each dir open. */
	CHECK(strstr(seen.text, "a:1 ") != NULL &&
	    strstr(seen.text, "e:1 ") != NULL &&
	    strstr(seen.text, "a/b:2 ") != NULL &&
	    strstr(seen.text, "a/b/c:3 ") != NULL);
	CHECK(strstr(seen.text, "/d") == NULL &&
	    strstr(seen.text, "link") == NULL &&
	    strstr(seen.text, "file") == NULL);
	CHECK(seen_after(&seen, "a:1", "a/b:2") &&
	    seen_after(&seen, "a/b:2", "a/b/c:3"));
	CHECK(seen.fds_ok == 4);
	close(fd);
	CHECK(unlink(path) == 0);
	snprintf(path, sizeof(path), "%s/a/link", top);
	CHECK(unlink(path) == 0);
	for (i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", top, dirs[i]);
		CHECK(rmdir(path) == 0);
	}
	CHECK(rmdir(top) == 0);
}

int
main(void)
{
	test_walk();
	test_mountinfo();
	test_writable();
	test_resolve();
	test_namespace();
	test_no_handles();
	return check_report("test_cgroupdir");
}
