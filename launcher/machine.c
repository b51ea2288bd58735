/* Machine profiles for --machine: the built-in ideal machine (no added
 * delay), or a YAML profile (share/emunic/machines/NAME.yaml, or any FILE)
 * parsed with libyaml's document loader. Keys (docs/machines.md):
 *
 *   name: bgq                  optional, defaults to the file's base name
 *   description: "..."         optional, free text
 *   overhead_ns: 1138          required, >= 0  per message, injecting NIC
 *   ack_overhead_ns: 948       optional, >= 0  the same for a put's data-less
 *                              completion ack (default: overhead_ns)
 *   latency_ns: 262            required, >= 0  nearest neighbour
 *   hop_ns: 35                 required, >= 0  each further hop
 *   link_bw: 1.8e9             required, >= 0  bytes/s, 0 = infinite
 *   mtu: 512                   required, >= 0  packet payload bytes
 *   fifo_depth: 0, credits: 0  optional, >= 0  messages in flight per NIC /
 *                              per destination NIC, 0 = unbounded
 *   dims: [4, 4, 4, 8, 2]      optional: torus/mesh sizes A, B, C, ...
 *   torus: [true, ...]         optional: wrap-around per dimension
 *                              (default: every dimension wraps)
 *   mapping: ABCDET            optional: see emu_model_mapping_ok
 *
 * Every error is one line "emunic-run: FILE:LINE: what", exit status 2. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "emunic/model.h"
#include "machine.h"
#include "msg.h"
#include "netopts.h"

#ifndef EMUNIC_SOURCE_DIR
#define EMUNIC_SOURCE_DIR ""
#endif

static const char *const PROFILES = "xt5, bgp, bgq, p7ih";

struct ctx {
    const char *file;
    yaml_document_t *doc;
};

static int err(const struct ctx *c, const yaml_node_t *n, const char *what)
{
    return msg_usage("%s:%lu: %s", c->file, n ? (unsigned long)n->start_mark.line + 1 : 1ul, what);
}

static int scalar_num(const struct ctx *c, const char *key, yaml_node_t *v, double max, double *out)
{
    char what[160];
    if (v->type != YAML_SCALAR_NODE) {
        snprintf(what, sizeof what, "%s: wrong type (a number expected)", key);
        return err(c, v, what);
    }
    const char *s = (const char *)v->data.scalar.value;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (!s[0] || end == s || *end || errno || !isfinite(d) ||
        (s[0] != '-' && !isdigit((unsigned char)s[0]) && s[0] != '.' && s[0] != '+')) {
        snprintf(what, sizeof what, "%s: wrong type (a number expected, got '%.40s')", key, s);
        return err(c, v, what);
    }
    if (d < 0) {
        snprintf(what, sizeof what, "%s: negative value %.40s", key, s);
        return err(c, v, what);
    }
    if (d > max) {
        snprintf(what, sizeof what, "%s: value %.40s too large (at most %.0f)", key, s, max);
        return err(c, v, what);
    }
    *out = d;
    return 0;
}

static int scalar_bool(const struct ctx *c, const char *key, yaml_node_t *v, int *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
        *out = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
        *out = 0;
    else {
        char what[120];
        snprintf(what, sizeof what, "%s: wrong type (true or false expected)", key);
        return err(c, v, what);
    }
    return 0;
}

static int scalar_str(const struct ctx *c, const char *key, yaml_node_t *v, char *out, size_t cap)
{
    char what[120];
    if (v->type != YAML_SCALAR_NODE) {
        snprintf(what, sizeof what, "%s: wrong type (a string expected)", key);
        return err(c, v, what);
    }
    if (strlen((const char *)v->data.scalar.value) >= cap) {
        snprintf(what, sizeof what, "%s: longer than %zu characters", key, cap - 1);
        return err(c, v, what);
    }
    if (out)
        strcpy(out, (const char *)v->data.scalar.value);
    return 0;
}

/* A sequence of scalars (n of them, at most max) into items. */
static int sequence(const struct ctx *c, const char *key, yaml_node_t *v, yaml_node_t **items, uint32_t max,
                    uint32_t *n)
{
    char what[120];
    if (v->type != YAML_SEQUENCE_NODE) {
        snprintf(what, sizeof what, "%s: wrong type (a list expected, e.g. [4, 4, 4])", key);
        return err(c, v, what);
    }
    *n = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        if (*n == max) {
            snprintf(what, sizeof what, "%s: more than %u entries", key, max);
            return err(c, v, what);
        }
        items[(*n)++] = yaml_document_get_node(c->doc, *it);
    }
    return 0;
}

