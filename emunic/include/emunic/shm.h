/* Named shared-memory objects of a job. Every name carries the job id and
 * every object is created 0600 with O_EXCL, so two jobs never meet. Objects
 * live in EMUNIC_SHM_DIR (default /dev/shm, where shm_open puts them), which
 * lets tests point a job at a tiny tmpfs to exercise the full-disk path. */
#ifndef EMUNIC_SHM_H
#define EMUNIC_SHM_H

#include <stdbool.h>
#include <stddef.h>

#define EMU_SHM_PREFIX "emunic."
#define EMU_JOBID_MAX 32
#define EMU_PATH_MAX 512

const char *emu_shm_dir(void);

/* Path of object `what` of job `jobid`: <dir>/emunic.<jobid>.<what> */
int emu_shm_path(char *buf, size_t n, const char *jobid, const char *what);

/* Create and map an object of `size` bytes. reserve=true allocates the
 * backing pages now (posix_fallocate), so a full tmpfs fails here with
 * ENOSPC instead of SIGBUS later. Returns the mapping or NULL with errno
 * set; the object is removed again on failure. *fd_out (if non-NULL)
 * receives an open descriptor, else it is closed. */
void *emu_shm_create(const char *path, size_t size, bool reserve, int *fd_out);

/* Map an existing object whole. Returns NULL with errno set. */
void *emu_shm_open(const char *path, size_t *size_out, int *fd_out);

/* Remove every object of the job. Returns how many were removed. */
int emu_shm_unlink_job(const char *jobid);

/* For each job id with objects in the shm dir, call fn(jobid, arg). */
void emu_shm_foreach_job(void (*fn)(const char *jobid, void *arg), void *arg);

#endif
