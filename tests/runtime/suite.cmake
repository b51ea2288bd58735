# The multi-rank suite of the ARMCI calls (label "job"): test_strided
# (strided / vector / contiguous put, get and accumulate against a local
# reference), test_sync (RMW, mutexes, fences, location consistency,
# non-blocking overlap, scalars, flags, allocation, domains) under every
# runtime option set, and test_errors (one bad call per case, which must end
# the job through ARMCI_Error naming the call and the argument).

foreach(prog test_strided test_sync test_errors)
  add_executable(${prog} ${CMAKE_CURRENT_LIST_DIR}/${prog}.c)
  target_link_libraries(${prog} PRIVATE armci)
endforeach()

# runtime.<what>_<name>_<nodes>x<ranks>; the environment (ARMCI_* options)
# follows the layout, with NIC <nic> among it for another NIC. 16-rank jobs
# get more time: on a 2-core machine (and under the sanitizers) they are
# the slow ones.
function(armci_suite_job_test what name nodes ranks)
  armci_nic_args(nic prefix env ${ARGN})
  set(t ${prefix}${what}_${name}_${nodes}x${ranks})
  math(EXPR nranks "${nodes} * ${ranks}")
  if(nranks GREATER 8)
    set(limit 240)
  else()
    set(limit 120)
  endif()
  math(EXPR ctest_limit "${limit} + 30")
  add_test(NAME ${t}
           COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic}
                   --timeout ${limit} -- $<TARGET_FILE:test_${what}>)
  set_tests_properties(${t} PROPERTIES LABELS job TIMEOUT ${ctest_limit})
  if(env)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

foreach(what strided sync)
  # default options over 1 to 16 ranks on 1 to 4 nodes
  foreach(layout 1x1 1x2 2x1 2x2 2x3 4x4)
    string(REPLACE "x" ";" nr ${layout})
    list(GET nr 0 nodes)
    list(GET nr 1 ranks)
    armci_suite_job_test(${what} default ${nodes} ${ranks})
  endforeach()
  # one layout per option set, with ranks on the same and on other nodes
  armci_suite_job_test(${what} nohelper 2 3 ARMCI_HELPER=0)
  armci_suite_job_test(${what} partial 2 3 ARMCI_ORDER=partial)
  armci_suite_job_test(${what} unordered 3 2 ARMCI_ORDER=unordered)
  armci_suite_job_test(${what} accnic 2 3 ARMCI_ACC=nic)
  armci_suite_job_test(${what} acchelper 2 2 ARMCI_ACC=helper)
  armci_suite_job_test(${what} rmwhelper 2 3 ARMCI_RMW=helper)
  armci_suite_job_test(${what} nchelper 2 3 ARMCI_NONCONTIG=helper)
  armci_suite_job_test(${what} ncrdma 2 3 ARMCI_NONCONTIG=rdma)
  armci_suite_job_test(${what} noconflict 2 3 ARMCI_CONFLICT_TRACKING=0)
  armci_suite_job_test(${what} nointimation 2 3 ARMCI_FLOW_INTIMATION=0 ARMCI_BUFS=2)
  armci_suite_job_test(${what} shm 1 4 ARMCI_SHM=1)
  armci_suite_job_test(${what} nocoalesce 2 3 ARMCI_ACK_COALESCE=0 ARMCI_BUFS=8)
  armci_suite_job_test(${what} coalesce 2 2 ARMCI_ACK_COALESCE=1 ARMCI_BUFS=8)
  # combinations: every server-side path served by the ranks themselves;
  # no ordering help at all; shared memory under partial order; a server
  # with one small buffer per client and no spares
  armci_suite_job_test(${what} nohelper_allsrv 2 3 ARMCI_HELPER=0 ARMCI_NONCONTIG=helper
                       ARMCI_ACC=helper ARMCI_RMW=helper)
  armci_suite_job_test(${what} unordered_noconflict 2 2 ARMCI_ORDER=unordered
                       ARMCI_CONFLICT_TRACKING=0)
  armci_suite_job_test(${what} partial_shm 2 3 ARMCI_ORDER=partial ARMCI_SHM=1)
  armci_suite_job_test(${what} tight 2 2 ARMCI_BUFS=1 ARMCI_SPARE_BUFS=0 ARMCI_BUF_SIZE=512
                       ARMCI_SPARE_SIZE=4096)
endforeach()

