# PAMI collectives on non-contiguous types and in place (coll_types.c):
# allgatherv/gatherv/scatterv/alltoallv with a strided type (displacements
# in its extent), allreduce/reduce/scan/reduce_scatter with a strided
# typed-double type (reduced on the packed data), alltoall(v) with
# sndbuf == rcvbuf; every element and every gap of the receive buffers is
# checked. "FAIL task <t> <file>:<line> ..." and exit 1 on the first
# mismatch; every wait is bounded.
add_executable(coll_types coll_types.c coll_test.h)
target_link_libraries(coll_types PRIVATE pami)
pami_job_test(coll_types 1 1 60)
pami_job_test(coll_types 2 1 90)
pami_job_test(coll_types 1 3 90)
pami_job_test(coll_types 2 2 120)
pami_job_test(coll_types 3 2 120)
