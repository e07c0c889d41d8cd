/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpc_bind_cpu on every online CPU the test may run on: the binder is
 * pinned to that CPU while bound and gets its affinity back at unbind,
 * only the binder may sample, and a CPU-wide task-clock counts the wall
 * time the CPU's counters were enabled (measured on 6.18: it tracks
 * CLOCK_MONOTONIC to within microseconds, idle time included). An
 * offline CPU gives ENOSYS, a CPU that does not exist EINVAL.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>

#include "test_cpc.h"

#define SLEEP_MS 50
/* Slack between the kernel's clock and CLOCK_MONOTONIC readings. */
#define SLACK_NS 2000000.0

struct cpu_job {
	cpc_t *cpc;
	cpc_set_t *set;
	int cpu;
	int bound; /* 1 bound, -1 failed, 0 not yet */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool sampled_elsewhere;
};

static bool
online_cpu(int cpu)
{
	char path[96];
	FILE *f;
	int online = 1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	if (access(path, F_OK) != 0)
		return false;
	snprintf(
	    path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%d", &online) != 1)
			online = 1;
		fclose(f);
	}
	return online == 1;
}

static bool
same_mask(const cpu_set_t *a, const cpu_set_t *b)
{
	return CPU_EQUAL(a, b);
}

static uint64_t
get(cpc_t *cpc, cpc_buf_t *buf, int index)
{
	uint64_t v = 0;

	cpc_buf_get(cpc, buf, index, &v);
	return v;
}

static void
job_set_bound(struct cpu_job *job, int state)
{
	pthread_mutex_lock(&job->lock);
	job->bound = state;
	pthread_cond_broadcast(&job->cond);
	while (state == 1 && !job->sampled_elsewhere)
		pthread_cond_wait(&job->cond, &job->lock);
	pthread_mutex_unlock(&job->lock);
}

/* Bound: task-clock over a sleep is the wall time between the reads. */
static void
measure_bound(struct cpu_job *job)
{
	cpc_t *cpc = job->cpc;
	cpc_buf_t *a = cpc_buf_create(cpc, job->set);
	cpc_buf_t *b = cpc_buf_create(cpc, job->set);
	double t0, t1, t2, t3, got;

	t0 = now_seconds();
	CHECK(cpc_set_sample(cpc, job->set, a) == 0);
	t1 = now_seconds();
	sleep_ms(SLEEP_MS); /* not a wait: the span the count covers */
	t2 = now_seconds();
	CHECK(cpc_set_sample(cpc, job->set, b) == 0);
	t3 = now_seconds();
	got = (double)(get(cpc, b, 1) - get(cpc, a, 1));
	CHECK(got >= (t2 - t1) * 1e9 - SLACK_NS);
	CHECK(got <= (t3 - t0) * 1e9 + SLACK_NS);
	CHECK(got >= SLEEP_MS * 1e6 - SLACK_NS);
	printf("cpu%d: task-clock %.3f ms over a %.3f..%.3f ms window, "
	       "%llu context switches\n",
	    job->cpu, got / 1e6, (t2 - t1) * 1e3, (t3 - t0) * 1e3,
	    (unsigned long long)(get(cpc, b, 0) - get(cpc, a, 0)));
	/* This thread slept there and woke there: at least two switches. */
	CHECK(get(cpc, b, 0) - get(cpc, a, 0) >= 2);
	CHECK(cpc_buf_hrtime(cpc, b) > cpc_buf_hrtime(cpc, a));
	cpc_buf_destroy(cpc, a);
	cpc_buf_destroy(cpc, b);
}

static void *
cpu_binder(void *arg)
{
	struct cpu_job *job = arg;
	cpu_set_t before, during, after, only;

	CHECK(sched_getaffinity(0, sizeof(before), &before) == 0);
	if (cpc_bind_cpu(job->cpc, job->cpu, job->set, 0) != 0) {
		fprintf(stderr, "cpc_bind_cpu(%d): %s\n", job->cpu,
		    strerror(errno));
		CHECK(!"cpc_bind_cpu on an online CPU");
		job_set_bound(job, -1);
		return NULL;
	}
	CHECK(sched_getaffinity(0, sizeof(during), &during) == 0);
	CPU_ZERO(&only);
	CPU_SET(job->cpu, &only);
	CHECK(same_mask(&during, &only));
	CHECK(sched_getcpu() == job->cpu);
	measure_bound(job);
	job_set_bound(job, 1);
	CHECK(cpc_unbind(job->cpc, job->set) == 0);
	CHECK(sched_getaffinity(0, sizeof(after), &after) == 0);
	CHECK(same_mask(&after, &before));
	return NULL;
}

