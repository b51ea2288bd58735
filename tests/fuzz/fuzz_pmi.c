/* Fuzzes the PMI-1 server's wire parser (pmi_take/pmi_command) with what ranks could send, without a job. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "io.h"
#include "launcher.h"
#include "pmi_int.h"

/* The launcher's event loop and teardown are not part of this: the PMI
 * server only registers its fds (no epoll here) and asks for a teardown. */
int io_watch(int epfd, int fd, uint32_t events, uint64_t tag)
{
    (void)epfd, (void)fd, (void)events, (void)tag;
    return 0;
}
int io_modify(int epfd, int fd, uint32_t events, uint64_t tag)
{
    (void)epfd, (void)fd, (void)events, (void)tag;
    return 0;
}
void io_unwatch(int epfd, int fd) { (void)epfd, (void)fd; }
void td_begin(struct launcher *L, int forced)
{
    if (L->phase == PH_TEARDOWN)
        return;
    L->phase = PH_TEARDOWN;
    if (forced >= 0)
        L->forced = forced;
}
void sv_fail(struct launcher *L, int code)
{
    if (L->first_failure < 0)
        L->first_failure = code;
    td_begin(L, -1);
}

/* What a rank would read: replies are lines that start with cmd= and fit
 * the protocol's 1024 bytes (checked byte by byte: replies may arrive in
 * pieces). */
static size_t col[4];

static void drain(struct pmi *p)
{
    static char buf[1 << 16];
    for (uint32_t r = 0; r < p->n; r++) {
        ssize_t k;
        while (p->c[r].child_fd >= 0 && (k = recv(p->c[r].child_fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
            for (ssize_t i = 0; i < k; i++) {
                if (col[r] < 4 && buf[i] != "cmd="[col[r]])
                    abort();
                col[r] = buf[i] == '\n' ? 0 : col[r] + 1;
                if (col[r] >= LINE_MAX_B)
                    abort();
            }
    }
}

static const size_t CHUNKS[] = {1, 3, 17, 64, 512, 1023, 1024, 1025, 4096, 1 << 16};

/* Byte 0: bits 0-1 the number of ranks - 1, bits 2-5 the read size, bit 6
 * the last rank goes away at the end. The rest: lines dealt to the ranks
 * in turn, each rank's stream fed in reads of that size, ranks alternating. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 16))
        return 0;
    uint8_t ctl = data[0];
    data++, size--;
    uint32_t n = 1 + (ctl & 3);
    size_t chunk = CHUNKS[((ctl >> 2) & 15) % (sizeof CHUNKS / sizeof *CHUNKS)];

    struct opts o = {.nnodes = 1, .rpn = n};
    struct launcher L = {.o = &o, .nranks = n, .phase = PH_RUNNING, .epfd = -1, .forced = -1,
                         .first_failure = -1};
    strcpy(L.jobid, "fuzz");
    memset(col, 0, sizeof col);
    if (pmi_init(&L) != 0 || !L.pmi)
        abort();
    struct pmi *p = L.pmi;
    for (uint32_t r = 0; r < n; r++)
        if (pmi_pair(p, r) < 0)
            abort();

    /* deal lines out: stream[r] is rank r's bytes, in order */
    char *stream[4];
    size_t len[4] = {0}, off[4] = {0};
    for (uint32_t r = 0; r < n; r++)
        if (!(stream[r] = malloc(size + 1)))
            abort();
    uint32_t who = 0;
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t k = nl ? (size_t)(nl - (data + i)) + 1 : size - i;
        memcpy(stream[who] + len[who], data + i, k);
        len[who] += k;
        i += k;
        who = (who + 1) % n;
    }
    for (int more = 1; more;) {
        more = 0;
        for (uint32_t r = 0; r < n; r++) {
            size_t k = len[r] - off[r] < chunk ? len[r] - off[r] : chunk;
            if (k) {
                pmi_take(p, &p->c[r], stream[r] + off[r], k);
                off[r] += k;
                more |= off[r] < len[r];
                drain(p);
            }
        }
    }
    if (ctl & 64) {
        pmi_drain(p, n - 1);
        pmi_gone(p, n - 1);
        drain(p);
    }
    if (p->in_barrier > p->n || p->gone > p->n)
        abort();
    for (uint32_t r = 0; r < n; r++)
        free(stream[r]);
    pmi_free(&L);
    return 0;
}
