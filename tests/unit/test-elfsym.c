/*
 * Unit tests of analyzer/symbolize/elfsym.c (and elffile.c, debuginfo.c under it)
 * against the fixtures built in tests/ (golden/fixture*.c): the layout the
 * fixture's assembly pins down (sizes, gaps, size-0 symbols, alias
 * groups), the .dynsym fallback of a stripped copy, separate debug files
 * found by build-id and by .gnu_debuglink (CRC included), images in
 * memory (the vdso), and files that must give a reason instead of a
 * crash: missing, not ELF, without .text or section headers, cut short,
 * damaged in known ways (tests/tools/elfmangle.c) and with random bytes
 * overwritten. Each reason's wording is asserted. FIFOs and devices in
 * the place of a module or of a debug file are refused unread (a test
 * that blocks on one fails by its timeout). Symbol versions: names as
 * the symbol table has them, and how they split.
 *
 * The fixtures are found under $PROFRUN_BUILD_ROOT/tests.
 */
#include "elfsym.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *build_root;
static char tmpdir[] = "/tmp/test-elfsym-XXXXXX";

/* $PROFRUN_BUILD_ROOT/tests/name, in a static buffer per call slot. */
static const char *
fx(const char *name)
{
	static char bufs[4][4096];
	static int next;
	char *b = bufs[next++ % 4];
	snprintf(b, sizeof(bufs[0]), "%s/tests/%s", build_root, name);
	return b;
}

#define fixture fx("libfixture.so")
#define fixture_stripped fx("libfixture-stripped.so")
#define fixture_notext fx("libfixture-notext.so")
#define fixture_cut fx("libfixture-cut.so")

static struct elfsym *
load_ok(const char *path, const struct elfsym_opts *o)
{
	struct elffile_why why;
	struct elfsym *t = elfsym_load(path, o, &why);
	ck_assert_msg(t, "%s: %s", path, why.text);
	return t;
}

static const struct elfsym_sym *
by_name(const struct elfsym *t, const char *name)
{
	for (size_t i = 0; i < elfsym_count(t); i++)
		if (strcmp(elfsym_get(t, i)->name, name) == 0)
			return elfsym_get(t, i);
	return NULL;
}

static uint64_t
addr_of(const struct elfsym *t, const char *name)
{
	const struct elfsym_sym *s = by_name(t, name);
	ck_assert_msg(s, "no symbol %s", name);
	return s->addr;
}

static void
assert_lookup(const struct elfsym *t, uint64_t addr, const char *want)
{
	const struct elfsym_sym *s = elfsym_lookup(t, addr);
	if (!want) {
		ck_assert_msg(!s, "0x%llx: want no symbol, got %s",
			      (unsigned long long)addr, s ? s->name : "");
		return;
	}
	ck_assert_msg(s, "0x%llx: want %s, got none",
		      (unsigned long long)addr, want);
	ck_assert_str_eq(s->name, want);
}

/* Reads the whole file at path; *len gets its size. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *buf = malloc(*len);
	ck_assert(fread(buf, 1, *len, f) == *len);
	fclose(f);
	return buf;
}

static char *
write_tmp(const char *name, const void *data, size_t len)
{
	char *path;
	ck_assert(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	FILE *f = fopen(path, "wb");
	ck_assert(f);
	ck_assert(fwrite(data, 1, len, f) == len);
	ck_assert(fclose(f) == 0);
	return path;
}

/* The file's GNU build-id, read here without elfsym. */
static size_t
file_build_id(const char *path, uint8_t *out)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY);
	ck_assert(fd >= 0);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &no, &dof)))
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 64) {
				memcpy(out, (uint8_t *)d->d_buf + dof, nh.n_descsz);
				len = nh.n_descsz;
			}
	}
	elf_end(elf);
	close(fd);
	return len;
}

START_TEST(elfsym_reads_symtab)
{
	struct elfsym *t = load_ok(fixture, NULL);
	ck_assert_str_eq(elfsym_source(t), ".symtab");
	/* Local functions are in .symtab: the static helper is there. */
	ck_assert_ptr_nonnull(by_name(t, "fx_static_helper"));
	ck_assert_ptr_nonnull(by_name(t, "fx_main"));
	uint64_t a = addr_of(t, "fx_leaf_a");
	assert_lookup(t, a, "fx_leaf_a");
	assert_lookup(t, a + by_name(t, "fx_leaf_a")->size - 1, "fx_leaf_a");
	/* Sorted, and one entry per address after alias merging. */
	for (size_t i = 1; i < elfsym_count(t); i++)
		ck_assert_uint_lt(elfsym_get(t, i - 1)->addr,
				  elfsym_get(t, i)->addr);
	elfsym_free(t);
}
END_TEST

