/* Resolve the user's program up front, so "not found" is a usage error
 * with exit 2 instead of one exec failure per rank. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "opts.h"

/* 0 if path is an executable regular file, else the reason as errno. */
static int check_exec(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
        return EACCES;
    return 0;
}

static int resolve_path_search(const char *name, char **path)
{
    const char *search = getenv("PATH");
    char deflt[256];
    if (!search) {
        /* execvp's fallback when PATH is unset */
        size_t n = confstr(_CS_PATH, deflt, sizeof deflt);
        search = (n > 0 && n <= sizeof deflt) ? deflt : "/bin:/usr/bin";
    }
    size_t nlen = strlen(name);
    char *found_noexec = NULL;
    const char *p = search;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t dlen = end ? (size_t)(end - p) : strlen(p);
        char *cand = malloc(dlen + nlen + 3);
        if (!cand)
            return msg_usage("out of memory");
        if (dlen == 0) /* an empty PATH entry means the current directory */
            memcpy(cand, ".", 2);
        else {
            memcpy(cand, p, dlen);
            cand[dlen] = '\0';
        }
        strcat(cand, "/");
        strcat(cand, name);
        int why = check_exec(cand);
        if (why == 0) {
            free(found_noexec);
            *path = cand;
            return 0;
        }
        if (why == EACCES && !found_noexec)
            found_noexec = cand;
        else
            free(cand);
        if (!end)
            break;
        p = end + 1;
    }
    if (found_noexec) {
        msg("program '%s' found as '%s' but it is not executable", name,
            found_noexec);
        free(found_noexec);
        return 2;
    }
    return msg_usage("program '%s' not found in PATH", name);
}

int prog_resolve(const char *name, char **path)
{
    if (name[0] == '\0')
        return msg_usage("empty program name after '--'");
    if (!strchr(name, '/'))
        return resolve_path_search(name, path);
    int why = check_exec(name);
    switch (why) {
    case 0:
        *path = strdup(name);
        return *path ? 0 : msg_usage("out of memory");
    case ENOENT:
    case ENOTDIR:
        return msg_usage("program '%s' not found", name);
    case EISDIR:
        return msg_usage("program '%s' is a directory", name);
    case EACCES:
        return msg_usage("program '%s' is not executable", name);
    default:
        return msg_usage("program '%s': %s", name, strerror(why));
    }
}
