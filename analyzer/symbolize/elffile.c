/*
 * elffile: opening and checking ELF files (see elffile.h).
 *
 * Files are read with ELF_C_READ, not mmap: a library replaced or cut
 * while we read it must give an error, not SIGBUS. libelf itself checks
 * little of what it hands out (a section whose offset lies past the end
 * of the file reads as an error only when its data is asked for, a bad
 * string table link gives NULL names), so the checks that decide what a
 * warning says are done here, on the headers, before any data is read.
 */
#include "elffile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regfile.h"
#include "xmalloc.h"

void
elffile_why_set(struct elffile_why *why, enum elffile_fail fail,
		const char *fmt, ...)
{
	va_list ap;
	why->fail = fail;
	va_start(ap, fmt);
	vsnprintf(why->text, sizeof(why->text), fmt, ap);
	va_end(ap);
}

/* Whether [off, off + len) lies inside a file of size bytes. */
static bool
inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static void
take_build_id(struct elffile *f, Elf_Data *data)
{
	GElf_Nhdr nhdr;
	size_t off = 0, name_off, desc_off;

	if (!data || !data->d_buf)
		return;
	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
		const char *name = (const char *)data->d_buf + name_off;
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp(name, "GNU", 4) != 0 || nhdr.n_descsz == 0 ||
		    nhdr.n_descsz > ELFFILE_BUILD_ID_MAX)
			continue;
		memcpy(f->build_id, (const uint8_t *)data->d_buf + desc_off,
		       nhdr.n_descsz);
		f->build_id_len = nhdr.n_descsz;
		return;
	}
}

/* The build-id of a file without section headers: from its PT_NOTE
 * segments, as the dynamic loader sees it. */
static void
build_id_from_segments(struct elffile *f)
{
	size_t nph;
	if (elf_getphdrnum(f->elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph && !f->build_id_len; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    !inside(ph.p_offset, ph.p_filesz, f->size))
			continue;
		take_build_id(f, elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset,
						      ph.p_filesz, ELF_T_NHDR));
	}
}

/* .gnu_debuglink: a NUL-terminated file name, padding to 4 bytes, and
 * the CRC-32 of the debug file in the file's byte order. */
static void
take_debuglink(struct elffile *f, Elf_Scn *scn, const GElf_Ehdr *eh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 8 || f->debuglink)
		return;
	const uint8_t *p = d->d_buf;
	size_t len = strnlen((const char *)p, d->d_size);
	size_t crc_off = (len + 4) & ~(size_t)3;
	if (len == 0 || crc_off + 4 > d->d_size)
		return;
	const uint8_t *c = p + crc_off;
	if (eh->e_ident[EI_DATA] == ELFDATA2MSB)
		f->debuglink_crc = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
				   (uint32_t)c[2] << 8 | c[3];
	else
		f->debuglink_crc = (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 |
				   (uint32_t)c[1] << 8 | c[0];
	f->debuglink = xstrndup((const char *)p, len);
}

/* Whether every PT_LOAD segment's contents lie inside the file: a file
 * cut short fails this, one with a bad section header offset does not. */
static bool
segments_inside(const struct elffile *f)
{
	size_t nph;
	if (elf_getphdrnum(f->elf, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			return false;
		if (ph.p_type == PT_LOAD && !inside(ph.p_offset, ph.p_filesz,
						   f->size))
			return false;
	}
	return true;
}

/* The section header table as the ELF header describes it. */
static int
check_shdr_table(struct elffile *f, const GElf_Ehdr *eh,
		 struct elffile_why *why)
{
	size_t entsize = gelf_fsize(f->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (eh->e_shoff == 0)
		return 0;
	if (eh->e_shentsize != entsize) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(section headers of %u bytes, not %zu)",
				eh->e_shentsize, entsize);
		return -1;
	}
	/* e_shnum 0 means "more than fit here": section 0 must exist. */
	uint64_t n = eh->e_shnum ? eh->e_shnum : 1;
	if (inside(eh->e_shoff, n * entsize, f->size))
		return 0;
	/* A file cut inside its segments is surely cut; one whose segments
	 * are whole may have been cut in its tail or have a bad e_shoff. */
	elffile_why_set(why, ELFFILE_CORRUPT, "%s ELF file (its section "
			"headers lie past its end)", segments_inside(f)
			? "truncated or corrupt" : "truncated");
	return -1;
}

