/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's types that the programs read, and only those: a small BTF
 * that libbpf relocates the programs against (CO-RE).
 *
 * Given no such file, libbpf reads the kernel's whole BTF (5 MB and more),
 * copies it and indexes it: 11 MB of memory touched for the first time
 * before the first program loads, which was most of the engine's start on
 * a VM, where each page's first touch is a trip to the hypervisor. This
 * reads the kernel's BTF in pieces through one buffer: the strings until
 * the names below are found; the types once, to index them; then only the
 * types those names lead to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "bpfeng_fields.h"
#include "bpfeng_impl.h"

/*
 * The structs the programs read, and the members on the paths they read:
 * of the structs, of the anonymous structs and unions inside them, and
 * of the structs that their typedefs name (atomic_t's counter, kuid_t's
 * val, mm_flags_t's __mm_flags). Both come from the one list of the
 * fields read, kernel_fields.txt (bpfeng_fields.h is made from it). A
 * field the programs read and the list lacks fails the engine's load
 * (libbpf cannot relocate it), so every test of the engine finds it.
 */
static const char *const structs_read[] = { BPFENG_STRUCTS_READ };
#define NSTRUCTS (sizeof(structs_read) / sizeof(structs_read[0]))

static const char *const members_read[] = { BPFENG_MEMBERS_READ };
#define NMEMBERS (sizeof(members_read) / sizeof(members_read[0]))
#define NNAMES	 (NSTRUCTS + NMEMBERS)
_Static_assert(NNAMES <= 64, "the names are kept in a 64-bit mask");
#define NAME_MAX_LEN 24 /* kernel_fields.awk refuses longer names */

#define CHUNK	  (64 * 1024)
#define MAX_DEPTH 16 /* of types within types the programs reach */
#define NOT_FOUND UINT32_MAX

struct kbtf {
	int fd;
	uint32_t types_at, types_len; /* in the file */
	uint32_t strs_at, strs_len;
	uint32_t name_off[NNAMES];	   /* each name's, or NOT_FOUND */
	uint64_t of_len[NAME_MAX_LEN + 1]; /* names not yet found, by length */
	int names_left;
	uint32_t root[NSTRUCTS]; /* each struct's type id, or 0 */
	uint32_t *offs;		 /* type id: its offset among the types */
	uint32_t ntypes;
	uint32_t *made;	   /* type id: its id in out, or 0 */
	uint32_t void_ptr; /* in out */
	struct btf *out;
	char buf[CHUNK];
};

static const char *
name_of(int i)
{
	return i < (int)NSTRUCTS ? structs_read[i] :
				   members_read[i - (int)NSTRUCTS];
}

/* len bytes at at: sysfs hands them over a page at a time. */
static int
read_at(struct kbtf *k, void *to, size_t len, uint32_t at)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(k->fd, (char *)to + done, len - done, at + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EPROTO; /* shorter than its header says */
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static int
read_header(struct kbtf *k)
{
	struct btf_header h;

	if (read_at(k, &h, sizeof(h), 0) != 0)
		return -1;
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h)) {
		errno = EPROTO;
		return -1;
	}
	k->types_at = h.hdr_len + h.type_off;
	k->types_len = h.type_len;
	k->strs_at = h.hdr_len + h.str_off;
	k->strs_len = h.str_len;
	return 0;
}

/*
 * The names not yet found, by length: a string is compared only with the
 * names as long as it is, of which there are few. The kernel's strings are
 * hundreds of thousands, and comparing each with every name was most of
 * the time spent here.
 */
static void
index_names(struct kbtf *k)
{
	size_t len;
	int i;

	for (i = 0; i < (int)NNAMES; i++) {
		k->name_off[i] = NOT_FOUND;
		len = strlen(name_of(i));
		if (len > 0 && len <= NAME_MAX_LEN) {
			k->of_len[len] |= 1ULL << i;
			k->names_left++;
		}
	}
}