enum { K_NAME, K_DESC, K_OVH, K_LAT, K_HOP, K_BW, K_ACK, K_MTU, K_FIFO, K_CRED, K_DIMS, K_TORUS, K_MAP, K_N };
static const char *const KEYS[K_N] = {"name",    "description",     "overhead_ns", "latency_ns", "hop_ns",
                                      "link_bw", "ack_overhead_ns", "mtu",         "fifo_depth", "credits",
                                      "dims",    "torus",           "mapping"};
static const int REQUIRED[K_N] = {[K_OVH] = 1, [K_LAT] = 1, [K_HOP] = 1, [K_BW] = 1, [K_MTU] = 1};

static int load_doc(struct ctx *c, uint32_t nnodes, struct emu_machine *m)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return err(c, NULL, "empty profile (a mapping of keys expected)");
    if (root->type != YAML_MAPPING_NODE)
        return err(c, root, "wrong type (the profile must be a mapping of keys)");
    yaml_node_t *val[K_N] = {0};
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        if (k->type != YAML_SCALAR_NODE)
            return err(c, k, "wrong type (keys are plain words)");
        const char *ks = (const char *)k->data.scalar.value;
        int i = 0;
        while (i < K_N && strcmp(KEYS[i], ks))
            i++;
        char what[160];
        if (i == K_N) {
            snprintf(what, sizeof what, "unknown key '%.40s'", ks);
            return err(c, k, what);
        }
        if (val[i]) {
            snprintf(what, sizeof what, "key '%s' given twice", ks);
            return err(c, k, what);
        }
        val[i] = v;
    }
    for (int i = 0; i < K_N; i++)
        if (REQUIRED[i] && !val[i]) {
            char what[80];
            snprintf(what, sizeof what, "missing required key '%s'", KEYS[i]);
            return err(c, root, what);
        }
    int rc;
    double d;
    uint64_t *u64[] = {[K_OVH] = &m->overhead_ns, [K_LAT] = &m->latency_ns, [K_HOP] = &m->hop_ns,
                       [K_BW] = &m->link_bw, [K_ACK] = &m->ack_overhead_ns};
    for (int i = K_OVH; i <= K_ACK; i++) {
        if (!val[i])
            continue;
        if ((rc = scalar_num(c, KEYS[i], val[i], i == K_BW ? 1e15 : 1e12, &d)))
            return rc;
        *u64[i] = (uint64_t)llround(d);
    }
    if (!val[K_ACK])
        m->ack_overhead_ns = m->overhead_ns;
    uint32_t *u32[] = {[K_MTU] = &m->mtu, [K_FIFO] = &m->fifo_depth, [K_CRED] = &m->credits};
    for (int i = K_MTU; i <= K_CRED; i++) {
        if (!val[i])
            continue;
        if ((rc = scalar_num(c, KEYS[i], val[i], 1 << 30, &d)))
            return rc;
        *u32[i] = (uint32_t)llround(d);
    }
    if (val[K_NAME] && (rc = scalar_str(c, "name", val[K_NAME], m->name, sizeof m->name)))
        return rc;
    if (val[K_DESC] && (rc = scalar_str(c, "description", val[K_DESC], NULL, 4096)))
        return rc;
    if (val[K_MAP] && (rc = scalar_str(c, "mapping", val[K_MAP], m->mapping, sizeof m->mapping)))
        return rc;

    uint32_t full[EMU_NET_MAX_DIMS] = {0}, nd = 0;
    if (val[K_DIMS]) {
        yaml_node_t *items[EMU_NET_MAX_DIMS];
        if ((rc = sequence(c, "dims", val[K_DIMS], items, EMU_NET_MAX_DIMS - 1, &nd)))
            return rc;
        for (uint32_t i = 0; i < nd; i++) {
            if ((rc = scalar_num(c, "dims", items[i], 1 << 20, &d)))
                return rc;
            if (d < 1)
                return err(c, items[i], "dims: every dimension needs at least 1 node");
            full[i] = (uint32_t)llround(d);
        }
        if (nd == 0)
            return err(c, val[K_DIMS], "dims: empty list (leave dims out for no topology)");
    }
    m->ndims = nd;
    m->torus_mask = nd ? (1u << nd) - 1 : 0;
    if (val[K_TORUS]) {
        if (!nd)
            return err(c, val[K_TORUS], "torus: needs dims");
        yaml_node_t *items[EMU_NET_MAX_DIMS];
        uint32_t nt;
        if ((rc = sequence(c, "torus", val[K_TORUS], items, EMU_NET_MAX_DIMS, &nt)))
            return rc;
        if (nt != nd)
            return err(c, val[K_TORUS], "torus: needs one true/false per entry of dims");
        m->torus_mask = 0;
        for (uint32_t i = 0; i < nt; i++) {
            int b = 0;
            if ((rc = scalar_bool(c, "torus", items[i], &b)))
                return rc;
            m->torus_mask |= (uint32_t)b << i;
        }
    }
    if (emu_model_mapping_ok(m->mapping, nd) != 0) {
        char what[200];
        snprintf(what, sizeof what,
                 "mapping: '%s' is not the first %u of ABCDEF in some order followed by T "
                 "(emunic places ranks in node order, so T comes last)",
                 m->mapping, nd);
        return err(c, val[K_MAP], what);
    }
    if (nd && emu_model_subshape(full, nd, m->mapping, nnodes, m->dims) != 0) {
        uint64_t cap = emu_model_nodes(full, nd);
        char what[160];
        snprintf(what, sizeof what, "dims: the job's %u nodes do not fit this machine's %llu", nnodes,
                 (unsigned long long)cap);
        return err(c, val[K_DIMS], what);
    }
    return 0;
}

