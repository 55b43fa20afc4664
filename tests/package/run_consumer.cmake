# cmake -DPARAMS=<file> -DMODE=<mode> [-DCONFIG=<cfg>] -P run_consumer.cmake
# Builds and runs tests/package/consumer the way a downstream project would:
#   install     cmake --install this build into a scratch prefix, then
#               find_package(docshard CONFIG) against that prefix only
#   pkgconfig   the same install, consumer compiled by hand with the flags
#               `pkg-config --cflags --libs docshard` prints (no CMake package)
#   buildtree   find_package(docshard CONFIG) with docshard_DIR = this build tree
#   subdirectory  add_subdirectory(<docshard source>) inside the consumer, as a
#               shared library; every sample links against it too, and its
#               dynamic symbols are checked (public API exported, internals not)
# Every mode checks the version header against the library and the package.
cmake_minimum_required(VERSION 3.25)
include(${PARAMS})
if(NOT MODE)
  set(MODE install)
endif()

function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test (${MODE}): ${step} failed (${rc})\n--- command: ${ARGN}\n--- stdout:\n${out}\n--- stderr:\n${err}")
  endif()
  set(LAST_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

set(work ${WORK_DIR}/${MODE})
set(prefix ${work}/prefix)
set(consumer_build ${work}/consumer-build)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()

# Where the consumer may look for docshard's own dependencies: what this build
# used, never docshard's source or build tree (except in buildtree mode).
set(prefix_path)
if(DEFINED OUTER_CMAKE_PREFIX_PATH)
  list(APPEND prefix_path ${OUTER_CMAKE_PREFIX_PATH})
endif()
set(dependency_args)
foreach(var Boost_DIR RapidJSON_DIR OPENSSL_ROOT_DIR CMAKE_TOOLCHAIN_FILE)
  if(DEFINED OUTER_${var})
    list(APPEND dependency_args "-D${var}=${OUTER_${var}}")
  endif()
endforeach()

if(MODE STREQUAL "install" OR MODE STREQUAL "pkgconfig")
  run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})
  # What a consumer relies on must be there.
  file(GLOB_RECURSE package_config ${prefix}/*/docshardConfig.cmake)
  file(GLOB_RECURSE package_targets ${prefix}/*/docshardTargets.cmake)
  file(GLOB_RECURSE package_version ${prefix}/*/docshardConfigVersion.cmake)
  file(GLOB_RECURSE package_pc ${prefix}/*/docshard.pc)
  foreach(f package_config package_targets package_version package_pc)
    if(NOT ${f})
      message(FATAL_ERROR "package test: the install has no ${f} file under ${prefix}")
    endif()
  endforeach()
  foreach(h docshard.hpp version.hpp)
    if(NOT EXISTS ${prefix}/include/docshard/${h})
      message(FATAL_ERROR "package test: the install has no include/docshard/${h}")
    endif()
  endforeach()
endif()

if(MODE STREQUAL "pkgconfig")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  get_filename_component(pc_dir ${package_pc} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  run("pkg-config --modversion" ${PKG_CONFIG} --modversion docshard)
  string(STRIP "${LAST_OUTPUT}" pc_version)
  run("pkg-config --cflags" ${PKG_CONFIG} --cflags docshard)
  separate_arguments(cflags UNIX_COMMAND "${LAST_OUTPUT}")
  run("pkg-config --libs" ${PKG_CONFIG} --libs --static docshard)
  separate_arguments(libs UNIX_COMMAND "${LAST_OUTPUT}")
  file(MAKE_DIRECTORY ${consumer_build})
  set(exe ${consumer_build}/docshard_consumer)
  run("compile with pkg-config flags" ${CXX_COMPILER} -std=c++20 ${cflags}
      "-DEXPECTED_VERSION=\"${pc_version}\"" ${CONSUMER_SOURCE_DIR}/main.cpp -o ${exe} ${libs})
else()
  set(configure_args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${dependency_args})
  if(MODE STREQUAL "install")
    list(PREPEND prefix_path ${prefix})
    list(APPEND configure_args -S ${CONSUMER_SOURCE_DIR} -DDOCSHARD_EXPECTED_PREFIX=${prefix})
  elseif(MODE STREQUAL "buildtree")
    list(APPEND configure_args -S ${CONSUMER_SOURCE_DIR} -Ddocshard_DIR=${BUILD_DIR}
         -DDOCSHARD_EXPECTED_PREFIX=${BUILD_DIR})
  elseif(MODE STREQUAL "subdirectory")
    # The whole library compiles again here: unoptimised, which takes a third
    # of the time and still proves the integration (targets, includes, flags).
    list(APPEND configure_args -S ${SUBDIRECTORY_CONSUMER_DIR} -DDOCSHARD_SOURCE_DIR=${SOURCE_DIR}
         -DCMAKE_BUILD_TYPE=)
  else()
    message(FATAL_ERROR "package test: unknown MODE '${MODE}'")
  endif()
  string(REPLACE ";" "\\;" prefix_path_arg "${prefix_path}")
  list(APPEND configure_args -B ${consumer_build} "-DCMAKE_PREFIX_PATH=${prefix_path_arg}")
  run("consumer configure" ${CMAKE_COMMAND} ${configure_args})
  run("consumer build" ${CMAKE_COMMAND} --build ${consumer_build} --config Release --parallel 2)
  if(EXISTS ${consumer_build}/Release/docshard_consumer)
    set(exe ${consumer_build}/Release/docshard_consumer)
  else()
    set(exe ${consumer_build}/docshard_consumer)
  endif()
endif()

if(MODE STREQUAL "subdirectory")
  # The shared library: versioned soname, the public API exported, private
  # symbols (src/ only) hidden.
  file(GLOB_RECURSE shared_libs ${consumer_build}/libdocshard.so.*)
  if(NOT shared_libs)
    message(FATAL_ERROR "package test (subdirectory): no libdocshard.so.* was built")
  endif()
  list(GET shared_libs 0 shared_lib)
  find_program(NM nm REQUIRED)
  find_program(OBJDUMP objdump REQUIRED)
  run("objdump -p" ${OBJDUMP} -p ${shared_lib})
  if(NOT LAST_OUTPUT MATCHES "SONAME +libdocshard\\.so\\.[0-9]+\\.[0-9]+")
    message(FATAL_ERROR "package test (subdirectory): ${shared_lib} has no versioned SONAME:\n${LAST_OUTPUT}")
  endif()
  run("nm -D" ${NM} -D -C --defined-only ${shared_lib})
  set(exports "${LAST_OUTPUT}")
  foreach(public "docshard::HashPartitionResolver::FromConfig" "docshard::PartitionedClient::"
                 "typeinfo for docshard::RequestFailedError" "docshard::Version()")
    string(FIND "${exports}" "${public}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "package test (subdirectory): ${shared_lib} does not export ${public}")
    endif()
  endforeach()
  # Declared only in private headers under src/.
  foreach(private "docshard::detail::ExcludeIdentities" "docshard::detail::RunMerge" "docshard::detail::QueryPlanCache::")
    string(FIND "${exports}" "${private}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "package test (subdirectory): ${shared_lib} exports the private ${private}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n[0-9a-f]+ [TtWwVvDdBbRr] " exported_lines "${exports}")
  list(LENGTH exported_lines exported_count)
  message("libdocshard.so exports ${exported_count} symbols")
endif()

run("consumer run" ${exe})
message("${LAST_OUTPUT}")
if(NOT LAST_OUTPUT MATCHES "docshard consumer: OK")
  message(FATAL_ERROR "package test (${MODE}): the consumer did not report OK")
endif()
