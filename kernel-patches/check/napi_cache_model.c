// SPDX-License-Identifier: GPL-2.0
/*
 * Model of the per-CPU NAPI skb cache as Linux has it since 6.19
 * (size 128, refill bulk 32, flush of 32 when full, plus the 6.14
 * napi_skb_cache_get_bulk() refill of a non-empty cache) and of the
 * patch 3 of the 7.2 series (kernel-patches/0003-*), which makes size and bulk runtime values with
 * static ranges (the size at most the array's, upstream's 128) and clamps them where the cache uses
 * them; at the defaults it uses the constants (a static key).
 *
 * It checks the two claims the port rests on:
 *  1. at the default sysctl values the ported cache does exactly what the
 *     constant one does: same slab calls with the same counts, same
 *     cache contents, for the same operations and allocation failures;
 *  2. whatever values the sysctls take, in whatever order, no operation
 *     touches an entry at or past the end of the array.
 *
 * --unclamped models a port that computes the get_bulk room as
 * size - skb_count without the clamp (what the 6.12 changelog warns
 * about): it must report an overrun, which shows check 2 can fail.
 *
 * Build and run: cc -std=c11 -O2 -Wall -Wextra -o m napi_cache_model.c && ./m
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ML_SIZE 128U		/* mainline NAPI_SKB_CACHE_SIZE */
#define ML_BULK 32U		/* mainline NAPI_SKB_CACHE_BULK */
#define ML_FREE 32U		/* mainline NAPI_SKB_CACHE_FREE */
#define PORT_MAX ML_SIZE	/* the port's array: upstream's */
#define SIZE_MIN 2
#define SIZE_MAX_SYSCTL 128
#define BULK_MIN 1
#define BULK_MAX_SYSCTL 64

struct cache {
	unsigned int count;
	unsigned int cap;		/* array length */
	unsigned long slots[PORT_MAX + 64];	/* slack to detect overruns */
	unsigned long next_id;
	/* trace of slab traffic, compared between the two models */
	unsigned long allocs, alloc_calls, frees, free_calls;
	bool overrun;
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

static void touch(struct cache *c, unsigned int idx)
{
	if (idx >= c->cap)
		c->overrun = true;
}

/* kmem_cache_alloc_bulk(): all or nothing, as mainline has it now */
static bool slab_alloc(struct cache *c, unsigned int n, unsigned int at,
		       bool fail)
{
	c->alloc_calls++;
	if (fail || !n)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		touch(c, at + i);
		if (at + i < sizeof(c->slots) / sizeof(c->slots[0]))
			c->slots[at + i] = ++c->next_id;
	}
	c->allocs += n;
	return true;
}

static void slab_free(struct cache *c, unsigned int from, unsigned int to)
{
	c->free_calls++;
	for (unsigned int i = from; i < to; i++)
		touch(c, i);
	c->frees += to - from;
}

/* Runtime values as the port reads them: the clamps of the helpers */
struct knobs {
	int size, bulk;		/* what the sysctls hold */
	bool unclamped;
};

static unsigned int k_size(const struct knobs *k)
{
	unsigned int s = (unsigned int)k->size;

	return s < PORT_MAX ? s : PORT_MAX;
}

static unsigned int k_bulk(const struct knobs *k, unsigned int size)
{
	unsigned int b = (unsigned int)k->bulk;

	return b < size / 2 ? b : size / 2;
}

static unsigned int k_free(unsigned int size)
{
	return ML_FREE < size / 2 ? ML_FREE : size / 2;
}

/* ---- operations; k == NULL is mainline with its constants ---- */

static void op_put(struct cache *c, const struct knobs *k)
{
	unsigned int size = k ? k_size(k) : ML_SIZE;
	unsigned int keep;

	touch(c, c->count);
	if (c->count < sizeof(c->slots) / sizeof(c->slots[0]))
		c->slots[c->count] = 0;
	c->count++;
	if (k ? c->count >= size : c->count == ML_SIZE) {
		keep = size - (k ? k_free(size) : ML_FREE);
		slab_free(c, keep, c->count);
		c->count = keep;
	}
}

static bool op_get(struct cache *c, const struct knobs *k, bool fail)
{
	unsigned int bulk;

	if (!c->count) {
		bulk = k ? k_bulk(k, k_size(k)) : ML_BULK;
		if (slab_alloc(c, bulk, 0, fail))
			c->count = bulk;
		if (!c->count)
			return false;
	}
	c->count--;
	touch(c, c->count);
	return true;
}