# runtime.errors_<case>: expect is the message after "ARMCI_Error: rank R: ".
function(armci_suite_err_test case nodes ranks expect)
  armci_nic_args(nic prefix env ${ARGN})
  armci_err_test(${prefix}errors_${case} test_errors ${case} ${nodes} ${ranks}
                 "ARMCI_Error: rank [0-9]+: ${expect}" NIC ${nic} ${env})
endfunction()

set(P "0x[0-9a-f]+")
set(NOT_ARMCI "is not ARMCI memory of rank 1")
set(B8 "\\(\\+8 bytes\\)")
set(NOT_START "is not the start of an ARMCI allocation")

# null pointers
armci_suite_err_test(put_null_src 1 2 "ARMCI_Put: src is NULL")
armci_suite_err_test(put_null_dst 2 1 "ARMCI_Put: dst is NULL")
armci_suite_err_test(get_null_src 2 1 "ARMCI_Get: src is NULL")
armci_suite_err_test(get_null_dst 1 2 "ARMCI_Get: dst is NULL")
armci_suite_err_test(acc_null_src 1 2 "ARMCI_Acc: src is NULL")
armci_suite_err_test(acc_null_dst 2 1 "ARMCI_Acc: dst is NULL")
armci_suite_err_test(nbput_null_src 1 2 "ARMCI_NbPut: src is NULL")
armci_suite_err_test(puts_null_src 1 2 "ARMCI_PutS: src_ptr is NULL")
armci_suite_err_test(puts_null_dst 2 1 "ARMCI_PutS: dst_ptr is NULL")
armci_suite_err_test(gets_null_src 1 2 "ARMCI_GetS: src_ptr is NULL")
armci_suite_err_test(accs_null_dst 1 2 "ARMCI_AccS: dst_ptr is NULL")
armci_suite_err_test(puts_null_count 1 2 "ARMCI_PutS: source: count is NULL")
armci_suite_err_test(puts_null_stride 1 2 "ARMCI_PutS: source: stride is NULL")
armci_suite_err_test(gets_null_stride 1 2 "ARMCI_GetS: destination: stride is NULL")
armci_suite_err_test(getvalue_null 1 2 "ARMCI_GetValueInt: src is NULL")
armci_suite_err_test(rmw_null_ploc 2 1 "ARMCI_Rmw: ploc is NULL")
armci_suite_err_test(acc_null_scale 1 2 "ARMCI_Acc: scale is NULL")
armci_suite_err_test(nbaccs_null_scale 1 2 "ARMCI_NbAccS: scale is NULL")
armci_suite_err_test(accv_null_scale 1 2 "ARMCI_AccV: scale is NULL")
armci_suite_err_test(wait_null 1 2 "ARMCI_Wait: hdl is NULL")
armci_suite_err_test(init_handle_null 1 1 "ARMCI_INIT_HANDLE: hdl is NULL")
armci_suite_err_test(malloc_null 1 2 "ARMCI_Malloc: ptr_arr is NULL")
# vector descriptors
set(NIL "\\(nil\\)")
armci_suite_err_test(putv_null_desc 1 2 "ARMCI_PutV: bad descriptor array \\(${NIL}, len 1\\)")
armci_suite_err_test(getv_null_desc 2 1 "ARMCI_GetV: bad descriptor array \\(${NIL}, len 2\\)")
armci_suite_err_test(accv_null_desc 1 2 "ARMCI_AccV: bad descriptor array \\(${NIL}, len 1\\)")
armci_suite_err_test(nbputv_null_desc 1 2 "ARMCI_NbPutV: bad descriptor array")
armci_suite_err_test(putv_neg_len 1 2 "ARMCI_PutV: bad descriptor array \\(${P}, len -1\\)")
armci_suite_err_test(putv_null_ptrs 1 2 "ARMCI_PutV: descriptor 0: bad pointer arrays")
armci_suite_err_test(getv_null_elem 1 2 "ARMCI_GetV: descriptor 1: src_ptr_array\\[1\\] is NULL")
armci_suite_err_test(putv_neg_bytes 1 2 "ARMCI_PutV: descriptor 0: bytes -1 < 0")
# negative counts and strides, stride_levels out of range
armci_suite_err_test(put_neg_bytes 1 2 "ARMCI_Put: bytes -1 < 0")
armci_suite_err_test(get_neg_bytes 2 1 "ARMCI_Get: bytes -8 < 0")
armci_suite_err_test(acc_neg_bytes 1 2 "ARMCI_Acc: bytes -8 < 0")
armci_suite_err_test(nbget_neg_bytes 1 2 "ARMCI_NbGet: bytes -1 < 0")
armci_suite_err_test(puts_neg_count 1 2 "ARMCI_PutS: source: count\\[1\\] < 0")
armci_suite_err_test(gets_neg_count0 2 1 "ARMCI_GetS: source: count\\[0\\] < 0")
armci_suite_err_test(puts_neg_stride 1 2 "ARMCI_PutS: source: stride\\[0\\] < 0")
armci_suite_err_test(gets_neg_stride 1 2 "ARMCI_GetS: destination: stride\\[1\\] < 0")
armci_suite_err_test(accs_neg_stride 1 2 "ARMCI_AccS: destination: stride\\[0\\] < 0")
armci_suite_err_test(puts_overlap 1 2 "ARMCI_PutS: source: stride\\[0\\] < count\\[0\\]")
armci_suite_err_test(puts_levels_9 1 2 "ARMCI_PutS: stride_levels 9 out of range 0..8")
armci_suite_err_test(puts_levels_10 1 2 "ARMCI_PutS: stride_levels 10 out of range 0..8")
armci_suite_err_test(puts_levels_neg 2 1 "ARMCI_PutS: stride_levels -1 out of range 0..8")
armci_suite_err_test(gets_levels_9 1 2 "ARMCI_GetS: stride_levels 9 out of range 0..8")
armci_suite_err_test(accs_partial_elem 1 2
  "ARMCI_AccS: count\\[0\\] = 12 is not a multiple of the element size 8")
