# FindCbc: COIN-OR CBC (Debian coinor-libcbc-dev) through pkg-config.
# Provides the imported target Cbc::Cbc and Cbc_FOUND.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_CBC QUIET IMPORTED_TARGET cbc)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Cbc REQUIRED_VARS PC_CBC_FOUND VERSION_VAR PC_CBC_VERSION)
if(Cbc_FOUND AND NOT TARGET Cbc::Cbc)
  add_library(Cbc::Cbc INTERFACE IMPORTED)
  target_link_libraries(Cbc::Cbc INTERFACE PkgConfig::PC_CBC)
endif()
