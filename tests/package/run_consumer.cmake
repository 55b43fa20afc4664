# cmake -DPARAMS=<file> -DMODE=<mode> [-DCONFIG=<cfg>] -P run_consumer.cmake
# Builds and runs tests/package/consumer the way a downstream project would:
#   install     cmake --install this build into a scratch prefix, then
#               find_package(docshard CONFIG) against that prefix only
#   pkgconfig   the same install, consumer compiled by hand with the flags
#               `pkg-config --cflags --libs docshard` prints (no CMake package)
#   buildtree   find_package(docshard CONFIG) with docshard_DIR = this build tree
#   subdirectory  add_subdirectory(<docshard source>) inside the consumer, as a
#               shared library; every sample links against it too, and its
#               dynamic symbols are checked (public API exported, internals not).
#               Then that shared build is installed (cmake --install of the
#               subdirectory) and the install and pkgconfig consumers above are
#               built against it too and run, each checked to load
#               libdocshard.so: the static library is covered by the first
#               three modes, the shared one here, and the library compiles
#               only twice (the main build and this one).
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

# cmake --install BUILD into PREFIX and check what a consumer relies on is
# there; extra arguments go to cmake --install (--config). Sets PACKAGE_PC
# (the installed docshard.pc).
function(install_package build prefix)
  run("cmake --install ${build}" ${CMAKE_COMMAND} --install ${build} --prefix ${prefix} ${ARGN})
  file(GLOB_RECURSE package_config ${prefix}/*/docshardConfig.cmake)
  file(GLOB_RECURSE package_targets ${prefix}/*/docshardTargets.cmake)
  file(GLOB_RECURSE package_version ${prefix}/*/docshardConfigVersion.cmake)
  file(GLOB_RECURSE package_pc ${prefix}/*/docshard.pc)
  foreach(f package_config package_targets package_version package_pc)
    if(NOT ${f})
      message(FATAL_ERROR "package test (${MODE}): the install has no ${f} file under ${prefix}")
    endif()
  endforeach()
  foreach(h docshard.hpp version.hpp core/partition_key.hpp client/partitioned_client.hpp)
    if(NOT EXISTS ${prefix}/include/docshard/${h})
      message(FATAL_ERROR "package test (${MODE}): the install has no include/docshard/${h}")
    endif()
  endforeach()
  # RapidJSON is private: the package neither finds it nor passes it on (only
  # users of the optional docshard/rapidjson_interop.hpp bring it).
  file(GLOB_RECURSE package_cmake_files ${prefix}/*/docshard*.cmake)
  foreach(f IN LISTS package_cmake_files package_pc)
    file(STRINGS ${f} mentions REGEX "[Rr][Aa][Pp][Ii][Dd][Jj][Ss][Oo][Nn]")
    list(FILTER mentions EXCLUDE REGEX "^#")  # comments may say why it is not there
    if(mentions)
      message(FATAL_ERROR "package test (${MODE}): ${f} names RapidJSON, a private dependency:\n${mentions}")
    endif()
  endforeach()
  set(PACKAGE_PC ${package_pc} PARENT_SCOPE)
endfunction()

# The consumer compiled by hand with pkg-config's flags for the package at
# PC_FILE; STATIC adds --static (a static libdocshard needs its dependencies'
# libraries on the link line). Sets CONSUMER_EXE.
function(build_pkgconfig_consumer pc_file out_dir static)
  find_program(PKG_CONFIG pkg-config REQUIRED)
  get_filename_component(pc_dir ${pc_file} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
  run("pkg-config --modversion" ${PKG_CONFIG} --modversion docshard)
  string(STRIP "${LAST_OUTPUT}" pc_version)
  run("pkg-config --cflags" ${PKG_CONFIG} --cflags docshard)
  separate_arguments(cflags UNIX_COMMAND "${LAST_OUTPUT}")
  set(static_arg)
  if(static)
    set(static_arg --static)
  endif()
  run("pkg-config --libs" ${PKG_CONFIG} --libs ${static_arg} docshard)
  separate_arguments(libs UNIX_COMMAND "${LAST_OUTPUT}")
  file(MAKE_DIRECTORY ${out_dir})
  set(exe ${out_dir}/docshard_consumer)
  run("compile with pkg-config flags" ${CXX_COMPILER} -std=c++20 ${cflags}
      "-DEXPECTED_VERSION=\"${pc_version}\"" ${CONSUMER_SOURCE_DIR}/main.cpp -o ${exe} ${libs})
  set(CONSUMER_EXE ${exe} PARENT_SCOPE)
endfunction()

# Configures and builds a CMake consumer project. Sets CONSUMER_EXE.
function(build_cmake_consumer out_dir search_path)
  set(configure_args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${dependency_args} ${ARGN})
  string(REPLACE ";" "\\;" search_path_arg "${search_path}")
  list(APPEND configure_args -B ${out_dir} "-DCMAKE_PREFIX_PATH=${search_path_arg}")
  run("consumer configure" ${CMAKE_COMMAND} ${configure_args})
  run("consumer build" ${CMAKE_COMMAND} --build ${out_dir} --config Release --parallel 2)
  if(EXISTS ${out_dir}/Release/docshard_consumer)
    set(CONSUMER_EXE ${out_dir}/Release/docshard_consumer PARENT_SCOPE)
  else()
    set(CONSUMER_EXE ${out_dir}/docshard_consumer PARENT_SCOPE)
  endif()
endfunction()

# Runs a consumer; it must print "docshard consumer: OK". Extra arguments are
# environment settings (NAME=VALUE).
function(run_consumer what exe)
  run("${what}: consumer run" ${CMAKE_COMMAND} -E env ${ARGN} ${exe})
  message("${what}: ${LAST_OUTPUT}")
  if(NOT LAST_OUTPUT MATCHES "docshard consumer: OK")
    message(FATAL_ERROR "package test (${MODE}): the ${what} consumer did not report OK")
  endif()
endfunction()

# The consumer EXE must load libdocshard.so (it is linked against the shared
# library, not a static copy): readelf lists it as NEEDED.
function(check_links_shared what exe)
  find_program(READELF readelf REQUIRED)
  run("readelf -d" ${READELF} -d ${exe})
  if(NOT LAST_OUTPUT MATCHES "NEEDED[^\n]*\\[libdocshard\\.so\\.[0-9]+\\.[0-9]+\\]")
    message(FATAL_ERROR "package test (${MODE}): the ${what} consumer does not load libdocshard.so:\n${LAST_OUTPUT}")
  endif()
  message("${what}: links libdocshard.so")
endfunction()

# ... and a consumer of the static library must not.
function(check_links_static what exe)
  find_program(READELF readelf REQUIRED)
  run("readelf -d" ${READELF} -d ${exe})
  if(LAST_OUTPUT MATCHES "libdocshard\\.so")
    message(FATAL_ERROR "package test (${MODE}): the ${what} consumer loads libdocshard.so:\n${LAST_OUTPUT}")
  endif()
  message("${what}: docshard linked statically")
endfunction()

# The install, pkgconfig and buildtree modes take this build's library:
# static unless it was configured with BUILD_SHARED_LIBS=ON.
if(MAIN_BUILD_SHARED)
  set(main_kind shared)
else()
  set(main_kind static)
endif()
function(check_main_build_link what exe)
  if(MAIN_BUILD_SHARED)
    check_links_shared("${what}" ${exe})
  else()
    check_links_static("${what}" ${exe})
  endif()
endfunction()

if(MODE STREQUAL "install")
  set(prefix ${work}/prefix)
  install_package(${BUILD_DIR} ${prefix} ${config_args})
  set(search_path ${prefix} ${prefix_path})
  build_cmake_consumer(${work}/consumer-build "${search_path}" -S ${CONSUMER_SOURCE_DIR}
                       -DDOCSHARD_EXPECTED_PREFIX=${prefix})
  check_main_build_link("install (${main_kind})" ${CONSUMER_EXE})
  run_consumer("install (${main_kind})" ${CONSUMER_EXE})
elseif(MODE STREQUAL "pkgconfig")
  set(prefix ${work}/prefix)
  install_package(${BUILD_DIR} ${prefix} ${config_args})
  if(MAIN_BUILD_SHARED)
    build_pkgconfig_consumer(${PACKAGE_PC} ${work}/consumer-build FALSE)
  else()
    build_pkgconfig_consumer(${PACKAGE_PC} ${work}/consumer-build TRUE)
  endif()
  check_main_build_link("pkgconfig (${main_kind})" ${CONSUMER_EXE})
  run_consumer("pkgconfig (${main_kind})" ${CONSUMER_EXE})
elseif(MODE STREQUAL "buildtree")
  build_cmake_consumer(${work}/consumer-build "${prefix_path}" -S ${CONSUMER_SOURCE_DIR}
                       -Ddocshard_DIR=${BUILD_DIR} -DDOCSHARD_EXPECTED_PREFIX=${BUILD_DIR})
  check_main_build_link("buildtree (${main_kind})" ${CONSUMER_EXE})
  run_consumer("buildtree (${main_kind})" ${CONSUMER_EXE})
elseif(MODE STREQUAL "subdirectory")
  # The whole library compiles again here: unoptimised, which takes a third
  # of the time and still proves the integration (targets, includes, flags).
  set(consumer_build ${work}/consumer-build)
  build_cmake_consumer(${consumer_build} "${prefix_path}" -S ${SUBDIRECTORY_CONSUMER_DIR}
                       -DDOCSHARD_SOURCE_DIR=${SOURCE_DIR} -DCMAKE_BUILD_TYPE=)
  set(subdirectory_exe ${CONSUMER_EXE})

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
  foreach(public "docshard::resolvers::HashPartitionResolver::FromConfig" "docshard::client::PartitionedClient::"
                 "typeinfo for docshard::cosmos::RequestFailedError" "docshard::Version()")
    string(FIND "${exports}" "${public}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "package test (subdirectory): ${shared_lib} does not export ${public}")
    endif()
  endforeach()
  # Declared only in private headers under src/.
  foreach(private "docshard::client::detail::ExcludeIdentities" "docshard::client::detail::RunMerge"
                  "docshard::client::detail::QueryPlanCache::")
    string(FIND "${exports}" "${private}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "package test (subdirectory): ${shared_lib} exports the private ${private}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n[0-9a-f]+ [TtWwVvDdBbRr] " exported_lines "${exports}")
  list(LENGTH exported_lines exported_count)
  message("libdocshard.so exports ${exported_count} symbols")

  check_links_shared("subdirectory (shared)" ${subdirectory_exe})
  run_consumer("subdirectory (shared)" ${subdirectory_exe})

  # The same shared build, installed: find_package and pkg-config consumers
  # of a shared libdocshard (the install and pkgconfig modes cover the static
  # one). Nothing of docshard compiles again; only the consumer does.
  set(prefix ${work}/shared-prefix)
  # No --config: that build has no build type, and its export's per-config
  # file (docshardTargets-noconfig.cmake, the library's location) installs
  # only for the empty configuration.
  install_package(${consumer_build}/docshard ${prefix})
  file(GLOB installed_so ${prefix}/*/libdocshard.so.*)
  file(GLOB installed_a ${prefix}/*/libdocshard.a)
  if(NOT installed_so OR installed_a)
    message(FATAL_ERROR "package test (subdirectory): the shared install should hold libdocshard.so.* and no .a "
                        "(so: '${installed_so}', a: '${installed_a}')")
  endif()
  list(GET installed_so 0 installed_so)
  get_filename_component(installed_libdir ${installed_so} DIRECTORY)

  set(search_path ${prefix} ${prefix_path})
  build_cmake_consumer(${work}/shared-install-consumer "${search_path}" -S ${CONSUMER_SOURCE_DIR}
                       -DDOCSHARD_EXPECTED_PREFIX=${prefix})
  check_links_shared("install (shared)" ${CONSUMER_EXE})
  # CMake puts the imported library's directory in the consumer's RUNPATH.
  run_consumer("install (shared)" ${CONSUMER_EXE})

  build_pkgconfig_consumer(${PACKAGE_PC} ${work}/shared-pkgconfig-consumer FALSE)
  check_links_shared("pkgconfig (shared)" ${CONSUMER_EXE})
  # A hand-compiled consumer has no RUNPATH: the loader is told where it is.
  run_consumer("pkgconfig (shared)" ${CONSUMER_EXE} LD_LIBRARY_PATH=${installed_libdir})
else()
  message(FATAL_ERROR "package test: unknown MODE '${MODE}'")
endif()
