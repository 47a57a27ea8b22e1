# Abseil's static archives for chosen executables.
#
#   egret_define_static_abseil()
#     After find_package(absl): defines egret_absl_static::<name>, a copy of
#     every absl::<name> target with the static archive Debian ships beside
#     the shared library (libabsl_<name>.a) and the same usage requirements.
#     Sets EGRET_HAVE_STATIC_ABSEIL when every archive was found.
#   egret_abseil_libs(<out-var> <lib>...)
#     The list with each absl::<name> replaced by a choice made per linking
#     executable: egret_absl_static::<name> when the executable has the
#     property EGRET_STATIC_ABSEIL set, else absl::<name>. Every Abseil link
#     of egret's targets goes through it (egret_stage, and the helpers of
#     cmake/EgretTargets.cmake that link Abseil into a program).
#   egret_link_abseil_statically(<target>)
#     Sets EGRET_STATIC_ABSEIL on the executable <target> (when the archives
#     exist): every stage it links then brings Abseil's archives instead of
#     its 30-odd shared libraries.
#
# Why: a program linked with the shared libraries maps all of each library
# it loads and counts the pages it touches in its resident set, about 1 MiB
# for Abseil; egraph_bench's peak RSS is compared with egg's, a Rust program
# whose dependencies are linked statically (docs/history/engine-vs-egg.md,
# round 15). Only executables can take the archives (they are not
# position-independent code: a shared object, such as the Python module,
# cannot), and only the ones that ask do; the installed library keeps
# linking absl:: targets.

# The static archive of the imported Abseil target <t> in <out>: the shared
# library's path with .so[.version] replaced by .a, or the target's own file
# for a static one; empty for an interface target; NOTFOUND when there is no
# archive.
function(_egret_abseil_archive t out)
  get_target_property(type ${t} TYPE)
  set(archive "")
  if(type STREQUAL "SHARED_LIBRARY")
    set(location "")
    get_target_property(configs ${t} IMPORTED_CONFIGURATIONS)
    foreach(c IN LISTS configs)
      get_target_property(location ${t} IMPORTED_LOCATION_${c})
      if(location)
        break()
      endif()
    endforeach()
    if(NOT location)
      get_target_property(location ${t} IMPORTED_LOCATION)
    endif()
    string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${location}")
    if(NOT location OR archive STREQUAL location OR NOT EXISTS "${archive}")
      set(archive NOTFOUND)
    endif()
  elseif(type STREQUAL "STATIC_LIBRARY")
    get_target_property(archive ${t} LOCATION)
    if(NOT archive)
      set(archive NOTFOUND)
    endif()
  elseif(NOT type STREQUAL "INTERFACE_LIBRARY")
    set(archive NOTFOUND)
  endif()
  set(${out} "${archive}" PARENT_SCOPE)
endfunction()

function(egret_define_static_abseil)
  set(EGRET_HAVE_STATIC_ABSEIL OFF PARENT_SCOPE)
  get_directory_property(imported IMPORTED_TARGETS)
  list(FILTER imported INCLUDE REGEX "^absl::")
  if(NOT imported)
    return()
  endif()
  # All or none: every archive is checked before any copy is made.
  foreach(t IN LISTS imported)
    _egret_abseil_archive(${t} archive)
    if(archive STREQUAL "NOTFOUND")
      message(STATUS "Abseil's static archives: none for ${t}; executables link the shared libraries")
      return()
    endif()
  endforeach()
  foreach(t IN LISTS imported)
    _egret_abseil_archive(${t} archive)
    string(REPLACE "absl::" "egret_absl_static::" copy "${t}")
    if(archive)
      add_library(${copy} STATIC IMPORTED GLOBAL)
      set_target_properties(${copy} PROPERTIES IMPORTED_LOCATION "${archive}")
    else()
      add_library(${copy} INTERFACE IMPORTED GLOBAL)
    endif()
    foreach(prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
                 INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS
                 INTERFACE_COMPILE_FEATURES INTERFACE_LINK_OPTIONS INTERFACE_LINK_LIBRARIES)
      get_target_property(value ${t} ${prop})
      if(value)
        string(REPLACE "absl::" "egret_absl_static::" value "${value}")
        set_target_properties(${copy} PROPERTIES ${prop} "${value}")
      endif()
    endforeach()
  endforeach()
  set(EGRET_HAVE_STATIC_ABSEIL ON PARENT_SCOPE)
endfunction()

function(egret_abseil_libs out)
  set(result "")
  foreach(lib IN LISTS ARGN)
    if(EGRET_HAVE_STATIC_ABSEIL AND lib MATCHES "^absl::")
      string(REPLACE "absl::" "egret_absl_static::" copy "${lib}")
      list(APPEND result "$<IF:$<BOOL:$<TARGET_PROPERTY:EGRET_STATIC_ABSEIL>>,${copy},${lib}>")
    else()
      list(APPEND result "${lib}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

function(egret_link_abseil_statically target)
  if(EGRET_HAVE_STATIC_ABSEIL)
    set_target_properties(${target} PROPERTIES EGRET_STATIC_ABSEIL ON)
  endif()
endfunction()
