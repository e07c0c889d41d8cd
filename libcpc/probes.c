/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Dynamic probes counted through the kernel's uprobe and kprobe PMUs,
 * where /sys/bus/event_source/devices has them:
 *
 *	uprobe:PATH:SYMBOL[+OFFSET]	uprobe:PATH:0xFILEOFFSET
 *	uretprobe:PATH:SYMBOL
 *	kprobe:FUNCTION[+OFFSET]	kprobe:0xADDRESS
 *	kretprobe:FUNCTION
 *
 * A uprobe counts the times a thread executes that instruction of the
 * file, exactly; a kprobe, the times the kernel runs that function on the
 * thread's behalf. Probes made with perf probe are tracepoints instead.
 *
 * The kernel reads the file or function name through config1 (its
 * uprobe_path, kprobe_func) and the offset or address through config2
 * (probe_offset, kprobe_addr).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evname.h"

struct elf_image {
	const unsigned char *base;
	size_t size;
};

static const void *
at(const struct elf_image *im, uint64_t off, uint64_t len)
{
	if (off > im->size || len > im->size - off)
		return NULL;
	return im->base + off;
}

/* The file offset of a virtual address, through the loadable segments. */
static bool
vaddr_to_offset(const struct elf_image *im, const Elf64_Ehdr *eh,
    uint64_t vaddr, uint64_t *offset)
{
	const Elf64_Phdr *ph;
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		ph = at(im, eh->e_phoff + (uint64_t)i * eh->e_phentsize,
		    sizeof(*ph));
		if (ph == NULL)
			return false;
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz) {
			*offset = vaddr - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

/* The value of a defined symbol in one symbol table section. */
static bool
find_in_table(const struct elf_image *im, const Elf64_Ehdr *eh,
    const Elf64_Shdr *sh, const char *symbol, uint64_t *value)
{
	const Elf64_Shdr *strsh;
	const Elf64_Sym *sym;
	const char *strtab;
	uint64_t i, n;

	strsh = at(im, eh->e_shoff + (uint64_t)sh->sh_link * eh->e_shentsize,
	    sizeof(*strsh));
	if (strsh == NULL || sh->sh_entsize != sizeof(Elf64_Sym) ||
	    (strtab = at(im, strsh->sh_offset, strsh->sh_size)) == NULL)
		return false;
	n = sh->sh_size / sizeof(Elf64_Sym);
	for (i = 0; i < n; i++) {
		sym =
		    at(im, sh->sh_offset + i * sizeof(Elf64_Sym), sizeof(*sym));
		if (sym == NULL || sym->st_name >= strsh->sh_size)
			return false;
		if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0)
			continue;
		if (strncmp(strtab + sym->st_name, symbol,
			strsh->sh_size - sym->st_name) == 0) {
			*value = sym->st_value;
			return true;
		}
	}
	return false;
}

static int
symbol_in_image(const struct elf_image *im, const char *symbol,
    uint64_t *offset, char *why, size_t whylen)
{
	const Elf64_Ehdr *eh = at(im, 0, sizeof(Elf64_Ehdr));
	const Elf64_Shdr *sh;
	uint64_t value;
	int i, pass;

	if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64) {
		snprintf(why, whylen, "not a 64-bit ELF file");
		return -1;
	}
	/* The full symbol table first, then the dynamic one. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < eh->e_shnum; i++) {
			sh = at(im, eh->e_shoff + (uint64_t)i * eh->e_shentsize,
			    sizeof(*sh));
			if (sh == NULL)
				break;
			if (sh->sh_type !=
				(pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    !find_in_table(im, eh, sh, symbol, &value))
				continue;
			if (!vaddr_to_offset(im, eh, value, offset)) {
				snprintf(why, whylen,
				    "symbol %s is in no "
				    "loadable segment",
				    symbol);
				return -1;
			}
			return 0;
		}
	}
	snprintf(why, whylen, "no symbol %s in it", symbol);
	return -1;
}

/* The file offset of a symbol of an ELF file, as uprobes want it. */
int
cpclib_elf_symbol_offset(const char *path, const char *symbol, uint64_t *offset,
    char *why, size_t whylen)
{
	struct elf_image im;
	struct stat st;
	void *map;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		snprintf(why, whylen, "empty or unreadable");
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	im.base = map;
	im.size = (size_t)st.st_size;
	rc = symbol_in_image(&im, symbol, offset, why, whylen);
	munmap(map, (size_t)st.st_size);
	return rc;
}

/* "SYMBOL+OFF" -> SYMBOL and OFF; or a bare number. */
static bool
split_location(char *loc, char **symbol, uint64_t *off)
{
	char *plus = strrchr(loc, '+');

	*off = 0;
	*symbol = loc;
	if (cpclib_parse_u64(loc, off)) {
		*symbol = NULL;
		return true;
	}
	if (plus != NULL) {
		*plus++ = '\0';
		if (!cpclib_parse_u64(plus, off))
			return false;
	}
	return **symbol != '\0';
}

