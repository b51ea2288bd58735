/* A job's shared objects are memfds: nothing in a directory for another
 * job to guess, open or leave behind; an object lives while a process
 * holds or maps it, so even a SIGKILLed launcher leaks nothing. A process
 * finds an object by its name among the descriptors of a process that
 * holds it (/proc/PID/fd), which the kernel lets it open only if it could
 * ptrace-read that process. */
#ifndef EMUNIC_MEMFD_H
#define EMUNIC_MEMFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EMU_OBJ_PREFIX "emunic."
#define EMU_JOBID_MAX 32
#define EMU_OBJ_NAME_MAX 96

/* Name of object `what` of job `jobid`: emunic.<jobid>.<what>. -1 if the
 * job id is empty or has a '.' or '/' (it must split back out of a name). */
int emu_obj_name(char *buf, size_t n, const char *jobid, const char *what);

/* A new memfd called name of size bytes (close-on-exec). reserve=true
 * allocates its pages now, so a job that does not fit in memory fails
 * here instead of with SIGBUS later. The descriptor, or -errno. */
int emu_memfd_create(const char *name, uint64_t size, bool reserve);

/* Open the memfd called name that process pid holds, with oflags (O_RDONLY
 * or O_RDWR). The descriptor; -ENOENT if pid holds none, -ESRCH if there
 * is no such process. */
int emu_memfd_open(pid_t pid, const char *name, int oflags);

/* As emu_memfd_open, at descriptor number fdnum of pid only: no scan. */
int emu_memfd_open_fd(pid_t pid, int fdnum, const char *name, int oflags);

/* As emu_memfd_open, looking in process hint first (0: none), then in
 * every process we may look into. */
int emu_memfd_find(const char *name, int oflags, pid_t hint);

/* Map all of fd with prot, shared; its size to *size. NULL with errno set
 * (EPROTO for an object of size 0). */
void *emu_fd_map(int fd, int prot, size_t *size);

/* For each process that holds or maps the segment of a job:
 * fn(jobid, pid, holds, arg), holds = it has a descriptor of it. */
void emu_memfd_foreach_job(void (*fn)(const char *jobid, pid_t pid, bool holds, void *arg), void *arg);

/* Remove the files clients name after the job in the shm directory
 * ($EMUNIC_SHM_DIR, default /dev/shm; names.c). How many. */
int emu_names_unlink_job(const char *jobid);
/* The ids of the jobs with such files, at most max of them; how many. */
int emu_names_jobs(char (*ids)[EMU_JOBID_MAX], int max);

#endif
