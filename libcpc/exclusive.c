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
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

static volatile uint64_t *generation_page;

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

/*
 * Map the generation counter, creating the files where we may. A failed
 * attempt is retried at most once a second, because the per-tick path
 * asks for the generation.
 */
static volatile uint64_t *
map_generation(void)
{
	static struct timespec last_try;
	volatile uint64_t *page;
	struct timespec now;
	int fd;

	if (generation_page != NULL)
		return generation_page;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (last_try.tv_sec != 0 && now.tv_sec - last_try.tv_sec < 1)
		return NULL;
	last_try = now;
	if ((fd = open_lock_file("generation", true)) < 0)
		return NULL;
	if (ftruncate(fd, sizeof(uint64_t)) != 0) {
		close(fd);
		return NULL;
	}
	page = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED)
		return NULL;
	generation_page = page;
	return page;
}

uint64_t
cpc_excl_generation(void)
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
cpc_excl_lwp_allowed(cpc_t *cpc)
{
	uint64_t gen = cpc_excl_generation();
	int fd, busy;

	if (cpc->excl_ok && gen == cpc->excl_ok_gen && generation_page != NULL)
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

int
cpc_excl_cpu_acquire(cpc_t *cpc, int cpu, int *lockfd)
{
	volatile uint64_t *gen;
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "cpu%d.lock", cpu);
	if ((fd = open_lock_file(name, true)) < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			errno = EAGAIN;
		close(fd);
		return -1;
	}
	if (cpc->cpu_sets == 0) {
		if (cpc->any_cpu_fd < 0)
			cpc->any_cpu_fd = open_lock_file("any.lock", true);
		if (cpc->any_cpu_fd < 0 ||
		    flock(cpc->any_cpu_fd, LOCK_SH) != 0) {
			close(fd);
			return -1;
		}
		if ((gen = map_generation()) != NULL)
			__atomic_add_fetch(gen, 1, __ATOMIC_RELEASE);
	}
	cpc->cpu_sets++;
	*lockfd = fd;
	return 0;
}

void
cpc_excl_cpu_release(cpc_t *cpc, int lockfd)
{
	close(lockfd);
	if (--cpc->cpu_sets == 0 && cpc->any_cpu_fd >= 0)
		(void)flock(cpc->any_cpu_fd, LOCK_UN);
}
