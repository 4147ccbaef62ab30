/*
 * ehframe: FDE ranges from .eh_frame_hdr and .eh_frame (see ehframe.h).
 *
 * Only what the ranges need is decoded: the header's search table, and
 * of each FDE its CIE's pointer encoding (augmentation 'R') and its
 * address range. Anything malformed ends the table where it is (or
 * gives none): a wrong grouping would be worse than no grouping.
 */
#include "ehframe.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* DW_EH_PE_* */
enum {
	PE_ABSPTR = 0x00,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_DATAREL_SDATA4 = 0x3b,
	PE_OMIT = 0xff,
};

struct range {
	uint64_t start, end;
};

struct ehframe {
	struct range *r; /* sorted by start */
	size_t n;
};

struct sect {
	const uint8_t *data;
	uint64_t addr, size;
};

static bool
find_section(const struct elffile *f, const char *name, struct sect *s)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(f->elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name) != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < 8)
			return false;
		*s = (struct sect){ d->d_buf, sh.sh_addr, d->d_size };
		return true;
	}
	return false;
}

static uint64_t
get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i]; /* little-endian: x86-64, aarch64 */
	return v;
}

/* The size of a value in encoding enc (its low four bits), 0 unknown. */
static size_t
enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA2:
	case PE_SDATA2:
		return 2;
	default:
		return 0;
	}
}

static uint64_t
uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The pointer encoding of the CIE at p ('R' of a "z..." augmentation;
 * absptr without one), or PE_OMIT when it cannot be read. */
static unsigned
cie_encoding(const uint8_t *p, const uint8_t *end)
{
	if (end - p < 9)
		return PE_OMIT;
	uint64_t len = get(p, 4);
	if (len == 0 || len == 0xffffffff || len > (uint64_t)(end - p - 4))
		return PE_OMIT;
	end = p + 4 + len;
	if (get(p + 4, 4) != 0) /* a CIE's id is 0 */
		return PE_OMIT;
	unsigned version = p[8];
	const char *aug = (const char *)p + 9;
	size_t alen = strnlen(aug, (size_t)(end - (const uint8_t *)aug));
	p = (const uint8_t *)aug + alen + 1;
	if (p >= end || aug[0] != 'z')
		return aug[0] ? PE_OMIT : PE_ABSPTR;
	uleb(&p, end); /* code alignment */
	uleb(&p, end); /* data alignment (sleb: its bytes alike) */
	if (version == 1)
		p++;
	else
		uleb(&p, end);
	uleb(&p, end); /* augmentation length */
	for (size_t i = 1; i < alen && p < end; i++) {
		switch (aug[i]) {
		case 'R':
			return *p;
		case 'P': {
			unsigned e = *p++;
			size_t n = enc_size(e);
			if (!n)
				return PE_OMIT;
			p += n;
			break;
		}
		case 'L':
			p++;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return PE_OMIT;
		}
	}
	return PE_ABSPTR;
}

/* The length of the function of the FDE at fde_addr, 0 when unknown. */
static uint64_t
fde_range(const struct sect *eh, uint64_t fde_addr)
{
	if (fde_addr < eh->addr || fde_addr - eh->addr > eh->size - 8)
		return 0;
	const uint8_t *p = eh->data + (fde_addr - eh->addr);
	const uint8_t *end = eh->data + eh->size;
	uint64_t len = get(p, 4), cie = get(p + 4, 4);
	if (len == 0xffffffff || len < 8 || len > (uint64_t)(end - p - 4) ||
	    cie == 0 || cie > (uint64_t)(p + 4 - eh->data))
		return 0;
	unsigned enc = cie_encoding(p + 4 - cie, end);
	size_t n = enc == PE_OMIT ? 0 : enc_size(enc);
	if (!n || 8 + 2 * n > len + 4)
		return 0;
	return get(p + 8 + n, n); /* pc_range: no pcrel, same size */
}

static int
cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

struct ehframe *
ehframe_load(const struct elffile *f)
{
	struct sect hdr, eh;

	if (!f->elf || !find_section(f, ".eh_frame_hdr", &hdr) ||
	    !find_section(f, ".eh_frame", &eh))
		return NULL;
	const uint8_t *p = hdr.data;
	/* version 1; eh_frame_ptr any; the count udata4; the table 4-byte
	 * offsets from the header's start. */
	size_t ptr_size = enc_size(p[1]);
	if (p[0] != 1 || p[1] == PE_OMIT || !ptr_size || p[2] != PE_UDATA4 ||
	    p[3] != PE_DATAREL_SDATA4 || 4 + ptr_size + 4 > hdr.size)
		return NULL;
	uint64_t count = get(p + 4 + ptr_size, 4);
	const uint8_t *tab = p + 4 + ptr_size + 4;
	if (count > (hdr.size - (uint64_t)(tab - p)) / 8)
		return NULL;
	struct ehframe *t = xcalloc(1, sizeof(*t));
	t->r = xcalloc(count + 1, sizeof(*t->r));
	for (uint64_t i = 0; i < count; i++) {
		int32_t loc = (int32_t)get(tab + 8 * i, 4);
		int32_t fde = (int32_t)get(tab + 8 * i + 4, 4);
		uint64_t start = hdr.addr + (uint64_t)(int64_t)loc;
		uint64_t len =
			fde_range(&eh, hdr.addr + (uint64_t)(int64_t)fde);
		if (len)
			t->r[t->n++] = (struct range){ start, start + len };
	}
	qsort(t->r, t->n, sizeof(*t->r), cmp_range);
	return t;
}

void
ehframe_free(struct ehframe *t)
{
	if (!t)
		return;
	free(t->r);
	free(t);
}

bool
ehframe_lookup(const struct ehframe *t, uint64_t addr, uint64_t *start)
{
	uint64_t end;
	return ehframe_range(t, addr, start, &end);
}

bool
ehframe_range(const struct ehframe *t, uint64_t addr, uint64_t *start,
	      uint64_t *end)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* the first range starting above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (t->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* FDEs do not nest; the one before is the only candidate. */
	if (lo == 0 || addr >= t->r[lo - 1].end)
		return false;
	*start = t->r[lo - 1].start;
	*end = t->r[lo - 1].end;
	return true;
}
