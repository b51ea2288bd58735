/* How much memory a job's shared objects may take. They are memfds, which
 * no tmpfs size bounds: a segment that does not fit would not fail cleanly
 * but wake the OOM killer, so the launcher asks first. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

/* A number from the first line of path, or UINT64_MAX ("max", absent). */
static uint64_t read_u64(const char *path)
{
    FILE *f = fopen(path, "re");
    unsigned long long v;
    int ok = f && fscanf(f, "%llu", &v) == 1;
    if (f)
        fclose(f);
    return ok ? (uint64_t)v : UINT64_MAX;
}

/* Room under the limit of dir (files max and cur in it) and of each of
 * its parents up to root: the tightest. */
static uint64_t room_up(const char *root, const char *path, const char *max_f, const char *cur_f)
{
    char dir[640], f[700];
    snprintf(dir, sizeof dir, "%s%s", root, path);
    uint64_t room = UINT64_MAX;
    for (;;) {
        snprintf(f, sizeof f, "%s/%s", dir, max_f);
        uint64_t max = read_u64(f);
        snprintf(f, sizeof f, "%s/%s", dir, cur_f);
        uint64_t cur = read_u64(f);
        /* v1 says "no limit" with a huge page-rounded number */
        if (max < (UINT64_C(1) << 62) && cur != UINT64_MAX && (max > cur ? max - cur : 0) < room)
            room = max > cur ? max - cur : 0;
        char *slash = strrchr(dir, '/');
        if (!slash || strlen(dir) <= strlen(root))
            break;
        *slash = '\0';
    }
    return room;
}

/* Room left under our memory cgroup's limits, v2 or v1, if any. */
static uint64_t cgroup_room(void)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[512];
    uint64_t room = UINT64_MAX, r;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *path = NULL, *root = NULL, *max_f = NULL, *cur_f = NULL;
        if (!strncmp(line, "0::/", 4)) {
            path = line + 3;
            root = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
            max_f = "memory.max";
            cur_f = "memory.current";
        } else if (strstr(line, ":memory:/")) {
            path = strstr(line, ":memory:/") + 8;
            root = "/sys/fs/cgroup/memory";
            max_f = "memory.limit_in_bytes";
            cur_f = "memory.usage_in_bytes";
        }
        if (path && (r = room_up(root, path, max_f, cur_f)) < room)
            room = r;
    }
    if (f)
        fclose(f);
    return room;
}

uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[128];
    unsigned long long kib;
    uint64_t avail = UINT64_MAX;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            avail = (uint64_t)kib << 10;
    if (f)
        fclose(f);
    uint64_t room = cgroup_room();
    return room < avail ? room : avail;
}