/* The PLT's entries are named NAME@plt by the slot each jumps through:
 * the fixture calls six of its own exported functions through 16-byte
 * entries of .plt, in a row after the lazy binder's (left unnamed), and
 * __cxa_finalize through an 8-byte entry of .plt.got (objdump -d names
 * the same seven). The stripped copy, with .dynsym only, gets them too. */
static void
assert_plt(const char *path)
{
	static const char *const want[] = { "fx_mul", "fx_fact", "fx_leaf_a",
					    "fx_leaf_b", "fx_leaf_c", "fx_work" };
	struct elfsym *t = load_ok(path, NULL);
	const struct elfsym_sym *plt[8];
	size_t n = 0, got = 0;
	for (size_t i = 0; i < elfsym_count(t); i++) {
		const struct elfsym_sym *s = elfsym_get(t, i);
		const char *v;
		bool dflt;
		size_t len = elfsym_split_version(s->name, &v, &dflt);
		if (!elfsym_version_is_plt(v))
			continue;
		assert_lookup(t, s->addr + s->size - 1, s->name);
		if (strcmp(s->name, "__cxa_finalize@plt") == 0) {
			ck_assert_uint_eq(s->size, 8); /* .plt.got */
			got++;
			continue;
		}
		ck_assert_uint_lt(n, 8);
		plt[n++] = s;
		ck_assert_uint_eq(s->size, 16);
		/* The entry's function is a real symbol of its own. */
		char *fn = strndup(s->name, len);
		ck_assert_ptr_nonnull(by_name(t, fn));
		ck_assert_uint_ne(addr_of(t, fn), s->addr);
		bool known = false;
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			known |= strcmp(fn, want[k]) == 0;
		ck_assert_msg(known, "%s: unexpected PLT entry %s", path,
			      s->name);
		free(fn);
	}
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	ck_assert_uint_eq(got, 1);
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_eq(plt[i]->addr, plt[i - 1]->addr + 16);
	ck_assert_uint_eq(plt[0]->addr % 16, 0);
	/* The lazy binder's entry, just before, has no name. */
	const struct elfsym_sym *s0 = elfsym_lookup(t, plt[0]->addr - 16);
	ck_assert(!s0 || s0->addr + s0->size <= plt[0]->addr - 16);
	elfsym_free(t);
}

START_TEST(elfsym_names_plt_entries)
{
	assert_plt(fixture);
	assert_plt(fixture_stripped);
}
END_TEST

/* The C library's PLT against objdump's names for it: glibc's .rela.plt
 * lists its IRELATIVE slots (calls to its own ifuncs, which objdump
 * shows as *ABS*+0x...@plt) after the jump slots, whatever their places
 * in the PLT, so an entry's name must come from the GOT slot it jumps
 * through, not from its position. binutils is there wherever the
 * project builds. */
START_TEST(elfsym_plt_matches_objdump)
{
	Dl_info di;
	ck_assert(dladdr((void *)&abort, &di) && di.dli_fname);
	char *cmd;
	ck_assert(asprintf(&cmd, "objdump -d -j .plt -j .plt.sec -j .plt.got "
			   "'%s' 2>/dev/null", di.dli_fname) > 0);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	struct elfsym *t = load_ok(di.dli_fname, NULL);
	char line[512], name[400];
	unsigned long long addr;
	size_t named = 0, unnamed = 0;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx <%399[^>]>:", &addr, name) != 2 ||
		    !strstr(name, "@plt"))
			continue;
		const struct elfsym_sym *s = elfsym_lookup(t, addr);
		if (strncmp(name, "*ABS*", 5) == 0) {
			/* An IRELATIVE slot's entry: no name of ours. */
			ck_assert_msg(!s || !strstr(s->name, "@plt"),
				      "%llx: %s for objdump's %s", addr,
				      s->name, name);
			unnamed++;
			continue;
		}
		ck_assert_msg(s && strcmp(s->name, name) == 0,
			      "%llx: %s for objdump's %s", addr,
			      s ? s->name : "nothing", name);
		named++;
	}
	pclose(p);
	printf("%s: %zu PLT entries named as objdump names them, %zu "
	       "IRELATIVE ones left unnamed\n", di.dli_fname, named, unnamed);
	ck_assert_uint_gt(named, 0);
	elfsym_free(t);
	free(cmd);
}
END_TEST

START_TEST(elfsym_size_bounds_a_symbol)
{
	struct elfsym *t = load_ok(fixture, NULL);
	uint64_t a = addr_of(t, "fx_sized");
	ck_assert_uint_eq(by_name(t, "fx_sized")->size, 16);
	assert_lookup(t, a, "fx_sized");
	assert_lookup(t, a + 15, "fx_sized");
	/* The 16 bytes after it belong to no symbol: not to fx_sized. */
	assert_lookup(t, a + 16, NULL);
	assert_lookup(t, a + 31, NULL);
	ck_assert_uint_eq(addr_of(t, "fx_nosize"), a + 32);
	elfsym_free(t);
}
END_TEST