/* The string s, len bytes at off, if it is one of the names: note where. */
static void
match_name(struct kbtf *k, const char *s, size_t len, uint32_t off)
{
	uint64_t left = len <= NAME_MAX_LEN ? k->of_len[len] : 0;
	int i;

	while (left != 0) {
		i = __builtin_ctzll(left);
		left &= left - 1;
		if (memcmp(name_of(i), s, len) == 0) {
			k->name_off[i] = off;
			k->of_len[len] &= ~(1ULL << i);
			k->names_left--;
		}
	}
}

/*
 * The strings in pieces, until each name of the tables is found (the
 * kernel's strings are unique, so the first is the only one). A string
 * cut by the end of a piece goes on in the next; only the short ones can
 * be a name, and only those are kept across.
 */
static int
find_names(struct kbtf *k)
{
	char word[NAME_MAX_LEN + 1];
	uint32_t pos = 0, start = 0, n;
	size_t len = 0, part;
	const char *p, *end, *nul;

	while (pos < k->strs_len && k->names_left > 0) {
		n = k->strs_len - pos < CHUNK ? k->strs_len - pos : CHUNK;
		if (read_at(k, k->buf, n, k->strs_at + pos) != 0)
			return -1;
		for (p = k->buf, end = k->buf + n; p < end; p = nul + 1) {
			nul = memchr(p, '\0', (size_t)(end - p));
			part = (size_t)((nul != NULL ? nul : end) - p);
			if (len + part < sizeof(word))
				memcpy(word + len, p, part);
			len += part;
			if (nul == NULL)
				break;
			if (len < sizeof(word))
				match_name(k, word, len, start);
			start = pos + (uint32_t)(nul + 1 - k->buf);
			len = 0;
		}
		pos += n;
	}
	return 0;
}

/* The bytes that follow a type's header, by its kind. */
static uint32_t
trailer_size(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	default:
		return 0;
	}
}

/* A struct of the table, with its members (not a declaration only). */
static void
match_root(struct kbtf *k, const struct btf_type *t, uint32_t id)
{
	int i;

	if (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT ||
	    BTF_INFO_VLEN(t->info) == 0)
		return;
	for (i = 0; i < (int)NSTRUCTS; i++)
		if (k->root[i] == 0 && k->name_off[i] == t->name_off)
			k->root[i] = id;
}

/* Every type once, in pieces: where each is, and the table's structs. */
static int
index_types(struct kbtf *k)
{
	uint32_t pos = 0, have_at = 0, have = 0, cap, n;
	struct btf_type t;

	cap = k->types_len / sizeof(t) + 2;
	if ((k->offs = malloc((size_t)cap * sizeof(*k->offs))) == NULL)
		return -1;
	k->ntypes = 1; /* 0 is void */
	while (pos < k->types_len) {
		if (pos < have_at || pos + sizeof(t) > have_at + have) {
			n = k->types_len - pos < CHUNK ? k->types_len - pos :
							 CHUNK;
			if (n < sizeof(t) ||
			    read_at(k, k->buf, n, k->types_at + pos) != 0) {
				errno = EPROTO;
				return -1;
			}
			have_at = pos;
			have = n;
		}
		if (k->ntypes == cap) {
			errno = EPROTO;
			return -1;
		}
		memcpy(&t, k->buf + (pos - have_at), sizeof(t));
		match_root(k, &t, k->ntypes);
		k->offs[k->ntypes++] = pos;
		pos += sizeof(t) + trailer_size(&t);
	}
	return 0;
}

/*
 * Type id's header and trailer, in memory of the caller's to free: one
 * read of a page, which holds nearly every type, and a second only for a
 * type that is longer.
 */
