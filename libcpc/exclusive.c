/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exclusivity between CPU-bound and per-LWP counting, as on Solaris.
 *
 * CPC_LOCK_DIR holds, for all users:
 *   cpuN.lock   held (flock, exclusive) by the one CPU binding of CPU N;
 *   any.lock    held shared by every process with a CPU binding;
 *   generation  a counter each new CPU binder increments, mapped shared.
 * A per-LWP bind fails with EAGAIN while any.lock is held. A per-LWP set
 * is invalid once the generation moves past the value seen at its bind.
 * flock(2) locks die with their holder, so a killed cpustat leaves
 * nothing locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

volatile uint64_t *cpclib_generation_page;

static int
open_lock_file(const char *name, bool create)
{
	char path[256];
	int fd;

	if (create && mkdir(CPC_LOCK_DIR, 01777) == 0)
		(void)chmod(CPC_LOCK_DIR, 01777);
	snprintf(path, sizeof(path), "%s/%s", CPC_LOCK_DIR, name);
	fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
	if (fd >= 0 && create)
		(void)fchmod(fd, 0666);
	return fd;
}

static volatile uint64_t *
try_map_generation(void)
{
	volatile uint64_t *page;
	int fd;

	if ((fd = open_lock_file("generation", true)) < 0)
		return NULL;
	if (ftruncate(fd, sizeof(uint64_t)) != 0) {
		close(fd);
		return NULL;
	}
	page = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	close(fd);
	return page != MAP_FAILED ? page : NULL;
}

/*
 * Map the generation counter, creating the files where we may. A failed
 * attempt is retried at most once a second, because the per-tick path
 * asks for the generation. One thread maps it while the others wait: a
 * thread that went on without it would take 0 for the generation, and
 * see its sets invalidated once the page is there.
 */
static volatile uint64_t *
map_generation(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct timespec last_failure;
	volatile uint64_t *page;
	struct timespec now;

	if ((page = cpclib_generation_page) != NULL)
		return page;
	pthread_mutex_lock(&lock);
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if ((page = cpclib_generation_page) == NULL &&
	    (last_failure.tv_sec == 0 || now.tv_sec - last_failure.tv_sec >= 1)) {
		if ((page = try_map_generation()) != NULL)
			__atomic_store_n(&cpclib_generation_page, page,
			    __ATOMIC_RELEASE);
		else
			last_failure = now;
	}
	pthread_mutex_unlock(&lock);
	return page;
}

/* The generation when it is not mapped yet: see cpc_impl.h. */
uint64_t
cpclib_excl_generation_slow(void)
{
	volatile uint64_t *gen = map_generation();

	return gen != NULL ? __atomic_load_n(gen, __ATOMIC_ACQUIRE) : 0;
}

/*
 * 0 when no CPU binding exists anywhere, else -1 with EAGAIN. A new CPU
 * binder always moves the generation, so while it stands still the last
 * answer holds and no lock needs probing.
 */
int
cpclib_excl_lwp_allowed(cpc_t *cpc)
{
	uint64_t gen = cpclib_excl_generation();
	int fd, busy;

	if (cpc->excl_ok && gen == cpc->excl_ok_gen &&
	    cpclib_generation_page != NULL)
		return 0;
	if ((fd = open_lock_file("any.lock", false)) < 0) {
		busy = 0;
	} else {
		busy = flock(fd, LOCK_EX | LOCK_NB) != 0 &&
		    errno == EWOULDBLOCK;
		close(fd);
	}
	cpc->excl_ok = !busy;
	cpc->excl_ok_gen = gen;
	if (busy) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

/*
 * CPU locks this process holds. Sets of one handle on one CPU share a
 * lock, so that a command rotating its sets never lets the CPU go. The
 * commands bind CPUs from several threads at once, hence the mutex.
 */
struct cpu_hold {
	cpc_t	*cpc;
	int	 cpu;
	int	 fd;
	int	 refs;
};

static struct cpu_hold *holds;
static size_t nholds;
static pthread_mutex_t holds_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cpu_hold *
hold_find(cpc_t *cpc, int cpu, int fd)
{
	size_t i;

	for (i = 0; i < nholds; i++)
		if (holds[i].cpc == cpc && holds[i].refs > 0 &&
		    (fd >= 0 ? holds[i].fd == fd : holds[i].cpu == cpu))
			return &holds[i];
	return NULL;
}

static struct cpu_hold *
hold_new(void)
{
	struct cpu_hold *grown;
	size_t i;

	for (i = 0; i < nholds; i++)
		if (holds[i].refs == 0)
			return &holds[i];
	if ((grown = reallocarray(holds, nholds + 1, sizeof(*holds))) == NULL)
		return NULL;
	holds = grown;
	return &holds[nholds++];
}

/* The first CPU lock of a handle also takes any.lock and moves the
 * generation, which invalidates every per-LWP set in the system. */
static int
first_cpu_lock(cpc_t *cpc)
{
	volatile uint64_t *gen;

	if (cpc->any_cpu_fd < 0)
		cpc->any_cpu_fd = open_lock_file("any.lock", true);
	if (cpc->any_cpu_fd < 0 || flock(cpc->any_cpu_fd, LOCK_SH) != 0)
		return -1;
	if ((gen = map_generation()) != NULL)
		__atomic_add_fetch(gen, 1, __ATOMIC_RELEASE);
	return 0;
}

static int
take_cpu_lock(cpc_t *cpc, int cpu, int *lockfd)
{
	struct cpu_hold *h;
	char name[32];
	int fd;

	if ((h = hold_find(cpc, cpu, -1)) != NULL) {
		h->refs++;
		*lockfd = h->fd;
		return 0;
	}
	snprintf(name, sizeof(name), "cpu%d.lock", cpu);
	if ((fd = open_lock_file(name, true)) < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			errno = EAGAIN;
		close(fd);
		return -1;
	}
	if ((cpc->cpu_sets == 0 && first_cpu_lock(cpc) != 0) ||
	    (h = hold_new()) == NULL) {
		close(fd);
		return -1;
	}
	*h = (struct cpu_hold){ cpc, cpu, fd, 1 };
	cpc->cpu_sets++;
	*lockfd = fd;
	return 0;
}

int
cpclib_excl_cpu_acquire(cpc_t *cpc, int cpu, int *lockfd)
{
	int ret;

	pthread_mutex_lock(&holds_lock);
	ret = take_cpu_lock(cpc, cpu, lockfd);
	pthread_mutex_unlock(&holds_lock);
	return ret;
}

void
cpclib_excl_cpu_release(cpc_t *cpc, int lockfd)
{
	struct cpu_hold *h;

	pthread_mutex_lock(&holds_lock);
	if ((h = hold_find(cpc, -1, lockfd)) != NULL && --h->refs == 0) {
		/*
		 * Unlock before closing: a child forked meanwhile shares
		 * the open file, and close alone would leave it locked for
		 * as long as that child lives.
		 */
		(void)flock(h->fd, LOCK_UN);
		close(h->fd);
		if (--cpc->cpu_sets == 0 && cpc->any_cpu_fd >= 0)
			(void)flock(cpc->any_cpu_fd, LOCK_UN);
	}
	pthread_mutex_unlock(&holds_lock);
}
