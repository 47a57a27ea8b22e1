# FindTcmalloc: gperftools' tcmalloc_minimal (Debian libgoogle-perftools-dev)
# through pkg-config. Provides the imported target Tcmalloc::Tcmalloc and
# Tcmalloc_FOUND.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_TCMALLOC QUIET IMPORTED_TARGET libtcmalloc_minimal)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Tcmalloc REQUIRED_VARS PC_TCMALLOC_FOUND
                                  VERSION_VAR PC_TCMALLOC_VERSION)
if(Tcmalloc_FOUND AND NOT TARGET Tcmalloc::Tcmalloc)
  add_library(Tcmalloc::Tcmalloc INTERFACE IMPORTED)
  target_link_libraries(Tcmalloc::Tcmalloc INTERFACE PkgConfig::PC_TCMALLOC)
endif()
