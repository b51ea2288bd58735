# PAMI point-to-point suite: clients, contexts, sends, RMA, RMW, fences,
# async progress, errors, and a 64-task job. Each program prints
# "FAIL task <t> <file>:<line> ..." and exits 1 on the first mismatch; the
# harness (barrier and all-gather over PAMI itself, bounded waits, stderr
# capture for CHECK_ERR) is ptest.h.
#
# A test that shows a library bug is disabled below with a comment
# "# disabled: <bug>" next to it (DISABLED property); it passes once the
# bug is fixed.
#
# This file doubles as a cmake -P script (just below): the check that a
# PAMI program started without emunic-run fails cleanly and says why.

if(CMAKE_SCRIPT_MODE_FILE)
  # cmake -DPROG=<program> -P p2p_suite.cmake: PROG must exit non-zero, by
  # exit() and not by a signal or a hang, printing one line that names
  # emunic-run.
  foreach(v EMUNIC_JOBID EMUNIC_RANK EMUNIC_SIZE EMUNIC_NODE EMUNIC_NNODES EMUNIC_LOCAL_RANK
            EMUNIC_LOCAL_SIZE EMUNIC_NIC)
    unset(ENV{${v}})
  endforeach()
  execute_process(COMMAND ${PROG} outside RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 20)
  string(STRIP "${err}" err_s)
  string(REGEX MATCHALL "\n" nl "${err_s}")
  list(LENGTH nl extra_lines)
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${PROG} did not exit normally: ${rc}\nstderr: ${err}")
  endif()
  if(rc EQUAL 0 OR NOT rc LESS 124)
    message(FATAL_ERROR "${PROG} exited ${rc}; expected a failure status in 1..123\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT err_s MATCHES "emunic-run")
    message(FATAL_ERROR "${PROG}: the message does not mention emunic-run:\n${err}")
  endif()
  if(NOT extra_lines EQUAL 0)
    message(FATAL_ERROR "${PROG}: expected one line on stderr, got:\n${err}")
  endif()
  message(STATUS "exit ${rc}: ${err_s}")
  return()
endif()

foreach(prog pami_client pami_context pami_send pami_fence pami_async pami_errors pami_many)
  add_executable(${prog} ${prog}.c ptest.h)
  target_link_libraries(${prog} PRIVATE pami Threads::Threads)
endforeach()
# bench/ has programs named pami_rma and pami_rmw already: these tests'
# targets (and binaries) carry a _test suffix.
foreach(prog pami_rma pami_rmw)
  add_executable(${prog}_test ${prog}.c ptest.h)
  target_link_libraries(${prog}_test PRIVATE pami Threads::Threads)
endforeach()

# 2 x 2: a task's neighbours are once on its node, once across; 1 x N: all
# on one node; N x 1: all across nodes.
foreach(layout "1;1" "1;2" "2;2" "1;3" "3;1")
  list(GET layout 0 nodes)
  list(GET layout 1 ranks)
  pami_job_test(pami_client ${nodes} ${ranks} 60)
  pami_job_test(pami_context ${nodes} ${ranks} 60)
  pami_job_test(pami_context ${nodes} ${ranks} 60 multi)
  pami_job_test(pami_context ${nodes} ${ranks} 60 threads)
  pami_job_test(pami_send ${nodes} ${ranks} 90)
  pami_job_test(pami_send ${nodes} ${ranks} 60 early)
  pami_job_test(pami_rma_test ${nodes} ${ranks} 90)
  pami_job_test(pami_rmw_test ${nodes} ${ranks} 60)
  pami_job_test(pami_fence ${nodes} ${ranks} 60)
  pami_job_test(pami_async ${nodes} ${ranks} 60)
  pami_job_test(pami_async ${nodes} ${ranks} 60 progress_fn)
  pami_job_test(pami_async ${nodes} ${ranks} 60 slice)
  pami_job_test(pami_async ${nodes} ${ranks} 60 noslice)
  pami_job_test(pami_errors ${nodes} ${ranks} 60)
  pami_job_test(pami_errors ${nodes} ${ranks} 60 stale)
  pami_job_test(pami_context ${nodes} ${ranks} 60 work_advance)
  pami_job_test(pami_context ${nodes} ${ranks} 60 destroy_held)
  set_property(TEST pami.pami_context_${nodes}x${ranks}_threads
                    pami.pami_context_${nodes}x${ranks}_multi
                    pami.pami_async_${nodes}x${ranks}
                    pami.pami_async_${nodes}x${ranks}_progress_fn
               APPEND PROPERTY LABELS tsan)
endforeach()

# 64 tasks: all-to-all sends and puts.
pami_job_test(pami_many 4 16 180)

# Not under emunic-run: PAMI_Client_create must fail, the program must end
# with a failure status (not a signal, not a hang) and one line naming
# emunic-run. This file, run as a script, checks that.
add_test(NAME pami.pami_errors_outside
         COMMAND ${CMAKE_COMMAND} -DPROG=$<TARGET_FILE:pami_errors> -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(pami.pami_errors_outside PROPERTIES LABELS unit TIMEOUT 60)

# A commthread's hint reaches its NIC daemon (hog_watch), and only then.
add_test(NAME pami.hog_hint
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hog_hint.sh ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(pami.hog_hint PROPERTIES LABELS job TIMEOUT 330 SKIP_RETURN_CODE 77)
