/* What a client names in the shm directory itself: the DCMF lockbox
 * (spi/bgp_SPI.h) is inline code in the client, which makes
 * <dir>/emunic.<job>.lockbox.n<node> for the ranks of a node to meet on.
 * The job's own memory has no names (memfd.c); these go with the job. */
#include "emunic/memfd.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static DIR *shm_dir(void)
{
    const char *env = getenv("EMUNIC_SHM_DIR"); /* as bgp_SPI.h reads it */
    return opendir(env && *env ? env : "/dev/shm");
}

int emu_names_jobs(char (*ids)[EMU_JOBID_MAX], int max)
{
    DIR *d = shm_dir();
    size_t pl = strlen(EMU_OBJ_PREFIX);
    int n = 0;
    struct dirent *e;
    while (d && n < max && (e = readdir(d)) != NULL) {
        const char *id = e->d_name + pl, *dot = strchr(id, '.');
        if (strncmp(e->d_name, EMU_OBJ_PREFIX, pl) != 0 || !dot || dot == id || dot - id >= EMU_JOBID_MAX)
            continue;
        int k = 0;
        while (k < n && (strncmp(ids[k], id, (size_t)(dot - id)) != 0 || ids[k][dot - id]))
            k++;
        if (k == n) {
            memcpy(ids[n], id, (size_t)(dot - id));
            ids[n++][dot - id] = '\0';
        }
    }
    if (d)
        closedir(d);
    return n;
}

int emu_names_unlink_job(const char *jobid)
{
    DIR *d = shm_dir();
    if (!d || !jobid || !*jobid || strpbrk(jobid, "./")) {
        if (d)
            closedir(d);
        return 0;
    }
    size_t pl = strlen(EMU_OBJ_PREFIX), il = strlen(jobid);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        if (!strncmp(s, EMU_OBJ_PREFIX, pl) && !strncmp(s + pl, jobid, il) && s[pl + il] == '.' &&
            unlinkat(dirfd(d), s, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}
