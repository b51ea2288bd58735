# What `cmake --install BUILD --prefix P` puts under P, for programs built
# outside this tree:
#   include/   portals4.h, pami.h, pami_sys.h, dcmf*.h (+ bpcore/, spi/ shims), armci.h,
#              message.h, emunic/*.h (the core API)
#   lib/       libemunic, libportals, libpami, libdcmf, libarmci (+ SONAME links),
#              pkgconfig/emunic*.pc, cmake/emunic/ (find_package(emunic))
#   bin/       emunic-run, emunic-nicd (the launcher finds the daemon next
#              to itself)
#   share/man/ emunic-run(1), emunic(7)
include(CMakePackageConfigHelpers)

set(EMUNIC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/emunic)

install(TARGETS emunic portals pami dcmf armci emunic-run emunic-nicd emunic-stat
        EXPORT emunicTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/emunic/include/emunic
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/emunic/portals/include/portals4.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/emunic/pami/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/emunic/dcmf/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/runtime/include/armci.h
              ${PROJECT_SOURCE_DIR}/runtime/include/message.h
              ${PROJECT_BINARY_DIR}/runtime/install/armci_variant.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(FILES ${PROJECT_SOURCE_DIR}/man/emunic-run.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/man/emunic.7
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)

# pkg-config: the .pc files locate the prefix from their own directory
# (${pcfiledir}), so the tree still works when installed with --prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(EMUNIC_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(EMUNIC_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _pc_up ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
  string(REGEX REPLACE "/$" "" _pc_up "${_pc_up}")
  set(EMUNIC_PC_PREFIX "\${pcfiledir}/${_pc_up}")
  set(EMUNIC_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(EMUNIC_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(EMUNIC_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# an MPI build's armci.h needs EMUNIC_ARMCI_MPI (compile with mpicc)
set(EMUNIC_ARMCI_MPI_CFLAGS "")
set(EMUNIC_ARMCI_MPI_BOOL FALSE)
if(EMUNIC_ARMCI_MPI)
  set(EMUNIC_ARMCI_MPI_CFLAGS "-DEMUNIC_ARMCI_MPI=1")
  set(EMUNIC_ARMCI_MPI_BOOL TRUE)
endif()
foreach(pc emunic emunic-portals emunic-pami emunic-dcmf emunic-armci)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pkgconfig/${pc}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# CMake: find_package(emunic CONFIG COMPONENTS portals pami dcmf armci).
install(EXPORT emunicTargets NAMESPACE emunic:: FILE emunicTargets.cmake
        DESTINATION ${EMUNIC_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/emunicConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/emunicConfig.cmake
  INSTALL_DESTINATION ${EMUNIC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/emunicConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/emunicConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/emunicConfigVersion.cmake
        DESTINATION ${EMUNIC_CMAKE_DIR})
