# PAMI collectives ([P7IH-COLL]): geometries, every algorithm of both
# lists, every (op, type) pair, errors. Each program prints
# "FAIL task <t> <file>:<line> ..." and exits 1 on the first mismatch;
# every wait is bounded. The 4x16 run passes "quick" (fewer cases).
#   coll_basic  every collective x every algorithm on the world geometry
#   coll_ops    allreduce/reduce for every (op, type), p2p, shm and CAU
#   coll_geom   task ranges and lists, comm-split, outstanding collectives
#               on several geometries, destroy, error cases
set(PAMI_COLL_TESTS coll_basic coll_ops coll_geom)
foreach(prog IN LISTS PAMI_COLL_TESTS)
  add_executable(${prog} ${prog}.c)
  target_link_libraries(${prog} PRIVATE pami)
  pami_job_test(${prog} 1 1 60)
  pami_job_test(${prog} 1 4 120)
  pami_job_test(${prog} 2 2 120)
  pami_job_test(${prog} 4 2 120)
  pami_job_test(${prog} 3 3 180)
endforeach()
pami_job_test(coll_basic 4 16 240 quick)
pami_job_test(coll_geom 4 16 240 quick)
