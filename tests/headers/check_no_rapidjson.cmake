# cmake -DINCLUDE_DIR=<include> -DHEADERS=<list of docshard/...hpp> -DALLOWED=<list> -P check_no_rapidjson.cmake
# Users are not tied to RapidJSON: no public header but the optional
# docshard/rapidjson_interop.hpp includes <rapidjson/...> or names
# `rapidjson::`. ALLOWED lists the headers that still do until their API is
# ported; it may only shrink: a listed header that no longer names RapidJSON
# fails too, so that its entry is removed.
cmake_minimum_required(VERSION 3.25)
set(offending)
set(stale)
foreach(h IN LISTS HEADERS)
  if(h STREQUAL "docshard/rapidjson_interop.hpp")
    continue()
  endif()
  file(READ ${INCLUDE_DIR}/${h} text)
  string(REGEX MATCH "#[ \t]*include[ \t]*[<\"]rapidjson/|rapidjson::" found "${text}")
  if(found AND NOT h IN_LIST ALLOWED)
    list(APPEND offending ${h})
  elseif(NOT found AND h IN_LIST ALLOWED)
    list(APPEND stale ${h})
  endif()
endforeach()
set(errors "")
if(offending)
  list(JOIN offending "\n  " text)
  string(APPEND errors "these public headers name RapidJSON (use docshard::JsonView/JsonValue/JsonWriter, or "
         "docshard/rapidjson_interop.hpp for the optional bridge):\n  ${text}\n")
endif()
if(stale)
  list(JOIN stale "\n  " text)
  string(APPEND errors "these headers no longer name RapidJSON: remove them from the allowed list in "
         "tests/headers/CMakeLists.txt:\n  ${text}\n")
endif()
if(errors)
  message(FATAL_ERROR "${errors}")
endif()
list(LENGTH ALLOWED left)
if(left EQUAL 0)
  message("no public header names RapidJSON but docshard/rapidjson_interop.hpp")
else()
  message("no public header names RapidJSON but docshard/rapidjson_interop.hpp and ${left} not yet ported")
endif()
