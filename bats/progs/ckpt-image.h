/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading images in the test programs: the xxh64 checksum of the TAIL
 * record and a walker over the records.
 */
#ifndef CKPT_IMAGE_H
#define CKPT_IMAGE_H

#include <linux/ckpt.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XXH_P1 0x9E3779B185EBCA87ULL
#define XXH_P2 0xC2B2AE3D27D4EB4FULL
#define XXH_P3 0x165667B19E3779F9ULL
#define XXH_P4 0x85EBCA77C2B2AE63ULL
#define XXH_P5 0x27D4EB2F165667C5ULL

static inline uint64_t xxh_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t xxh_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t xxh_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t in)
{
	return xxh_rotl(acc + in * XXH_P2, 31) * XXH_P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh_round(0, v)) * XXH_P1 + XXH_P4;
}

/* xxh64 with seed 0, as lib/xxhash.c computes it */
static inline uint64_t xxh64(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t h;

	if (len >= 32) {
		uint64_t v1 = XXH_P1 + XXH_P2, v2 = XXH_P2, v3 = 0, v4 = -XXH_P1;

		do {
			v1 = xxh_round(v1, xxh_rd64(p));
			v2 = xxh_round(v2, xxh_rd64(p + 8));
			v3 = xxh_round(v3, xxh_rd64(p + 16));
			v4 = xxh_round(v4, xxh_rd64(p + 24));
			p += 32;
		} while (p <= end - 32);
		h = xxh_rotl(v1, 1) + xxh_rotl(v2, 7) + xxh_rotl(v3, 12) +
		    xxh_rotl(v4, 18);
		h = xxh_merge(xxh_merge(xxh_merge(xxh_merge(h, v1), v2), v3), v4);
	} else {
		h = XXH_P5;
	}
	h += len;
	for (; p + 8 <= end; p += 8)
		h = xxh_rotl(h ^ xxh_round(0, xxh_rd64(p)), 27) * XXH_P1 + XXH_P4;
	if (p + 4 <= end) {
		h = xxh_rotl(h ^ (uint64_t)xxh_rd32(p) * XXH_P1, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	for (; p < end; p++)
		h = xxh_rotl(h ^ *p * XXH_P5, 11) * XXH_P1;
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	return h ^ (h >> 32);
}

/*
 * ckpt_next_rec - walk the records of an image of @size bytes at @img
 * @off: offset of the record to return; advanced past it
 *
 * Return: the record at *@off, or NULL at the end of the image (fewer
 * than a header's bytes left) or at a record that does not fit there
 * (its length is below a header's or runs past the end: then
 * *@off + sizeof(struct ckpt_hdr) <= @size, and *@off is its offset).
 */
static inline struct ckpt_hdr *ckpt_next_rec(uint8_t *img, size_t size,
					     size_t *off)
{
	struct ckpt_hdr *h;

	if (*off + sizeof(*h) > size)
		return NULL;
	h = (struct ckpt_hdr *)(img + *off);
	if (h->len < sizeof(*h) || h->len > size - *off)
		return NULL;
	*off += h->len;
	return h;
}

/*
 * ckpt_find_rec - the first record of @type in an image
 * @off: set to where the walk stopped: past the record found, at the end
 *       of the image, or at a record that does not fit (see ckpt_next_rec())
 *
 * Return: the record, or NULL.
 */
static inline struct ckpt_hdr *ckpt_find_rec(uint8_t *img, size_t size,
					     uint32_t type, size_t *off)
{
	struct ckpt_hdr *h;

	*off = 0;
	while ((h = ckpt_next_rec(img, size, off)))
		if (h->type == type)
			return h;
	return NULL;
}

/* The checksum a TAIL record at @t of an image at @img must carry. */
static inline uint64_t ckpt_tail_sum(const uint8_t *img, const struct ckpt_tail *t)
{
	return xxh64(img, (const uint8_t *)t - img + sizeof(t->h));
}

#endif
