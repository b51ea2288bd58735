/* Fuzzes machine_load (the YAML machine profiles behind --machine FILE) through libyaml, for several job sizes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/model.h"
#include "netopts.h"

static char path[] = "/tmp/emunic-fuzz-machine-XXXXXX";
static int fd = -1;

static void unlink_profile(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t nnodes[] = {1, 2, 7, 64, 1u << 20};
    if (size > (1 << 16))
        return 0;
    if (fd < 0) {
        if ((fd = mkstemp(path)) < 0) {
            perror("mkstemp");
            abort();
        }
        atexit(unlink_profile);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    for (size_t i = 0; i < sizeof nnodes / sizeof *nnodes; i++) {
        struct emu_machine m;
        int rc = machine_load(path, nnodes[i], &m);
        if (rc != 0 && rc != 2)
            abort();
        if (rc)
            continue;
        /* what the launcher relies on after a successful load */
        if (!memchr(m.name, 0, sizeof m.name) || !memchr(m.mapping, 0, sizeof m.mapping) ||
            m.ndims >= EMU_NET_MAX_DIMS || emu_model_mapping_ok(m.mapping, m.ndims) != 0)
            abort();
        uint64_t cap = 1;
        for (uint32_t d = 0; d < m.ndims; d++) {
            if (m.dims[d] < 1)
                abort();
            cap *= m.dims[d];
        }
        if (m.ndims && cap < nnodes[i])
            abort();
    }
    return 0;
}
