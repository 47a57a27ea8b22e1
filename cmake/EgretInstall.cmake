# Installs the egret library, its public headers, the egret CLI and a CMake
# package so that another project can `find_package(egret)` and link egret::egret.
include(CMakePackageConfigHelpers)

install(TARGETS egret EXPORT egretTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS egret_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(s support graph egraph rules extract backend)
  if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${s})
    continue()
  endif()
  # Public headers only: files named *_internal.h and internal/ folders stay private.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${s}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/egret/${s}
    FILES_MATCHING PATTERN "*.h"
    PATTERN "*_internal.h" EXCLUDE
    PATTERN "internal" EXCLUDE
    PATTERN "lib" EXCLUDE)
endforeach()

install(EXPORT egretTargets NAMESPACE egret:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/egretConfig.cmake.in
  ${PROJECT_BINARY_DIR}/egretConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/egretConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/egretConfig.cmake ${PROJECT_BINARY_DIR}/egretConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FindCbc.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)
