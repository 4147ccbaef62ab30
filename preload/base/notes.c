/*
 * notes: the GNU build-id among a module's ELF notes (see notes.h).
 *
 * Layer: base; everything here is async-signal-safe.
 */
#include "notes.h"

#include <elf.h>
#include <link.h>
#include <string.h>

/* Offsets from the start, each compared with what is left: no sum of a
 * pointer and a size from the file is formed, and the sizes are rounded
 * up in 64 bits (in 32, 0xfffffffd rounds up to 0). async-signal-safe */
uint32_t
notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 0;
	while (len - pos >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) n;
		memcpy(&n, notes + pos, sizeof(n));
		size_t left = len - pos - sizeof(n);
		size_t name = ((size_t)n.n_namesz + 3) & ~(size_t)3;
		size_t desc = ((size_t)n.n_descsz + 3) & ~(size_t)3;
		if (name > left || desc > left - name)
			return 0;
		const uint8_t *d = notes + pos + sizeof(n) + name;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    memcmp(notes + pos + sizeof(n), "GNU", 4) == 0 &&
		    n.n_descsz <= cap) {
			memcpy(out, d, n.n_descsz);
			return n.n_descsz;
		}
		pos += sizeof(n) + name + desc;
	}
	return 0;
}