START_TEST(elfsym_size_zero_matches_its_address_only)
{
	struct elfsym *t = load_ok(fixture, NULL);
	uint64_t a = addr_of(t, "fx_nosize");
	ck_assert_uint_eq(by_name(t, "fx_nosize")->size, 0);
	assert_lookup(t, a, "fx_nosize");
	assert_lookup(t, a + 1, NULL);
	assert_lookup(t, a + 15, NULL);
	elfsym_free(t);
}
END_TEST

START_TEST(elfsym_alias_prefers_global)
{
	struct elfsym *t = load_ok(fixture, NULL);
	uint64_t a = addr_of(t, "fx_alias_g");
	/* The weak and local aliases, though shorter, are merged away. */
	ck_assert_ptr_null(by_name(t, "fx_al_w"));
	ck_assert_ptr_null(by_name(t, "fx_al"));
	/* The group covers the largest size of its members (fx_al: 32). */
	ck_assert_uint_eq(by_name(t, "fx_alias_g")->size, 32);
	assert_lookup(t, a + 20, "fx_alias_g");
	assert_lookup(t, a + 31, "fx_alias_g");
	assert_lookup(t, a + 32, "fx_dup_aa");
	elfsym_free(t);
}
END_TEST

START_TEST(elfsym_alias_same_binding_prefers_smaller_name)
{
	struct elfsym *t = load_ok(fixture, NULL);
	ck_assert_ptr_null(by_name(t, "fx_dup_bb"));
	assert_lookup(t, addr_of(t, "fx_dup_aa"), "fx_dup_aa");
	/* A compiler-made local alias (fx_fact.localalias) loses to the
	 * global name. */
	ck_assert_ptr_null(by_name(t, "fx_fact.localalias"));
	assert_lookup(t, addr_of(t, "fx_fact"), "fx_fact");
	elfsym_free(t);
}
END_TEST

START_TEST(elfsym_stripped_falls_back_to_dynsym)
{
	struct elfsym *full = load_ok(fixture, NULL);
	struct elfsym *t = load_ok(fixture_stripped, NULL);
	ck_assert_str_eq(elfsym_source(t), ".dynsym");
	assert_lookup(t, addr_of(full, "fx_leaf_a"), "fx_leaf_a");
	ck_assert_ptr_null(by_name(t, "fx_static_helper"));
	assert_lookup(t, addr_of(full, "fx_static_helper"), NULL);
	/* Without the local alias the group is 16 bytes long. */
	uint64_t a = addr_of(t, "fx_alias_g");
	assert_lookup(t, a + 15, "fx_alias_g");
	assert_lookup(t, a + 20, NULL);
	elfsym_free(t);
	elfsym_free(full);
}
END_TEST

START_TEST(elfsym_finds_debug_file_by_build_id)
{
	uint8_t id[64];
	char hex[129], *dir, *path;
	size_t len = file_build_id(fixture_stripped, id);
	ck_assert_uint_ge(len, 2);
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	ck_assert(asprintf(&dir, "%s/debug/.build-id/%.2s", tmpdir, hex) > 0);
	char *cmd;
	ck_assert(asprintf(&cmd, "mkdir -p '%s' && cp '%s' '%s/%s.debug'", dir,
			   fixture, dir, hex + 2) > 0);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert(asprintf(&path, "%s/%s.debug", dir, hex + 2) > 0);

	char *root;
	ck_assert(asprintf(&root, "%s/debug", tmpdir) > 0);
	struct elfsym_opts o = { .debug_root = root };
	struct elfsym *t = load_ok(fixture_stripped, &o);
	ck_assert_str_eq(elfsym_source(t), path);
	ck_assert_ptr_nonnull(by_name(t, "fx_static_helper"));
	elfsym_free(t);
	free(root);
	free(path);
	free(cmd);
	free(dir);
}
END_TEST

START_TEST(elfsym_checks_build_id)
{
	uint8_t id[64];
	size_t len = file_build_id(fixture, id);
	ck_assert_uint_gt(len, 0);
	struct elfsym_opts same = { .build_id = id, .build_id_len = len };
	elfsym_free(load_ok(fixture, &same));

	struct elffile_why why;
	id[0] ^= 0xff;
	ck_assert_ptr_null(elfsym_load(fixture, &same, &why));
	ck_assert_int_eq(why.fail, ELFFILE_BUILD_ID);
	ck_assert_str_eq(why.text,
			 "build-id differs from the profiled file (changed since)");
}
END_TEST

static const struct {
	const char *what;
	enum elffile_fail fail;
	const char *why;
} errors[] = {
	{ "missing", ELFFILE_GONE, "No such file or directory" },
	{ "not-elf", ELFFILE_NOT_ELF, "not an ELF file" },
	{ "notext", ELFFILE_NO_TEXT, "couldn't find .text section" },
	{ "cut", ELFFILE_CORRUPT,
	  "truncated ELF file (its section headers lie past its end)" },
	{ "dir", ELFFILE_NOT_ELF, "not an ELF file" },
};

