#include "pmi_kvs.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS (2 * PMI_KVS_CAP)   /* load stays <= 1/2: short probes */

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;     /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static struct pmi_kvs_ent *find(const struct pmi_kvs *k, const char *key)
{
    for (uint32_t h = hash(key);; h++) {
        struct pmi_kvs_ent *e = &k->t[h & (SLOTS - 1)];
        if (!e->key || strcmp(e->key, key) == 0)
            return e;
    }
}

enum pmi_kvs_rc pmi_kvs_put(struct pmi_kvs *k, const char *key,
                            const char *val)
{
    if (!k->t && !(k->t = calloc(SLOTS, sizeof *k->t)))
        return KVS_NOMEM;
    struct pmi_kvs_ent *e = find(k, key);
    if (e->key)
        return KVS_DUP;
    if (k->n >= PMI_KVS_CAP)
        return KVS_FULL;
    char *kc = strdup(key), *vc = strdup(val);
    if (!kc || !vc) {
        free(kc);
        free(vc);
        return KVS_NOMEM;
    }
    e->key = kc;
    e->val = vc;
    k->n++;
    return KVS_OK;
}

const char *pmi_kvs_get(const struct pmi_kvs *k, const char *key)
{
    if (!k->t)
        return NULL;
    const struct pmi_kvs_ent *e = find(k, key);
    return e->key ? e->val : NULL;
}

void pmi_kvs_free(struct pmi_kvs *k)
{
    for (uint32_t i = 0; k->t && i < SLOTS; i++) {
        free(k->t[i].key);
        free(k->t[i].val);
    }
    free(k->t);
    k->t = NULL;
    k->n = 0;
}