static int load_file(const char *path, const char *shown, uint32_t nnodes, struct emu_machine *m)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return msg_usage("--machine: cannot read %s: %s", shown, strerror(errno));
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return msg_usage("--machine: out of memory");
    }
    yaml_parser_set_input_file(&parser, f);
    int rc;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = msg_usage("%s:%lu: bad YAML: %s", shown, (unsigned long)parser.problem_mark.line + 1,
                       parser.problem ? parser.problem : "parse error");
    } else {
        struct ctx c = {.file = shown, .doc = &doc};
        memset(m, 0, sizeof *m);
        rc = load_doc(&c, nnodes, m);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc == 0 && !m->name[0]) {
        const char *b = strrchr(shown, '/');
        b = b ? b + 1 : shown;
        snprintf(m->name, sizeof m->name, "%.*s", (int)strcspn(b, "."), b);
    }
    return rc;
}

static int exists(const char *p) { return access(p, R_OK) == 0; }

int machine_load(const char *spec, uint32_t nnodes, struct emu_machine *m)
{
    memset(m, 0, sizeof *m);
    if (strcmp(spec, "ideal") == 0) {
        strcpy(m->name, "ideal");
        return 0;
    }
    size_t n = strlen(spec);
    if (strchr(spec, '/') || (n > 5 && strcmp(spec + n - 5, ".yaml") == 0))
        return load_file(spec, spec, nnodes, m);
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)spec[i]) && spec[i] != '-' && spec[i] != '_')
            return msg_usage("--machine: no machine profile '%s' (available: ideal, %s, or a FILE.yaml)", spec,
                             PROFILES);
    char path[PATH_MAX + 128], exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, sizeof path, "%s/../share/emunic/machines/%s.yaml", exe, spec);
            if (exists(path))
                return load_file(path, path, nnodes, m);
        }
    }
    if (EMUNIC_SOURCE_DIR[0]) {
        snprintf(path, sizeof path, "%s/share/emunic/machines/%s.yaml", EMUNIC_SOURCE_DIR, spec);
        if (exists(path))
            return load_file(path, path, nnodes, m);
    }
    return msg_usage("--machine: no machine profile '%s' (available: ideal, %s, or a FILE.yaml)", spec, PROFILES);
}

