/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Programs kept loaded between runs of root's.
 *
 * The verifier is most of a run's start, and it checks the same programs
 * with the same settings at every run. A run of root's that counts no
 * cgroup (a command's, -p's, --tid's) leaves its programs and maps pinned in a
 * directory of root's in the BPF file system, named by a digest of all that the
 * verifier's work depends on: this build, the run's read-only data (its sets
 * and settings), the maps' shapes, the programs loaded and the running kernel.
 * The next run of that digest takes them, and loads nothing:
 *
 *   /sys/fs/bpf/cpctools/DIGEST-SLOT/m-MAP, p-PROGRAM
 *
 * (The BPF file system takes no '.' in a name: a map's, such as
 * ".rodata"'s, becomes '_' there.)
 *
 * A run takes an instance by renaming its directory to a name of its
 * own, so that two runs never share one; it checks each object against
 * what it would have loaded (types, shapes, the read-only data byte for
 * byte, each program's maps) and empties what a run leaves. A run gives
 * its own up only once it holds no descriptor of it. Pins live as long
 * as the kernel that loaded them: none survives a boot. KEEP_MAX
 * instances are kept at most, the least recently used going first.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <sha2.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "bpfeng_impl.h"
#include "bpfeng.skel.h"

#define KEEP_DIR	"/sys/fs/bpf/cpctools"
/* Instances kept in all, and of one digest (runs at once). */
#define KEEP_MAX	4
#define KEEP_SLOTS	2
/* A digest's first bytes, in hex, name its instances. */
#define KEEP_NAME_BYTES 16
/* Entries of a hash map that a taken instance may hold, to be emptied. */
#define KEEP_EMPTY_MAX	4096

/* A taken instance: its objects (a program not loaded: -1), and more. */
struct eng_kept {
	struct eng_loaded objects;
	int link_fd[ENG_MAX_OBJECTS]; /* each program's tracepoint's */
	void *bss;		      /* the global data, mapped */
	size_t bss_len;
};

bool
eng_keep_wanted(const struct bpfeng *eng)
{
	const char *env = getenv("CPCTOOLS_KEEP_PROGRAMS");

	if (env != NULL && strcmp(env, "0") == 0)
		return false;
	/*
	 * Not for a cgroup's runs (--cgroup, each cgroup apart): long runs,
	 * whose start matters least.
	 */
	return getuid() == 0 && geteuid() == 0 && eng->cgroups_max == 0 &&
	    !(eng->flags & BPFENG_BY_CGROUP);
}

static void
digest_bytes(SHA2_CTX *ctx, const void *p, size_t n)
{
	SHA256Update(ctx, p, n);
}

static void
digest_u64(SHA2_CTX *ctx, uint64_t v)
{
	digest_bytes(ctx, &v, sizeof(v));
}

static void
digest_str(SHA2_CTX *ctx, const char *s)
{
	digest_bytes(ctx, s, strlen(s) + 1);
}

/* The running program's build ID, from its GNU note, as found. */
struct build_id {
	const uint8_t *bytes;
	size_t len;
};

static bool
note_build_id(const uint8_t *p, size_t len, struct build_id *id)
{
	const ElfW(Nhdr) * n;
	size_t at = 0, name, desc;

	while (at + sizeof(*n) <= len) {
		n = (const ElfW(Nhdr) *)(p + at);
		name = (n->n_namesz + 3) & ~(size_t)3;
		desc = (n->n_descsz + 3) & ~(size_t)3;
		if (at + sizeof(*n) + name + n->n_descsz > len)
			return false;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(p + at + sizeof(*n), "GNU", 4) == 0) {
			id->bytes = p + at + sizeof(*n) + name;
			id->len = n->n_descsz;
			return true;
		}
		at += sizeof(*n) + name + desc;
	}
	return false;
}

/* The first object is the program itself. */
static int
program_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct build_id *id = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE &&
		    note_build_id((const uint8_t *)(info->dlpi_addr +
				      info->dlpi_phdr[i].p_vaddr),
			info->dlpi_phdr[i].p_memsz, id))
			break;
	return 1;
}

/*
 * The object's programs, as this build holds them: its build ID, which
 * names everything built into it, and which object; or, in a build
 * without one, the object's bytes (a millisecond's digest).
 */
static void
digest_object(SHA2_CTX *ctx, const struct bpfeng_bpf *skel)
{
	struct build_id id = { NULL, 0 };

	(void)dl_iterate_phdr(program_build_id, &id);
	if (id.len == 0) {
		digest_bytes(
		    ctx, skel->skeleton->data, skel->skeleton->data_sz);
		return;
	}
	digest_bytes(ctx, id.bytes, id.len);
	digest_u64(ctx, skel->skeleton->data_sz); /* full or plain */
}

