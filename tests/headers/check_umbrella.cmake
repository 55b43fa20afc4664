# cmake -DUMBRELLA=<docshard.hpp> -DHEADERS=<list of docshard/...hpp> -P check_umbrella.cmake
# Fails naming every public header the umbrella header does not include.
# The list comes from a glob of include/docshard at configure time, so a new
# header is checked as soon as it exists.
cmake_minimum_required(VERSION 3.25)
file(STRINGS ${UMBRELLA} lines REGEX "^[ \t]*#[ \t]*include")
set(included)
foreach(line IN LISTS lines)
  if(line MATCHES "[<\"](docshard/[^>\"]+)[>\"]")
    list(APPEND included ${CMAKE_MATCH_1})
  endif()
endforeach()
set(missing)
foreach(h IN LISTS HEADERS)
  if(NOT h STREQUAL "docshard/docshard.hpp" AND NOT h IN_LIST included)
    list(APPEND missing ${h})
  endif()
endforeach()
list(LENGTH HEADERS total)
if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "docshard/docshard.hpp does not include these public headers:\n  ${text}")
endif()
message("docshard/docshard.hpp includes all ${total} public headers (itself excluded)")
