/*
 * elfmangle: makes damaged copies of an ELF file for the analyzer's
 * tests, each damaged in one known way, so every soft error of the
 * symbolizer can be produced and its wording asserted.
 *
 *   elfmangle MODE IN OUT    write a copy of IN damaged by MODE to OUT
 *   elfmangle buildid FILE   print FILE's GNU build-id in hex
 *
 * Modes (64-bit little-endian files only, which is what the tests build):
 *   noshdr      no section header table at all (e_shoff, e_shnum and
 *               e_shstrndx 0), as sstrip leaves a file
 *   shoff       e_shoff 0x7fff0000, past the end of the file
 *   shentsize   e_shentsize 40
 *   shstrndx    e_shstrndx 999, no such section
 *   header      only the first 40 bytes (cut inside the ELF header)
 *   symoff      .symtab's sh_offset 0x7fff0000
 *   symlink     .symtab's sh_link 0 (no string table)
 *   symentsize  .symtab's sh_entsize 0
 *   nosyms      .symtab and .dynsym turned into SHT_PROGBITS
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;
	fputs("elfmangle: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	unsigned char *buf = malloc(*len ? *len : 1);
	if (!buf || fread(buf, 1, *len, f) != *len)
		die("%s: cannot read", path);
	fclose(f);
	return buf;
}

static Elf64_Ehdr *
ehdr(unsigned char *data, size_t len, const char *path)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)data;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		die("%s: not a 64-bit little-endian ELF file", path);
	if (eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		die("%s: section headers past the end", path);
	return eh;
}

static Elf64_Shdr *
shdr(unsigned char *data, Elf64_Ehdr *eh, size_t i)
{
	return (Elf64_Shdr *)(data + eh->e_shoff) + i;
}

static Elf64_Shdr *
find_type(unsigned char *data, Elf64_Ehdr *eh, uint32_t type)
{
	for (size_t i = 1; i < eh->e_shnum; i++)
		if (shdr(data, eh, i)->sh_type == type)
			return shdr(data, eh, i);
	die("no section of type %u", type);
}

static void
print_build_id(unsigned char *data, Elf64_Ehdr *eh)
{
	for (size_t i = 1; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = shdr(data, eh, i);
		size_t off = sh->sh_offset, end = off + sh->sh_size;
		if (sh->sh_type != SHT_NOTE)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			Elf64_Nhdr *n = (Elf64_Nhdr *)(data + off);
			size_t name = off + sizeof(*n);
			size_t desc = name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(data + name, "GNU", 4) == 0) {
				for (size_t k = 0; k < n->n_descsz; k++)
					printf("%02x", data[desc + k]);
				putchar('\n');
				return;
			}
			off = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	die("no build-id");
}

/* Applies mode to the image; returns the length to write. */
static size_t
mangle(const char *mode, unsigned char *data, size_t len, Elf64_Ehdr *eh)
{
	if (strcmp(mode, "noshdr") == 0) {
		eh->e_shoff = 0;
		eh->e_shnum = 0;
		eh->e_shstrndx = 0;
	} else if (strcmp(mode, "shoff") == 0) {
		eh->e_shoff = 0x7fff0000;
	} else if (strcmp(mode, "shentsize") == 0) {
		eh->e_shentsize = 40;
	} else if (strcmp(mode, "shstrndx") == 0) {
		eh->e_shstrndx = 999;
	} else if (strcmp(mode, "header") == 0) {
		return 40;
	} else if (strcmp(mode, "symoff") == 0) {
		find_type(data, eh, SHT_SYMTAB)->sh_offset = 0x7fff0000;
	} else if (strcmp(mode, "symlink") == 0) {
		find_type(data, eh, SHT_SYMTAB)->sh_link = 0;
	} else if (strcmp(mode, "symentsize") == 0) {
		find_type(data, eh, SHT_SYMTAB)->sh_entsize = 0;
	} else if (strcmp(mode, "nosyms") == 0) {
		find_type(data, eh, SHT_SYMTAB)->sh_type = SHT_PROGBITS;
		find_type(data, eh, SHT_DYNSYM)->sh_type = SHT_PROGBITS;
	} else {
		die("unknown mode '%s'", mode);
	}
	return len;
}

int
main(int argc, char **argv)
{
	size_t len;

	if (argc == 3 && strcmp(argv[1], "buildid") == 0) {
		unsigned char *data = slurp(argv[2], &len);
		print_build_id(data, ehdr(data, len, argv[2]));
		free(data);
		return 0;
	}
	if (argc != 4)
		die("usage: elfmangle MODE IN OUT | elfmangle buildid FILE");
	unsigned char *data = slurp(argv[2], &len);
	len = mangle(argv[1], data, len, ehdr(data, len, argv[2]));
	FILE *out = fopen(argv[3], "wb");
	if (!out || fwrite(data, 1, len, out) != len || fclose(out) != 0)
		die("%s: cannot write", argv[3]);
	free(data);
	return 0;
}
