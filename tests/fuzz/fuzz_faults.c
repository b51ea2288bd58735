/* Fuzzes the --fault/--faults grammar (faults_parse) and --congestion (congestion_parse) with hostile text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/msg.h"
#include "netopts.h"

static char plan_path[] = "/tmp/emunic-fuzz-faults-XXXXXX";
static int plan_fd = -1;

/* What the daemons rely on in a rule that was accepted: ids inside the job,
 * probabilities in [0, 1], a window that ends after it starts. */
static void check(const struct emu_fault_rule *r, uint32_t n, uint32_t nnodes, uint32_t nranks)
{
    for (uint32_t i = 0; i < n; i++, r++) {
        int ok = r->kind > EMU_FAULT_NONE && r->kind < EMU_FAULT_KIND_COUNT_ && r->op_mask < 1u << EMU_OP_COUNT_ &&
                 r->node_a >= -1 && r->node_a < (int32_t)nnodes && r->node_b >= -1 && r->node_b < (int32_t)nnodes &&
                 r->rank_a >= -1 && r->rank_a < (int32_t)nranks && r->rank_b >= -1 && r->rank_b < (int32_t)nranks &&
                 (r->node_b < 0 || (r->node_a >= 0 && r->node_a != r->node_b)) &&
                 (r->rank_b < 0 || (r->rank_a >= 0 && r->rank_a != r->rank_b)) && r->prob >= 0 && r->prob <= 1 &&
                 r->ge_p >= 0 && r->ge_p <= 1 && r->ge_r >= 0 && r->ge_r <= 1 && r->ge_loss >= 0 &&
                 r->ge_loss <= 1 && r->start_ns >= 0 && (r->end_ns == -1 || r->end_ns > r->start_ns) &&
                 r->factor >= 0 && r->delay_ns <= 10000000000ull && r->jitter_ns <= 10000000000ull;
        if (!ok)
            abort();
    }
}

static void unlink_plan(void) { unlink(plan_path); }

/* The whole input as a --faults FILE (rewritten in place each time). */
static void as_file(const uint8_t *data, size_t size)
{
    if (plan_fd < 0) {
        plan_fd = mkstemp(plan_path);
        if (plan_fd < 0) {
            perror("mkstemp");
            abort();
        }
        atexit(unlink_plan);
    }
    if (ftruncate(plan_fd, 0) != 0 || pwrite(plan_fd, data, size, 0) != (ssize_t)size)
        abort();
    struct emu_fault_rule rules[EMU_FAULT_MAX];
    uint32_t n = 0;
    int rc = faults_parse(NULL, 0, plan_path, 4, 16, rules, &n);
    if ((rc != 0 && rc != 2) || n > EMU_FAULT_MAX)
        abort();
    if (rc == 0)
        check(rules, n, 4, 16);
}

/* Each line as one --fault SPEC, all of them in one call. */
static void as_specs(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    const char **specs = malloc((size + 1) * sizeof *specs);
    if (!text || !specs)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    size_t n = 0;
    for (char *s = text;;) {
        char *nl = strchr(s, '\n');
        specs[n++] = s;
        if (!nl)
            break;
        *nl = 0;
        s = nl + 1;
    }
    if (n > 1 && !*specs[n - 1]) /* the last line's newline */
        n--;
    struct emu_fault_rule rules[EMU_FAULT_MAX];
    uint32_t nr = 0;
    int rc = faults_parse(specs, n, NULL, 2, 4, rules, &nr);
    if ((rc != 0 && rc != 2) || nr > EMU_FAULT_MAX)
        abort();
    if (rc == 0)
        check(rules, nr, 2, 4);
    /* a one-node, one-rank job: every node/rank id but 0 is out of range */
    rc = faults_parse(specs, 1, NULL, 1, 1, rules, &nr);
    if ((rc != 0 && rc != 2) || nr > 1)
        abort();
    if (rc == 0)
        check(rules, nr, 1, 1);
    uint32_t kind = 0;
    double load = 0;
    if (congestion_parse(specs[0], &kind, &load) == 0 && !(load > 0 && load <= 1))
        abort();
    free(specs);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 16))
        return 0;
    as_specs(data, size);
    as_file(data, size);
    return 0;
}
