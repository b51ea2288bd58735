/* Runs a harness's LLVMFuzzerTestOneInput over files and directories
 * (its seed corpus, found reproducers) without libFuzzer: the plain and
 * sanitizer builds then check every harness's properties on the inputs
 * that once broke something, with gcc and in ctest, clang or not. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *b = realloc(buf, cap);
            if (!b) {
                fprintf(stderr, "%s: out of memory\n", path);
                free(buf);
                fclose(f);
                return 1;
            }
            buf = b;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        if (k == 0)
            break;
        n += k;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n); /* a broken property aborts */
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0, runs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            runs++;
            continue;
        }
        struct dirent **ents;
        int k = scandir(argv[i], &ents, NULL, alphasort);
        if (k < 0) {
            perror(argv[i]);
            return 1;
        }
        for (int j = 0; j < k; j++) {
            if (ents[j]->d_name[0] != '.') {
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], ents[j]->d_name);
                bad |= run_file(p);
                runs++;
            }
            free(ents[j]);
        }
        free(ents);
    }
    printf("replay: %d inputs, %s\n", runs, bad ? "unreadable ones" : "all properties held");
    return bad || runs == 0;
}
