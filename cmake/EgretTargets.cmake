# Helpers that define egret's stage libraries, tests and benchmarks.
#
#   egret_stage(<name> SOURCES ... [STAGES <stage>...] [LIBS <target>...])
#     An OBJECT library egret_<name>. STAGES are the egret stages it builds on,
#     LIBS the external targets it uses (propagated to the installed egret).
#   egret_finish_library()
#     Creates egret (alias egret::egret), the union of every stage.
#   egret_test(<name> SOURCES ... STAGES <stage>... [LIBS ...] [LABELS ...])
#     A GoogleTest executable linking only the listed stages (and what they
#     build on), registered with ctest.
#   egret_stage_closure(<out-var> <stage>...)
#     The stages listed plus everything they build on, in dependency order.
#   egret_use_program_allocator(<target>)
#     Links the executable <target> with tcmalloc when EGRET_TCMALLOC found it
#     (never in the sanitizer build, whose runtime replaces malloc itself),
#     and with cli/program_heap.cc, the heap's huge-page reservation.
#   egret_write_stage_manifest(<file>)
#     Writes every stage's folder, declared STAGES, their closure and its
#     SOURCES to <file>, for the layering test (tests/layering/).

function(egret_apply_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(EGRET_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(EGRET_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # For code that must know (tests that scale their time limits): g++ defines
  # __SANITIZE_ADDRESS__, clang 14 does not.
  add_compile_definitions(EGRET_SANITIZED=1)
  # With clang, the sanitizer build's stage objects (and the CLI's) also
  # carry libFuzzer's coverage instrumentation, so that the fuzz targets
  # (tests/fuzz/in_tree.cmake) link the same objects as the tests instead of
  # a second build. Only the code a fuzz target links is instrumented
  # (egret_fuzz_coverage): on a test file it added 60 % to its compile time
  # and nothing the tests use.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(EGRET_FUZZ_IN_TREE ON)
  endif()
endif()

# Adds libFuzzer's coverage instrumentation to <target> in the clang
# sanitizer build (EGRET_FUZZ_IN_TREE); nothing otherwise.
function(egret_fuzz_coverage target)
  if(EGRET_FUZZ_IN_TREE)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

function(egret_use_program_allocator target)
  # cli/program_heap.cc: the heap's reservation and its report line.
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cli/program_heap.cc)
  target_include_directories(${target} PRIVATE ${EGRET_INCLUDE_ROOT})
  egret_abseil_libs(libs absl::str_format)
  target_link_libraries(${target} PRIVATE ${libs})
  if(TARGET Tcmalloc::Tcmalloc AND NOT EGRET_SANITIZE)
    # The only symbols of tcmalloc referenced by name are its extension's,
    # and a linker run with --as-needed (some distributions' default) could
    # still drop it if they went: keep it in.
    target_link_options(${target} PRIVATE LINKER:--no-as-needed)
    target_link_libraries(${target} PRIVATE Tcmalloc::Tcmalloc)
    target_compile_definitions(${target} PRIVATE EGRET_WITH_TCMALLOC=1)
  endif()
endfunction()

function(egret_stage name)
  cmake_parse_arguments(ARG "" "" "SOURCES;STAGES;LIBS" ${ARGN})
  set(target egret_${name})
  add_library(${target} OBJECT ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${EGRET_INCLUDE_ROOT}>)
  egret_apply_warnings(${target})
  egret_fuzz_coverage(${target})
  foreach(dep IN LISTS ARG_STAGES)
    target_link_libraries(${target} PUBLIC egret_${dep})
  endforeach()
  # Abseil, static or shared as the linking executable asks
  # (cmake/EgretStaticAbseil.cmake).
  egret_abseil_libs(libs ${ARG_LIBS})
  target_link_libraries(${target} PUBLIC ${libs})
  set_property(GLOBAL PROPERTY EGRET_STAGE_DEPS_${name} ${ARG_STAGES})
  set_property(GLOBAL APPEND PROPERTY EGRET_STAGES ${name})
  set_property(GLOBAL APPEND PROPERTY EGRET_EXTERNAL_LIBS ${ARG_LIBS})
endfunction()

function(egret_stage_closure out)
  set(result "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo s)
    if(NOT s IN_LIST result)
      list(APPEND result ${s})
      get_property(deps GLOBAL PROPERTY EGRET_STAGE_DEPS_${s})
      list(APPEND todo ${deps})
    endif()
  endwhile()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(egret_finish_library)
  get_property(stages GLOBAL PROPERTY EGRET_STAGES)
  get_property(libs GLOBAL PROPERTY EGRET_EXTERNAL_LIBS)
  list(REMOVE_DUPLICATES libs)
  set(objects "")
  foreach(s IN LISTS stages)
    list(APPEND objects $<TARGET_OBJECTS:egret_${s}>)
  endforeach()
  add_library(egret STATIC ${objects})
  add_library(egret::egret ALIAS egret)
  target_include_directories(egret PUBLIC
    $<BUILD_INTERFACE:${EGRET_INCLUDE_ROOT}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(egret PUBLIC cxx_std_20)
  target_link_libraries(egret PUBLIC ${libs})
endfunction()

# Every test includes GoogleTest, gmock, Abseil's Status and strings and the
# standard library: parsed once into one precompiled header (EGRET_PCH), not
# once per test file. egret's own headers stay out of it, so that editing one
# rebuilds only the tests that include it. The PCH target compiles with the
# tests' warnings and definitions (REUSE_FROM needs the same flags).
function(egret_test_pch_target out)
  if(NOT EGRET_PCH)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET egret_test_pch)
    file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/egret_test_pch.cc
         CONTENT "// the precompiled header's own source\n")
    add_library(egret_test_pch OBJECT ${PROJECT_BINARY_DIR}/egret_test_pch.cc)
    egret_apply_warnings(egret_test_pch)
    egret_test_flags(egret_test_pch)
    target_link_libraries(egret_test_pch PRIVATE GTest::gtest GTest::gmock absl::statusor
                          absl::strings)
    target_precompile_headers(egret_test_pch PRIVATE
      <algorithm> <cmath> <cstdint> <filesystem> <fstream> <map> <memory> <optional> <set>
      <string> <string_view> <utility> <vector>
      <gtest/gtest.h> <gmock/gmock.h>
      <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>)
  endif()
  set(${out} egret_test_pch PARENT_SCOPE)
endfunction()

# What every test target (and the tests' PCH) compiles with besides the
# warnings: the paths the tests read, and the test code's optimization level:
# EGRET_TEST_OPTIMIZE when set, else -O1 outside Debug builds (the build
# type's own flags in Debug). Test code is assertions around library calls;
# -O2 made it a third slower to compile and the tests no faster. CI's
# sanitizer build sets -O0: under ASan, -O1 took 2-2.5x the CPU time of -O0 to
# compile a test file (docs/development.md, "CI").
set(EGRET_TEST_OPTIMIZE "" CACHE STRING
    "Optimization flag of the test code (e.g. -O0); empty: -O1 outside Debug builds")
function(egret_test_flags target)
  if(EGRET_TEST_OPTIMIZE)
    target_compile_options(${target} PRIVATE ${EGRET_TEST_OPTIMIZE})
  else()
    target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O1>)
  endif()
  target_compile_definitions(${target} PRIVATE
    EGRET_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    EGRET_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared"
    EGRET_BINARY_DIR="${PROJECT_BINARY_DIR}")
endfunction()

function(egret_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;STAGES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  # Never a unity build (CMAKE_UNITY_BUILD, which CI's Release proof sets):
  # most tests are one file, and their files' local helpers share names.
  set_target_properties(${name} PROPERTIES UNITY_BUILD OFF)
  egret_apply_warnings(${name})
  egret_test_pch_target(pch)
  if(pch)
    target_precompile_headers(${name} REUSE_FROM ${pch})
  endif()
  egret_stage_closure(closure ${ARG_STAGES})
  foreach(s IN LISTS closure)
    target_link_libraries(${name} PRIVATE egret_${s})
  endforeach()
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  egret_test_flags(${name})
  # The tests' scratch files (::testing::TempDir()) in the build tree, so
  # that two build trees' test runs never share a file name.
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/test-tmp)
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
    PROPERTIES LABELS "${ARG_LABELS}" ENVIRONMENT "TEST_TMPDIR=${PROJECT_BINARY_DIR}/test-tmp"
    DISCOVERY_TIMEOUT 60)
