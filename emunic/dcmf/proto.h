/* What the DCMF rank half (lib/) and NIC half (nic/) agree on: the one
 * module command, a relaxed-consistency transfer the NIC routes over its
 * "dynamic" lane in packets, so that later traffic can overtake it as on
 * BG/P's adaptively routed torus. Everything else DCMF does travels as the
 * core's own operations. */
#ifndef EMUNIC_DCMF_PROTO_H
#define EMUNIC_DCMF_PROTO_H

#include "emunic/msg.h"

/* m->aop of an EMU_OP_MODULE command with m->module == EMU_MOD_DCMF */
enum dcmfx_cmd {
    DCMFX_RELAXED = 1, /* m->dtype holds the core op (EMU_OP_WRITE/READ) */
};

/* Packet size of the dynamic lane: the NIC moves one packet of each
 * relaxed transfer per turn. Transfers no longer than this go direct. */
#define DCMFX_PACKET (16u * 1024)

#endif
