/* The fault plan for --fault and --faults (docs/faults.md has the grammar):
 *
 *   SPEC   := KIND '=' MAIN { ',' OPTION }
 *   OPTION := 'node=' nN | 'link=' nA:nB | 'rank=' rN | 'pair=' rA:rB |
 *             'op=' OP{+OP} | 'after=' N | '@' T ['+' D]
 *
 * MAIN depends on the kind (a probability, a distribution, a node, a link
 * or a rank) and may carry the time window itself (linkdown=n0:n1@2s+0.5s).
 * Every mistake is one line naming the spec (or FILE:LINE) and exit 2. */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emunic/msg.h"
#include "msg.h"
#include "netopts.h"

struct ctx {
    const char *where; /* "--fault 'SPEC'" or "FILE:LINE" */
    uint32_t nnodes, nranks;
};

#define BAD(c, ...) bad(c, __VA_ARGS__)

static int bad(const struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const struct ctx *c, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return msg_usage("%s: %s", c->where, what);
}

static int parse_double(const char *s, double *out, const char **end)
{
    char *e = NULL;
    if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
        return -1;
    errno = 0;
    double v = strtod(s, &e);
    if (errno || e == s || !isfinite(v))
        return -1;
    *out = v;
    *end = e;
    return 0;
}

/* A whole probability in [0, 1]. */
static int parse_prob(const char *s, double *out)
{
    const char *e;
    return parse_double(s, out, &e) == 0 && *e == 0 && *out >= 0 && *out <= 1 ? 0 : -1;
}

/* A duration: NUMBER[s|ms|us|ns] (a bare number is seconds), up to a week. */
static int parse_dur(const char *s, size_t n, int64_t *ns)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    double v;
    const char *e;
    if (parse_double(buf, &v, &e) != 0)
        return -1;
    double mul = !*e || !strcmp(e, "s") ? 1e9 : !strcmp(e, "ms") ? 1e6 : !strcmp(e, "us") ? 1e3
                                               : !strcmp(e, "ns") ? 1 : -1;
    if (mul < 0 || v * mul > 7 * 86400e9)
        return -1;
    *ns = (int64_t)llround(v * mul);
    return 0;
}

