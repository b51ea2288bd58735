/* The job's cgroup (see emunic/cgroup.h). */
#include "emunic/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emunic/waiter.h"

/* Where cgroup2 is mounted: /sys/fs/cgroup on unified hosts,
 * /sys/fs/cgroup/unified on hybrid ones (from /proc/self/mountinfo). */
static int v2_mount(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char line[1024];
    int rc = -ENOENT;
    while (rc && fgets(line, sizeof line, f)) {
        /* ... mount-point ... - fstype source options */
        char *dash = strstr(line, " - cgroup2 ");
        char mnt[512];
        if (dash && sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 && strlen(mnt) < cap) {
            snprintf(buf, cap, "%s", mnt);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* The caller's own v2 cgroup, relative to the mount ("0::/path"). */
static int own_cgroup(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -errno;
    char line[1024];
    int rc = -ENOENT;
    while (rc && fgets(line, sizeof line, f))
        if (!strncmp(line, "0::", 3)) {
            line[strcspn(line, "\n")] = 0;
            if (strlen(line + 3) < cap) {
                snprintf(buf, cap, "%s", line + 3);
                rc = 0;
            }
        }
    fclose(f);
    return rc;
}

int emu_cgroup_path(const char *jobid, char *dir, size_t cap)
{
    char mnt[512], own[512];
    int rc = v2_mount(mnt, sizeof mnt);
    if (rc == 0)
        rc = own_cgroup(own, sizeof own);
    if (rc)
        return rc;
    /* "/" is the root: no double slash */
    int n = snprintf(dir, cap, "%s%s/emunic.%s", mnt, strcmp(own, "/") ? own : "", jobid);
    if (n < 0 || (size_t)n >= cap)
        return -ENAMETOOLONG;
    return 0;
}

int emu_cgroup_create(const char *jobid, char *dir, size_t cap)
{
    int rc = emu_cgroup_path(jobid, dir, cap);
    if (rc == 0 && mkdir(dir, 0755) != 0)
        rc = -errno;
    return rc;
}

static int write_str(const char *dir, const char *file, const char *s)
{
    char path[EMU_CGROUP_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -errno;
    close(fd);
    return rc;
}

static int populated(const char *dir)
{
    char path[EMU_CGROUP_PATH_MAX + 32], buf[256];
    snprintf(path, sizeof path, "%s/cgroup.events", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* gone */
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return strstr(buf, "populated 1") != NULL;
}

int emu_cgroup_end(const char *dir, int64_t timeout_ns)
{
    if (!dir[0])
        return -ENOENT;
    /* cgroup.kill is Linux 5.14+; older kernels leave the sweep to us */
    int rc = write_str(dir, "cgroup.kill", "1");
    int64_t end = emu_now_ns() + timeout_ns;
    while (populated(dir) && emu_now_ns() < end) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (rmdir(dir) == 0 || errno == ENOENT)
        return 0;
    return rc ? rc : -errno;
}
