/* PMI-1 server, the command side: parse a line, answer it, run the
 * barrier. Puts are visible to gets at once (clients may not rely on it
 * before the next barrier, so it is allowed and costs nothing). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "msg.h"
#include "pmi_int.h"

struct fields {
    int n;
    char *k[FIELDS_MAX], *v[FIELDS_MAX];
};

static const char *field(const struct fields *f, const char *key)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->k[i], key) == 0)
            return f->v[i];
    return NULL;
}

/* A barrier some rank can no longer enter would hang the rest until the
 * timeout: stop the job now, naming that rank. */
void pmi_barrier_check(struct pmi *p)
{
    struct launcher *L = p->L;
    if (p->in_barrier == 0 || p->gone == 0 || L->phase != PH_RUNNING)
        return;
    for (uint32_t r = 0; r < p->n; r++)
        if (p->c[r].gone) {
            msg("rank %u ended while %u rank%s wait%s in a PMI barrier; "
                "stopping the job", r, p->in_barrier,
                p->in_barrier == 1 ? "" : "s",
                p->in_barrier == 1 ? "s" : "");
            break;
        }
    sv_fail(L, 1);
}

static void barrier_in(struct pmi *p, struct pmi_conn *c)
{
    if (!c->in_barrier) {
        c->in_barrier = true;
        p->in_barrier++;
    }
    if (p->in_barrier < p->n) {
        pmi_barrier_check(p);
        return;
    }
    p->in_barrier = 0;
    for (uint32_t r = 0; r < p->n; r++) {
        p->c[r].in_barrier = false;
        pmi_reply(p, &p->c[r], "cmd=barrier_out");
    }
}

static void do_put(struct pmi *p, struct pmi_conn *c, const struct fields *f)
{
    const char *kvs = field(f, "kvsname"), *key = field(f, "key"),
               *val = field(f, "value");
    const char *err = NULL;
    if (!kvs || !key || !val)
        err = "missing_kvsname_key_or_value";
    else if (strcmp(kvs, p->kvsname) != 0)
        err = "wrong_kvsname";
    else if (!*key || strlen(key) > PMI_KEY_MAX)
        err = "key_empty_or_longer_than_64";
    else if (strlen(val) > PMI_VAL_MAX)
        err = "value_longer_than_1024";
    else
        switch (pmi_kvs_put(&p->kvs, key, val)) {
        case KVS_OK: break;
        case KVS_DUP: err = "duplicate_key"; break;
        case KVS_FULL: err = "kvs_full_65536_entries"; break;
        case KVS_NOMEM: err = "out_of_memory"; break;
        }
    if (err)
        pmi_reply(p, c, "cmd=put_result rc=-1 msg=%s", err);
    else
        pmi_reply(p, c, "cmd=put_result rc=0");
}

static void do_get(struct pmi *p, struct pmi_conn *c, const struct fields *f)
{
    const char *kvs = field(f, "kvsname"), *key = field(f, "key");
    const char *val = NULL;
    const char *err = NULL;
    if (!kvs || !key)
        err = "missing_kvsname_or_key";
    else if (strcmp(kvs, p->kvsname) != 0)
        err = "wrong_kvsname";
    else if (!(val = pmi_kvs_get(&p->kvs, key)))
        err = "key_not_found";
    if (err)
        pmi_reply(p, c, "cmd=get_result rc=-1 msg=%s", err);
    else
        pmi_reply(p, c, "cmd=get_result rc=0 value=%s", val);
}

static void do_init(struct pmi *p, struct pmi_conn *c, const struct fields *f)
{
    const char *v = field(f, "pmi_version"), *s = field(f, "pmi_subversion");
    bool ok = v && strcmp(v, "1") == 0 &&
              (!s || strcmp(s, "0") == 0 || strcmp(s, "1") == 0);
    pmi_reply(p, c, "cmd=response_to_init rc=%d pmi_version=1 pmi_subversion=1%s",
          ok ? 0 : -1, ok ? "" : " msg=only_pmi_version_1_is_served");
}

/* abort exitcode=N [msg=]text...: the text may have spaces, so it is
 * taken from the raw line, not from the fields. */
static void do_abort(struct pmi *p, struct pmi_conn *c, const char *raw)
{
    struct launcher *L = p->L;
    int code = 1;
    const char *e = strstr(raw, "exitcode=");
    const char *text = "";
    if (e) {
        char *end;
        long v = strtol(e + 9, &end, 10);
        if (end != e + 9)
            code = (int)(v < 0 || v > 255 ? (v & 255) : v);
        text = end;
        while (*text == ' ')
            text++;
        if (strncmp(text, "msg=", 4) == 0)
            text += 4;
    }
    if (L->phase == PH_TEARDOWN || L->phase == PH_STOPPING)
        return;
    msg("rank %u called PMI abort (exit code %d)%s%.*s", c->rank, code,
        *text ? ": " : "", 900, text);
    td_begin(L, code);
}

void pmi_command(struct pmi *p, struct pmi_conn *c, char *line)
{
    const char *lead = line + strspn(line, " ");
    if (strncmp(lead, "cmd=abort", 9) == 0 && (!lead[9] || lead[9] == ' ')) {
        do_abort(p, c, lead + 9); /* free text follows: no field parsing */
        return;
    }
    struct fields f = {0};
    for (char *s = line; *s;) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        char *tok = s;
        while (*s && *s != ' ')
            s++;
        if (*s)
            *s++ = '\0';
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            pmi_reply(p, c, "cmd=error rc=-1 msg=field_without_key_or_'='");
            return;
        }
        if (f.n == FIELDS_MAX) {
            pmi_reply(p, c, "cmd=error rc=-1 msg=more_than_16_fields");
            return;
        }
        *eq = '\0';
        f.k[f.n] = tok;
        f.v[f.n++] = eq + 1;
    }
    if (f.n == 0 || strcmp(f.k[0], "cmd") != 0 || !*f.v[0]) {
        pmi_reply(p, c, "cmd=error rc=-1 msg=line_must_start_with_cmd=");
        return;
    }
    const char *cmd = f.v[0];
    if (strcmp(cmd, "init") == 0)
        do_init(p, c, &f);
    else if (strcmp(cmd, "get_maxes") == 0)
        pmi_reply(p, c, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d "
              "vallen_max=%d", KVSNAME_MAX, PMI_KEY_MAX, PMI_VAL_MAX);
    else if (strcmp(cmd, "get_appnum") == 0)
        pmi_reply(p, c, "cmd=appnum rc=0 appnum=0");
    else if (strcmp(cmd, "get_my_kvsname") == 0)
        pmi_reply(p, c, "cmd=my_kvsname rc=0 kvsname=%s", p->kvsname);
    else if (strcmp(cmd, "get_universe_size") == 0)
        pmi_reply(p, c, "cmd=universe_size rc=0 size=%u", p->n);
    else if (strcmp(cmd, "put") == 0)
        do_put(p, c, &f);
    else if (strcmp(cmd, "get") == 0)
        do_get(p, c, &f);
    else if (strcmp(cmd, "barrier_in") == 0)
        barrier_in(p, c);
    else if (strcmp(cmd, "finalize") == 0)
        pmi_reply(p, c, "cmd=finalize_ack rc=0");
    else
        pmi_reply(p, c, "cmd=%.64s rc=-1 msg=unknown_command", cmd);
}