endfunction()

# One line per fact, fields separated by spaces, paths relative to the source
# root:
#   stage <name> <folder>        the folder of the CMakeLists.txt declaring it
#   deps <name> <stage>...       its STAGES, as declared
#   closure <name> <stage>...    what those build on too (its own name excluded)
#   source <name> <file>         one per SOURCES entry
# Stages are listed in declaration order.
function(egret_write_stage_manifest file)
  get_property(stages GLOBAL PROPERTY EGRET_STAGES)
  set(text "")
  foreach(s IN LISTS stages)
    get_target_property(dir egret_${s} SOURCE_DIR)
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${dir})
    get_property(deps GLOBAL PROPERTY EGRET_STAGE_DEPS_${s})
    egret_stage_closure(closure ${deps})
    list(REMOVE_ITEM closure ${s})
    list(JOIN deps " " deps_text)
    list(JOIN closure " " closure_text)
    string(APPEND text "stage ${s} ${folder}\ndeps ${s} ${deps_text}\nclosure ${s} ${closure_text}\n")
    get_target_property(sources egret_${s} SOURCES)
    foreach(src IN LISTS sources)
      cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${dir} NORMALIZE OUTPUT_VARIABLE abs)
      file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
      string(APPEND text "source ${s} ${rel}\n")
    endforeach()
  endforeach()
  file(CONFIGURE OUTPUT ${file} CONTENT "${text}" @ONLY)
endfunction()
