# The libFuzzer targets built inside the sanitizer build when the compiler is
# clang (EGRET_FUZZ_IN_TREE, set in cmake/EgretTargets.cmake): every stage is
# already compiled with -fsanitize=fuzzer-no-link,address,undefined there
# (egret_fuzz_coverage), so a target only compiles its own file and links the
# stages it reads with, and ctest runs each for EGRET_FUZZ_SECONDS on its seed corpus (tests
# fuzz_<reader>, label "fuzz"). Included from tests/CMakeLists.txt.
set(EGRET_FUZZ_SECONDS 10 CACHE STRING "Seconds each fuzz target runs in ctest")
set(fuzz_dir ${CMAKE_CURRENT_LIST_DIR})

# egret_fuzz_target(<name> [STAGES <stage>...] [LIBS <target>...]
#                   [SOURCES <extra source>...]): <name> from <name>.cc and
# fuzz_util.cc, and its ctest run.
function(egret_fuzz_target name)
  cmake_parse_arguments(ARG "" "" "STAGES;LIBS;SOURCES" ${ARGN})
  add_executable(${name} ${fuzz_dir}/${name}.cc ${fuzz_dir}/fuzz_util.cc ${ARG_SOURCES})
  egret_apply_warnings(${name})
  egret_fuzz_coverage(${name})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  egret_stage_closure(closure ${ARG_STAGES})
  foreach(s IN LISTS closure)
    target_link_libraries(${name} PRIVATE egret_${s})
  endforeach()
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  string(REGEX REPLACE "_fuzz$" "" base ${name})
  add_test(NAME fuzz_${base}
    COMMAND ${CMAKE_COMMAND} -DFUZZER=$<TARGET_FILE:${name}> -DSOURCE=${PROJECT_SOURCE_DIR}
            -DWORK=${PROJECT_BINARY_DIR}/fuzz -DSECONDS=${EGRET_FUZZ_SECONDS}
            -P ${fuzz_dir}/run_target.cmake)
  set_tests_properties(fuzz_${base} PROPERTIES LABELS "fuzz" TIMEOUT 300)
endfunction()

egret_fuzz_target(rules_fuzz STAGES rules)
egret_fuzz_target(graph_json_fuzz STAGES graph)
egret_fuzz_target(onnx_fuzz STAGES onnx)
egret_fuzz_target(egraph_fuzz STAGES extract)
egret_fuzz_target(npy_fuzz STAGES executor)
# The command line: the egret command's objects (all but main.cc), over the
# whole library.
egret_fuzz_target(cli_fuzz LIBS egret_cli_commands)
