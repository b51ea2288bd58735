/* EXT_collsel's types (the layouts IBM's pami_tune passes; IBM ships no C
 * header for them) and the tuner the extension runs. */
#ifndef EMUNIC_PAMI_COLLSEL_H
#define EMUNIC_PAMI_COLLSEL_H

#include <pami.h>

typedef void *collsel_advisor_t;

typedef struct {
    int name; /* advisor_attribute_name_t: IBM defines no attributes */
    union {
        size_t intval;
        double doubleval;
        const char *chararray;
        const size_t *intarray;
    } value;
} collsel_config_t;

typedef struct {
    pami_xfer_type_t *collectives;
    size_t num_collectives;
    size_t *procs_per_node;
    size_t num_procs_per_node;
    size_t *geometry_sizes;
    size_t num_geometry_sizes;
    size_t *message_sizes;
    size_t num_message_sizes;
    int iter;       /* <= 0: 100 */
    int verify;     /* 1: check every algorithm's data; -1 or 0: do not */
    int verbose;    /* 1: a line per algorithm and size */
    int checkpoint; /* not offered: the table is written once, at the end */
} collsel_params_t;

/* Collective over every task of the client: time, rank, write the table
 * (task 0 only; the others pass filename NULL, as pami_tune does). */
pami_result_t collsel_tune(pami_client_t client, pami_context_t ctx, const char *filename,
                           const collsel_params_t *params);

/* One collective's buffers, filled with a pattern and checked after a run. */
struct cs_bufs;
#define AM_DISPATCH_ID 0x5e1ec7u /* the tuner's AM-collective dispatch id */

struct cs_run {
    pami_xfer_type_t coll;
    pami_endpoint_t root; /* task 0's endpoint */
    size_t g, me, bytes; /* geometry size, my rank in it (= my task), bytes per task */
    struct cs_bufs *b;
    volatile size_t am_seen; /* AM collectives: completions at this task */
};
/* Buffers for coll at bytes per task; 0 if it cannot be done (ENOMEM). */
int cs_setup(struct cs_run *r);
void cs_free(struct cs_run *r);
/* The command for one run; clear the receive side first when checking. */
void cs_fill(struct cs_run *r, pami_xfer_t *x, int clear);
/* 0 when this task's result is right, else the first bad byte's offset + 1 */
size_t cs_check(const struct cs_run *r);
/* AM collectives: this task's dispatch function for coll (cookie: r). */
pami_dispatch_callback_function cs_am_dispatch(pami_xfer_type_t coll);

#endif