/*
 * What the verifier's work depends on, as a directory's name: skel is
 * opened and configured, each program to load marked so, none loaded.
 */
static void
keep_name(const struct bpfeng_bpf *skel, char *name, size_t len)
{
	uint8_t sum[SHA256_DIGEST_LENGTH];
	struct bpf_program *prog;
	const struct bpf_map *map;
	struct utsname u;
	const void *data;
	SHA2_CTX ctx;
	size_t size, i, at = 0;

	SHA256Init(&ctx);
	digest_str(&ctx, "cpctools kept programs 1");
	digest_object(&ctx, skel);
	if (uname(&u) == 0) {
		digest_str(&ctx, u.release);
		digest_str(&ctx, u.version);
		digest_str(&ctx, u.machine);
	}
	bpf_object__for_each_map (map, skel->obj) {
		digest_str(&ctx, bpf_map__name(map));
		digest_u64(&ctx, bpf_map__type(map));
		digest_u64(&ctx, bpf_map__key_size(map));
		digest_u64(&ctx, bpf_map__value_size(map));
		digest_u64(&ctx, bpf_map__max_entries(map));
		digest_u64(&ctx, bpf_map__map_flags(map));
		data = bpf_map__initial_value((struct bpf_map *)map, &size);
		if (data != NULL)
			digest_bytes(&ctx, data, size);
	}
	bpf_object__for_each_program (prog, skel->obj) {
		digest_str(&ctx, bpf_program__name(prog));
		digest_u64(&ctx, bpf_program__autoload(prog));
	}
	SHA256Final(sum, &ctx);
	for (i = 0; i < KEEP_NAME_BYTES && at + 3 <= len; i++)
		at += (size_t)snprintf(name + at, len - at, "%02x", sum[i]);
}

/*
 * The directory of kept programs, root's alone, in the BPF file system;
 * made where make is true. -1 where there is none fit to use.
 */
static int
keep_dir(bool make)
{
	struct statfs fs;
	struct stat st;
	int fd;

	if (make && mkdir(KEEP_DIR, 0700) != 0 && errno != EEXIST)
		return -1;
	fd = open(KEEP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstatfs(fd, &fs) != 0 || fs.f_type != BPF_FS_MAGIC ||
	    fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 077) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Where instance dir of the directory open at dfd is, for the calls that
 * take a path: through the descriptor, never the directory's name again.
 */
static void
instance_path(char *buf, size_t len, int dfd, const char *dir)
{
	(void)snprintf(buf, len, "/proc/self/fd/%d/%s", dfd, dir);
}

/* A pin's path in the instance at where. */
static int
pin_path(char *buf, size_t len, const char *where, char kind, const char *name)
{
	int at = snprintf(buf, len, "%s/%c-", where, kind), n;
	char *c;

	if (at <= 0 || (size_t)at >= len)
		return -1;
	n = snprintf(buf + at, len - (size_t)at, "%s", name);
	if (n <= 0 || (size_t)(at + n) >= len)
		return -1;
	for (c = buf + at; *c != '\0'; c++)
		if (*c == '.')
			*c = '_';
	return 0;
}

/* dir and what is pinned in it, gone. */
static void
remove_instance(int dfd, const char *dir)
{
	struct dirent *e;
	DIR *d;
	int fd;

	fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				(void)unlinkat(fd, e->d_name, 0);
		closedir(d);
	} else if (fd >= 0)
		close(fd);
	(void)unlinkat(dfd, dir, AT_REMOVEDIR);
}

static void
kept_free(struct eng_kept *k)
{
	int i;

	if (k == NULL)
		return;
	for (i = 0; i < ENG_MAX_OBJECTS; i++) {
		if (k->link_fd[i] >= 0)
			close(k->link_fd[i]);
		if (k->objects.prog_fd[i] >= 0)
			close(k->objects.prog_fd[i]);
	}
	for (i = 0; i < k->objects.nmaps; i++)
		close(k->objects.map_fd[i]);
	if (k->bss != NULL)
		(void)munmap(k->bss, k->bss_len);
	free(k);
}

static struct eng_kept *
kept_new(void)
{
	struct eng_kept *k = calloc(1, sizeof(*k));
	int i;

	if (k == NULL)
		return NULL;
	for (i = 0; i < ENG_MAX_OBJECTS; i++)
		k->objects.prog_fd[i] = k->link_fd[i] = -1;
	return k;
}