START_TEST(elfsym_unusable_files_give_a_reason)
{
	struct elffile_why why;
	const char *path = NULL;
	char *tmp = NULL;
	const char *what = errors[_i].what;

	if (strcmp(what, "missing") == 0)
		path = "/nonexistent/libnothing.so";
	else if (strcmp(what, "not-elf") == 0)
		path = tmp = write_tmp("not-elf.so", "garbage\n", 8);
	else if (strcmp(what, "notext") == 0)
		path = fixture_notext;
	else if (strcmp(what, "cut") == 0)
		path = fixture_cut;
	else
		path = tmpdir;
	ck_assert_ptr_null(elfsym_load(path, NULL, &why));
	ck_assert_str_eq(why.text, errors[_i].why);
	ck_assert_int_eq(why.fail, errors[_i].fail);
	free(tmp);
}
END_TEST

/* Cut lengths of the fixture, as fractions of 1000 of its size. */
static const int cuts[] = { 0, 1, 10, 50, 100, 250, 500, 750, 900, 990, 999 };

START_TEST(elfsym_cut_copies_do_not_crash)
{
	size_t len;
	uint8_t *data = slurp(fixture, &len);
	size_t n = len * (size_t)cuts[_i] / 1000;
	if (cuts[_i] == 1)
		n = 64; /* the ELF header alone */
	char name[64];
	struct elffile_why why;
	snprintf(name, sizeof(name), "cut-%d.so", cuts[_i]);
	char *path = write_tmp(name, data, n);
	/* Section headers are at the end: every cut loses them. */
	ck_assert_ptr_null(elfsym_load(path, NULL, &why));
	if (n == 0)
		ck_assert_str_eq(why.text, "not an ELF file");
	else if (n < 64)
		ck_assert_str_eq(why.text, "truncated ELF file (shorter than "
				 "its ELF header)");
	else
		ck_assert_msg(strcmp(why.text, "truncated ELF file (its section "
				     "headers lie past its end)") == 0 ||
			      strcmp(why.text, "truncated or corrupt ELF file "
				     "(its section headers lie past its "
				     "end)") == 0, "%s", why.text);
	/* The same bytes as an image in memory give the same reason. */
	struct elffile_why mwhy;
	ck_assert_ptr_null(elfsym_load_image(data, n, NULL, &mwhy));
	ck_assert_str_eq(mwhy.text, why.text);
	free(path);
	free(data);
}
END_TEST

START_TEST(elfsym_scribbled_copies_do_not_crash)
{
	size_t len;
	uint8_t *data = slurp(fixture, &len);
	char name[64];
	struct elffile_why why;
	unsigned seed = (unsigned)_i + 1;

	/* Overwrite 16 random runs of bytes past the ELF identification. */
	for (int k = 0; k < 16; k++) {
		size_t at = 16 + (size_t)rand_r(&seed) % (len - 32);
		size_t run = 1 + (size_t)rand_r(&seed) % 16;
		for (size_t b = 0; b < run && at + b < len; b++)
			data[at + b] = (uint8_t)rand_r(&seed);
	}
	snprintf(name, sizeof(name), "scribbled-%d.so", _i);
	char *path = write_tmp(name, data, len);
	struct elfsym *t = elfsym_load(path, NULL, &why);
	if (t) {
		for (size_t i = 1; i < elfsym_count(t); i++)
			ck_assert_uint_lt(elfsym_get(t, i - 1)->addr,
					  elfsym_get(t, i)->addr);
		elfsym_lookup(t, 0x1000);
		elfsym_free(t);
	} else {
		ck_assert_str_ne(why.text, "");
	}
	/* And the same bytes from memory. */
	t = elfsym_load_image(data, len, NULL, &why);
	if (t)
		elfsym_free(t);
	else
		ck_assert_str_ne(why.text, "");
	free(path);
	free(data);
}
END_TEST

/* ---- damaged copies (tests/tools/elfmangle.c): one wording each ---- */

static const struct {
	const char *file;
	enum elffile_fail fail;
	const char *why;
} mangled[] = {
	{ "libfixture-noshdr.so", ELFFILE_NO_TEXT,
	  "couldn't find .text section" },
	{ "libfixture-shoff.so", ELFFILE_CORRUPT,
	  "truncated or corrupt ELF file (its section headers lie past its "
	  "end)" },
	{ "libfixture-shentsize.so", ELFFILE_CORRUPT,
	  "corrupt ELF file (section headers of 40 bytes, not 64)" },
	{ "libfixture-shstrndx.so", ELFFILE_CORRUPT,
	  "corrupt ELF file (section name table index 999 is no section)" },
	{ "libfixture-header.so", ELFFILE_CORRUPT,
	  "truncated ELF file (shorter than its ELF header)" },
	{ "libfixture-symoff.so", ELFFILE_CORRUPT,
	  "corrupt ELF file (section .symtab lies past its end)" },
	{ "libfixture-symlink.so", ELFFILE_CORRUPT,
	  "corrupt ELF file (.symtab links to no string table)" },
	{ "libfixture-symentsize.so", ELFFILE_CORRUPT,
	  "corrupt ELF file (.symtab has entries of 0 bytes, not 24)" },
	{ "libfixture-nosyms.so", ELFFILE_NO_SYMBOLS,
	  "no function symbols in .symtab, .dynsym or a separate debug file" },
};

