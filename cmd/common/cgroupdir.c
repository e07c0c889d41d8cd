/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --cgroup's directory. Systems mount the unified hierarchy in different
 * places (/sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1
 * controllers), so the mount comes from mountinfo; the kernel knows a
 * cgroup by its id, its directory's inode number, and by its depth.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroupdir.h"

/* The id of a cgroup v2 hierarchy's root directory. */
#define CGROUP_ROOT_ID 1

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* mountinfo writes space, tab, newline and backslash as \ooo. */
static void
unescape(char *s)
{
	char *out = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*out++ = *s;
	}
	*out = '\0';
}

struct mount_fields {
	char *root, *mnt, *opts, *type;
};

/*
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ...":
 * the optional fields end at a lone "-".
 */
static int
mount_line(char *line, struct mount_fields *m)
{
	char *field, *save = NULL;
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0;
	     (field = strtok_r(i == 0 ? line : NULL, " \n", &save)) != NULL;
	     i++) {
		if (i == 3)
			m->root = field;
		else if (i == 4)
			m->mnt = field;
		else if (i == 5)
			m->opts = field;
		else if (i > 5 && strcmp(field, "-") == 0) {
			m->type = strtok_r(NULL, " \n", &save);
			break;
		}
	}
	return m->root != NULL && m->mnt != NULL && m->type != NULL ? 0 : -1;
}

int
cgroup2_mount(
    FILE *mountinfo, char *mnt, size_t mntlen, char *root, size_t rootlen)
{
	struct mount_fields m;
	char *line = NULL;
	size_t room = 0;
	int found = -1;

	while (found != 0 && getline(&line, &room, mountinfo) > 0) {
		if (mount_line(line, &m) != 0 || strcmp(m.type, "cgroup2") != 0)
			continue;
		unescape(m.root);
		unescape(m.mnt);
		if (strlen(m.mnt) < mntlen && strlen(m.root) < rootlen) {
			strcpy(mnt, m.mnt);
			strcpy(root, m.root);
			found = 0;
		}
	}
	free(line);
	return found;
}

/* A mount's own options begin with "rw" or "ro", as statvfs's ST_RDONLY. */
static bool
mount_writable(const struct mount_fields *m)
{
	return strncmp(m->opts, "ro", 2) != 0 ||
	    (m->opts[2] != ',' && m->opts[2] != '\0');
}

/*
 * A cgroup hierarchy, v1 or v2. The tmpfs that holds v1's mount points
 * has no cgroup file: a container's own is read-write under podman.
 */
static bool
is_cgroup_mount(const struct mount_fields *m)
{
	return strcmp(m->type, "cgroup") == 0 ||
	    strcmp(m->type, "cgroup2") == 0;
}

int
cgroup_writable_mount(FILE *mountinfo, char *which, size_t len)
{
	struct mount_fields m;
	char *line = NULL;
	size_t room = 0;
	int found = 0;

	while (found == 0 && getline(&line, &room, mountinfo) > 0) {
		if (mount_line(line, &m) != 0 || !is_cgroup_mount(&m) ||
		    !mount_writable(&m))
			continue;
		unescape(m.mnt);
		snprintf(which, len, "%s (%s)", m.mnt, m.type);
		found = 1;
	}
	free(line);
	return found;
}

