/* Walking byte ranges of a strided section. */
#include "range.h"

#include <string.h>

void armcii_range_walk(const struct armcii_strided *s, size_t off, size_t len,
                       armcii_range_fn fn, void *arg)
{
    size_t run = (size_t)s->count[0];
    if (!run || !len)
        return;
    size_t i = off / run, in = off % run, done = 0;
    while (done < len) {
        size_t n = run - in;
        if (n > len - done)
            n = len - done;
        fn(arg, armcii_strided_offset(s, i) + in, done, n);
        done += n;
        in = 0;
        i++;
    }
}

struct copy_arg {
    char *base;
    char *buf;
    int acc_type;
    const void *scale;
};

static void pack_piece(void *a, size_t so, size_t bo, size_t n)
{
    struct copy_arg *c = a;
    memcpy(c->buf + bo, c->base + so, n);
}

static void unpack_piece(void *a, size_t so, size_t bo, size_t n)
{
    struct copy_arg *c = a;
    memcpy(c->base + so, c->buf + bo, n);
}

static void acc_piece(void *a, size_t so, size_t bo, size_t n)
{
    struct copy_arg *c = a;
    armcii_acc(c->acc_type, c->scale, c->base + so, c->buf + bo, n);
}

void armcii_pack_range(const void *base, const struct armcii_strided *s, size_t off,
                       size_t len, void *buf)
{
    struct copy_arg c = {(char *)base, buf, 0, NULL};
    armcii_range_walk(s, off, len, pack_piece, &c);
}

void armcii_unpack_range(void *base, const struct armcii_strided *s, size_t off, size_t len,
                         const void *buf)
{
    struct copy_arg c = {base, (char *)buf, 0, NULL};
    armcii_range_walk(s, off, len, unpack_piece, &c);
}

void armcii_acc_range(int acc_type, const void *scale, void *base,
                      const struct armcii_strided *s, size_t off, size_t len, const void *buf)
{
    struct copy_arg c = {base, (char *)buf, acc_type, scale};
    armcii_range_walk(s, off, len, acc_piece, &c);
}