armci_suite_err_test(malloc_neg 1 2 "ARMCI_Malloc: bytes -1 < 0")
armci_suite_err_test(create_mutexes_neg 1 2 "ARMCI_Create_mutexes: num -1 < 0")
armci_suite_err_test(copy_neg 1 1 "ARMCI_Copy: bad arguments \\(src ${P}, dst ${P}, bytes -1\\)")
# ranks out of range
armci_suite_err_test(put_proc_neg 1 2 "ARMCI_Put: proc -1 out of range 0..1")
armci_suite_err_test(put_proc_n 2 1 "ARMCI_Put: proc 2 out of range 0..1")
armci_suite_err_test(get_proc_n 1 2 "ARMCI_Get: proc 2 out of range 0..1")
armci_suite_err_test(acc_proc_neg 1 2 "ARMCI_Acc: proc -1 out of range 0..1")
armci_suite_err_test(puts_proc_n 2 1 "ARMCI_PutS: proc 2 out of range 0..1")
armci_suite_err_test(nbgets_proc_neg 1 2 "ARMCI_NbGetS: proc -1 out of range 0..1")
armci_suite_err_test(rmw_proc_n 1 2 "ARMCI_Rmw: proc 2 out of range 0..1")
armci_suite_err_test(lock_proc_n 2 1 "ARMCI_Lock: proc 2 out of range 0..1")
armci_suite_err_test(fence_proc_n 1 2 "ARMCI_Fence: proc 2 out of range 0..1")
armci_suite_err_test(waitproc_proc_n 1 2 "ARMCI_WaitProc: proc 2 out of range 0..1")
armci_suite_err_test(putvalue_proc_neg 1 2 "ARMCI_PutValueLong: proc -1 out of range 0..1")
armci_suite_err_test(getvalue_proc_n 1 2 "ARMCI_GetValueInt: proc 2 out of range 0..1")
armci_suite_err_test(putv_proc_n 1 2 "ARMCI_PutV: proc 2 out of range 0..1")
# remote addresses outside ARMCI memory (stack, malloc, past the end, freed)
armci_suite_err_test(put_stack 2 1 "ARMCI_Put: remote destination ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(get_malloc 1 2 "ARMCI_Get: remote source ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(acc_malloc 2 1 "ARMCI_Acc: remote destination ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(puts_stack 1 2
  "ARMCI_PutS: remote destination ${P} \\(\\+56 bytes\\) ${NOT_ARMCI}")
armci_suite_err_test(gets_malloc 2 1
  "ARMCI_GetS: remote source ${P} \\(\\+56 bytes\\) ${NOT_ARMCI}")
armci_suite_err_test(rmw_stack 1 2 "ARMCI_Rmw: prem ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(put_overrun 1 2 "ARMCI_Put: remote destination ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(puts_overrun 2 1
  "ARMCI_PutS: remote destination ${P} \\(\\+4096 bytes\\) ${NOT_ARMCI}")
armci_suite_err_test(putvalue_stack 1 2
  "ARMCI_PutValueInt: remote destination ${P} \\(\\+4 bytes\\) ${NOT_ARMCI}")
armci_suite_err_test(getvalue_malloc 2 1
  "ARMCI_GetValueDouble: remote source ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(getv_not_armci 1 2 "ARMCI_GetV: remote source ${P} ${B8} ${NOT_ARMCI}")
armci_suite_err_test(put_after_free 1 2 "ARMCI_Put: remote destination ${P} .*${NOT_ARMCI}")
armci_suite_err_test(access_begin_stack 1 1
  "ARMCI_Access_begin: ptr ${P} .*is not ARMCI memory of rank 0")
armci_suite_err_test(free_not_start 1 2 "ARMCI_Free: ${P} \\(rank 0\\) ${NOT_START}")
armci_suite_err_test(free_twice 2 1 "ARMCI_Free: ${P} \\(rank 0\\) ${NOT_START}")
armci_suite_err_test(free_malloc 1 2 "ARMCI_Free: ${P} \\(rank 0\\) ${NOT_START}")
# operations and types
armci_suite_err_test(rmw_bad_op 1 2 "ARMCI_Rmw: unknown op 9")
armci_suite_err_test(acc_bad_type 1 2 "ARMCI_Acc: unknown accumulate type 42")
armci_suite_err_test(accs_bad_type 2 1 "ARMCI_AccS: unknown accumulate type -1")
# mutexes and handles
armci_suite_err_test(lock_range 1 2 "ARMCI_Lock: mutex 2 out of range 0..1 on rank 1")
armci_suite_err_test(lock_neg 1 2 "ARMCI_Lock: mutex -1 out of range 0..1 on rank 0")
armci_suite_err_test(unlock_range 2 1 "ARMCI_Unlock: mutex 5 out of range 0..1 on rank 1")
armci_suite_err_test(lock_nocreate 1 2 "ARMCI_Lock: no mutexes were created")
armci_suite_err_test(unlock_nocreate 1 2 "ARMCI_Unlock: no mutexes were created")
armci_suite_err_test(destroy_nocreate 1 2 "ARMCI_Destroy_mutexes: no mutexes were created")
armci_suite_err_test(wait_uninit 1 2
  "ARMCI_Wait: handle ${P} was not initialised with ARMCI_INIT_HANDLE")
armci_suite_err_test(test_uninit 1 2 "ARMCI_Test: handle ${P} was not initialised")
armci_suite_err_test(nbput_uninit 2 1 "ARMCI_NbPut: handle ${P} was not initialised")
armci_suite_err_test(wait_stale 1 2 "ARMCI_Wait: handle ${P} is stale")
# before ARMCI_Init (no rank in the message), and malformed options
armci_err_test(runtime.errors_put_before_init test_errors put_before_init 1 2
               "ARMCI_Error: ARMCI_Put: ARMCI is not initialised")
armci_suite_err_test(init_only 1 2 "ARMCI_Init: ARMCI_ORDER=bogus is not one of: strict, partial"
                     ARMCI_ORDER=bogus)

# Found by this suite and fixed in the runtime: each names the call and
# the argument.
armci_suite_err_test(put_flag_null_flag 1 2 "ARMCI_Put_flag: flag is NULL")
armci_suite_err_test(puts_flag_stack_flag 1 2 "ARMCI_PutS_flag: flag ${P} .*${NOT_ARMCI}")
armci_suite_err_test(acc_partial_elem 1 2
  "ARMCI_Acc: bytes = 12 is not a multiple of the element size 8")
armci_suite_err_test(accv_partial_elem 1 2
  "ARMCI_AccV: descriptor 0: bytes = 20 is not a multiple of the element size 8")
armci_suite_err_test(unlock_unheld 1 2 "ARMCI_Unlock: mutex 0 on rank 1 is not held")
armci_suite_err_test(get_bad_local 1 2 "ARMCI_Get: .*dst")
# an option error names the rank that read it (each rank reports its own
# number; which one's line comes out before the job ends varies)
armci_err_test(runtime.errors_init_rank test_errors init_only 1 2
               "(\\[n0\\.r0\\] ARMCI_Error: rank 0|\\[n0\\.r1\\] ARMCI_Error: rank 1): ARMCI_Init: ARMCI_BUFS=0"
               ARMCI_BUFS=0)