/* path is dir or below it. */
static const char *
below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path;
	if (strncmp(path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

/* Where arg names a directory, before symbolic links are resolved. */
static int
spelled_path(const char *arg, const char *mnt, char *path, size_t len)
{
	int n;

	if (arg[0] == '/' && below(arg, mnt) != NULL)
		n = snprintf(path, len, "%s", arg);
	else
		n = snprintf(path, len, "%s%s%s",
		    strcmp(mnt, "/") == 0 ? "" : mnt, arg[0] == '/' ? "" : "/",
		    arg);
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

static int
depth(const char *name)
{
	int level = 0;

	for (; *name != '\0'; name++)
		if (name[0] == '/' && name[1] != '/' && name[1] != '\0')
			level++;
	return level;
}

/* The name in the hierarchy: the mount's root, then what is below it. */
static int
hierarchy_name(struct cgroup_dir *cg, const char *root, const char *rest)
{
	int n;

	if (strcmp(root, "/") == 0)
		root = "";
	n = snprintf(cg->name, sizeof(cg->name), "%s%s", root, rest);
	if (n < 0 || (size_t)n >= sizeof(cg->name))
		return -1;
	if (cg->name[0] == '\0')
		strcpy(cg->name, "/");
	cg->level = depth(cg->name);
	return 0;
}

/*
 * In a cgroup namespace, a mount of a directory above the namespace's
 * root (the host's hierarchy given to a container, as a node agent's
 * hostPath) shows its root as "/.." steps, which name nothing. Where it
 * is the hierarchy's own root, whose id is always 1, its cgroups are
 * named as outside the namespace, from "/".
 */
static bool
hierarchy_top(const char *root, const char *mnt)
{
	uint64_t id;

	return strncmp(root, "/..", 3) == 0 &&
	    cgroup_id_at(AT_FDCWD, mnt, &id) == 0 && id == CGROUP_ROOT_ID;
}

/*
 * On cgroup2 a directory's inode number is its cgroup's id (kernfs gives
 * each node one 64-bit id, Linux 5.5 and later on 64-bit machines), the
 * id that name_to_handle_at(2) also gives; stat(2) is what every
 * container runtime's default seccomp profile lets through, where
 * containerd's refuses name_to_handle_at.
 */
int
cgroup_id_at(int dirfd, const char *name, uint64_t *id)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	*id = (uint64_t)st.st_ino;
	return 0;
}

int
cgroup_dir_resolve(
    const char *arg, struct cgroup_dir *cg, char *why, size_t whylen)
{
	char mnt[PATH_MAX], root[PATH_MAX], spelled[PATH_MAX];
	const char *rest;
	struct statfs fs;
	struct stat st;
	FILE *f;
	int found;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL) {
		snprintf(why, whylen,
		    "'%s': cannot read /proc/self/mountinfo - %s", arg,
		    strerror(errno));
		return -1;
	}
	found = cgroup2_mount(f, mnt, sizeof(mnt), root, sizeof(root));
	fclose(f);
	if (found != 0) {
		snprintf(why, whylen, "'%s': no cgroup v2 hierarchy is mounted",
		    arg);
		return -1;
	}
	if (arg[0] == '\0' ||
	    spelled_path(arg, mnt, spelled, sizeof(spelled)) != 0 ||
	    realpath(spelled, cg->path) == NULL) {
		snprintf(
		    why, whylen, "'%s': no such cgroup under %s", arg, mnt);
		return -1;
	}
	if ((rest = below(cg->path, mnt)) == NULL ||
	    statfs(cg->path, &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC ||
	    stat(cg->path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen,
		    "'%s': not a cgroup v2 directory (the hierarchy "
		    "is mounted on %s)",
		    arg, mnt);
		return -1;
	}
	if (hierarchy_top(root, mnt))
		strcpy(root, "/");
	if (hierarchy_name(cg, root, rest) != 0 ||
	    cgroup_id_at(AT_FDCWD, cg->path, &cg->id) != 0) {
		snprintf(why, whylen, "'%s': cannot tell its id - %s", arg,
		    strerror(errno));
		return -1;
	}
	return 0;
}

struct cgroup_walk {
	cgroup_visit_fn *visit;
	void *arg;
	unsigned depth;
	char rel[PATH_MAX];
};

static bool
is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* The children of the directory open at fd, whose path is w->rel's len. */
static void
walk_below(struct cgroup_walk *w, int fd, size_t len, unsigned level)
{
	struct dirent *d;
	DIR *dir;
	int child, n;

	/*
	 * fcntl, not dup: a container's seccomp profile may allow only the
	 * one (dist/kubernetes/seccomp/cpctools-node.json).
	 */
	if (level >= w->depth || (fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		if (d->d_type != DT_DIR || is_dot(d->d_name))
			continue;
		n = snprintf(w->rel + len, sizeof(w->rel) - len, "%s%s",
		    len > 0 ? "/" : "", d->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->rel) - len)
			continue;
		child = openat(dirfd(dir), d->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0)
			continue;
		w->visit(w->arg, child, w->rel, level + 1);
		walk_below(w, child, len + (size_t)n, level + 1);
		close(child);
	}
	w->rel[len] = '\0';
	closedir(dir);
}

void
cgroup_dir_walk(int topfd, unsigned depth, cgroup_visit_fn *visit, void *arg)
{
	struct cgroup_walk *w;

	/* PATH_MAX on the heap: a walk may run on a small thread's stack. */
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return;
	w->visit = visit;
	w->arg = arg;
	w->depth = depth;
	walk_below(w, topfd, 0, 0);
	free(w);
}
