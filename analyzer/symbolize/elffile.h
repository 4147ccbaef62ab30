/*
 * elffile: one ELF file (or an image of one in memory) opened with libelf
 * and checked before anything reads it.
 *
 * The files come from wherever the profiled program found them and may
 * have changed, been cut or be corrupt by the time they are analyzed.
 * Opening one checks what later readers rely on, so that they can trust
 * it: the ELF header, that the section header table and every section's
 * contents lie inside the file, that symbol tables link to string tables
 * and have the entry size of their class. It also gathers what the
 * symbolizer needs to know: the symbol tables, whether there is a .text
 * section and DWARF, the GNU build-id and the .gnu_debuglink.
 *
 * A file that fails a check is not opened; the reason is a short phrase
 * for a warning ("couldn't find .text section" is for the caller to
 * decide: a file without sections opens).
 */
#ifndef PROFANALYZE_ELFFILE_H
#define PROFANALYZE_ELFFILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFFILE_BUILD_ID_MAX 64
#define ELFFILE_WHY_LEN 256

/* Why a file gives no symbols. */
enum elffile_fail {
	ELFFILE_OK = 0,
	ELFFILE_GONE,       /* no such file (any more) */
	ELFFILE_UNREADABLE, /* cannot be opened or read */
	ELFFILE_NOT_ELF,
	ELFFILE_CORRUPT,    /* truncated or inconsistent */
	ELFFILE_NO_TEXT,    /* no .text section */
	ELFFILE_NO_SYMBOLS, /* no function symbols anywhere */
	ELFFILE_BUILD_ID,   /* not the file that was profiled */
};

struct elffile_why {
	enum elffile_fail fail;
	char text[ELFFILE_WHY_LEN]; /* always NUL-terminated */
};

struct elffile {
	Elf *elf;
	int fd;          /* -1 for an image */
	char *mem;       /* the copy of an image, owned */
	uint64_t size;   /* of the file or image */
	size_t nscn;     /* sections, 0 when it has no section headers */
	bool is_arm;
	Elf_Scn *symtab; /* first SHT_SYMTAB, or NULL */
	Elf_Scn *dynsym; /* first SHT_DYNSYM, or NULL */
	bool has_text;   /* a section named .text */
	bool has_dwarf;  /* a .debug_info section with contents */
	uint8_t build_id[ELFFILE_BUILD_ID_MAX];
	size_t build_id_len; /* 0: none */
	char *debuglink;     /* .gnu_debuglink file name, owned, or NULL */
	uint32_t debuglink_crc;
};

/* Opens and checks the file at path. Returns 0, or -1 with why set and
 * nothing left open. */
int
elffile_open(struct elffile *f, const char *path, struct elffile_why *why);

/* The same for an image of len bytes, which is copied (libelf may convert
 * data in place, and the caller's copy may be read-only or unaligned). */
int
elffile_open_image(struct elffile *f, const void *data, size_t len,
		   struct elffile_why *why);

void
elffile_close(struct elffile *f);

/* Sets why (printf format). */
void
elffile_why_set(struct elffile_why *why, enum elffile_fail fail,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
