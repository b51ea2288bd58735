/* Many short messages to a rank that is not progressing: every sender
 * pushes MSGS eager messages at rank 0 while rank 0 sleeps, far more than
 * its device receive buffers hold. Credits must hold the senders back;
 * rank 0 then receives every message, in order, byte for byte. */
#include <string.h>
#include <unistd.h>
#include "armci.h"
#include "message.h"
#include "rtest.h"

#define MSGS 3000
#define LEN 100

static void fill(char *b, int src, int k)
{
    for (int i = 0; i < LEN; i++)
        b[i] = (char)(src * 31 + k * 7 + i);
}

int main(int argc, char **argv)
{
    ARMCI_Init_args(&argc, &argv);
    me = armci_msg_me();
    int n = armci_msg_nproc();
    char b[LEN], want[LEN];
    if (me == 0) {
        sleep(1); /* no progress: the senders run out of credits */
        for (int src = 1; src < n; src++)
            for (int k = 0; k < MSGS; k++) {
                int len = -1;
                armci_msg_rcv(7, b, LEN, &len, src);
                fill(want, src, k);
                CHECK(len == LEN && !memcmp(b, want, LEN), "message %d from rank %d: len %d or bytes differ",
                      k, src, len);
            }
        printf("flood OK: %d messages from %d ranks\n", MSGS * (n - 1), n - 1);
    } else {
        for (int k = 0; k < MSGS; k++) {
            fill(b, me, k);
            armci_msg_snd(7, b, LEN, 0);
        }
    }
    armci_msg_barrier();
    ARMCI_Finalize();
    return 0;
}
