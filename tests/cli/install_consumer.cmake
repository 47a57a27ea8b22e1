# Installs egret from EGRET_BINARY_DIR into WORK_DIR/prefix, checks the
# installed tree, then configures, builds and runs examples/consumer against
# it, and runs the installed egret CLI on the bundled example.
cmake_minimum_required(VERSION 3.25)

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
          include/egret/graph/graph.h include/egret/graph/graph_json.h
          include/egret/support/diagnostic.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install_consumer: ${f} is not installed")
  endif()
endforeach()
file(GLOB_RECURSE internal ${prefix}/include/*_internal.h)
if(internal)
  message(FATAL_ERROR "install_consumer: private headers installed: ${internal}")
endif()

# A sanitizer build's libegret.a carries -fsanitize in its link interface;
# compile the consumer with it too so that both sides agree on container
# annotations.
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
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
set(want "graph consumer: 4 nodes, 1 input, 1 output QUInt8[1,4,4,8](z=128,s=0.05)\n")
if(NOT run_output STREQUAL want)
  message(FATAL_ERROR "install_consumer: consumer printed '${run_output}', expected '${want}'")
endif()
run("the installed egret CLI" ${prefix}/${CMAKE_INSTALL_BINDIR}/egret info
    ${EGRET_SOURCE_DIR}/examples/residual_block.json)
if(NOT run_output MATCHES "nodes: 15\n")
  message(FATAL_ERROR "install_consumer: unexpected egret info output:\n${run_output}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
message(STATUS "install_consumer: ok")
