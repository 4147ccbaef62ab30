/*
 * annotate_code: a function's code, decoded, with source lines (see
 * annotate_code.h).
 */
#include "annotate_code.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "ehframe.h"
#include "xmalloc.h"

#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

/* The bytes at ELF address addr in the section that holds them: a
 * pointer into the file's data, *len cut to the section's end, or NULL. */
static const uint8_t *
elf_bytes(struct elffile *f, uint64_t addr, size_t *len)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		uint64_t off = addr - sh.sh_addr;
		if (!d || !d->d_buf || off >= d->d_size)
			return NULL;
		if (*len > d->d_size - off)
			*len = d->d_size - off;
		return (const uint8_t *)d->d_buf + off;
	}
	return NULL;
}

#ifdef HAVE_CAPSTONE
/* " <name+0x1f>" for a call or jump target outside the function, or
 * " <name@plt>" for an entry of the PLT (elfsym names them). */
static void
name_target(const struct annotate_code *c, uint64_t target, char *buf,
	    size_t len)
{
	if (target >= c->addr && target < c->addr + c->size) {
		snprintf(buf, len, " <+%" PRIu64 ">", target - c->addr);
		return;
	}
	const struct elfsym_sym *s = elfsym_lookup(c->syms, target);
	if (!s) {
		buf[0] = '\0';
		return;
	}
	const char *version;
	bool dflt;
	size_t plen = elfsym_split_version(s->name, &version, &dflt);
	char *plain = xstrndup(s->name, plen);
	char *nice = demangle_name(plain);
	const char *at = elfsym_version_is_plt(version) ? "@plt" : "";
	if (target == s->addr)
		snprintf(buf, len, " <%s%s>", nice ? nice : plain, at);
	else
		snprintf(buf, len, " <%s%s+0x%" PRIx64 ">", nice ? nice : plain,
			 at, target - s->addr);
	free(nice);
	free(plain);
}

