# Installs the egret library, its public headers, the egret CLI and a CMake
# package so that another project can `find_package(egret)` and link egret::egret.
include(CMakePackageConfigHelpers)
include(EgretHeaderClosure)

# A sanitizer build of libegret.a needs the sanitizer runtimes wherever it is
# linked: say so in its interface, so that an installed consumer gets them.
if(EGRET_SANITIZE)
  target_link_options(egret INTERFACE -fsanitize=address,undefined)
endif()

install(TARGETS egret EXPORT egretTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS egret_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: the public API (EGRET_PUBLIC_HEADERS, declared in egret/api/) and
# the egret headers it includes, transitively; the rest of egret is internal.
get_property(_egret_public GLOBAL PROPERTY EGRET_PUBLIC_HEADERS)
egret_header_closure(_egret_installed_headers ${EGRET_INCLUDE_ROOT} ${_egret_public})
foreach(h IN LISTS _egret_installed_headers)
  # Reconfigure when a header's includes may have changed.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${EGRET_INCLUDE_ROOT}/${h})
  get_filename_component(_dir ${h} DIRECTORY)
  install(FILES ${EGRET_INCLUDE_ROOT}/${h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${_dir})
endforeach()

# The shipped rule library, where the installed CLI looks for it
# (cli/graph_input.cc) and a library user can load it from.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/egret/rules/lib/ DESTINATION ${CMAKE_INSTALL_DATADIR}/egret/rules)

install(EXPORT egretTargets NAMESPACE egret:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)

# egret's PUBLIC link interface names the external targets of every stage
# (egret_stage LIBS). A consumer's find_package(egret) must find the packages
# that define them: map each target namespace to its package. absl,
# nlohmann_json and Threads are always looked up by egretConfig.cmake.
get_property(_egret_libs GLOBAL PROPERTY EGRET_EXTERNAL_LIBS)
set(_egret_packages "")
foreach(lib IN LISTS _egret_libs)
  if(lib MATCHES "^(absl|nlohmann_json|Threads)::")
    continue()
  elseif(lib MATCHES "^Cbc::")
    list(APPEND _egret_packages Cbc)  # FindCbc.cmake is installed beside the config
  elseif(lib MATCHES "^protobuf::")
    list(APPEND _egret_packages Protobuf)
  elseif(lib MATCHES "^(ONNX|onnx)")
    list(APPEND _egret_packages ONNX)
  elseif(lib MATCHES "^CLI11::")
    list(APPEND _egret_packages CLI11)
  elseif(lib MATCHES "^DNNL::")
    list(APPEND _egret_packages dnnl)
  elseif(lib MATCHES "^-|^[a-z0-9_]+$")
    # A plain library name or linker flag: nothing to find.
  else()
    message(FATAL_ERROR "egret links '${lib}': add the package that provides it to "
                        "cmake/EgretInstall.cmake so that find_package(egret) finds it")
  endif()
endforeach()
list(REMOVE_DUPLICATES _egret_packages)
set(EGRET_EXTRA_FIND_DEPENDENCIES "")
foreach(pkg IN LISTS _egret_packages)
  string(APPEND EGRET_EXTRA_FIND_DEPENDENCIES "find_dependency(${pkg})\n")
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/egretConfig.cmake.in
  ${PROJECT_BINARY_DIR}/egretConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/egretConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/egretConfig.cmake ${PROJECT_BINARY_DIR}/egretConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FindCbc.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/egret)