/* Bind from a thread; while it holds the CPU, sample from this one. */
static void
bind_one_cpu(cpc_t *cpc, cpc_set_t *set, int cpu)
{
	struct cpu_job job = { .cpc = cpc, .set = set, .cpu = cpu };
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	pthread_t t;

	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.cond, NULL);
	CHECK(pthread_create(&t, NULL, cpu_binder, &job) == 0);
	pthread_mutex_lock(&job.lock);
	while (job.bound == 0)
		pthread_cond_wait(&job.cond, &job.lock);
	if (job.bound == 1) {
		errno = 0;
		CHECK(cpc_set_sample(cpc, set, buf) == -1 && errno == EAGAIN);
	}
	job.sampled_elsewhere = true;
	pthread_cond_broadcast(&job.cond);
	pthread_mutex_unlock(&job.lock);
	pthread_join(t, NULL);
	CHECK(cpc_set_sample(cpc, set, buf) == -1 && errno == EINVAL);
	cpc_buf_destroy(cpc, buf);
	pthread_cond_destroy(&job.cond);
	pthread_mutex_destroy(&job.lock);
}

static int
every_online_cpu(cpc_t *cpc, cpc_set_t *set)
{
	cpu_set_t mine;
	int cpu, done = 0;

	CHECK(sched_getaffinity(0, sizeof(mine), &mine) == 0);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &mine) || !online_cpu(cpu))
			continue;
		bind_one_cpu(cpc, set, cpu);
		done++;
	}
	return done;
}

/* Any CPU in the system's list that has no sysfs directory: EINVAL. */
static void
missing_cpus(cpc_t *cpc, cpc_set_t *set)
{
	long configured = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t before, after;

	CHECK(sched_getaffinity(0, sizeof(before), &before) == 0);
	CHECK(cpc_bind_cpu(cpc, (int)configured, set, 0) == -1 &&
	    errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, 4096, set, 0) == -1 && errno == EINVAL);
	CHECK(cpc_bind_cpu(cpc, CPU_SETSIZE, set, 0) == -1 && errno == EINVAL);
	CHECK(sched_getaffinity(0, sizeof(after), &after) == 0);
	CHECK(same_mask(&before, &after));
}

static int
write_online(int cpu, int value)
{
	char path[96], c = value ? '1' : '0';
	int fd, ok;

	snprintf(
	    path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, &c, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Take the last online CPU offline for as short a time as possible. The
 * suite runs this test alone (RUN_SERIAL), so no other test loses a CPU.
 */
static void
offline_cpu(cpc_t *cpc, cpc_set_t *set)
{
	char path[96];
	int cpu, victim = -1, rc, err;

	for (cpu = 1; cpu < CPU_SETSIZE; cpu++) {
		snprintf(path, sizeof(path),
		    "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (online_cpu(cpu) && access(path, W_OK) == 0)
			victim = cpu;
	}
	if (victim < 0 || geteuid() != 0) {
		printf("note: no CPU can be taken offline here; the ENOSYS "
		       "check is skipped\n");
		return;
	}
	if (write_online(victim, 0) != 0) {
		printf("note: cpu%d cannot be taken offline (%s); the ENOSYS "
		       "check is skipped\n",
		    victim, strerror(errno));
		return;
	}
	rc = cpc_bind_cpu(cpc, victim, set, 0);
	err = errno;
	CHECK(write_online(victim, 1) == 0);
	CHECK(rc == -1 && err == ENOSYS);
	printf("cpu%d offline: cpc_bind_cpu gave %s\n", victim,
	    rc == 0 ? "success" : strerror(err));
	if (rc == 0)
		cpc_unbind(cpc, set);
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	int n;

	CHECK(cpc != NULL);
	if (cpc == NULL)
		return check_report("test_cpc_bindcpu");
	if (geteuid() != 0) {
		cpc_close(cpc);
		SKIP("not root: CPU-wide counting needs root or CAP_PERFMON");
	}
	set = cpc_set_create(cpc);
	CHECK(cpc_set_add_request(cpc, set, "context-switches", 0,
		  CPC_COUNT_USER, 0, NULL) == 0);
	CHECK(cpc_set_add_request(cpc, set, "task-clock", 0,
		  CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == 1);
	n = every_online_cpu(cpc, set);
	printf("bound to %d online CPUs in turn\n", n);
	CHECK(n >= 1);
	missing_cpus(cpc, set);
	offline_cpu(cpc, set);
	cpc_close(cpc);
	return check_report("test_cpc_bindcpu");
}
