/* A job's own cgroup (v2): every rank joins it before exec, so the kernel
 * keeps the job's processes together whatever they do (setsid, double
 * fork, reparenting to init) and one write to cgroup.kill ends them all.
 * The launcher makes it; the daemons, which are not in it, use it to end
 * the job when the launcher was killed. Optional: where no cgroup v2
 * hierarchy is writable, teardown falls back to the process group and the
 * launcher's subreaper sweep (docs/launcher.md). */
#ifndef EMUNIC_CGROUP_H
#define EMUNIC_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define EMU_CGROUP_PATH_MAX 512

/* <the caller's own v2 cgroup>/emunic.<jobid> into dir (cap bytes).
 * Returns 0, or -errno (-ENOENT: no cgroup v2 hierarchy mounted). */
int emu_cgroup_path(const char *jobid, char *dir, size_t cap);
/* The same, and make it. */
int emu_cgroup_create(const char *jobid, char *dir, size_t cap);

/* Kill every process in dir (cgroup.kill), wait up to timeout_ns for it
 * to empty, and remove it. Returns 0 once removed, -errno otherwise. */
int emu_cgroup_end(const char *dir, int64_t timeout_ns);

#endif
