# Configures and builds the fuzz project (tests/fuzz/), then runs each target
# for SECONDS seconds on its committed seed corpus (tests/fuzz/corpus/<target>).
# Invoked by ctest (tests/CMakeLists.txt, test fuzz):
#   cmake -DSOURCE=<repo> -DBUILD=<dir> -DCLANGXX=<clang++> -DSECONDS=15
#         [-DGENERATOR=Ninja] [-DEGRET_LIBRARY=<libegret.a>] [-DTARGETS=a,b]
#         [-DSEED=1] -P run_fuzz.cmake
# Fails on the first target that crashes, leaks, hangs (10 s per input),
# exceeds 2 GB or trips UBSan; the input is left in BUILD/<target>-*.
foreach(var SOURCE BUILD CLANGXX SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzz.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT GENERATOR)
  set(GENERATOR Ninja)
endif()
# Only the targets named are built and run (all of them by default).
if(NOT TARGETS)
  set(TARGETS rules_fuzz graph_json_fuzz onnx_fuzz egraph_fuzz npy_fuzz cli_fuzz)
endif()
string(REPLACE "," ";" TARGETS "${TARGETS}")
# A fixed seed makes a run reproducible (up to how many inputs fit in the time).
if(NOT SEED)
  set(SEED 1)
endif()

execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/tests/fuzz -B ${BUILD} -G ${GENERATOR}
          -DCMAKE_CXX_COMPILER=${CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
          -DEGRET_LIBRARY=${EGRET_LIBRARY}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "configuring the fuzz build failed (${rc})")
endif()
set(build_targets ${TARGETS})
if(NOT EGRET_LIBRARY)
  list(REMOVE_ITEM build_targets cli_fuzz)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} -j 2 --target ${build_targets}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the fuzz targets failed (${rc})")
endif()

foreach(target IN LISTS TARGETS)
  if(NOT EXISTS ${BUILD}/${target})
    message(STATUS "${target}: not built, skipped")
    continue()
  endif()
  # New inputs go to the build directory, never into the source tree.
  set(work ${BUILD}/corpus/${target})
  file(MAKE_DIRECTORY ${work})
  set(dict "")
  string(REGEX REPLACE "_fuzz$" "" base ${target})
  if(EXISTS ${SOURCE}/tests/fuzz/${base}.dict)
    set(dict -dict=${SOURCE}/tests/fuzz/${base}.dict)
  endif()
  # libFuzzer's per-input log goes to a file; on failure its tail (the report
  # and the crashing input's name) is printed.
  set(log ${BUILD}/${target}.log)
  execute_process(
    COMMAND ${BUILD}/${target} -seed=${SEED} -max_total_time=${SECONDS} -timeout=10
            -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 ${dict}
            -artifact_prefix=${BUILD}/${target}- ${work} ${SOURCE}/tests/fuzz/corpus/${base}
    RESULT_VARIABLE rc
    OUTPUT_FILE ${log}
    ERROR_FILE ${log})
  if(rc)
    execute_process(COMMAND tail -n 60 ${log})
    message(FATAL_ERROR "${target} found a failure (exit ${rc}); the input is in ${BUILD}/")
  endif()
  file(STRINGS ${log} stats REGEX "^stat::number_of_executed_units")
  message(STATUS "${target} ran clean for ${SECONDS} s (seed ${SEED}): ${stats}")
endforeach()
