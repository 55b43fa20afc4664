# Checks vcpkg.json and the overlay port (ports/docshard) against the package
# they describe: name and version equal the project's; the dependencies are
# exactly what building the library uses, derived here from the sources and
# the CMake files (each Boost library docshard includes -> boost-<library>,
# and every package of a top-level find_package(... REQUIRED) in
# CMakeLists.txt -> its vcpkg port; Threads has none); every find_dependency
# of docshardConfig.cmake.in (what consumers need) is one of those packages;
# the port fixes up the config directory the install uses.
# Usage: cmake -DSOURCE_DIR=<repo> -DVERSION=<project version> -P vcpkg_manifest_check.cmake
cmake_minimum_required(VERSION 3.25)

# What docshard needs, from its sources.
set(expected "")
file(GLOB_RECURSE sources "${SOURCE_DIR}/include/*.hpp" "${SOURCE_DIR}/src/*.hpp"
     "${SOURCE_DIR}/src/*.cpp" "${SOURCE_DIR}/resolvers/*.hpp" "${SOURCE_DIR}/resolvers/*.cpp")
foreach(f IN LISTS sources)
  file(STRINGS "${f}" lines REGEX "^#include <boost/[a-z_0-9]+")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include <boost/([a-z_0-9]+).*" "boost-\\1" lib "${line}")
    string(REPLACE "_" "-" lib "${lib}")
    list(APPEND expected "${lib}")
  endforeach()
endforeach()
# Built with: the top-level find_package calls (RapidJSON among them: private
# and header-only, so consumers do not find it).
file(STRINGS "${SOURCE_DIR}/CMakeLists.txt" builds REGEX "^find_package\\([A-Za-z0-9_]+ .*REQUIRED")
set(built_with "")
foreach(line IN LISTS builds)
  string(REGEX REPLACE "^find_package\\(([A-Za-z0-9_]+).*" "\\1" pkg "${line}")
  list(APPEND built_with ${pkg})
endforeach()
# Consumers' dependencies must be among them.
file(STRINGS "${SOURCE_DIR}/cmake/docshardConfig.cmake.in" consumer_deps REGEX "^find_dependency\\(")
foreach(line IN LISTS consumer_deps)
  string(REGEX REPLACE "^find_dependency\\(([A-Za-z0-9_]+).*" "\\1" pkg "${line}")
  if(NOT pkg IN_LIST built_with)
    message(FATAL_ERROR "docshardConfig.cmake.in finds ${pkg}, which CMakeLists.txt does not build with")
  endif()
endforeach()
set(port_of_OpenSSL openssl)
set(port_of_RapidJSON rapidjson)
set(port_of_Threads "")
set(port_of_Boost "")  # the Boost libraries come from the includes above
foreach(pkg IN LISTS built_with)
  if(NOT DEFINED port_of_${pkg})
    message(FATAL_ERROR "CMakeLists.txt builds with ${pkg}: say which vcpkg port provides it (this check and vcpkg.json)")
  endif()
  list(APPEND expected ${port_of_${pkg}})
endforeach()
list(REMOVE_DUPLICATES expected)
list(SORT expected)

function(check_manifest path host_ports)
  file(READ "${path}" json)
  string(JSON name GET "${json}" name)
  string(JSON version GET "${json}" version-semver)
  if(NOT name STREQUAL "docshard")
    message(FATAL_ERROR "${path}: name is '${name}', not docshard")
  endif()
  if(NOT version STREQUAL VERSION)
    message(FATAL_ERROR "${path}: version ${version}, the project is ${VERSION}")
  endif()
  string(JSON n LENGTH "${json}" dependencies)
  set(found "")
  set(host "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON type TYPE "${json}" dependencies ${i})
    if(type STREQUAL "STRING")
      string(JSON dep GET "${json}" dependencies ${i})
      list(APPEND found "${dep}")
    else()
      string(JSON dep GET "${json}" dependencies ${i} name)
      string(JSON is_host ERROR_VARIABLE no_host GET "${json}" dependencies ${i} host)
      if(is_host)
        list(APPEND host "${dep}")
      else()
        list(APPEND found "${dep}")
      endif()
    endif()
  endforeach()
  list(SORT found)
  list(SORT host)
  if(NOT found STREQUAL expected)
    message(FATAL_ERROR "${path}: dependencies '${found}', docshard uses '${expected}'")
  endif()
  if(NOT host STREQUAL host_ports)
    message(FATAL_ERROR "${path}: host dependencies '${host}', expected '${host_ports}'")
  endif()
endfunction()

check_manifest("${SOURCE_DIR}/vcpkg.json" "")
check_manifest("${SOURCE_DIR}/ports/docshard/vcpkg.json" "vcpkg-cmake;vcpkg-cmake-config")

# The port fixes up the directory CMakeLists.txt installs the config into.
file(READ "${SOURCE_DIR}/ports/docshard/portfile.cmake" portfile)
file(READ "${SOURCE_DIR}/CMakeLists.txt" lists)
string(REGEX MATCH "vcpkg_cmake_config_fixup\\(CONFIG_PATH ([^)]+)\\)" _ "${portfile}")
set(fixup "${CMAKE_MATCH_1}")
if(NOT fixup STREQUAL "lib/cmake/docshard"
   OR NOT lists MATCHES "DESTINATION \\\${CMAKE_INSTALL_LIBDIR}/cmake/docshard")
  message(FATAL_ERROR "portfile fixes up '${fixup}'; CMakeLists.txt must install the config to \${CMAKE_INSTALL_LIBDIR}/cmake/docshard (lib on vcpkg)")
endif()
message(STATUS "vcpkg manifests agree with the package: ${expected}")
