# Global Arrays 5.x over this ARMCI: Debian's libga-mpich (GA 5.8, built
# against an external MPI-based ARMCI) linked with libarmci's MPI variant,
# a GA C program run under emunic-run over each NIC. Skipped (not built)
# when the packages are not installed (scripts/deps.sh installs them).
if(TARGET armci_mpi OR EMUNIC_ARMCI_MPI)
  find_library(GA_MPICH_LIB ga-mpich)
  find_library(GA_SCALAPACK_LIB scalapack-mpich)
  find_library(GA_LAPACK_LIB lapack)
  find_library(GA_BLAS_LIB blas)
  find_library(GA_GFORTRAN_LIB gfortran PATHS /usr/lib/x86_64-linux-gnu NAMES gfortran libgfortran.so.5)
  find_path(GA_INCLUDE_DIR ga.h)
  if(GA_MPICH_LIB AND GA_SCALAPACK_LIB AND GA_LAPACK_LIB AND GA_BLAS_LIB AND GA_GFORTRAN_LIB AND GA_INCLUDE_DIR)
    add_executable(ga_hello ${PROJECT_SOURCE_DIR}/examples/ga/ga_hello.c)
    target_include_directories(ga_hello PRIVATE ${GA_INCLUDE_DIR})
    if(EMUNIC_ARMCI_MPI)
      set(ga_armci armci)
    else()
      set(ga_armci armci_mpi)
    endif()
    # GA's archive first: it needs ARMCI, ScaLAPACK, LAPACK, BLAS and the Fortran runtime
    target_link_libraries(ga_hello PRIVATE ${GA_MPICH_LIB} ${ga_armci} ${GA_SCALAPACK_LIB}
                          ${GA_LAPACK_LIB} ${GA_BLAS_LIB} ${GA_GFORTRAN_LIB} m)
    foreach(run portals_2x2 portals_1x4 pami_2x2 dcmf_2x2 portals_1x1)
      string(REPLACE "_" ";" parts ${run})
      list(GET parts 0 nic)
      list(GET parts 1 shape)
      string(REPLACE "x" ";" nn ${shape})
      list(GET nn 0 nodes)
      list(GET nn 1 ranks)
      add_test(NAME runtime.ga_hello_${run}
               COMMAND $<TARGET_FILE:emunic-run> -N ${nodes} -n ${ranks} --nic ${nic} --timeout 90
                       -- $<TARGET_FILE:ga_hello>)
      set_tests_properties(runtime.ga_hello_${run} PROPERTIES LABELS job TIMEOUT 120
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0" PASS_REGULAR_EXPRESSION "ddot [0-9]+ \\(want [0-9]+\\) ok")
    endforeach()
  else()
    message(STATUS "Global Arrays test skipped: libglobalarrays-dev / libscalapack-mpich-dev not installed")
  endif()
endif()
