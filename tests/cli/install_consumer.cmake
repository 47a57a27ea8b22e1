# Installs egret from EGRET_BINARY_DIR into WORK_DIR/prefix and checks the
# installed tree: its headers are PUBLIC_HEADERS (comma-separated paths under
# include/) and the egret headers they include, transitively, nothing more and
# nothing missing. Then, with -DCHECK_HEADERS=ON, compiles every installed
# header on its own against it; otherwise configures, builds and runs
# examples/consumer against it (checking what it prints) and runs the
# installed egret CLI on the bundled example.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/EgretHeaderClosure.cmake)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run("cmake --install" ${CMAKE_COMMAND} --install ${EGRET_BINARY_DIR} --prefix ${prefix})

include(GNUInstallDirs)
foreach(f ${CMAKE_INSTALL_BINDIR}/egret ${CMAKE_INSTALL_LIBDIR}/libegret.a
          ${CMAKE_INSTALL_LIBDIR}/cmake/egret/egretConfig.cmake
          ${CMAKE_INSTALL_LIBDIR}/cmake/egret/egretTargets.cmake
          include/egret/api/egret.h include/egret/graph/graph.h
          include/egret/support/diagnostic.h ${CMAKE_INSTALL_DATADIR}/egret/rules/hvx_ops.rules)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_consumer: ${f} is not installed")
  endif()
endforeach()
# The closure of the public headers over the installed tree (an egret include
# of an installed header that is not installed is an error), which must be
# all that is installed.
string(REPLACE "," ";" public "${PUBLIC_HEADERS}")
if(NOT public)
  message(FATAL_ERROR "install_consumer: no PUBLIC_HEADERS given")
endif()
foreach(h IN LISTS public)
  if(NOT EXISTS ${prefix}/include/${h})
    message(FATAL_ERROR "install_consumer: public header ${h} is not installed")
  endif()
endforeach()
egret_header_closure(reachable ${prefix}/include ${public})
file(GLOB_RECURSE installed RELATIVE ${prefix}/include ${prefix}/include/*)
list(REMOVE_ITEM installed ${reachable})
if(installed)
  message(FATAL_ERROR "install_consumer: installed headers that are neither public nor "
                      "included by a public header: ${installed}")
endif()

# A sanitizer build's libegret.a carries -fsanitize in its link interface;
# compile against it with the same flags so that both sides agree on
# container annotations.
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()

if(CHECK_HEADERS)
# Every installed header compiles on its own against the installed tree (no
# header reaches for a private one or a dependency the package does not find).
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/egret/*.h)
set(hdir ${WORK_DIR}/headers)
file(MAKE_DIRECTORY ${hdir})
set(sources "")
foreach(h IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${h}" id)
  file(WRITE ${hdir}/${id}.cc "#include \"${h}\"\n#include \"${h}\"  // include guard\n")
  list(APPEND sources ${id}.cc)
endforeach()
file(WRITE ${hdir}/main.cc "int main() { return 0; }\n")
file(WRITE ${hdir}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(egret_headers LANGUAGES CXX)
find_package(egret REQUIRED)
add_executable(headers main.cc ${sources})
target_link_libraries(headers PRIVATE egret::egret)
")
run("configuring the header check" ${CMAKE_COMMAND} -S ${hdir} -B ${hdir}/build -G Ninja
    "-DCMAKE_CXX_FLAGS=${flags}" -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("compiling every installed header on its own" ${CMAKE_COMMAND} --build ${hdir}/build -- -k 0)

else()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${EGRET_SOURCE_DIR}/examples/consumer
    "-DCMAKE_CXX_FLAGS=${flags}"
    -B ${WORK_DIR}/build -G Ninja -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
# The consumer must have found the installed package, not the build tree.
file(STRINGS ${WORK_DIR}/build/CMakeCache.txt egret_dir REGEX "^egret_DIR:")
if(NOT egret_dir MATCHES "${prefix}")
  message(FATAL_ERROR "install_consumer: found egret outside the prefix: ${egret_dir}")
endif()
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("running the consumer" ${WORK_DIR}/build/egret_consumer)
set(want "graph consumer: 2 rules, cost 32960 -> 32768 (dag, Saturated)
  op Batchnorm: 1 -> 0
  op Conv2d: 1 -> 1
  op Relu: 1 -> 0
  rule EARLY@<consumer rules>:2: 1 applied
  rule LATE@<consumer rules>:11: 1 applied
  fused_relu_supported called: yes
")
if(NOT run_output STREQUAL want)
  message(FATAL_ERROR "install_consumer: consumer printed\n${run_output}\nexpected\n${want}")
endif()
run("the installed egret CLI" ${prefix}/${CMAKE_INSTALL_BINDIR}/egret info
    ${EGRET_SOURCE_DIR}/examples/residual_block.json)
if(NOT run_output MATCHES "nodes: 15\n")
  message(FATAL_ERROR "install_consumer: unexpected egret info output:\n${run_output}")
endif()
endif()

file(REMOVE_RECURSE ${WORK_DIR})
message(STATUS "install check: ok")
