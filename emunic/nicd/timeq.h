/* Timed delivery: messages the machine model says have not yet arrived
 * wait here, in a min-heap on (due time, order of sending), until their due
 * time. One per daemon process. A message never passes an earlier one to
 * the same node: timeq_order raises a due time to the last one given for
 * that node, and equal due times leave in sending order. */
#ifndef EMUNIC_NICD_TIMEQ_H
#define EMUNIC_NICD_TIMEQ_H

#include <stddef.h>
#include <stdint.h>

#include "emunic/msg.h"

/* For a daemon of a job of nnodes nodes; 0 or -ENOMEM. */
int timeq_init(uint32_t nnodes);
void timeq_fini(void);
/* max(due, the last due time ordered for node); records the result. */
int64_t timeq_order(uint32_t node, int64_t due);
/* Hold m for node until due. 0 or -ENOMEM. */
int timeq_push(int64_t due, uint32_t node, const struct emu_msg *m);
/* Take the earliest message if it is due at now: 1 (node, m filled) or 0. */
int timeq_pop(int64_t now, uint32_t *node, struct emu_msg *m);
/* Earliest due time held, INT64_MAX when empty. */
int64_t timeq_next_due(void);
size_t timeq_len(void);
/* Deepest the queue has been. */
size_t timeq_max(void);

#endif