static struct btf_type *
fetch_type(struct kbtf *k, uint32_t id)
{
	struct btf_type head, *t;
	char page[4096];
	uint32_t at, left;
	size_t size, got;

	if (id == 0 || id >= k->ntypes) {
		errno = EPROTO;
		return NULL;
	}
	at = k->types_at + k->offs[id];
	left = k->types_len - k->offs[id];
	got = left < sizeof(page) ? left : sizeof(page);
	if (got < sizeof(head) || read_at(k, page, got, at) != 0) {
		errno = EPROTO;
		return NULL;
	}
	memcpy(&head, page, sizeof(head));
	size = sizeof(head) + trailer_size(&head);
	if (size > left || (t = malloc(size)) == NULL) {
		errno = size > left ? EPROTO : ENOMEM;
		return NULL;
	}
	memcpy(t, page, size < got ? size : got);
	if (size > got &&
	    read_at(k, (char *)t + got, size - got, at + got) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* The string at off, or "" for none; NULL when it cannot be read. */
static const char *
fetch_name(struct kbtf *k, uint32_t off, char *to, size_t len)
{
	ssize_t n;

	to[0] = '\0';
	if (off == 0)
		return to;
	if (off >= k->strs_len)
		return NULL;
	if (len - 1 > k->strs_len - off)
		len = k->strs_len - off + 1;
	if (read_at(k, to, len - 1, k->strs_at + off) != 0)
		return NULL;
	n = (ssize_t)(len - 1);
	to[n] = '\0';
	if (strlen(to) == (size_t)n && off + (uint32_t)n < k->strs_len)
		return NULL; /* longer than any name made here */
	return to;
}

static bool
is_struct_read(const struct kbtf *k, uint32_t name_off)
{
	int i;

	for (i = 0; i < (int)NSTRUCTS; i++)
		if (name_off != 0 && k->name_off[i] == name_off)
			return true;
	return false;
}

static bool
is_member_read(const struct kbtf *k, uint32_t name_off)
{
	int i;

	for (i = (int)NSTRUCTS; i < (int)NNAMES; i++)
		if (name_off != 0 && k->name_off[i] == name_off)
			return true;
	return false;
}

static int make_type(struct kbtf *k, uint32_t id, int depth);

/*
 * A member the programs may reach: named in the table, or anonymous (a
 * struct or union that holds such members, as mm_struct's fields are).
 */
static bool
member_kept(const struct kbtf *k, const struct btf_member *m)
{
	return m->name_off == 0 || is_member_read(k, m->name_off);
}

static int
add_members(struct kbtf *k, const struct btf_type *t, const int *types)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t i, vlen = BTF_INFO_VLEN(t->info), bit_off, bits;
	char name[128];

	for (i = 0; i < vlen; i++) {
		if (!member_kept(k, &m[i]))
			continue;
		bit_off = BTF_INFO_KFLAG(t->info) ?
		    BTF_MEMBER_BIT_OFFSET(m[i].offset) :
		    m[i].offset;
		bits = BTF_INFO_KFLAG(t->info) ?
		    BTF_MEMBER_BITFIELD_SIZE(m[i].offset) :
		    0;
		if (fetch_name(k, m[i].name_off, name, sizeof(name)) == NULL ||
		    btf__add_field(k->out, name[0] != '\0' ? name : NULL,
			types[i], bit_off, bits) < 0)
			return -1;
	}
	return 0;
}

/*
 * A struct or union: one of the table's, or an anonymous one inside
 * them, with the members that the programs may reach; any other named
 * one (embedded by value, never read into) its size alone.
 */
static int
make_composite(struct kbtf *k, const struct btf_type *t, int depth)
{
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);
	bool whole = t->name_off == 0 || is_struct_read(k, t->name_off);
	bool is_union = BTF_INFO_KIND(t->info) == BTF_KIND_UNION;
	int *types = NULL, id = -1;
	char name[128];

	if (fetch_name(k, t->name_off, name, sizeof(name)) == NULL)
		return -1;
	if (whole && vlen > 0 && (types = calloc(vlen, sizeof(*types))) == NULL)
		return -1;
	for (i = 0; whole && i < vlen; i++)
		if (member_kept(k, &m[i]) &&
		    (types[i] = make_type(k, m[i].type, depth + 1)) < 0)
			goto out;
	id = is_union ? btf__add_union(k->out, name[0] ? name : NULL, t->size) :
			btf__add_struct(k->out, name[0] ? name : NULL, t->size);
	if (id >= 0 && whole && add_members(k, t, types) != 0)
		id = -1;
out:
	free(types);
	return id;
}

