/* regfail as DCMF and PAMI report it: N memory-region creations on every
 * rank, each either created (then destroyed) or refused with the API's own
 * error (DCMF_Memregion_create: DCMF_ERROR; PAMI_Memregion_create:
 * PAMI_ENOMEM), nothing else. Built twice: mr_regfail_dcmf, mr_regfail_pami.
 * Prints "mr: rank R ok K refused F".
 *
 *   mr_regfail_{dcmf,pami} N */
#include <stdio.h>
#include <stdlib.h>

#include "emunic/emunic.h"
#ifdef MR_PAMI
#include <pami.h>
#else
#include <dcmf.h>
#endif

#define DIE(...)                                                                    \
    do {                                                                            \
        fprintf(stderr, "FAIL mr_regfail: " __VA_ARGS__);                           \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)

static char mem[8192];

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10, ok = 0, refused = 0;
#ifdef MR_PAMI
    pami_client_t client;
    pami_context_t ctx;
    if (PAMI_Client_create("mr_regfail", &client, NULL, 0) != PAMI_SUCCESS ||
        PAMI_Context_createv(client, NULL, 0, &ctx, 1) != PAMI_SUCCESS)
        DIE("PAMI set-up");
    for (int i = 0; i < n; i++) {
        pami_memregion_t mr;
        size_t out = 0;
        pami_result_t rc = PAMI_Memregion_create(ctx, mem, sizeof mem, &out, &mr);
        if (rc == PAMI_SUCCESS) {
            if (out != sizeof mem || PAMI_Memregion_destroy(ctx, &mr) != PAMI_SUCCESS)
                DIE("region %d: %zu bytes, or destroy failed", i, out);
            ok++;
        } else if (rc == PAMI_ENOMEM) {
            refused++;
        } else {
            DIE("PAMI_Memregion_create returned %d", (int)rc);
        }
    }
    printf("mr: rank %u ok %d refused %d\n", emunic_rank(), ok, refused);
    if (emunic_barrier())
        DIE("barrier");
    PAMI_Context_destroyv(&ctx, 1);
    PAMI_Client_destroy(&client);
#else
    DCMF_Messager_initialize();
    for (int i = 0; i < n; i++) {
        DCMF_Memregion_t mr;
        size_t out = 0;
        DCMF_Result rc = DCMF_Memregion_create(&mr, &out, sizeof mem, mem, 0);
        if (rc == DCMF_SUCCESS) {
            if (out != sizeof mem || DCMF_Memregion_destroy(&mr) != DCMF_SUCCESS)
                DIE("region %d: %zu bytes, or destroy failed", i, out);
            ok++;
        } else if (rc == DCMF_ERROR) {
            refused++;
        } else {
            DIE("DCMF_Memregion_create returned %d", (int)rc);
        }
    }
    printf("mr: rank %u ok %d refused %d\n", emunic_rank(), ok, refused);
    if (emunic_barrier())
        DIE("barrier");
    DCMF_Messager_finalize();
#endif
    return 0;
}