int congestion_parse(const char *s, uint32_t *kind, double *load)
{
    static const struct {
        const char *name;
        uint32_t kind;
    } pats[] = {{"uniform", EMU_CONG_UNIFORM}, {"hotspot", EMU_CONG_HOTSPOT}, {"bisection", EMU_CONG_BISECTION}};
    size_t n = strcspn(s, ":");
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
        if (strlen(pats[i].name) != n || strncmp(pats[i].name, s, n) != 0)
            continue;
        double v = 0.5;
        if (s[n] == ':') {
            char *end = NULL;
            errno = 0;
            v = strtod(s + n + 1, &end);
            if (!s[n + 1] || !end || *end || errno || !isfinite(v) || v <= 0 || v > 1)
                return msg_usage("--congestion: LOAD must be a fraction in (0, 1], not '%s'", s + n + 1);
        }
        *kind = pats[i].kind;
        *load = v;
        return 0;
    }
    return msg_usage("--congestion: unknown pattern '%s' (uniform, hotspot or bisection[:LOAD])", s);
}

#ifndef EMUNIC_BIN_TO_LIB
#define EMUNIC_BIN_TO_LIB "../lib"
#endif

int machine_dilate_env(double dilate, int64_t start_ns)
{
    if (!(dilate > 1))
        return 0;
    char exe[PATH_MAX], lib[PATH_MAX + 128], buf[64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    snprintf(lib, sizeof lib, "%s/%s/libemunic_dilate.so", exe, EMUNIC_BIN_TO_LIB);
    if (!exists(lib)) {
        snprintf(lib, sizeof lib, "%s/../lib/libemunic_dilate.so", exe);
        if (!exists(lib)) {
            msg("--dilate: libemunic_dilate.so not found next to emunic-run; rank clocks are not dilated");
            return -1;
        }
    }
    snprintf(buf, sizeof buf, "%.17g", dilate);
    setenv("EMUNIC_DILATE", buf, 1);
    snprintf(buf, sizeof buf, "%lld", (long long)start_ns);
    setenv("EMUNIC_DILATE_T0", buf, 1);
    const char *old = getenv("LD_PRELOAD");
    if (old && old[0]) {
        size_t n = strlen(lib) + strlen(old) + 2;
        char *v = malloc(n);
        if (!v)
            return -1;
        snprintf(v, n, "%s:%s", lib, old);
        setenv("LD_PRELOAD", v, 1);
        free(v);
    } else {
        setenv("LD_PRELOAD", lib, 1);
    }
#if defined(__SANITIZE_ADDRESS__)
    /* the interposer comes before the ASan runtime in the library list */
    const char *ao = getenv("ASAN_OPTIONS");
    char aopt[1024];
    snprintf(aopt, sizeof aopt, "%s%sverify_asan_link_order=0", ao ? ao : "", ao && ao[0] ? ":" : "");
    setenv("ASAN_OPTIONS", aopt, 1);
#endif
    return 0;
}