START_TEST(elfsym_damaged_files_give_their_reason)
{
	struct elffile_why why;
	const char *path = fx(mangled[_i].file);
	ck_assert_ptr_null(elfsym_load(path, NULL, &why));
	ck_assert_str_eq(why.text, mangled[_i].why);
	ck_assert_int_eq(why.fail, mangled[_i].fail);

	/* Read from memory (the vdso's way), the same reason. */
	size_t len;
	uint8_t *data = slurp(path, &len);
	ck_assert_ptr_null(elfsym_load_image(data, len, NULL, &why));
	ck_assert_str_eq(why.text, mangled[_i].why);
	free(data);
}
END_TEST

/* Without section headers the build-id still comes from PT_NOTE, so a
 * file without .text is reported as such, not as changed. */
START_TEST(elfsym_build_id_from_segments)
{
	uint8_t id[64];
	size_t len = file_build_id(fixture, id);
	struct elfsym_opts o = { .build_id = id, .build_id_len = len };
	struct elffile_why why;

	ck_assert_ptr_null(elfsym_load(fx("libfixture-noshdr.so"), &o, &why));
	ck_assert_str_eq(why.text, "couldn't find .text section");
	id[3] ^= 1;
	ck_assert_ptr_null(elfsym_load(fx("libfixture-noshdr.so"), &o, &why));
	ck_assert_int_eq(why.fail, ELFFILE_BUILD_ID);
}
END_TEST

/* A file that had a build-id when it was profiled and has none now is
 * not the same file. */
START_TEST(elfsym_build_id_gone_is_a_change)
{
	static const uint8_t id[4] = { 1, 2, 3, 4 };
	struct elfsym_opts o = { .build_id = id, .build_id_len = sizeof(id) };
	struct elffile_why why;
	ck_assert_ptr_null(elfsym_load(fx("fixture-exe-noid"), &o, &why));
	ck_assert_int_eq(why.fail, ELFFILE_BUILD_ID);
	ck_assert_str_eq(why.text,
			 "build-id differs from the profiled file (changed since)");
}
END_TEST

/* ---- separate debug files ---- */

