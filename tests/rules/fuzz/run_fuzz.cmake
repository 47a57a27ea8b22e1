# Configures, builds and runs the rules fuzz target for SECONDS seconds on the
# committed seed corpus. Invoked by ctest (tests/rules/CMakeLists.txt):
#   cmake -DSOURCE=<repo> -DBUILD=<dir> -DCLANGXX=<clang++> -DSECONDS=30
#         [-DGENERATOR=Ninja] -P run_fuzz.cmake
foreach(var SOURCE BUILD CLANGXX SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzz.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR Ninja)
endif()

execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/tests/rules/fuzz -B ${BUILD} -G ${GENERATOR}
          -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "configuring the fuzz build failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} -j 2 RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the fuzz target failed (${rc})")
endif()

# New inputs go to the build directory, never into the source tree.
set(work ${BUILD}/corpus)
file(MAKE_DIRECTORY ${work})
# A fixed seed makes a run reproducible (up to how many inputs fit in the
# time). libFuzzer's per-input log goes to a file; on failure its tail (the
# report and the crashing input's name) is printed.
if(NOT SEED)
  set(SEED 1)
endif()
set(log ${BUILD}/fuzz.log)
execute_process(
  COMMAND ${BUILD}/rules_fuzz -seed=${SEED} -max_total_time=${SECONDS} -timeout=10
          -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1
          -dict=${SOURCE}/tests/rules/fuzz/rules.dict
          -artifact_prefix=${BUILD}/ ${work} ${SOURCE}/tests/rules/fuzz/corpus
  RESULT_VARIABLE rc
  OUTPUT_FILE ${log}
  ERROR_FILE ${log})
if(rc)
  execute_process(COMMAND tail -n 60 ${log})
  message(FATAL_ERROR "rules_fuzz found a failure (exit ${rc}); the input is in ${BUILD}/")
endif()
file(STRINGS ${log} stats REGEX "^(stat::|Done )")
list(JOIN stats "\n" stats)
message(STATUS "rules_fuzz ran clean for ${SECONDS} s (seed ${SEED})\n${stats}")
