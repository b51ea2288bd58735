/* Strided sections (kernels.h): validation of one side's shape, run
 * enumeration and the copies between a section and a packed buffer. */
#include "kernels.h"

#include <stdint.h>
#include <string.h>

/* *why must outlive the call, so every message is a literal, one per index. */
static const char *const count_negative[ARMCII_MAX_LEVELS + 1] = {
    "count[0] < 0", "count[1] < 0", "count[2] < 0", "count[3] < 0",
    "count[4] < 0", "count[5] < 0", "count[6] < 0", "count[7] < 0",
    "count[8] < 0",
};
static const char *const stride_negative[ARMCII_MAX_LEVELS] = {
    "stride[0] < 0", "stride[1] < 0", "stride[2] < 0",
    "stride[3] < 0", "stride[4] < 0", "stride[5] < 0",
    "stride[6] < 0", "stride[7] < 0",
};
static const char *const stride_overlaps[ARMCII_MAX_LEVELS] = {
    "stride[0] < count[0]",
    "stride[1] smaller than the block below it",
    "stride[2] smaller than the block below it",
    "stride[3] smaller than the block below it",
    "stride[4] smaller than the block below it",
    "stride[5] smaller than the block below it",
    "stride[6] smaller than the block below it",
    "stride[7] smaller than the block below it",
};
static const char too_large[] = "section larger than the address space";

static int fail(const char **why, const char *msg)
{
    if (why)
        *why = msg;
    return -1;
}

/* a * b into *out, or 0 when it does not fit in a size_t. */
static int mul_fits(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

static const char *check_counts(int levels, const int *count)
{
    for (int i = 0; i <= levels; i++)
        if (count[i] < 0)
            return count_negative[i];
    return NULL;
}

/* Each level's stride must clear the whole block of the level below it, so
 * no two runs overlap. Products of two ints fit in long long. */
static const char *check_strides(int levels, const int *stride, const int *count)
{
    for (int i = 0; i < levels; i++)
        if (stride[i] < 0)
            return stride_negative[i];
    for (int i = 0; i < levels; i++) {
        long long below = i == 0 ? count[0] : (long long)stride[i - 1] * count[i];
        if (stride[i] < below)
            return stride_overlaps[i];
    }
    return NULL;
}

/* The runs, the bytes and the farthest byte reached (the top stride times
 * its count bounds every offset) must all be representable. */
static int sizes_fit(int levels, const int *stride, const int *count)
{
    size_t runs = 1, bytes, span;
    for (int i = 1; i <= levels; i++)
        if (!mul_fits(runs, (size_t)count[i], &runs))
            return 0;
    if (!mul_fits(runs, (size_t)count[0], &bytes))
        return 0;
    if (levels > 0 && !mul_fits((size_t)stride[levels - 1], (size_t)count[levels], &span))
        return 0;
    return 1;
}

int armcii_strided_set(struct armcii_strided *s, int levels, const int *stride,
                       const int *count, const char **why)
{
    const char *bad;
    if (levels < 0)
        return fail(why, "stride_levels < 0");
    if (levels > ARMCII_MAX_LEVELS)
        return fail(why, "stride_levels > 8");
    if (!count)
        return fail(why, "count is NULL");
    if (levels > 0 && !stride)
        return fail(why, "stride is NULL");
    if ((bad = check_counts(levels, count)) || (bad = check_strides(levels, stride, count)))
        return fail(why, bad);
    if (!sizes_fit(levels, stride, count))
        return fail(why, too_large);

    memset(s, 0, sizeof *s);
    s->levels = levels;
    for (int i = 0; i <= levels; i++)
        s->count[i] = count[i];
    for (int i = 0; i < levels; i++)
        s->stride[i] = stride[i];
    return 0;
}

size_t armcii_strided_runs(const struct armcii_strided *s)
{
    size_t runs = 1;
    for (int i = 1; i <= s->levels; i++)
        runs *= (size_t)s->count[i];
    return runs;
}

size_t armcii_strided_bytes(const struct armcii_strided *s)
{
    return armcii_strided_runs(s) * (size_t)s->count[0];
}

/* Split run number i into one index per level, count[1] the fastest. */
static void run_index(const struct armcii_strided *s, size_t i, size_t idx[ARMCII_MAX_LEVELS + 1])
{
    for (int k = 1; k <= s->levels; k++) {
        size_t n = (size_t)s->count[k];
        idx[k] = i % n;
        i /= n;
    }
}

static size_t index_offset(const struct armcii_strided *s, const size_t idx[ARMCII_MAX_LEVELS + 1])
{
    size_t off = 0;
    for (int k = 1; k <= s->levels; k++)
        off += idx[k] * (size_t)s->stride[k - 1];
    return off;
}

size_t armcii_strided_offset(const struct armcii_strided *s, size_t i)
{
    size_t idx[ARMCII_MAX_LEVELS + 1];
    if (i >= armcii_strided_runs(s))
        return 0; /* outside the contract; never divide by a zero count */
    run_index(s, i, idx);
    return index_offset(s, idx);
}

/* Walks runs [first, first+n) keeping the offset up to date as an
 * odometer, which is cheaper than re-deriving every offset. */
struct run_iter {
    const struct armcii_strided *s;
    size_t idx[ARMCII_MAX_LEVELS + 1];
    size_t off;
};

/* Clamp [first, first+nruns) to the section and position the iterator on
 * first; returns the number of runs to visit (0 when the section is empty). */
static size_t iter_start(struct run_iter *it, const struct armcii_strided *s,
                         size_t first, size_t nruns)
{
    size_t runs = armcii_strided_runs(s);
    if (first >= runs || s->count[0] == 0)
        return 0;
    it->s = s;
    run_index(s, first, it->idx);
    it->off = index_offset(s, it->idx);
    return nruns < runs - first ? nruns : runs - first;
}

/* Offset of the current run, then step to the next one. */
static size_t iter_next(struct run_iter *it)
{
    const struct armcii_strided *s = it->s;
    size_t cur = it->off;
    for (int k = 1; k <= s->levels; k++) {
        size_t step = (size_t)s->stride[k - 1];
        if (++it->idx[k] < (size_t)s->count[k]) {
            it->off += step;
            break;
        }
        it->off -= (it->idx[k] - 1) * step; /* wrap this digit back to 0 */
        it->idx[k] = 0;
    }
    return cur;
}

size_t armcii_pack(const void *base, const struct armcii_strided *s, size_t first,
                   size_t nruns, void *buf)
{
    const char *sec = base;
    char *out = buf;
    size_t len = (size_t)s->count[0];
    struct run_iter it;
    size_t n = iter_start(&it, s, first, nruns);
    for (size_t r = 0; r < n; r++, out += len)
        memcpy(out, sec + iter_next(&it), len);
    return n * len;
}

size_t armcii_unpack(void *base, const struct armcii_strided *s, size_t first,
                     size_t nruns, const void *buf)
{
    char *sec = base;
    const char *in = buf;
    size_t len = (size_t)s->count[0];
    struct run_iter it;
    size_t n = iter_start(&it, s, first, nruns);
    for (size_t r = 0; r < n; r++, in += len)
        memcpy(sec + iter_next(&it), in, len);
    return n * len;
}
