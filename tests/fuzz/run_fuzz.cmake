# Configures and builds the fuzz project (tests/fuzz/), then runs each target
# for SECONDS seconds on its committed seed corpus (tests/fuzz/corpus/<target>).
# For fuzzing campaigns (docs/reliability.md); ctest builds the targets in the
# sanitizer build instead (tests/fuzz/in_tree.cmake). Usage:
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
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DFUZZER=${BUILD}/${target} -DSOURCE=${SOURCE} -DWORK=${BUILD}
            -DSECONDS=${SECONDS} -DSEED=${SEED} -P ${CMAKE_CURRENT_LIST_DIR}/run_target.cmake
    RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${target} failed")
  endif()
endforeach()
