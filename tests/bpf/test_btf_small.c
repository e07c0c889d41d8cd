/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's types that the engine picks out (bpfeng_btf.c) against
 * the running kernel's whole BTF, as libbpf reads it: every field the
 * programs read is there, where the kernel has it, of the same kind and
 * size; a field this kernel lacks is lacking there too; and what is not
 * BTF is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "bpfeng_fields.h"
#include "bpfeng_impl.h"
#include "check.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

/*
 * What the programs read: each struct and the first member of each path
 * (cmd/cputrack/engines/bpf/lib/kernel_fields.txt).
 */
static const struct {
	const char *type, *member;
} fields[] = { BPFENG_FIELDS_READ };

/* Where a member is, what it is, as CO-RE finds it: by name, anonymous
 * structs and unions searched as part of their parent. */
struct found {
	long bit_off; /* -1: no such member */
	int kind;     /* of its type, typedefs and modifiers passed over */
	long size;
};

static struct found
find_member(const struct btf *btf, int type_id, const char *name, long base)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)type_id);
	const struct btf_member *m = btf_members(t);
	struct found f = { -1, 0, 0 };
	const struct btf_type *mt;
	int i, id;

	for (i = 0; i < btf_vlen(t) && f.bit_off < 0; i++) {
		id = btf__resolve_type(btf, m[i].type);
		mt = btf__type_by_id(btf, (__u32)id);
		if (m[i].name_off == 0 &&
		    (btf_is_struct(mt) || btf_is_union(mt))) {
			f = find_member(btf, id, name,
			    base + (long)btf_member_bit_offset(t, (__u32)i));
		} else if (strcmp(btf__name_by_offset(btf, m[i].name_off),
			       name) == 0) {
			f.bit_off =
			    base + (long)btf_member_bit_offset(t, (__u32)i);
			f.kind = btf_kind(mt);
			f.size =
			    btf_is_ptr(mt) ? 8 : btf__resolve_size(btf, id);
		}
	}
	return f;
}

static struct found
field(const struct btf *btf, const char *type, const char *member)
{
	struct found none = { -1, 0, 0 };
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);

	return id > 0 ? find_member(btf, id, member, 0) : none;
}

static void
check_fields(const struct btf *small, const struct btf *whole)
{
	struct found s, w;
	size_t i;
	int seen = 0;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		s = field(small, fields[i].type, fields[i].member);
		w = field(whole, fields[i].type, fields[i].member);
		if (s.bit_off != w.bit_off || s.kind != w.kind ||
		    s.size != w.size)
			fprintf(stderr,
			    "%s.%s: picked out at bit %ld (kind %d, %ld "
			    "bytes), the kernel's at bit %ld (kind %d, %ld "
			    "bytes)\n",
			    fields[i].type, fields[i].member, s.bit_off, s.kind,
			    s.size, w.bit_off, w.kind, w.size);
		CHECK(s.bit_off == w.bit_off);
		CHECK(s.kind == w.kind);
		CHECK(s.size == w.size);
		seen += w.bit_off >= 0;
	}
	/* Every one but one of group_exec_task (5.18) and group_exit_task. */
	CHECK_EQ_U64(seen, sizeof(fields) / sizeof(fields[0]) - 1);
}

static void
check_small(void)
{
	struct btf *small, *whole;
	char path[64];
	off_t size;
	int fd;

	if ((fd = memfd_create("test_btf_small", MFD_CLOEXEC)) < 0 ||
	    eng_btf_small(KERNEL_BTF, fd) != 0) {
		fprintf(stderr, "eng_btf_small: %s\n", strerror(errno));
		CHECK(false);
		return;
	}
	size = lseek(fd, 0, SEEK_END);
	CHECK(size > 0 && size < 16384);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	small = btf__parse(path, NULL);
	whole = btf__load_vmlinux_btf();
	CHECK(small != NULL && whole != NULL);
	if (small != NULL && whole != NULL)
		check_fields(small, whole);
	btf__free(small);
	btf__free(whole);
	close(fd);
}

/* What is not the kernel's BTF: refused, nothing written. */
static void
check_refused(void)
{
	static const struct {
		const char *path;
		int err;
	} bad[] = {
		{ "/nonexistent/vmlinux", ENOENT },
		{ "/proc/self/status", EPROTO }, /* no BTF magic */
		{ "/dev/null", EPROTO },	 /* shorter than a header */
	};
	size_t i;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if ((fd = memfd_create("test_btf_small", MFD_CLOEXEC)) < 0)
			continue;
		errno = 0;
		CHECK(eng_btf_small(bad[i].path, fd) == -1);
		CHECK(errno == bad[i].err);
		CHECK(lseek(fd, 0, SEEK_END) == 0);
		close(fd);
	}
}

int
main(void)
{
	if (access(KERNEL_BTF, R_OK) != 0)
		SKIP("this kernel has no BTF (%s: %s)", KERNEL_BTF,
		    strerror(errno));
	check_small();
	check_refused();
	return check_report("test_btf_small");
}
