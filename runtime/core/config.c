/* ARMCI_* environment variables. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "armcii.h"

struct armcii_config armcii_cfg;

/* The first malformed value: reported by armcii_config_check once the
 * device is up and the message can name the rank. */
static char bad_value[256];

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
    if (*bad_value)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bad_value, sizeof bad_value, fmt, ap);
    va_end(ap);
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static long num(const char *name, long def, long lo, long hi)
{
    const char *v = env(name);
    if (!v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 0);
    long mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1024 * 1024, end++;
    if (errno || end == v || *end || x < lo / mult || x > hi / mult) {
        bad("ARMCI_Init: %s=%s is not a number in %ld..%ld", name, v, lo, hi);
        return def;
    }
    return x * mult;
}

static int boolean(const char *name, int def)
{
    const char *v = env(name);
    if (!v)
        return def;
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcasecmp(v, "false"))
        return 0;
    bad("ARMCI_Init: %s=%s is not a boolean (1/0, yes/no, on/off)", name, v);
    return def;
}

static int choice(const char *name, int def, const char *const *names, int n)
{
    const char *v = env(name);
    if (!v)
        return def;
    for (int i = 0; i < n; i++)
        if (names[i] && !strcasecmp(v, names[i]))
            return i;
    char list[128] = "";
    for (int i = 0; i < n; i++)
        if (names[i])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "",
                     names[i]);
    bad("ARMCI_Init: %s=%s is not one of: %s", name, v, list);
    return def;
}

static const char *const order_names[] = {"strict", "partial", "unordered"};
static const char *const allfence_names[] = {"touched", "all"};
static const char *const path_names[] = {"auto", "rdma", "nic", "helper", "source"};
/* source-driven is a protocol for accumulate only */
static const char *const path_names_noacc[] = {"auto", "rdma", "nic", "helper", NULL};

void armcii_config_load(void)
{
    struct armcii_config *c = &armcii_cfg;
    bad_value[0] = '\0';
    c->verbose = boolean("ARMCI_VERBOSE", 0);
    c->stats = boolean("ARMCI_STATS", 0);
    c->device = env("ARMCI_DEVICE") ? env("ARMCI_DEVICE") : "auto";
    c->helper = boolean("ARMCI_HELPER", 1);
    c->helper_bind = boolean("ARMCI_HELPER_BIND", 1);
    c->order = choice("ARMCI_ORDER", ARMCII_ORDER_STRICT, order_names, 3);
    c->allfence = choice("ARMCI_ALLFENCE", ARMCII_ALLFENCE_TOUCHED, allfence_names, 2);
    c->conflict = boolean("ARMCI_CONFLICT_TRACKING", 1);
    c->acc_path = choice("ARMCI_ACC", ARMCII_PATH_AUTO, path_names, 5);
    c->rmw_path = choice("ARMCI_RMW", ARMCII_PATH_AUTO, path_names_noacc, 5);
    c->noncontig_path = choice("ARMCI_NONCONTIG", ARMCII_PATH_AUTO, path_names_noacc, 5);
    c->noncontig_rdma_min = (size_t)num("ARMCI_NONCONTIG_RDMA_MIN", 2048, 1, 1L << 30);
    c->bufs = (int)num("ARMCI_BUFS", 2, 1, 64);
    c->buf_size = (size_t)num("ARMCI_BUF_SIZE", 4096, 512, 1L << 20);
    c->intimation = boolean("ARMCI_FLOW_INTIMATION", 1);
    c->spare_bufs = (int)num("ARMCI_SPARE_BUFS", 4, 0, 1024);
    c->spare_size = (size_t)num("ARMCI_SPARE_SIZE", 32768, 4096, 1L << 24);
    c->coalesce = boolean("ARMCI_ACK_COALESCE", 1);
    c->shm = boolean("ARMCI_SHM", 0);
    c->handoff = boolean("ARMCI_HANDOFF", 0);
    c->handoff_bufs = (int)num("ARMCI_HANDOFF_BUFS", 32, 1, 4096);
    c->handoff_size = (size_t)num("ARMCI_HANDOFF_SIZE", 8192, 8, 1L << 20);
    if (c->spare_size < c->buf_size)
        bad("ARMCI_Init: ARMCI_SPARE_SIZE (%zu) is smaller than ARMCI_BUF_SIZE (%zu)",
            c->spare_size, c->buf_size);
}

void armcii_config_check(void)
{
    if (*bad_value)
        armcii_error(1, "%s", bad_value);
}

void armcii_config_print(const char *device, int nproc, int nnodes)
{
    const struct armcii_config *c = &armcii_cfg;
    printf("ARMCI on emunic: device %s, %d ranks on %d nodes\n"
           "  ARMCI_HELPER=%d ARMCI_HELPER_BIND=%d ARMCI_ORDER=%s ARMCI_CONFLICT_TRACKING=%d "
           "ARMCI_ALLFENCE=%s\n"
           "  ARMCI_ACC=%s ARMCI_RMW=%s ARMCI_NONCONTIG=%s ARMCI_NONCONTIG_RDMA_MIN=%zu\n"
           "  ARMCI_BUFS=%d ARMCI_BUF_SIZE=%zu ARMCI_FLOW_INTIMATION=%d ARMCI_SPARE_BUFS=%d "
           "ARMCI_SPARE_SIZE=%zu ARMCI_ACK_COALESCE=%d\n"
           "  ARMCI_SHM=%d ARMCI_HANDOFF=%d ARMCI_HANDOFF_BUFS=%d ARMCI_HANDOFF_SIZE=%zu\n",
           device, nproc, nnodes, c->helper, c->helper_bind, order_names[c->order], c->conflict,
           allfence_names[c->allfence],
           path_names[c->acc_path], path_names[c->rmw_path], path_names[c->noncontig_path],
           c->noncontig_rdma_min, c->bufs, c->buf_size, c->intimation, c->spare_bufs,
           c->spare_size, c->coalesce, c->shm, c->handoff, c->handoff_bufs, c->handoff_size);
    fflush(stdout);
}