/* Copies src to dir/name (creating dir); returns the new path. */
static char *
copy_to(const char *src, const char *dir, const char *name)
{
	char *path, *cmd;
	ck_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	ck_assert(asprintf(&cmd, "mkdir -p '%s' && cp '%s' '%s'", dir, src,
			   path) > 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	return path;
}

/* ROOT/.build-id/xx/yyyy.debug for the build-id of file; returns ROOT. */
static char *
debug_root_for(const char *file, const char *debug_file, const char *tag)
{
	uint8_t id[64];
	char hex[129], *root, *dir;
	size_t len = file_build_id(file, id);
	ck_assert_uint_ge(len, 2);
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	ck_assert(asprintf(&root, "%s/%s", tmpdir, tag) > 0);
	ck_assert(asprintf(&dir, "%s/.build-id/%.2s", root, hex) > 0);
	char name[140];
	snprintf(name, sizeof(name), "%s.debug", hex + 2);
	free(copy_to(debug_file, dir, name));
	free(dir);
	return root;
}

/* The stripped executable of the issue: its .symtab is in
 * fixture-exe.debug, found by build-id, DWARF included. */
START_TEST(elfsym_stripped_exe_uses_debug_file)
{
	struct elffile_why why;
	char *root = debug_root_for(fx("fixture-exe-stripped"),
				    fx("fixture-exe.debug"), "debug-exe");
	struct elfsym_opts o = { .debug_root = root, .want_dwarf = true };

	/* Without the root: a stripped executable exports no functions. */
	ck_assert_ptr_null(elfsym_load(fx("fixture-exe-stripped"), NULL, &why));
	ck_assert_int_eq(why.fail, ELFFILE_NO_SYMBOLS);

	struct elfsym *t = load_ok(fx("fixture-exe-stripped"), &o);
	ck_assert_ptr_nonnull(by_name(t, "fe_static"));
	ck_assert_ptr_nonnull(by_name(t, "main"));
	ck_assert_str_eq(elfsym_dwarf_path(t), elfsym_source(t));
	ck_assert_ptr_null(elfsym_note(t));
	elfsym_free(t);
	free(root);
}
END_TEST

/* A debug file under the build-id path with another build-id is not
 * taken, and the note says why. */
START_TEST(elfsym_debug_file_with_other_build_id_is_ignored)
{
	char *root = debug_root_for(fixture_stripped,
				    fx("fixture-exe.debug"), "debug-other");
	struct elfsym_opts o = { .debug_root = root };
	struct elfsym *t = load_ok(fixture_stripped, &o);
	ck_assert_str_eq(elfsym_source(t), ".dynsym");
	ck_assert_ptr_nonnull(elfsym_note(t));
	ck_assert_ptr_nonnull(strstr(elfsym_note(t), "has another build-id, "
				     "ignored"));
	elfsym_free(t);
	free(root);
}
END_TEST

START_TEST(elfsym_follows_debuglink)
{
	/* With a build-id on both sides, build-ids decide. */
	struct elfsym *t = load_ok(fx("fixture-exe-linked"), NULL);
	ck_assert_str_eq(elfsym_source(t), fx("fixture-exe.debug"));
	ck_assert_ptr_nonnull(by_name(t, "fe_static"));
	elfsym_free(t);
	/* Without build-ids the CRC does. */
	t = load_ok(fx("fixture-exe-noid-linked"), NULL);
	ck_assert_str_eq(elfsym_source(t), fx("fixture-exe-noid.debug"));
	ck_assert_ptr_nonnull(by_name(t, "fe_static"));
	elfsym_free(t);
}
END_TEST

/* A debuglink candidate with the wrong CRC is skipped (and said so); the
 * next place, DIR/.debug/NAME, is tried. */
START_TEST(elfsym_debuglink_checks_crc)
{
	char dir[256];
	struct elffile_why why;
	snprintf(dir, sizeof(dir), "%s/crc", tmpdir);
	char *exe = copy_to(fx("fixture-exe-noid-linked"), dir, "app");
	char *bad = copy_to(fx("fixture-exe.debug"), dir,
			    "fixture-exe-noid.debug");

	ck_assert_ptr_null(elfsym_load(exe, NULL, &why));
	ck_assert_int_eq(why.fail, ELFFILE_NO_SYMBOLS);
	char *want;
	ck_assert(asprintf(&want, "no function symbols in .symtab or .dynsym; "
			   "separate debug file %s does not match (CRC "
			   "mismatch), ignored", bad) > 0);
	ck_assert_str_eq(why.text, want);

	char sub[300];
	snprintf(sub, sizeof(sub), "%s/.debug", dir);
	char *good = copy_to(fx("fixture-exe-noid.debug"), sub,
			     "fixture-exe-noid.debug");
	struct elfsym *t = load_ok(exe, NULL);
	ck_assert_str_eq(elfsym_source(t), good);
	ck_assert_ptr_nonnull(by_name(t, "fe_static"));
	ck_assert_ptr_nonnull(elfsym_note(t));
	elfsym_free(t);

	/* ROOT/DIR/NAME: the third place. */
	char *root;
	ck_assert(asprintf(&root, "%s/root", tmpdir) > 0);
	char *rdir;
	ck_assert(asprintf(&rdir, "%s%s", root, dir) > 0);
	unlink(good);
	free(copy_to(fx("fixture-exe-noid.debug"), rdir,
		     "fixture-exe-noid.debug"));
	struct elfsym_opts o = { .debug_root = root };
	t = load_ok(exe, &o);
	ck_assert_ptr_nonnull(strstr(elfsym_source(t), "/root/"));
	elfsym_free(t);
	free(rdir);
	free(root);
	free(want);
	free(good);
	free(bad);
	free(exe);
}
END_TEST

START_TEST(elfsym_finds_dwarf_file)
{
	struct elfsym_opts o = { .want_dwarf = true };
	struct elfsym *t = load_ok(fx("fixture-exe"), &o);
	ck_assert_str_eq(elfsym_dwarf_path(t), fx("fixture-exe"));
	elfsym_free(t);
	/* .symtab without DWARF: the debuglink's file has it. */
	t = load_ok(fx("fixture-exe-linked"), &o);
	ck_assert_str_eq(elfsym_dwarf_path(t), fx("fixture-exe.debug"));
	elfsym_free(t);
	/* Not asked for: not looked up. */
	t = load_ok(fx("fixture-exe"), NULL);
	ck_assert_ptr_null(elfsym_dwarf_path(t));
	elfsym_free(t);
}
END_TEST

START_TEST(elfsym_non_pie_executable)
{
	struct elfsym *t = load_ok(fx("fixture-exe-nopie"), NULL);
	/* Linked at a fixed address, not near 0 as a PIE is. */
	ck_assert_uint_ge(addr_of(t, "fe_work"), 0x10000);
	assert_lookup(t, addr_of(t, "fe_work"), "fe_work");
	elfsym_free(t);
}
END_TEST

/* ---- images in memory ---- */

START_TEST(elfsym_reads_image)
{
	size_t len;
	uint8_t *data = slurp(fixture, &len);
	struct elffile_why why;
	struct elfsym *t = elfsym_load_image(data, len, NULL, &why);
	ck_assert_msg(t, "%s", why.text);
	/* The caller's copy is not needed afterwards. */
	memset(data, 0, len);
	free(data);
	ck_assert_str_eq(elfsym_source(t), ".symtab");
	assert_lookup(t, addr_of(t, "fx_leaf_a"), "fx_leaf_a");
	elfsym_free(t);
}
END_TEST

/* The vdso of this very process, read from memory as the preload library
 * copies it: its pages, from the ELF header on. */
START_TEST(elfsym_reads_vdso_from_memory)
{
	const uint8_t *vdso = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	unsigned long lo = 0, hi = 0;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(maps);
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%lx-%lx", &lo, &hi);
	fclose(maps);
	if (!vdso || !hi)
		return; /* no vdso on this kernel: nothing to read */
	ck_assert_uint_eq(lo, (unsigned long)vdso);

	struct elffile_why why;
	struct elfsym *t = elfsym_load_image(vdso, hi - lo, NULL, &why);
	ck_assert_msg(t, "vdso: %s", why.text);
	bool clock = false;
	for (size_t i = 0; i < elfsym_count(t); i++)
		if (strstr(elfsym_get(t, i)->name, "clock_gettime"))
			clock = true;
	ck_assert_msg(clock, "no clock_gettime in the vdso");
	elfsym_free(t);
}
END_TEST

/* A FIFO where a module or a separate debug file should be: opened for
 * reading the ordinary way it would wait for a writer, and the test would
 * fail by its tcase timeout. */
static char *
make_fifo(const char *dir, const char *name)
{
	char *path, *cmd;
	ck_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	ck_assert(asprintf(&cmd, "mkdir -p '%s'", dir) > 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	return path;
}

static const char *const not_regular[] = { "fifo", "/dev/null" };

START_TEST(elfsym_not_regular_files_are_not_read)
{
	struct elffile_why why;
	char dir[256];
	char *fifo = NULL;
	const char *path = not_regular[_i];

	snprintf(dir, sizeof(dir), "%s/not-regular", tmpdir);
	if (strcmp(path, "fifo") == 0)
		path = fifo = make_fifo(dir, "libfifo.so");
	ck_assert_ptr_null(elfsym_load(path, NULL, &why));
	ck_assert_str_eq(why.text, "not a regular file");
	ck_assert_int_eq(why.fail, ELFFILE_UNREADABLE);
	free(fifo);
}
END_TEST

/* The first place .gnu_debuglink sends to, beside the executable, holds
 * a FIFO: it is passed over, and the next place, .debug/, gives the
 * symbols. */
START_TEST(elfsym_debuglink_skips_fifo)
{
	char dir[256], sub[300];
	snprintf(dir, sizeof(dir), "%s/fifo-link", tmpdir);
	snprintf(sub, sizeof(sub), "%s/.debug", dir);
	char *exe = copy_to(fx("fixture-exe-linked"), dir, "app");
	char *fifo = make_fifo(dir, "fixture-exe.debug");
	char *good = copy_to(fx("fixture-exe.debug"), sub, "fixture-exe.debug");

	struct elfsym *t = load_ok(exe, NULL);
	ck_assert_str_eq(elfsym_source(t), good);
	ck_assert_ptr_nonnull(by_name(t, "fe_static"));
	elfsym_free(t);
	free(exe);
	free(fifo);
	free(good);
}
END_TEST

/* The same for a debug file found by build-id: the FIFO is passed over;
 * there is no other, so a stripped executable has no symbols. */
START_TEST(elfsym_build_id_skips_fifo)
{
	uint8_t id[64];
	char hex[129], dir[512], name[140];
	struct elffile_why why;
	size_t len = file_build_id(fx("fixture-exe-stripped"), id);
	ck_assert_uint_ge(len, 2);
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	snprintf(dir, sizeof(dir), "%s/fifo-root/.build-id/%.2s", tmpdir, hex);
	snprintf(name, sizeof(name), "%s.debug", hex + 2);
	free(make_fifo(dir, name));

	char root[300];
	snprintf(root, sizeof(root), "%s/fifo-root", tmpdir);
	struct elfsym_opts o = { .debug_root = root };
	ck_assert_ptr_null(elfsym_load(fx("fixture-exe-stripped"), &o, &why));
	ck_assert_int_eq(why.fail, ELFFILE_NO_SYMBOLS);
}
END_TEST

/* Symbol table names and their versions. */
static const struct {
	const char *name;
	size_t plain;        /* length of the plain name */
	const char *version; /* NULL: none */
	bool is_default;
} versions[] = {
	{ "memcpy@@GLIBC_2.14", 6, "GLIBC_2.14", true },
	{ "memcpy@GLIBC_2.2.5", 6, "GLIBC_2.2.5", false },
	{ "__libc_start_main@@GLIBC_2.34", 17, "GLIBC_2.34", true },
	{ "memcpy", 6, NULL, false },
	{ "_ZN3foo3barEv@@V1", 13, "V1", true },
	{ "@@V1", 4, NULL, false },   /* no name before the version */
	{ "foo@@", 5, NULL, false },  /* no version after the '@@' */
	{ "foo@", 4, NULL, false },
	{ "", 0, NULL, false },
};

START_TEST(elfsym_splits_versions)
{
	const char *v;
	bool dflt;
	size_t plain = elfsym_split_version(versions[_i].name, &v, &dflt);
	ck_assert_uint_eq(plain, versions[_i].plain);
	if (!versions[_i].version) {
		ck_assert_ptr_null(v);
		return;
	}
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(v, versions[_i].version);
	ck_assert_int_eq(dflt, versions[_i].is_default);
}
END_TEST

/* The symbol table's names are kept as they are, versions included;
 * splitting them is for the resolver. */
START_TEST(elfsym_keeps_versioned_names)
{
	struct elfsym *t = load_ok(fx("libfixture-ver.so"), NULL);
	ck_assert_ptr_nonnull(by_name(t, "fv_call@@VERS_2"));
	ck_assert_ptr_nonnull(by_name(t, "fv_call@VERS_1"));
	ck_assert_ptr_nonnull(by_name(t, "fv_start@@VERS_2"));
	ck_assert_ptr_nonnull(by_name(t, "fv_plain"));
	elfsym_free(t);
}
END_TEST

static Suite *
elfsym_suite(void)
{
	Suite *s = suite_create("analyzer:elfsym");
	TCase *tc = tcase_create("symbols");
	tcase_add_test(tc, elfsym_reads_symtab);
	tcase_add_test(tc, elfsym_size_bounds_a_symbol);
	tcase_add_test(tc, elfsym_names_plt_entries);
	tcase_add_test(tc, elfsym_plt_matches_objdump);
	tcase_add_test(tc, elfsym_size_zero_matches_its_address_only);
	tcase_add_test(tc, elfsym_alias_prefers_global);
	tcase_add_test(tc, elfsym_alias_same_binding_prefers_smaller_name);
	tcase_add_test(tc, elfsym_stripped_falls_back_to_dynsym);
	tcase_add_test(tc, elfsym_finds_debug_file_by_build_id);
	tcase_add_test(tc, elfsym_checks_build_id);
	tcase_add_test(tc, elfsym_build_id_from_segments);
	tcase_add_test(tc, elfsym_build_id_gone_is_a_change);
	tcase_add_test(tc, elfsym_non_pie_executable);
	suite_add_tcase(s, tc);

	tc = tcase_create("debug files");
	tcase_add_test(tc, elfsym_stripped_exe_uses_debug_file);
	tcase_add_test(tc, elfsym_debug_file_with_other_build_id_is_ignored);
	tcase_add_test(tc, elfsym_follows_debuglink);
	tcase_add_test(tc, elfsym_debuglink_checks_crc);
	tcase_add_test(tc, elfsym_finds_dwarf_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("not regular files");
	/* Each reads nothing: a test that blocks on a FIFO fails here. */
	tcase_set_timeout(tc, 10);
	tcase_add_loop_test(tc, elfsym_not_regular_files_are_not_read, 0,
			    sizeof(not_regular) / sizeof(not_regular[0]));
	tcase_add_test(tc, elfsym_debuglink_skips_fifo);
	tcase_add_test(tc, elfsym_build_id_skips_fifo);
	suite_add_tcase(s, tc);

	tc = tcase_create("versions");
	tcase_add_loop_test(tc, elfsym_splits_versions, 0,
			    sizeof(versions) / sizeof(versions[0]));
	tcase_add_test(tc, elfsym_keeps_versioned_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("images");
	tcase_add_test(tc, elfsym_reads_image);
	tcase_add_test(tc, elfsym_reads_vdso_from_memory);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad files");
	tcase_add_loop_test(tc, elfsym_unusable_files_give_a_reason, 0,
			    sizeof(errors) / sizeof(errors[0]));
	tcase_add_loop_test(tc, elfsym_damaged_files_give_their_reason, 0,
			    sizeof(mangled) / sizeof(mangled[0]));
	tcase_add_loop_test(tc, elfsym_cut_copies_do_not_crash, 0,
			    sizeof(cuts) / sizeof(cuts[0]));
	tcase_add_loop_test(tc, elfsym_scribbled_copies_do_not_crash, 0, 200);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	build_root = getenv("PROFRUN_BUILD_ROOT");
	if (!build_root) {
		fprintf(stderr, "test-elfsym: PROFRUN_BUILD_ROOT is not set\n");
		return 1;
	}
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	SRunner *sr = srunner_create(elfsym_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		failed++;
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
