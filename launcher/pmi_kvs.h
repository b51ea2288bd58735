/* The job's one PMI key-value space: a bounded open-addressing table, so
 * a runaway client gets an error instead of eating the host's memory. */
#ifndef EMUNIC_RUN_PMI_KVS_H
#define EMUNIC_RUN_PMI_KVS_H

#include <stdint.h>

#define PMI_KEY_MAX 64
#define PMI_VAL_MAX 1024
#define PMI_KVS_CAP 65536u   /* entries */

struct pmi_kvs_ent {
    char *key;               /* NULL: empty slot */
    char *val;
};

struct pmi_kvs {
    struct pmi_kvs_ent *t;   /* 2 * PMI_KVS_CAP slots, allocated lazily */
    uint32_t n;
};

enum pmi_kvs_rc { KVS_OK, KVS_DUP, KVS_FULL, KVS_NOMEM };

enum pmi_kvs_rc pmi_kvs_put(struct pmi_kvs *k, const char *key,
                            const char *val);
/* The value, or NULL. */
const char *pmi_kvs_get(const struct pmi_kvs *k, const char *key);
void pmi_kvs_free(struct pmi_kvs *k);

#endif