static int
make_from(struct kbtf *k, const struct btf_type *t, int depth)
{
	const struct btf_array *a = (const void *)(t + 1);
	int elem, index, target;
	char name[128];

	if (fetch_name(k, t->name_off, name, sizeof(name)) == NULL)
		return -1;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return btf__add_int(k->out, name, (size_t)t->size,
		    BTF_INT_ENCODING(*(const uint32_t *)(t + 1)));
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		/* No field of one is read: its size is enough. */
		return btf__add_int(
		    k->out, name[0] ? name : "enum", (size_t)t->size, 0);
	case BTF_KIND_FLOAT:
		return btf__add_float(k->out, name, (size_t)t->size);
	case BTF_KIND_PTR:
		/* Pointers are followed by name: the pointee is not needed. */
		return (int)k->void_ptr;
	case BTF_KIND_FWD:
		return btf__add_fwd(k->out, name,
		    BTF_INFO_KFLAG(t->info) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	case BTF_KIND_ARRAY:
		if ((elem = make_type(k, a->type, depth + 1)) < 0 ||
		    (index = make_type(k, a->index_type, depth + 1)) < 0)
			return -1;
		return btf__add_array(k->out, index, elem, a->nelems);
	case BTF_KIND_TYPEDEF:
		if ((target = make_type(k, t->type, depth + 1)) < 0)
			return -1;
		return btf__add_typedef(k->out, name, target);
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		/* Relocation passes over them. */
		return make_type(k, t->type, depth + 1);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return make_composite(k, t, depth);
	default:
		errno = EPROTO;
		return -1;
	}
}

/* Type id of the kernel's, made in out once: its id there. */
static int
make_type(struct kbtf *k, uint32_t id, int depth)
{
	struct btf_type *t;
	int made;

	if (id == 0)
		return 0;
	if (id >= k->ntypes || depth > MAX_DEPTH) {
		errno = EPROTO;
		return -1;
	}
	if (k->made[id] != 0)
		return (int)k->made[id];
	if ((t = fetch_type(k, id)) == NULL)
		return -1;
	made = make_from(k, t, depth);
	free(t);
	if (made > 0)
		k->made[id] = (uint32_t)made;
	return made;
}

static int
make_all(struct kbtf *k)
{
	int i, id;

	if ((k->made = calloc(k->ntypes, sizeof(*k->made))) == NULL ||
	    (k->out = btf__new_empty()) == NULL ||
	    (id = btf__add_ptr(k->out, 0)) < 0)
		return -1;
	k->void_ptr = (uint32_t)id;
	for (i = 0; i < (int)NSTRUCTS; i++) {
		if (k->root[i] == 0) {
			errno = ENOENT;
			return -1;
		}
		if (make_type(k, k->root[i], 0) < 0)
			return -1;
	}
	return 0;
}

static int
write_out(struct kbtf *k, int to)
{
	const void *data;
	uint32_t size;

	if ((data = btf__raw_data(k->out, &size)) == NULL)
		return -1;
	if (write(to, data, size) != (ssize_t)size) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

int
eng_btf_small(const char *kernel_btf, int to)
{
	struct kbtf *k;
	int rc = -1, err;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -1;
	index_names(k);
	if ((k->fd = open(kernel_btf, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    read_header(k) == 0 && find_names(k) == 0 && index_types(k) == 0 &&
	    make_all(k) == 0)
		rc = write_out(k, to);
	err = errno;
	if (k->fd >= 0)
		close(k->fd);
	btf__free(k->out);
	free(k->offs);
	free(k->made);
	free(k);
	errno = err;
	return rc;
}