/* A bandwidth: NUMBER[B|KB|MB|GB][/s] (bytes per second, powers of 1000). */
static int parse_bw(const char *s, double *out)
{
    double v;
    const char *e;
    if (parse_double(s, &v, &e) != 0 || v <= 0)
        return -1;
    char unit[16];
    size_t n = strlen(e);
    if (n >= sizeof unit)
        return -1;
    memcpy(unit, e, n + 1);
    if (n >= 2 && !strcmp(unit + n - 2, "/s"))
        unit[n - 2] = 0;
    double mul = !*unit || !strcmp(unit, "B") ? 1 : !strcmp(unit, "KB") ? 1e3 : !strcmp(unit, "MB") ? 1e6
                                                  : !strcmp(unit, "GB") ? 1e9 : -1;
    if (mul < 0)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_id(const char *s, size_t n, char pfx, uint32_t limit, int32_t *out)
{
    if (n < 2 || s[0] != pfx)
        return -1;
    uint64_t v = 0;
    for (size_t i = 1; i < n; i++) {
        if (!isdigit((unsigned char)s[i]) || v > 100000000)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v >= limit)
        return -2;
    *out = (int32_t)v;
    return 0;
}

/* nA:nB or rA:rB */
static int parse_pair(const struct ctx *c, const char *s, size_t n, char pfx, int32_t *a, int32_t *b)
{
    const char *colon = memchr(s, ':', n);
    uint32_t limit = pfx == 'n' ? c->nnodes : c->nranks;
    const char *what = pfx == 'n' ? "node" : "rank";
    if (!colon)
        return BAD(c, "expected %c<%s>:%c<%s>, not '%.*s'", pfx, what, pfx, what, (int)n, s);
    int r1 = parse_id(s, (size_t)(colon - s), pfx, limit, a);
    int r2 = parse_id(colon + 1, n - (size_t)(colon - s) - 1, pfx, limit, b);
    if (r1 == -2 || r2 == -2)
        return BAD(c, "%s out of range in '%.*s' (the job has %u)", what, (int)n, s, limit);
    if (r1 || r2)
        return BAD(c, "expected %c<%s>:%c<%s>, not '%.*s'", pfx, what, pfx, what, (int)n, s);
    if (*a == *b)
        return BAD(c, "'%.*s' names the same %s twice", (int)n, s, what);
    return 0;
}

static int parse_one(const struct ctx *c, const char *s, size_t n, char pfx, int32_t *out)
{
    uint32_t limit = pfx == 'n' ? c->nnodes : c->nranks;
    const char *what = pfx == 'n' ? "node" : "rank";
    int r = parse_id(s, n, pfx, limit, out);
    if (r == -2)
        return BAD(c, "%s out of range in '%.*s' (the job has %u)", what, (int)n, s, limit);
    if (r)
        return BAD(c, "expected a %s as %c<number>, not '%.*s'", what, pfx, (int)n, s);
    return 0;
}

/* @T[+D] */
static int parse_window(const struct ctx *c, const char *s, size_t n, struct emu_fault_rule *r)
{
    const char *plus = memchr(s, '+', n);
    size_t tn = plus ? (size_t)(plus - s) : n;
    if (parse_dur(s, tn, &r->start_ns))
        return BAD(c, "bad start time '%.*s' (use e.g. 2s, 500ms)", (int)tn, s);
    r->end_ns = -1;
    if (plus) {
        int64_t d;
        if (parse_dur(plus + 1, n - tn - 1, &d) || d <= 0)
            return BAD(c, "bad duration '%.*s' (use e.g. 0.5s, 20ms)", (int)(n - tn - 1), plus + 1);
        r->end_ns = r->start_ns + d;
    }
    return 0;
}

static const struct {
    const char *name;
    unsigned op;
} op_names[] = {
    {"nop", EMU_OP_NOP},       {"flush", EMU_OP_NOP}, {"write", EMU_OP_WRITE}, {"put", EMU_OP_WRITE},
    {"read", EMU_OP_READ},     {"get", EMU_OP_READ},  {"atomic", EMU_OP_ATOMIC},
    {"fetch", EMU_OP_FETCH_ATOMIC}, {"am", EMU_OP_AM}, {"module", EMU_OP_MODULE}, {"ack", EMU_OP_ACK},
};

static int parse_ops(const struct ctx *c, const char *s, size_t n, uint32_t *mask)
{
    *mask = 0;
    while (n) {
        const char *p = memchr(s, '+', n);
        size_t k = p ? (size_t)(p - s) : n;
        size_t i;
        for (i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
            if (strlen(op_names[i].name) == k && !strncmp(op_names[i].name, s, k))
                break;
        if (i == sizeof op_names / sizeof op_names[0])
            return BAD(c, "unknown operation '%.*s' (write, read, atomic, fetch, am, nop, module, ack)",
                       (int)k, s);
        *mask |= 1u << op_names[i].op;
        if (!p)
            break;
        n -= k + 1;
        s = p + 1;
        if (!n)
            return BAD(c, "empty operation after '+'");
    }
    if (!*mask)
        return BAD(c, "op= needs an operation");
    return 0;
}

static const char *const kind_names[EMU_FAULT_KIND_COUNT_] = {
    [EMU_FAULT_DROP] = "drop",         [EMU_FAULT_DUP] = "dup",       [EMU_FAULT_CORRUPT] = "corrupt",
    [EMU_FAULT_REORDER] = "reorder",   [EMU_FAULT_DELAY] = "delay",   [EMU_FAULT_LINKDOWN] = "linkdown",
    [EMU_FAULT_THROTTLE] = "throttle", [EMU_FAULT_SLOW] = "slow",     [EMU_FAULT_NICHANG] = "hang",
    [EMU_FAULT_NICCRASH] = "crash",    [EMU_FAULT_KILL] = "kill",     [EMU_FAULT_REGFAIL] = "regfail",
    [EMU_FAULT_EQFULL] = "eqfull",     [EMU_FAULT_CREDITS] = "credits",
};

/* The MAIN part of each kind (window already cut off). */
static int parse_main(const struct ctx *c, struct emu_fault_rule *r, const char *v, size_t n)
{
    char buf[128];
    if (n >= sizeof buf)
        return BAD(c, "value too long");
    memcpy(buf, v, n);
    buf[n] = 0;
    switch (r->kind) {
    case EMU_FAULT_DROP:
        if (!strncmp(buf, "ge:", 3)) {
            /* Gilbert-Elliott: ge:P:R[:LOSS] */
            char *f[3] = {NULL, NULL, NULL};
            int k = 0;
            for (char *t = strtok(buf + 3, ":"); t; t = strtok(NULL, ":"))
                if (k < 3)
                    f[k++] = t;
                else
                    return BAD(c, "drop=ge:P:R[:LOSS] takes at most three numbers");
            if (k < 2 || parse_prob(f[0], &r->ge_p) || parse_prob(f[1], &r->ge_r) ||
                (k == 3 ? parse_prob(f[2], &r->ge_loss) : (r->ge_loss = 1, 0)))
                return BAD(c, "drop=ge:P:R[:LOSS] needs probabilities in [0,1] (good->bad, bad->good, loss when bad)");
            if (r->ge_r <= 0)
                return BAD(c, "drop=ge: the bad->good probability must be above 0");
            return 0;
        }
        /* fall through */
    case EMU_FAULT_DUP:
    case EMU_FAULT_CORRUPT:
    case EMU_FAULT_REORDER:
        if (parse_prob(buf, &r->prob))
            return BAD(c, "%s needs a probability from 0 to 1, not '%s'", kind_names[r->kind], buf);
        return 0;
    case EMU_FAULT_DELAY: {
        /* D[~J]: D plus uniform jitter in [0, J] */
        char *t = strchr(buf, '~');
        int64_t d, j = 0;
        if (t)
            *t = 0;
        if (parse_dur(buf, strlen(buf), &d) || (t && parse_dur(t + 1, strlen(t + 1), &j)) || d > 10000000000ll ||
            j > 10000000000ll)
            return BAD(c, "delay needs D[~J] durations up to 10s (e.g. 50us~20us), not '%.*s'", (int)n, v);
        r->delay_ns = (uint64_t)d;
        r->jitter_ns = (uint64_t)j;
        r->prob = 1;
        return 0;
    }
    case EMU_FAULT_LINKDOWN:
        return parse_pair(c, buf, n, 'n', &r->node_a, &r->node_b);
    case EMU_FAULT_THROTTLE: {
        /* nA:nB:BW */
        char *l = strrchr(buf, ':');
        if (!l || l == buf || !memchr(buf, ':', (size_t)(l - buf)))
            return BAD(c, "throttle needs nA:nB:BANDWIDTH (e.g. n0:n1:100MB/s)");
        *l = 0;
        if (parse_pair(c, buf, strlen(buf), 'n', &r->node_a, &r->node_b))
            return 2;
        if (parse_bw(l + 1, &r->factor))
            return BAD(c, "bad bandwidth '%s' (use e.g. 100MB/s, 2GB/s)", l + 1);
        return 0;
    }
    case EMU_FAULT_SLOW: {
        /* nN:FACTOR */
        char *l = strchr(buf, ':');
        const char *e;
        if (!l)
            return BAD(c, "slow needs nN:FACTOR (e.g. n1:4)");
        *l = 0;
        if (parse_one(c, buf, strlen(buf), 'n', &r->node_a))
            return 2;
        if (parse_double(l + 1, &r->factor, &e) || *e || r->factor < 1 || r->factor > 1e6)
            return BAD(c, "slow factor must be a number from 1 to 1000000, not '%s'", l + 1);
        return 0;
    }
    case EMU_FAULT_NICHANG:
    case EMU_FAULT_NICCRASH:
        return parse_one(c, buf, n, 'n', &r->node_a);
    case EMU_FAULT_KILL:
        return parse_one(c, buf, n, 'r', &r->rank_a);
    case EMU_FAULT_REGFAIL:
    case EMU_FAULT_EQFULL:
        if (parse_prob(buf, &r->prob))
            return BAD(c, "%s needs a probability from 0 to 1 (1: every one), not '%s'", kind_names[r->kind], buf);
        return 0;
    case EMU_FAULT_CREDITS:
        /* nN: node N gets no credits; nN:nM: none for its traffic to M */
        if (memchr(buf, ':', n))
            return parse_pair(c, buf, n, 'n', &r->node_a, &r->node_b);
        return parse_one(c, buf, n, 'n', &r->node_a);
    default:
        return BAD(c, "unknown fault kind");
    }
}

static int parse_spec(const struct ctx *c, const char *spec, struct emu_fault_rule *r)
{
    memset(r, 0, sizeof *r);
    r->node_a = r->node_b = r->rank_a = r->rank_b = -1;
    r->end_ns = -1;
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return BAD(c, "expected KIND=VALUE (e.g. drop=0.05)");
    size_t kn = (size_t)(eq - spec);
    unsigned k;
    for (k = 1; k < EMU_FAULT_KIND_COUNT_; k++)
        if (strlen(kind_names[k]) == kn && !strncmp(kind_names[k], spec, kn))
            break;
    if (k == EMU_FAULT_KIND_COUNT_)
        return BAD(c, "unknown fault '%.*s' (drop, dup, corrupt, reorder, delay, linkdown, throttle, slow, "
                      "hang, crash, kill, regfail, eqfull, credits)", (int)kn, spec);
    r->kind = k;
    const char *v = eq + 1;
    const char *comma = strchr(v, ',');
    size_t vn = comma ? (size_t)(comma - v) : strlen(v);
    const char *at = memchr(v, '@', vn);
    bool windowed = false;
    if (!(at ? (size_t)(at - v) : vn))
        return BAD(c, "'%s' needs a value", kind_names[k]);
    if (at) {
        if (parse_window(c, at + 1, vn - (size_t)(at - v) - 1, r))
            return 2;
        windowed = true;
        vn = (size_t)(at - v);
    }
    if (parse_main(c, r, v, vn))
        return 2;
    /* a kind whose value names its nodes or ranks takes no option naming
     * others: one would silently replace the other */
    bool named_nodes = r->node_a >= 0, named_ranks = r->rank_a >= 0;
    /* options */
    while (comma) {
        const char *o = comma + 1;
        comma = strchr(o, ',');
        size_t on = comma ? (size_t)(comma - o) : strlen(o);
        if (on == 0)
            return BAD(c, "empty option after ','");
        if (o[0] == '@') {
            if (parse_window(c, o + 1, on - 1, r))
                return 2;
            windowed = true;
            continue;
        }
        const char *oe = memchr(o, '=', on);
        if (!oe)
            return BAD(c, "expected an option KEY=VALUE or @T+D, not '%.*s'", (int)on, o);
        size_t keyn = (size_t)(oe - o), valn = on - keyn - 1;
        const char *ov = oe + 1;
        int rc;
        if (named_nodes && keyn == 4 && (!strncmp(o, "node", 4) || !strncmp(o, "link", 4)))
            return BAD(c, "%s names its nodes in the value (%s=nN or nN:nM), not with %.4s=", kind_names[k],
                       kind_names[k], o);
        if (named_ranks && keyn == 4 && (!strncmp(o, "rank", 4) || !strncmp(o, "pair", 4)))
            return BAD(c, "%s names its rank in the value (%s=rN), not with %.4s=", kind_names[k],
                       kind_names[k], o);
        if (keyn == 4 && !strncmp(o, "node", 4))
            rc = parse_one(c, ov, valn, 'n', &r->node_a), r->node_b = -1;
        else if (keyn == 4 && !strncmp(o, "link", 4))
            rc = parse_pair(c, ov, valn, 'n', &r->node_a, &r->node_b);
        else if (keyn == 4 && !strncmp(o, "rank", 4))
            rc = parse_one(c, ov, valn, 'r', &r->rank_a), r->rank_b = -1;
        else if (keyn == 4 && !strncmp(o, "pair", 4))
            rc = parse_pair(c, ov, valn, 'r', &r->rank_a, &r->rank_b);
        else if (keyn == 2 && !strncmp(o, "op", 2))
            rc = parse_ops(c, ov, valn, &r->op_mask);
        else if (keyn == 5 && !strncmp(o, "after", 5) && k == EMU_FAULT_KILL) {
            char nb[32];
            char *e = NULL;
            if (valn == 0 || valn >= sizeof nb || !isdigit((unsigned char)ov[0]))
                return BAD(c, "after= needs a whole number of messages");
            memcpy(nb, ov, valn);
            nb[valn] = 0;
            errno = 0;
            unsigned long long a = strtoull(nb, &e, 10);
            if (errno || *e || a == 0)
                return BAD(c, "after= needs a whole number of messages above 0, not '%s'", nb);
            r->after_msgs = a;
            rc = 0;
        } else
            return BAD(c, "unknown option '%.*s' for %s (node=, link=, rank=, pair=, op=, @T+D%s)", (int)keyn, o,
                       kind_names[k], k == EMU_FAULT_KILL ? ", after=" : "");
        if (rc)
            return 2;
    }
    /* what each kind needs */
    switch (k) {
    case EMU_FAULT_LINKDOWN:
    case EMU_FAULT_NICHANG:
    case EMU_FAULT_CREDITS:
        if (!windowed || r->end_ns < 0)
            return BAD(c, "%s needs a window @T+D (e.g. @2s+0.5s)", kind_names[k]);
        break;
    case EMU_FAULT_NICCRASH:
        if (!windowed)
            return BAD(c, "crash needs a time @T (e.g. crash=n1@1s)");
        break;
    case EMU_FAULT_KILL:
        if (windowed == (r->after_msgs != 0))
            return BAD(c, "kill needs either a time @T or after=N messages (e.g. kill=r3@1s)");
        break;
    default:
        break;
    }
    if ((k == EMU_FAULT_NICHANG || k == EMU_FAULT_NICCRASH || k == EMU_FAULT_KILL) &&
        (r->op_mask || (k != EMU_FAULT_KILL && r->rank_a >= 0)))
        return BAD(c, "%s takes no op=/rank= scope", kind_names[k]);
    /* an allocation has no operation, peer or link */
    if ((k == EMU_FAULT_REGFAIL || k == EMU_FAULT_EQFULL) && (r->op_mask || r->rank_b >= 0 || r->node_b >= 0))
        return BAD(c, "%s takes only node=, rank= and @T+D scopes", kind_names[k]);
    return 0;
}

static int add(const struct ctx *c, const char *spec, struct emu_fault_rule *rules, uint32_t *nrules)
{
    if (*nrules >= EMU_FAULT_MAX)
        return BAD(c, "too many fault rules (at most %d)", EMU_FAULT_MAX);
    if (parse_spec(c, spec, &rules[*nrules]))
        return 2;
    (*nrules)++;
    return 0;
}

/* A plan is a small text file. Anything else (a device, a FIFO, a
 * directory, megabytes, binary) is refused up front instead of being read
 * forever: /dev/zero yields NUL bytes without end. */
#define PLAN_MAX (1 << 20)

static int read_plan(const char *file, char **out, size_t *len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return msg_usage("--faults %s: %s", file, strerror(errno));
    struct stat st;
    int rc = 0;
    char *buf = NULL;
    size_t n = 0;
    if (fstat(fd, &st) != 0)
        rc = msg_usage("--faults %s: %s", file, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = msg_usage("--faults %s: not a regular file", file);
    else if (st.st_size > PLAN_MAX)
        rc = msg_usage("--faults %s: larger than %d bytes", file, PLAN_MAX);
    else if (!(buf = malloc(PLAN_MAX + 1)))
        rc = msg_usage("--faults %s: out of memory", file);
    while (!rc) { /* read to the end: a file may grow after the fstat */
        ssize_t k = read(fd, buf + n, PLAN_MAX + 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            rc = msg_usage("--faults %s: read error: %s", file, strerror(errno));
        else if (k == 0)
            break;
        else if ((n += (size_t)k) > PLAN_MAX)
            rc = msg_usage("--faults %s: larger than %d bytes", file, PLAN_MAX);
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

static int parse_file(const char *file, struct ctx *c, struct emu_fault_rule *rules, uint32_t *nrules)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_plan(file, &text, &len);
    if (rc)
        return rc;
    char where[600];
    unsigned ln = 0;
    for (char *line = text; !rc && line < text + len;) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        char *end = nl ? nl : text + len;
        ln++;
        snprintf(where, sizeof where, "%s:%u", file, ln);
        c->where = where;
        if (memchr(line, 0, (size_t)(end - line))) {
            rc = BAD(c, "a NUL byte: not a text file");
            break;
        }
        if (end - line >= 1024) {
            rc = BAD(c, "line too long");
            break;
        }
        *end = 0;
        char *next = nl ? nl + 1 : text + len;
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        line = next;
        if (!*s)
            continue;
        for (char *p = s; *p; p++)
            if (isspace((unsigned char)*p)) {
                rc = BAD(c, "one fault per line, without spaces: '%s'", s);
                break;
            }
        if (!rc)
            rc = add(c, s, rules, nrules);
    }
    free(text);
    return rc;
}

int faults_parse(const char *const *specs, size_t nspecs, const char *file, uint32_t nnodes,
                 uint32_t nranks, struct emu_fault_rule *rules, uint32_t *nrules)
{
    struct ctx c = {.nnodes = nnodes, .nranks = nranks};
    char where[320];
    *nrules = 0;
    for (size_t i = 0; i < nspecs; i++) {
        snprintf(where, sizeof where, "--fault '%.256s'", specs[i]);
        c.where = where;
        if (add(&c, specs[i], rules, nrules))
            return 2;
    }
    if (file && parse_file(file, &c, rules, nrules))
        return 2;
    return 0;
}