static unsigned int op_get_bulk(struct cache *c, const struct knobs *k,
				unsigned int n, bool fail, bool fail2)
{
	unsigned int size, room, bulk;

	if (c->count >= n)
		goto get;
	if (k) {
		size = k_size(k);
		if (k->unclamped)
			room = size - c->count;	/* wraps when count > size */
		else
			room = size > c->count ? size - c->count : 0;
		bulk = k_bulk(k, size);
		bulk = room < bulk ? room : bulk;
	} else {
		bulk = ML_SIZE - c->count < ML_BULK ? ML_SIZE - c->count
						     : ML_BULK;
	}
	/* the patch asks the slab only for a refill of at least one */
	if ((!k || bulk) && slab_alloc(c, bulk, c->count, fail))
		c->count += bulk;
	if (c->count >= n)
		goto get;
	/*
	 * The rest comes straight from the slab into the caller's array, not
	 * through the cache; the cache hands out all it holds either way.
	 */
	c->alloc_calls++;
	if (!fail2)
		c->allocs += n - c->count;
	n = c->count;
get:
	for (unsigned int i = c->count - n; i < c->count; i++)
		touch(c, i);
	c->count -= n;
	return n;
}

static int run(bool unclamped, unsigned long ops, uint64_t seed)
{
	static struct cache ref, port;
	struct knobs k = { .size = ML_SIZE, .bulk = ML_BULK,
			   .unclamped = unclamped };
	unsigned long writes = 0, mism = 0;
	bool at_default = true;

	memset(&ref, 0, sizeof(ref));
	memset(&port, 0, sizeof(port));
	ref.cap = ML_SIZE;
	port.cap = PORT_MAX;
	rng_state = seed;

	unsigned int put_pct = 55;

	for (unsigned long i = 0; i < ops; i++) {
		uint32_t r = rnd() % 100;
		bool fail = rnd() % 50 == 0, fail2 = rnd() % 2;
		/* mostly batches as XDP callers ask for, sometimes far larger */
		unsigned int n = rnd() % 8 ? 1 + rnd() % 16 : 1 + rnd() % 256;

		/* bursts of frees and of allocations fill and drain the cache */
		if (i % 1000 == 0)
			put_pct = 30 + 25 * (rnd() % 3);

		/* second half: the sysctls take random in-range values */
		if (i >= ops / 2 && r < 2) {
			if (rnd() % 2)
				k.size = SIZE_MIN + rnd() % (SIZE_MAX_SYSCTL - SIZE_MIN + 1);
			else
				k.bulk = BULK_MIN + rnd() % (BULK_MAX_SYSCTL - BULK_MIN + 1);
			at_default = false;
			writes++;
			continue;
		}
		r = rnd() % 100;
		if (r < put_pct) {
			op_put(&port, &k);
			if (at_default)
				op_put(&ref, NULL);
		} else if (r < put_pct + (100 - put_pct) * 3 / 4) {
			op_get(&port, &k, fail);
			if (at_default)
				op_get(&ref, NULL, fail);
		} else {
			op_get_bulk(&port, &k, n, fail, fail2);
			if (at_default)
				op_get_bulk(&ref, NULL, n, fail, fail2);
		}
		if (at_default &&
		    (ref.count != port.count || ref.allocs != port.allocs ||
		     ref.alloc_calls != port.alloc_calls ||
		     ref.frees != port.frees ||
		     ref.free_calls != port.free_calls ||
		     memcmp(ref.slots, port.slots,
			    ref.count * sizeof(ref.slots[0]))))
			mism++;
		if (port.overrun)
			break;
	}
	printf("%s: %lu ops, %lu sysctl writes, default-phase mismatches %lu, "
	       "slab calls at default %lu alloc / %lu free, overrun %s\n",
	       unclamped ? "unclamped port" : "port", ops, writes, mism,
	       ref.alloc_calls, ref.free_calls, port.overrun ? "YES" : "no");
	if (ref.overrun)
		printf("reference model overran its own array: model bug\n");
	return (mism || port.overrun || ref.overrun) ? 1 : 0;
}

/*
 * The case the clamp exists for: a full cache at size 128, the size
 * lowered below what it holds, then a large get_bulk() before any put.
 */
static int directed(bool unclamped)
{
	static struct cache c;
	struct knobs k = { .size = 128, .bulk = 64, .unclamped = unclamped };

	memset(&c, 0, sizeof(c));
	c.cap = PORT_MAX;
	while (c.count < 120)
		op_put(&c, &k);
	k.size = 100;
	op_get_bulk(&c, &k, 128, false, false);
	printf("%s: 120 cached, size lowered to 100, get_bulk(128): overrun %s\n",
	       unclamped ? "unclamped port" : "port", c.overrun ? "YES" : "no");
	return c.overrun;
}

int main(int argc, char **argv)
{
	bool unclamped = argc > 1 && !strcmp(argv[1], "--unclamped");
	int bad = directed(unclamped);

	for (uint64_t seed = 1; seed <= 20; seed++)
		bad |= run(unclamped, 2000000, seed * 0x9e3779b97f4a7c15ULL);
	printf("%s\n", bad ? "FAIL" : "OK");
	return bad;
}