/* The PMU's type, and its retprobe bit, as sysfs describes them. */
static const struct sysfs_pmu *
probe_pmu(cpc_t *cpc, const char *pmuname, bool ret, struct ev_result *r,
    struct cpc_event_term **t)
{
	const struct sysfs_pmu *pmu = cpclib_sysfs_pmu(cpc, pmuname);
	uint64_t mask;
	int word;

	*t = NULL;
	if (pmu == NULL) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "this kernel has no %s PMU "
		    "(no /sys/bus/event_source/devices/%s; it needs "
		    "CONFIG_%s_EVENTS)",
		    pmuname, pmuname, pmuname[0] == 'u' ? "UPROBE" : "KPROBE");
		return NULL;
	}
	if ((*t = ev_add_term(r, (uint32_t)pmu->type, 0, 1)) == NULL)
		return NULL;
	if (ret) {
		if (!cpclib_sysfs_format_bit(pmu, "retprobe", &word, &mask) ||
		    !cpclib_deposit(word, mask, 1, &(*t)->attr)) {
			ev_fail(r, CPC_EVENT_UNSUPPORTED,
			    "the %s PMU of this "
			    "kernel describes no retprobe bit",
			    pmuname);
			return NULL;
		}
	}
	return pmu;
}

static bool
resolve_uprobe(cpc_t *cpc, const char *spec, bool ret, struct ev_result *r)
{
	char copy[PATH_MAX + 256], real[PATH_MAX], why[200], *colon, *sym;
	struct cpc_event_term *t;
	uint64_t off, symoff = 0;

	r->kind = "uprobe";
	strlcpy(copy, spec, sizeof(copy));
	if ((colon = strrchr(copy, ':')) == NULL ||
	    !split_location(colon + 1, &sym, &off)) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "write %s:PATH:SYMBOL"
		    "[+OFFSET] or %s:PATH:0xFILEOFFSET",
		    ret ? "uretprobe" : "uprobe", ret ? "uretprobe" : "uprobe");
		return true;
	}
	*colon = '\0';
	if (realpath(copy, real) == NULL) {
		ev_fail(
		    r, CPC_EVENT_UNSUPPORTED, "%s: %s", copy, strerror(errno));
		return true;
	}
	if (sym != NULL &&
	    cpclib_elf_symbol_offset(real, sym, &symoff, why, sizeof(why)) !=
		0) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED, "%s: %s", real, why);
		return true;
	}
	if (probe_pmu(cpc, "uprobe", ret, r, &t) == NULL)
		return true;
	if ((r->owned[0] = strdup(real)) == NULL) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED, "%s", strerror(ENOMEM));
		return true;
	}
	t->attr.config1 = (uint64_t)(uintptr_t)r->owned[0];
	t->attr.config2 = symoff + off;
	if (sym != NULL)
		ev_desc(r, "%s %s%s in %s (file offset 0x%" PRIx64 ")",
		    ret ? "returns from" : "executions of", sym,
		    off != 0 ? " plus an offset" : "", real,
		    (uint64_t)t->attr.config2);
	else
		ev_desc(r, "%s file offset 0x%" PRIx64 " of %s",
		    ret ? "returns through" : "executions of", off, real);
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

static bool
resolve_kprobe(cpc_t *cpc, const char *spec, bool ret, struct ev_result *r)
{
	char copy[256], *sym;
	struct cpc_event_term *t;
	uint64_t off;

	r->kind = "kprobe";
	strlcpy(copy, spec, sizeof(copy));
	if (!split_location(copy, &sym, &off)) {
		ev_fail(r, CPC_EVENT_UNSUPPORTED,
		    "write %s:FUNCTION[+OFFSET] "
		    "or kprobe:0xADDRESS",
		    ret ? "kretprobe" : "kprobe");
		return true;
	}
	if (probe_pmu(cpc, "kprobe", ret, r, &t) == NULL)
		return true;
	if (sym != NULL) {
		if ((r->owned[0] = strdup(sym)) == NULL) {
			ev_fail(
			    r, CPC_EVENT_UNSUPPORTED, "%s", strerror(ENOMEM));
			return true;
		}
		t->attr.config1 = (uint64_t)(uintptr_t)r->owned[0];
		t->attr.config2 = off;
		ev_desc(r, "%s of kernel function %s",
		    ret ? "returns" : "calls", sym);
	} else {
		t->attr.config2 = off;
		ev_desc(r, "executions of kernel address 0x%" PRIx64, off);
	}
	r->kernel_context = true;
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

bool
cpclib_resolve_probe(cpc_t *cpc, const char *name, struct ev_result *r)
{
	if (strncmp(name, "uprobe:", 7) == 0)
		return resolve_uprobe(cpc, name + 7, false, r);
	if (strncmp(name, "uretprobe:", 10) == 0)
		return resolve_uprobe(cpc, name + 10, true, r);
	if (strncmp(name, "kprobe:", 7) == 0)
		return resolve_kprobe(cpc, name + 7, false, r);
	if (strncmp(name, "kretprobe:", 10) == 0)
		return resolve_kprobe(cpc, name + 10, true, r);
	return false;
}
