# HTTPS transport. http_transport.cpp is the only Beast networking translation
# unit; response_parser.cpp holds the parser settings it shares with the fuzz seam.
target_sources(docshard_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/endpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_date.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_headers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_transport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/response_parser.cpp)
