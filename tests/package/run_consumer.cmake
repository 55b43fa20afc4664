# cmake -DPARAMS=<file> [-DCONFIG=<cfg>] -P run_consumer.cmake
# 1. cmake --install the build tree into WORK_DIR/prefix
# 2. configure and build tests/package/consumer against that prefix only
# 3. run the consumer
cmake_minimum_required(VERSION 3.25)
include(${PARAMS})

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${step} failed (${rc})\n--- command: ${ARGN}\n--- stdout:\n${out}\n--- stderr:\n${err}")
  endif()
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

# What a consumer relies on must be there.
file(GLOB_RECURSE package_config ${prefix}/*/docshardConfig.cmake)
file(GLOB_RECURSE package_targets ${prefix}/*/docshardTargets.cmake)
file(GLOB_RECURSE package_version ${prefix}/*/docshardConfigVersion.cmake)
foreach(f package_config package_targets package_version)
  if(NOT ${f})
    message(FATAL_ERROR "package test: the install has no ${f} file under ${prefix}")
  endif()
endforeach()
if(NOT EXISTS ${prefix}/include/docshard/docshard.hpp)
  message(FATAL_ERROR "package test: the install has no include/docshard/docshard.hpp")
endif()

# The consumer sees the install prefix (first) and whatever this build used
# to find Boost/OpenSSL/RapidJSON; never the source or build tree of docshard.
set(prefix_path ${prefix})
if(DEFINED OUTER_CMAKE_PREFIX_PATH)
  list(APPEND prefix_path ${OUTER_CMAKE_PREFIX_PATH})
endif()
string(REPLACE ";" "\\;" prefix_path_arg "${prefix_path}")
set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${prefix_path}" -DDOCSHARD_EXPECTED_PREFIX=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
foreach(var Boost_DIR RapidJSON_DIR OPENSSL_ROOT_DIR CMAKE_TOOLCHAIN_FILE)
  if(DEFINED OUTER_${var})
    list(APPEND configure_args "-D${var}=${OUTER_${var}}")
  endif()
endforeach()
run("consumer configure" ${CMAKE_COMMAND} ${configure_args})
run("consumer build" ${CMAKE_COMMAND} --build ${consumer_build} --config Release)

if(EXISTS ${consumer_build}/Release/docshard_consumer)
  set(exe ${consumer_build}/Release/docshard_consumer)
else()
  set(exe ${consumer_build}/docshard_consumer)
endif()
run("consumer run" ${exe})
message("${LAST_OUTPUT}")
if(NOT LAST_OUTPUT MATCHES "docshard consumer: OK")
  message(FATAL_ERROR "package test: the consumer did not report OK")
endif()
