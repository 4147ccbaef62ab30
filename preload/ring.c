/*
 * ring: SPSC byte ring (see ring.h). Records may wrap around the end of the
 * buffer; both sides copy in at most two pieces. The head is published with
 * release ordering after the bytes are in place, and the tail after they are
 * copied out, which is all the synchronisation the two sides need.
 */
#include "ring.h"

#include "spool.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

struct ring *
ring_create(size_t size)
{
	size_t n = 4096;
	while (n < size)
		n <<= 1;
	void *p = mmap(NULL, sizeof(struct ring) + n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct ring *r = p;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	r->size = n;
	return r;
}

void
ring_destroy(struct ring *r)
{
	if (r)
		munmap(r, sizeof(struct ring) + r->size);
}

/* async-signal-safe */
static void
copy_in(struct ring *r, uint64_t at, const uint8_t *src, size_t len)
{
	size_t off = (size_t)(at & (r->size - 1));
	size_t first = r->size - off < len ? r->size - off : len;
	memcpy(r->data + off, src, first);
	memcpy(r->data, src + first, len - first);
}

static void
copy_out(const struct ring *r, uint64_t at, uint8_t *dst, size_t len)
{
	size_t off = (size_t)(at & (r->size - 1));
	size_t first = r->size - off < len ? r->size - off : len;
	memcpy(dst, r->data + off, first);
	memcpy(dst + first, r->data, len - first);
}

/* async-signal-safe */
int
ring_push(struct ring *r, const void *rec, size_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (r->size - (size_t)(head - tail) < len)
		return -ENOSPC;
	copy_in(r, head, rec, len);
	atomic_store_explicit(&r->head, head + len, memory_order_release);
	return 0;
}

size_t
ring_drain(struct ring *r, uint8_t *dst, size_t cap)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t end = tail;
	/* Walk record headers to find how many whole records fit in cap. */
	while (end < head) {
		uint8_t hdr[SPOOL_REC_HEADER_LEN];
		copy_out(r, end, hdr, sizeof(hdr));
		uint32_t len = (uint32_t)hdr[4] | (uint32_t)hdr[5] << 8 |
			       (uint32_t)hdr[6] << 16 | (uint32_t)hdr[7] << 24;
		uint64_t rec = SPOOL_REC_HEADER_LEN + (uint64_t)len;
		if (end - tail + rec > cap)
			break;
		end += rec;
	}
	size_t n = (size_t)(end - tail);
	copy_out(r, tail, dst, n);
	atomic_store_explicit(&r->tail, end, memory_order_release);
	return n;
}

size_t
ring_used(const struct ring *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	return (size_t)(head - tail);
}

void
ring_reset(struct ring *r)
{
	atomic_store(&r->tail, atomic_load(&r->head));
}