/* The section name table, which every section's name comes from. */
static int
check_shstrtab(struct elffile *f, size_t *shstrndx, struct elffile_why *why)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (elf_getshdrstrndx(f->elf, shstrndx) != 0 || *shstrndx == 0) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(no section name table)");
		return -1;
	}
	if (*shstrndx >= f->nscn) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(section name table index %zu is no section)",
				*shstrndx);
		return -1;
	}
	scn = elf_getscn(f->elf, *shstrndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    !inside(sh.sh_offset, sh.sh_size, f->size)) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(section name table [%zu] is not a string "
				"table)", *shstrndx);
		return -1;
	}
	return 0;
}

/* A symbol table must link to a string table and hold whole entries. */
static int
check_symtab(struct elffile *f, const GElf_Shdr *sh, const char *name,
	     struct elffile_why *why)
{
	size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	GElf_Shdr str;
	Elf_Scn *link;

	if (sh->sh_entsize != entsize) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file (%s "
				"has entries of %llu bytes, not %zu)", name,
				(unsigned long long)sh->sh_entsize, entsize);
		return -1;
	}
	if (sh->sh_link == 0 || sh->sh_link >= f->nscn ||
	    !(link = elf_getscn(f->elf, sh->sh_link)) ||
	    !gelf_getshdr(link, &str) || str.sh_type != SHT_STRTAB ||
	    !inside(str.sh_offset, str.sh_size, f->size)) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file (%s "
				"links to no string table)", name);
		return -1;
	}
	return 0;
}

/* Looks at one section header. Returns 0 or -1 with why set. */
static int
scan_section(struct elffile *f, size_t i, size_t shstrndx,
	     const GElf_Ehdr *eh, struct elffile_why *why)
{
	Elf_Scn *scn = elf_getscn(f->elf, i);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh)) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(unreadable section header [%zu])", i);
		return -1;
	}
	const char *name = elf_strptr(f->elf, shstrndx, sh.sh_name);
	char num[32];
	if (!name || !*name) {
		snprintf(num, sizeof(num), "[%zu]", i);
		name = num;
	}
	if (sh.sh_type != SHT_NOBITS && !inside(sh.sh_offset, sh.sh_size,
						f->size)) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(section %s lies past its end)", name);
		return -1;
	}
	if (strcmp(name, ".text") == 0)
		f->has_text = true;
	if ((strcmp(name, ".debug_info") == 0 ||
	     strcmp(name, ".zdebug_info") == 0) &&
	    sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
		f->has_dwarf = true;
	if (strcmp(name, ".gnu_debuglink") == 0 && sh.sh_type != SHT_NOBITS)
		take_debuglink(f, scn, eh);
	if (sh.sh_type == SHT_NOTE && !f->build_id_len)
		take_build_id(f, elf_getdata(scn, NULL));
	if ((sh.sh_type == SHT_SYMTAB && !f->symtab) ||
	    (sh.sh_type == SHT_DYNSYM && !f->dynsym)) {
		if (check_symtab(f, &sh, name, why) != 0)
			return -1;
		*(sh.sh_type == SHT_SYMTAB ? &f->symtab : &f->dynsym) = scn;
	}
	return 0;
}

