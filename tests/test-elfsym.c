/*
 * Unit tests of analyzer/elfsym.c against the fixture libraries built in
 * tests/ (golden/fixture.c): the layout its assembly pins down (sizes,
 * gaps, size-0 symbols, alias groups), the .dynsym fallback of a stripped
 * copy, the debug file found by build-id, and files that must give a
 * reason instead of a crash: missing, not ELF, without .text, cut short,
 * and copies with random bytes overwritten.
 *
 * Arguments (from meson): libfixture.so libfixture2.so
 * libfixture-stripped.so libfixture-notext.so libfixture-cut.so
 */
#include "elfsym.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *fixture, *fixture_stripped, *fixture_notext, *fixture_cut;
static char tmpdir[] = "/tmp/test-elfsym-XXXXXX";

static struct elfsym *
load_ok(const char *path, const struct elfsym_opts *o)
{
	char why[256];
	struct elfsym *t = elfsym_load(path, o, why, sizeof(why));
	ck_assert_msg(t, "%s: %s", path, why);
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

	char why[128];
	id[0] ^= 0xff;
	ck_assert_ptr_null(elfsym_load(fixture, &same, why, sizeof(why)));
	ck_assert_str_eq(why,
			 "build-id differs from the profiled file (changed since)");
}
END_TEST

static const struct {
	const char *what;
	const char *why;
} errors[] = {
	{ "missing", "No such file or directory" },
	{ "not-elf", "not an ELF file" },
	{ "notext", "couldn't find .text section" },
	{ "cut", "truncated ELF file (its section headers lie past its end)" },
	{ "dir", "not an ELF file" },
};

START_TEST(elfsym_unusable_files_give_a_reason)
{
	char why[256];
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
	ck_assert_ptr_null(elfsym_load(path, NULL, why, sizeof(why)));
	ck_assert_str_eq(why, errors[_i].why);
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
	char name[64], why[256];
	snprintf(name, sizeof(name), "cut-%d.so", cuts[_i]);
	char *path = write_tmp(name, data, n);
	why[0] = '\0';
	/* Section headers are at the end: every cut loses them. */
	ck_assert_ptr_null(elfsym_load(path, NULL, why, sizeof(why)));
	ck_assert_str_ne(why, "");
	free(path);
	free(data);
}
END_TEST

START_TEST(elfsym_scribbled_copies_do_not_crash)
{
	size_t len;
	uint8_t *data = slurp(fixture, &len);
	char name[64], why[256];
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
	struct elfsym *t = elfsym_load(path, NULL, why, sizeof(why));
	if (t) {
		for (size_t i = 1; i < elfsym_count(t); i++)
			ck_assert_uint_lt(elfsym_get(t, i - 1)->addr,
					  elfsym_get(t, i)->addr);
		elfsym_lookup(t, 0x1000);
		elfsym_free(t);
	} else {
		ck_assert_str_ne(why, "");
	}
	free(path);
	free(data);
}
END_TEST

static Suite *
elfsym_suite(void)
{
	Suite *s = suite_create("analyzer:elfsym");
	TCase *tc = tcase_create("symbols");
	tcase_add_test(tc, elfsym_reads_symtab);
	tcase_add_test(tc, elfsym_size_bounds_a_symbol);
	tcase_add_test(tc, elfsym_size_zero_matches_its_address_only);
	tcase_add_test(tc, elfsym_alias_prefers_global);
	tcase_add_test(tc, elfsym_alias_same_binding_prefers_smaller_name);
	tcase_add_test(tc, elfsym_stripped_falls_back_to_dynsym);
	tcase_add_test(tc, elfsym_finds_debug_file_by_build_id);
	tcase_add_test(tc, elfsym_checks_build_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad files");
	tcase_add_loop_test(tc, elfsym_unusable_files_give_a_reason, 0,
			    sizeof(errors) / sizeof(errors[0]));
	tcase_add_loop_test(tc, elfsym_cut_copies_do_not_crash, 0,
			    sizeof(cuts) / sizeof(cuts[0]));
	tcase_add_loop_test(tc, elfsym_scribbled_copies_do_not_crash, 0, 200);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: test-elfsym libfixture.so "
			"libfixture2.so stripped.so notext.so cut.so\n");
		return 1;
	}
	fixture = argv[1];
	fixture_stripped = argv[3];
	fixture_notext = argv[4];
	fixture_cut = argv[5];
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
