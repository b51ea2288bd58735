/* What the kernel says of another process (/proc/PID/stat), for the
 * launcher and the daemons, which never take a pid's word from a rank. */
#ifndef EMUNIC_PROC_H
#define EMUNIC_PROC_H

#include <sys/types.h>

/* State letter and parent of pid; -1 if it is gone or unreadable.
 * Either output may be NULL. */
int emu_proc_stat(pid_t pid, char *state, pid_t *ppid);

/* Whether pid no longer runs: no such process, or a zombie (with its
 * parent dead nobody may reap it promptly: a container's pid 1). A pid
 * <= 0 is gone. */
int emu_proc_gone(pid_t pid);

/* pid as the process itself knows it: its pid in the innermost PID
 * namespace it is in (a container's), where a job id was made; -1 if it
 * is gone. */
pid_t emu_proc_inner_pid(pid_t pid);

/* Whether pid made the job id jobid, as a launcher does from its pid in
 * its own namespace (1 under --isolate): the holder of a job's segment
 * for which this is true is that job's launcher. */
int emu_proc_made_jobid(pid_t pid, const char *jobid);

#endif
