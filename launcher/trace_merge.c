/* --trace FILE: every daemon and rank wrote its events, one JSON object
 * per line, to <dir>/nic<N>.part or <dir>/rank<R>.part; here they become
 * one Chrome trace-event document (docs/observe.md): a process per node,
 * a thread (track) per NIC and per rank, named by metadata events. Lines
 * that are not whole objects (a process killed mid-write) are skipped. */
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"

static int is_part(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".part") == 0 &&
           (strncmp(name, "nic", 3) == 0 || strncmp(name, "rank", 4) == 0);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The part files of dir, sorted; NULL-terminated, malloc'd. */
static char **parts(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d)) != NULL) {
        if (!is_part(e->d_name))
            continue;
        if (n + 1 >= cap) {
            char **w = realloc(v, 2 * cap * sizeof *v);
            if (!w)
                break;
            v = w;
            cap *= 2;
        }
        if ((v[n] = strdup(e->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (!v)
        return NULL;
    v[n] = NULL;
    qsort(v, n, sizeof *v, by_name);
    return v;
}

static void meta(FILE *out, const char *what, uint32_t pid, long tid, const char *key,
                 const char *sval, long ival, int *first)
{
    fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u", *first ? "" : ",", what, pid);
    if (tid >= 0)
        fprintf(out, ",\"tid\":%ld", tid);
    if (sval)
        fprintf(out, ",\"args\":{\"%s\":\"%s\"}}", key, sval);
    else
        fprintf(out, ",\"args\":{\"%s\":%ld}}", key, ival);
    *first = 0;
}

long trace_merge(const char *dir, FILE *out, const struct emu_job *j)
{
    const struct emu_job_geo *h = &j->geo;
    uint32_t rpn = h->ranks_per_node;
    char machine[sizeof emu_job_netcfg(j)->m.name];
    memcpy(machine, emu_job_netcfg(j)->m.name, sizeof machine);
    machine[sizeof machine - 1] = 0;
    int first = 1;
    fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"format\":\"emunic-trace\","
                 "\"version\":1,\"job\":\"%s\",\"nic\":\"%s\",\"machine\":\"%s\",\"nodes\":%u,"
                 "\"ranks_per_node\":%u},\n\"traceEvents\":[",
            h->jobid, h->nic, machine, h->nnodes, rpn);
    for (uint32_t n = 0; n < h->nnodes; n++) {
        char name[48];
        snprintf(name, sizeof name, "node %u", n);
        meta(out, "process_name", n, -1, "name", name, 0, &first);
        meta(out, "process_sort_index", n, -1, "sort_index", NULL, n, &first);
        long base = (long)n * (rpn + 1);
        snprintf(name, sizeof name, "nic %u", n);
        meta(out, "thread_name", n, base, "name", name, 0, &first);
        meta(out, "thread_sort_index", n, base, "sort_index", NULL, 0, &first);
        for (uint32_t l = 0; l < rpn; l++) {
            snprintf(name, sizeof name, "rank %u", n * rpn + l);
            meta(out, "thread_name", n, base + 1 + l, "name", name, 0, &first);
            meta(out, "thread_sort_index", n, base + 1 + l, "sort_index", NULL, 1 + l, &first);
        }
    }
    long events = 0;
    char **v = parts(dir);
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; v && v[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, v[i]);
        FILE *f = fopen(path, "r");
        if (!f) {
            msg("trace: cannot read %s: %s", path, strerror(errno));
            continue;
        }
        ssize_t k;
        while ((k = getline(&line, &cap, f)) > 0) {
            if (line[k - 1] != '\n')
                break; /* cut off */
            line[--k] = 0;
            if (k < 2 || line[0] != '{' || line[k - 1] != '}')
                continue;
            fprintf(out, ",\n%s", line);
            events++;
        }
        fclose(f);
    }
    free(line);
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
    fprintf(out, "\n]}\n");
    if (fflush(out) != 0 || ferror(out))
        return -1; /* errno from the failed write; the caller names the file */
    return events;
}

void trace_dir_remove(const char *dir)
{
    char **v = parts(dir);
    for (size_t i = 0; v && v[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, v[i]);
        unlink(path);
        free(v[i]);
    }
    free(v);
    if (rmdir(dir) != 0 && errno != ENOENT)
        msg("cannot remove the trace parts' directory %s: %s", dir, strerror(errno));
}
