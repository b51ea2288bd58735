# PAMI active-message collectives (coll_am.c): "I0:AMLinear:P2P:P2P" of
# AMBROADCAST, AMSCATTER, AMGATHER and AMREDUCE with IBM's semantics (who
# gets a dispatch, who completes how, geometry order, the root's op and
# type for AMREDUCE), every root, typed and non-contiguous buffers, zero
# bytes, and the error paths (a non-AM algorithm, a member or root
# without the dispatch id). "FAIL task <t> <file>:<line> ..." and exit 1
# on the first mismatch; every wait is bounded.
add_executable(coll_am coll_am.c coll_test.h)
target_link_libraries(coll_am PRIVATE pami)
pami_job_test(coll_am 1 1 60)
pami_job_test(coll_am 2 1 90)
pami_job_test(coll_am 1 3 90)
pami_job_test(coll_am 2 2 120)
pami_job_test(coll_am 3 2 120)
