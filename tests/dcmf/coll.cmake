# DCMF collectives, global and geometry. Every program prints "FAIL ..."
# and exits non-zero on a mismatch.
#   dcmf_coll        allreduce/reduce for every (op, datatype) pair, large counts
#   dcmf_coll_bcast  barrier semantics, broadcast from every root, back to back,
#                    overlapped instances, collectives started from callbacks
#   dcmf_coll_geom   geometries: subsets at once, analyze, overlap, re-creation
#   dcmf_coll_err    every error return (one stderr line each)
#   dcmf_coll_reduce DCMF_Reduce: every protocol, root, and several
#                    (op, datatype) pairs; reduces next to allreduces
# 8x8 runs pass "quick" (fewer and smaller cases) to stay within about a
# minute on a 2-core host; the "irq" run repeats the geometry test with the
# interrupt thread dispatching.
set(DCMF_COLL_TESTS dcmf_coll dcmf_coll_bcast dcmf_coll_geom dcmf_coll_err dcmf_coll_reduce)
foreach(prog IN LISTS DCMF_COLL_TESTS)
  add_executable(${prog} ${prog}.c)
  target_link_libraries(${prog} PRIVATE dcmf)
  dcmf_job_test(${prog} 1 1 60)
  dcmf_job_test(${prog} 2 2 120)
  dcmf_job_test(${prog} 1 3 120)
  dcmf_job_test(${prog} 4 4 180)
  dcmf_job_test(${prog} 8 8 180 quick)
endforeach()

dcmf_job_test(dcmf_coll_geom 2 2 120 irq)
set_tests_properties(dcmf.dcmf_coll_geom_2x2_irq PROPERTIES ENVIRONMENT DCMF_INTERRUPTS=1)
