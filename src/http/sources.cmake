# HTTPS transport. http_transport.cpp is the only Beast translation unit.
target_sources(docshard PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/endpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_date.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_headers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_transport.cpp)