/* Everything after elf_begin, for files and images alike. */
static int
check_elf(struct elffile *f, struct elffile_why *why)
{
	GElf_Ehdr eh;
	size_t shstrndx = 0;

	if (elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh)) {
		elffile_why_set(why, ELFFILE_CORRUPT,
				"corrupt ELF file (bad ELF header)");
		return -1;
	}
	f->is_arm = eh.e_machine == EM_ARM;
	if (check_shdr_table(f, &eh, why) != 0)
		return -1;
	if (elf_getshdrnum(f->elf, &f->nscn) != 0) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(bad section count)");
		return -1;
	}
	/* The count may come from section 0 (more than e_shnum holds). */
	if (f->nscn > 0 && !inside(eh.e_shoff, (uint64_t)f->nscn *
				   eh.e_shentsize, f->size)) {
		elffile_why_set(why, ELFFILE_CORRUPT, "truncated ELF file "
				"(its section headers lie past its end)");
		return -1;
	}
	if (f->nscn > 0 && check_shstrtab(f, &shstrndx, why) != 0)
		return -1;
	for (size_t i = 1; i < f->nscn; i++)
		if (scan_section(f, i, shstrndx, &eh, why) != 0)
			return -1;
	if (!f->build_id_len)
		build_id_from_segments(f);
	return 0;
}

/* The first bytes decide between "not ELF" and "ELF, but cut short". */
static int
check_ident(const uint8_t *p, size_t have, uint64_t size,
	    struct elffile_why *why)
{
	if (have < SELFMAG || memcmp(p, ELFMAG, SELFMAG) != 0) {
		elffile_why_set(why, ELFFILE_NOT_ELF, "not an ELF file");
		return -1;
	}
	size_t need = have > EI_CLASS && p[EI_CLASS] == ELFCLASS32
			      ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
	if (size < need) {
		elffile_why_set(why, ELFFILE_CORRUPT, "truncated ELF file "
				"(shorter than its ELF header)");
		return -1;
	}
	return 0;
}

static void
elffile_init(struct elffile *f, struct elffile_why *why)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	why->fail = ELFFILE_OK;
	why->text[0] = '\0';
	elf_version(EV_CURRENT);
}

static int
open_fd(struct elffile *f, const char *path, struct elffile_why *why)
{
	struct stat st;
	uint8_t ident[EI_NIDENT];

	f->fd = regfile_open(path, &st);
	if (f->fd == -EISDIR) {
		f->fd = -1;
		elffile_why_set(why, ELFFILE_NOT_ELF, "not an ELF file");
		return -1;
	}
	if (f->fd < 0) {
		int e = f->fd;
		f->fd = -1;
		elffile_why_set(why, e == -ENOENT || e == -ENOTDIR ?
					ELFFILE_GONE : ELFFILE_UNREADABLE,
				"%s", regfile_strerror(e));
		return -1;
	}
	f->size = (uint64_t)st.st_size;
	ssize_t n = pread(f->fd, ident, sizeof(ident), 0);
	if (n < 0) {
		elffile_why_set(why, ELFFILE_UNREADABLE, "%s", strerror(errno));
		return -1;
	}
	return check_ident(ident, (size_t)n, f->size, why);
}

/* Takes the libelf handle of a file or an image and checks it; on failure
 * says why and closes f. Returns 0 or -1. */
static int
check_opened(struct elffile *f, Elf *elf, struct elffile_why *why)
{
	f->elf = elf;
	if (!f->elf)
		elffile_why_set(why, ELFFILE_CORRUPT,
				"corrupt ELF file (bad ELF header)");
	if (!f->elf || check_elf(f, why) != 0) {
		elffile_close(f);
		return -1;
	}
	return 0;
}

int
elffile_open(struct elffile *f, const char *path, struct elffile_why *why)
{
	elffile_init(f, why);
	if (open_fd(f, path, why) != 0)
		goto out_close;
	return check_opened(f, elf_begin(f->fd, ELF_C_READ, NULL), why);

out_close:
	elffile_close(f);
	return -1;
}

int
elffile_open_image(struct elffile *f, const void *data, size_t len,
		   struct elffile_why *why)
{
	elffile_init(f, why);
	f->size = len;
	if (check_ident(data, len < EI_NIDENT ? len : EI_NIDENT, len, why))
		return -1;
	f->mem = xmalloc(len);
	memcpy(f->mem, data, len);
	return check_opened(f, elf_memory(f->mem, len), why);
}

void
elffile_close(struct elffile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	free(f->debuglink);
	f->elf = NULL;
	f->fd = -1;
	f->mem = NULL;
	f->debuglink = NULL;
}
