# Runs one built libFuzzer target for SECONDS seconds on its committed seed
# corpus (tests/fuzz/corpus/<target without _fuzz>) plus a work corpus in
# WORK, with the project's fixed options. Used by ctest's fuzz_<reader> tests
# (the sanitizer build with clang builds the targets in-tree) and by
# run_fuzz.cmake (the standalone fuzz build):
#   cmake -DFUZZER=<binary> -DSOURCE=<repo> -DWORK=<dir> -DSECONDS=10 [-DSEED=1]
#         -P run_target.cmake
# Fails when the target crashes, leaks, hangs (10 s per input), exceeds 2 GB
# or trips UBSan; the input is left in WORK/<target>-* and the tail of the
# log is printed.
foreach(var FUZZER SOURCE WORK SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_target.cmake: -D${var}=... is required")
  endif()
endforeach()
# A fixed seed makes a run reproducible (up to how many inputs fit in the time).
if(NOT SEED)
  set(SEED 1)
endif()
get_filename_component(target ${FUZZER} NAME)
string(REGEX REPLACE "_fuzz$" "" base ${target})
# New inputs go to the work directory, never into the source tree.
set(work ${WORK}/corpus/${target})
file(MAKE_DIRECTORY ${work})
set(dict "")
if(EXISTS ${SOURCE}/tests/fuzz/${base}.dict)
  set(dict -dict=${SOURCE}/tests/fuzz/${base}.dict)
endif()
# libFuzzer's per-input log goes to a file; on failure its tail (the report
# and the crashing input's name) is printed.
set(log ${WORK}/${target}.log)
execute_process(
  COMMAND ${FUZZER} -seed=${SEED} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -max_len=8192 -print_final_stats=1 ${dict} -artifact_prefix=${WORK}/${target}-
          ${work} ${SOURCE}/tests/fuzz/corpus/${base}
  RESULT_VARIABLE rc
  OUTPUT_FILE ${log}
  ERROR_FILE ${log})
if(rc)
  execute_process(COMMAND tail -n 60 ${log})
  message(FATAL_ERROR "${target} found a failure (exit ${rc}); the input is in ${WORK}/")
endif()
file(STRINGS ${log} stats REGEX "^stat::number_of_executed_units")
message(STATUS "${target} ran clean for ${SECONDS} s (seed ${SEED}): ${stats}")