/* map's pinned twin, if it is what this run would have made; its id. */
static int
take_map(const char *where, const struct bpf_map *map, uint32_t *id)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	char path[256];
	const void *want;
	void *have;
	size_t size;
	int fd, key = 0, ok;

	if (pin_path(path, sizeof(path), where, 'm', bpf_map__name(map)) != 0 ||
	    (fd = bpf_obj_get(path)) < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	ok = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	    info.type == bpf_map__type(map) &&
	    info.key_size == bpf_map__key_size(map) &&
	    info.value_size == bpf_map__value_size(map) &&
	    info.max_entries == bpf_map__max_entries(map) &&
	    info.map_flags == bpf_map__map_flags(map);
	/* The read-only data: the verifier took its values as constants. */
	want = bpf_map__initial_value((struct bpf_map *)map, &size);
	if (ok && want != NULL &&
	    (bpf_map__map_flags(map) & BPF_F_RDONLY_PROG)) {
		ok = (have = malloc(size)) != NULL &&
		    bpf_map_lookup_elem(fd, &key, have) == 0 &&
		    memcmp(have, want, size) == 0;
		free(have);
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	*id = info.id;
	return fd;
}

static bool
among(uint32_t id, const uint32_t *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* prog's pinned twin: a raw tracepoint program of this name, of these maps. */
static int
take_program(const char *where, const struct bpf_program *prog,
    const uint32_t *map_ids, int nmaps)
{
	uint32_t used[ENG_MAX_OBJECTS];
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), i;
	char path[256];
	int fd;
	bool ok;

	if (pin_path(path, sizeof(path), where, 'p', bpf_program__name(prog)) !=
		0 ||
	    (fd = bpf_obj_get(path)) < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = ENG_MAX_OBJECTS;
	info.map_ids = (uint64_t)(uintptr_t)used;
	ok = bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
	    info.type == BPF_PROG_TYPE_RAW_TRACEPOINT &&
	    info.nr_map_ids <= ENG_MAX_OBJECTS &&
	    strncmp(
		info.name, bpf_program__name(prog), sizeof(info.name) - 1) == 0;
	for (i = 0; ok && i < info.nr_map_ids; i++)
		ok = among(used[i], map_ids, nmaps);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Entries of a hash map, deleted; false where more than max were. */
static bool
empty_hash(int fd, uint32_t key_size, int max)
{
	uint8_t key[16];
	int n = 0;

	if (key_size > sizeof(key))
		return false;
	while (bpf_map_get_next_key(fd, NULL, key) == 0) {
		if (n++ == max || bpf_map_delete_elem(fd, key) != 0)
			return false;
	}
	return errno == ENOENT;
}

/* The ring's records, all read: its reader's place moved to its writer's. */
static bool
empty_ring(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned long *reader, *writer;
	bool ok = false;

	reader =
	    mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (reader == MAP_FAILED)
		return false;
	writer = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, page);
	if (writer != MAP_FAILED) {
		*reader = *writer;
		ok = true;
		(void)munmap((void *)writer, (size_t)page);
	}
	(void)munmap((void *)reader, (size_t)page);
	return ok;
}

/* A per-CPU array's values, zeroed. */
static bool
zero_percpu(int fd, const struct bpf_map *map, int ncpus)
{
	size_t each = (bpf_map__value_size(map) + 7) & ~(size_t)7;
	uint32_t key;
	void *zero;
	bool ok = true;

	if ((zero = calloc((size_t)ncpus, each)) == NULL)
		return false;
	for (key = 0; ok && key < bpf_map__max_entries(map); key++)
		ok = bpf_map_update_elem(fd, &key, zero, 0) == 0;
	free(zero);
	return ok;
}

/*
 * What a run leaves in map, gone. The counters' array needs nothing: the
 * kernel drops a counter from it when the descriptor it came through is
 * closed, which the run that put it there did before it gave the
 * instance up (eng_keep_publish).
 */
static bool
empty_map(const struct bpfeng *eng, const struct bpf_map *map, int fd)
{
	switch (bpf_map__type(map)) {
	case BPF_MAP_TYPE_HASH:
		return empty_hash(fd, bpf_map__key_size(map), KEEP_EMPTY_MAX);
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return zero_percpu(fd, map, eng->ncpus);
	case BPF_MAP_TYPE_RINGBUF:
		return empty_ring(fd);
	default:
		return true;
	}
}

/* The global data, mapped, as it was before any run: zero. */
static bool
map_bss(struct eng_kept *k, const struct bpf_map *map, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	const void *initial;
	size_t size;

	initial = bpf_map__initial_value((struct bpf_map *)map, &size);
	if (initial == NULL || size != bpf_map__value_size(map))
		return false;
	k->bss_len = (size + (size_t)page - 1) & ~((size_t)page - 1);
	k->bss =
	    mmap(NULL, k->bss_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (k->bss == MAP_FAILED) {
		k->bss = NULL;
		return false;
	}
	memcpy(k->bss, initial, size);
	return true;
}

/* The instance in dir, checked and emptied: its maps, then its programs. */
static bool
take_instance(struct bpfeng *eng, const struct bpfeng_bpf *skel,
    const char *where, struct eng_kept *k)
{
	struct eng_loaded *o = &k->objects;
	uint32_t ids[ENG_MAX_OBJECTS];
	struct bpf_program *prog;
	const struct bpf_map *map;
	int fd;

	bpf_object__for_each_map (map, skel->obj) {
		if (o->nmaps == ENG_MAX_OBJECTS ||
		    (fd = take_map(where, map, &ids[o->nmaps])) < 0)
			return false;
		o->map_fd[o->nmaps++] = fd;
		if (!empty_map(eng, map, fd))
			return false;
		if (map == skel->maps.bss && !map_bss(k, map, fd))
			return false;
	}
	bpf_object__for_each_program (prog, skel->obj) {
		if (o->nprogs == ENG_MAX_OBJECTS)
			return false;
		if (bpf_program__autoload(prog) &&
		    (o->prog_fd[o->nprogs] =
			    take_program(where, prog, ids, o->nmaps)) < 0)
			return false;
		o->nprogs++;
	}
	return k->bss != NULL;
}

int
eng_keep_take(struct bpfeng *eng, const struct bpfeng_bpf *skel)
{
	char slot[64], mine[64], where[128];
	struct eng_kept *k;
	int dfd, s;
	bool taken = false;

	keep_name(skel, eng->keep_name, sizeof(eng->keep_name));
	if ((dfd = keep_dir(false)) < 0)
		return -1;
	(void)snprintf(mine, sizeof(mine), "taken-%ld", (long)getpid());
	for (s = 0; s < KEEP_SLOTS && !taken; s++) {
		(void)snprintf(slot, sizeof(slot), "%s-%d", eng->keep_name, s);
		taken = renameat(dfd, slot, dfd, mine) == 0;
	}
	if (!taken || (k = kept_new()) == NULL) {
		close(dfd);
		return -1;
	}
	instance_path(where, sizeof(where), dfd, mine);
	if (!take_instance(eng, skel, where, k)) {
		kept_free(k);
		k = NULL;
	}
	remove_instance(dfd, mine);
	close(dfd);
	eng->kept = k;
	return k != NULL ? 0 : -1;
}

int
eng_keep_map_fd(const struct bpfeng *eng, int i)
{
	const struct eng_loaded *o = &eng->kept->objects;

	return i < o->nmaps ? o->map_fd[i] : -1;
}

int
eng_keep_program_fd(const struct bpfeng *eng, int i)
{
	const struct eng_loaded *o = &eng->kept->objects;

	return i < o->nprogs ? o->prog_fd[i] : -1;
}

bool
eng_keep_attached(const struct bpfeng *eng, int i)
{
	return i < eng->kept->objects.nprogs && eng->kept->link_fd[i] >= 0;
}

void *
eng_keep_bss(const struct bpfeng *eng)
{
	return eng->kept->bss;
}

/* Each program of a named tracepoint ("raw_tp/NAME") attached to it. */
int
eng_keep_attach(struct bpfeng *eng, const struct bpfeng_bpf *skel)
{
	static const char prefix[] = "raw_tp/";
	struct bpf_program *prog;
	struct eng_kept *k = eng->kept;
	const char *sec;
	int i = 0;

	bpf_object__for_each_program (prog, skel->obj) {
		sec = bpf_program__section_name(prog);
		if (i < k->objects.nprogs && k->objects.prog_fd[i] >= 0 &&
		    bpf_program__autoattach(prog) &&
		    strncmp(sec, prefix, sizeof(prefix) - 1) == 0 &&
		    (k->link_fd[i] = bpf_raw_tracepoint_open(
			 sec + sizeof(prefix) - 1, k->objects.prog_fd[i])) < 0)
			return -1;
		i++;
	}
	return 0;
}

void
eng_keep_detach(struct bpfeng *eng)
{
	int i;

	for (i = 0; i < ENG_MAX_OBJECTS; i++) {
		if (eng->kept->link_fd[i] >= 0)
			close(eng->kept->link_fd[i]);
		eng->kept->link_fd[i] = -1;
	}
}

/* The run that holds an instance (taken-PID, made-PID); 0: none does. */
static pid_t
holder(const char *name)
{
	if (strncmp(name, "taken-", 6) == 0)
		return (pid_t)atol(name + 6);
	if (strncmp(name, "made-", 5) == 0)
		return (pid_t)atol(name + 5);
	return 0;
}

/* An instance of another's left behind by a run that is gone. */
static bool
abandoned(const char *name)
{
	pid_t pid = holder(name);

	return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/*
 * Room for one more: what runs that died left half made or half taken
 * goes, and while KEEP_MAX are kept, the one used longest ago.
 */
static void
make_room(int dfd)
{
	char oldest[256] = "";
	struct timespec when = { 0, 0 };
	struct dirent *e;
	struct stat st;
	int n = 0, fd;
	DIR *d;

	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (abandoned(e->d_name)) {
			remove_instance(dfd, e->d_name);
			continue;
		}
		if (holder(e->d_name) != 0 ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		n++;
		if (oldest[0] == '\0' || st.st_mtim.tv_sec < when.tv_sec ||
		    (st.st_mtim.tv_sec == when.tv_sec &&
			st.st_mtim.tv_nsec < when.tv_nsec)) {
			when = st.st_mtim;
			(void)snprintf(oldest, sizeof(oldest), "%s", e->d_name);
		}
	}
	closedir(d);
	if (n >= KEEP_MAX)
		remove_instance(dfd, oldest);
}

/* The maps, then the programs loaded (-1: not loaded), at where. */
static bool
pin_all(const struct bpfeng_bpf *skel, const struct eng_loaded *loaded,
    const char *where)
{
	struct bpf_program *prog;
	const struct bpf_map *map;
	char path[256];
	int i = 0;

	bpf_object__for_each_map (map, skel->obj) {
		if (i >= loaded->nmaps || loaded->map_fd[i] < 0 ||
		    pin_path(path, sizeof(path), where, 'm',
			bpf_map__name(map)) != 0 ||
		    bpf_obj_pin(loaded->map_fd[i++], path) != 0)
			return false;
	}
	i = 0;
	bpf_object__for_each_program (prog, skel->obj) {
		if (i >= loaded->nprogs)
			return false;
		if (loaded->prog_fd[i] >= 0 &&
		    (pin_path(path, sizeof(path), where, 'p',
			 bpf_program__name(prog)) != 0 ||
			bpf_obj_pin(loaded->prog_fd[i], path) != 0))
			return false;
		i++;
	}
	return true;
}

/*
 * The run's programs and maps pinned in a directory of its own, for
 * eng_keep_publish to give to the next run once this one holds none of
 * them; then this run's hold on what it took, let go.
 */
void
eng_keep_leave(struct bpfeng *eng, const struct eng_loaded *loaded)
{
	char made[64], where[128];
	int dfd;

	if (eng->keep_after && (dfd = keep_dir(true)) >= 0) {
		make_room(dfd);
		(void)snprintf(made, sizeof(made), "made-%ld", (long)getpid());
		instance_path(where, sizeof(where), dfd, made);
		if (mkdirat(dfd, made, 0700) == 0 &&
		    pin_all(eng->skel, loaded, where))
			eng->keep_dfd = dfd;
		else {
			remove_instance(dfd, made);
			close(dfd);
		}
	}
	kept_free(eng->kept);
	eng->kept = NULL;
}

/*
 * What eng_keep_leave pinned, in a slot of its digest where one is free.
 * Only now: a counter in the counters' array stays there until the
 * descriptor it came through is closed, and a run that took the instance
 * before would find it.
 */
void
eng_keep_publish(struct bpfeng *eng)
{
	char made[64], slot[64];
	bool kept = false;
	int s;

	if (eng->keep_dfd < 0)
		return;
	(void)snprintf(made, sizeof(made), "made-%ld", (long)getpid());
	for (s = 0; s < KEEP_SLOTS && !kept; s++) {
		(void)snprintf(slot, sizeof(slot), "%s-%d", eng->keep_name, s);
		kept = renameat(eng->keep_dfd, made, eng->keep_dfd, slot) == 0;
	}
	if (!kept)
		remove_instance(eng->keep_dfd, made);
	close(eng->keep_dfd);
	eng->keep_dfd = -1;
}