static int
open_capstone(unsigned machine, bool intel, csh *h)
{
	cs_arch arch;
	cs_mode mode;
	switch (machine) {
	case EM_X86_64:
		arch = CS_ARCH_X86, mode = CS_MODE_64;
		break;
	case EM_386:
		arch = CS_ARCH_X86, mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		arch = CS_ARCH_ARM64, mode = CS_MODE_ARM;
		break;
	default:
		return -1;
	}
	if (cs_open(arch, mode, h) != CS_ERR_OK)
		return -1;
	if (arch == CS_ARCH_X86)
		cs_option(*h, CS_OPT_SYNTAX,
			  intel ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

/* The immediate target of a call or jump, or false. */
static bool
branch_target(csh h, const cs_insn *ci, unsigned machine, uint64_t *target)
{
	if (!ci->detail || (!cs_insn_group(h, ci, CS_GRP_CALL) &&
			    !cs_insn_group(h, ci, CS_GRP_JUMP)))
		return false;
	if (machine == EM_AARCH64) {
		const cs_arm64 *d = &ci->detail->arm64;
		if (d->op_count < 1 || d->operands[0].type != ARM64_OP_IMM)
			return false;
		*target = (uint64_t)d->operands[0].imm;
		return true;
	}
	const cs_x86 *d = &ci->detail->x86;
	if (d->op_count < 1 || d->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)d->operands[0].imm;
	return true;
}

static void
take_insn(struct annotate_code *c, csh h, const cs_insn *ci, unsigned machine)
{
	struct annotate_insn *in = &c->ins[c->n++];
	char tgt[200];
	uint64_t target;
	in->addr = ci->address;
	in->size = (uint8_t)(ci->size < sizeof(in->bytes) ? ci->size :
							   sizeof(in->bytes));
	memcpy(in->bytes, ci->bytes, in->size);
	tgt[0] = '\0';
	if (branch_target(h, ci, machine, &target))
		name_target(c, target, tgt, sizeof(tgt));
	snprintf(in->text, sizeof(in->text), "%s%s%s%s", ci->mnemonic,
		 ci->op_str[0] ? " " : "", ci->op_str, tgt);
}

static int
decode(struct annotate_code *c, const uint8_t *code, size_t len,
       unsigned machine, bool intel, char *why, size_t whylen)
{
	csh h;
	if (open_capstone(machine, intel, &h) < 0) {
		snprintf(why, whylen, "Capstone cannot decode machine %u",
			 machine);
		return -1;
	}
	cs_insn *ci = cs_malloc(h);
	const uint8_t *p = code;
	size_t left = len;
	uint64_t pc = c->addr;
	c->ins = xcalloc(len ? len : 1, sizeof(*c->ins));
	while (left) {
		if (cs_disasm_iter(h, &p, &left, &pc, ci)) {
			take_insn(c, h, ci, machine);
			continue;
		}
		/* Not an instruction (data, padding): one byte, as objdump
		 * shows it. */
		struct annotate_insn *in = &c->ins[c->n++];
		in->addr = pc;
		in->size = 1;
		in->bytes[0] = *p;
		snprintf(in->text, sizeof(in->text), "(bad)");
		p++, left--, pc++;
	}
	cs_free(ci, 1);
	cs_close(&h);
	return 0;
}
#else
static int
decode(struct annotate_code *c, const uint8_t *code, size_t len,
       unsigned machine, bool intel, char *why, size_t whylen)
{
	(void)c, (void)code, (void)len, (void)machine, (void)intel;
	snprintf(why, whylen, "this profanalyze was built without Capstone");
	return -1;
}
#endif

bool
annotate_code_available(void)
{
#ifdef HAVE_CAPSTONE
	return true;
#else
	return false;
#endif
}

void
annotate_code_free(struct annotate_code *c)
{
	if (c->ef_open)
		elffile_close(&c->ef);
	free(c->ins);
	srcline_free(c->lines);
	elfsym_free(c->syms);
	free(c->why_nolines);
}

static void
take_lines(struct annotate_code *c)
{
	for (size_t i = 0; c->lines && i < c->n; i++) {
		struct annotate_insn *in = &c->ins[i];
		if (!srcline_lookup(c->lines, in->addr, &in->file, &in->line))
			in->file = NULL;
		in->ninl = (uint8_t)srcline_inlines(c->lines, in->addr, in->inl,
						    ANNOTATE_MAX_INLINE);
	}
	if (c->lines && !srcline_function(c->lines, c->addr, &c->decl_file,
					  &c->decl_line))
		c->decl_file = NULL;
	if (c->lines)
		c->comp_dir = srcline_comp_dir(c->lines, c->addr);
}

static void
open_lines(struct annotate_code *c)
{
	char why[256];
	const char *dw = elfsym_dwarf_path(c->syms);
	if (!dw) {
		c->why_nolines = xstrdup("no DWARF in it or a debug file");
		return;
	}
	if (!(c->lines = srcline_open(dw, why, sizeof(why))))
		c->why_nolines = xasprintf("%s: %s", dw, why);
}

/* c->size of a function without a symbol at c->addr: its FDE's. */
static int
fde_size(struct annotate_code *c, char *why, size_t whylen)
{
	struct ehframe *t = ehframe_load(&c->ef);
	uint64_t start, end;
	bool found = t && ehframe_range(t, c->addr, &start, &end) &&
		     start == c->addr;
	ehframe_free(t);
	if (!found) {
		snprintf(why, whylen, "it has no symbol, and no unwind table "
			 "entry starts there to give its length");
		return -1;
	}
	c->size = end - start;
	return 0;
}

int
annotate_code_load(struct annotate_code *c, const struct annotate_code_opts *o,
		   char *why, size_t whylen)
{
	struct elffile_why w;
	struct elfsym_opts eo = {
		.build_id = o->build_id,
		.build_id_len = o->build_id_len,
		.debug_root = o->debug_root,
		.want_dwarf = true,
		.allow_empty = o->unnamed,
	};

	memset(c, 0, sizeof(*c));
	c->module = o->path;
	c->addr = o->addr;
	if (!(c->syms = elfsym_load(o->path, &eo, &w))) {
		snprintf(why, whylen, "%s", w.text);
		goto out_fail;
	}
	const struct elfsym_sym *s = elfsym_lookup(c->syms, o->addr);
	if (!o->unnamed && (!s || s->addr != o->addr || !s->size)) {
		snprintf(why, whylen, "the symbol has no size");
		goto out_fail;
	}
	c->size = o->unnamed ? 0 : s->size;
	/* (elfsym_load checked the build-id of the file at this path.) */
	if (elffile_open(&c->ef, o->path, &w) < 0) {
		snprintf(why, whylen, "%s", w.text);
		goto out_fail;
	}
	c->ef_open = true;
	if (o->unnamed && fde_size(c, why, whylen) < 0)
		goto out_fail;
	GElf_Ehdr eh;
	unsigned machine = gelf_getehdr(c->ef.elf, &eh) ? eh.e_machine : 0;
	size_t len = c->size;
	const uint8_t *code = elf_bytes(&c->ef, c->addr, &len);
	if (!code) {
		snprintf(why, whylen, "no section holds its code");
		goto out_fail;
	}
	if (decode(c, code, len, machine, o->intel, why, whylen) < 0)
		goto out_fail;
	open_lines(c);
	take_lines(c);
	return 0;
out_fail:
	annotate_code_free(c);
	return -1;
}

long
annotate_code_insn_at(const struct annotate_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ins[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= c->ins[lo - 1].addr + c->ins[lo - 1].size)
		return -1;
	return (long)lo - 1;
}
